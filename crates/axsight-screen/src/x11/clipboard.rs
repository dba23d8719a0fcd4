//! The CLIPBOARD selection: reading the text whoever holds it offers, and
//! holding text of axsight's own, served to every app that pastes it until
//! another client takes the clipboard.
//!
//! Each read runs on a connection of its own, and held text is served by a
//! thread with its own connection and window, so neither waits on the engine's
//! X11 connection nor blocks it. X11 keeps no copy: held text lives as long as
//! the server process (or until another client copies something).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, CreateWindowAux, EventMask, PropMode, Property,
    SelectionNotifyEvent, SelectionRequestEvent, Window, WindowClass, SELECTION_NOTIFY_EVENT,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use super::x11_error;
use crate::screen::clipboard::Clipboard as ScreenClipboard;
use crate::{Error, Result};
use axsight_core::ClipboardText;

/// The most text axsight holds or reads at once.
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// How long the holder of the clipboard gets to hand its text over.
const READ_DEADLINE: Duration = Duration::from_secs(2);
/// How often a read looks for the holder's answer.
const POLL: Duration = Duration::from_millis(5);

/// Text held on the clipboard by axsight, and the window that holds it.
#[derive(Debug, Clone)]
struct Held {
    window: Window,
    text: Arc<String>,
}

/// The clipboard of one display.
#[derive(Debug)]
pub struct Clipboard {
    display: String,
    held: Arc<Mutex<Option<Held>>>,
}

/// The atoms the clipboard protocol needs.
struct Atoms {
    clipboard: Atom,
    utf8: Atom,
    targets: Atom,
    text: Atom,
    incr: Atom,
    property: Atom,
}

impl Atoms {
    fn intern(conn: &RustConnection) -> Result<Atoms> {
        let atom = |name: &str| -> Result<Atom> {
            Ok(conn
                .intern_atom(false, name.as_bytes())
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?
                .atom)
        };
        Ok(Atoms {
            clipboard: atom("CLIPBOARD")?,
            utf8: atom("UTF8_STRING")?,
            targets: atom("TARGETS")?,
            text: atom("TEXT")?,
            incr: atom("INCR")?,
            property: atom("AXSIGHT_CLIPBOARD")?,
        })
    }
}

impl Clipboard {
    /// The clipboard of `display` (`:0`); nothing is connected until used.
    pub fn new(display: &str) -> Clipboard {
        Clipboard {
            display: display.to_string(),
            held: Arc::default(),
        }
    }

    fn connect(&self) -> Result<(RustConnection, Window)> {
        let (conn, screen) = x11rb::connect(Some(&self.display))
            .map_err(|e| Error::X11(format!("cannot open display {}: {e}", self.display)))?;
        let root = conn.setup().roots[screen].root;
        let window = conn.generate_id().map_err(x11_error)?;
        conn.create_window(
            0,
            window,
            root,
            -1,
            -1,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            x11rb::COPY_FROM_PARENT,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .map_err(x11_error)?;
        Ok((conn, window))
    }
}

fn owner_of(conn: &RustConnection, selection: Atom) -> Result<Option<u32>> {
    let owner = conn
        .get_selection_owner(selection)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?
        .owner;
    Ok((owner != x11rb::NONE).then_some(owner))
}

/// Asks the holder for the clipboard as `target` into our window's property,
/// and reads it (incrementally when the holder says INCR).
fn convert(
    conn: &RustConnection,
    window: Window,
    atoms: &Atoms,
    target: Atom,
) -> Result<Option<Vec<u8>>> {
    conn.convert_selection(
        window,
        atoms.clipboard,
        target,
        atoms.property,
        x11rb::CURRENT_TIME,
    )
    .map_err(x11_error)?;
    conn.flush().map_err(x11_error)?;
    let deadline = Instant::now() + READ_DEADLINE;
    let notified = loop {
        match conn.poll_for_event().map_err(x11_error)? {
            Some(Event::SelectionNotify(event)) => break event,
            Some(_) => continue,
            None if Instant::now() >= deadline => {
                return Err(Error::Clipboard(format!(
                    "the app holding the clipboard did not hand it over within {} ms",
                    READ_DEADLINE.as_millis()
                )))
            }
            None => std::thread::sleep(POLL),
        }
    };
    if notified.property == x11rb::NONE {
        return Ok(None);
    }
    let reply = conn
        .get_property(
            true,
            window,
            atoms.property,
            AtomEnum::ANY,
            0,
            (MAX_TEXT_BYTES / 4) as u32,
        )
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?;
    if reply.type_ != atoms.incr {
        return Ok(Some(reply.value));
    }
    // INCR: the holder sends the text in chunks, each announced by a new value
    // of the property, which we delete to ask for the next; an empty one ends it.
    conn.flush().map_err(x11_error)?;
    let mut text = Vec::new();
    let deadline = Instant::now() + READ_DEADLINE;
    loop {
        match conn.poll_for_event().map_err(x11_error)? {
            Some(Event::PropertyNotify(event))
                if event.atom == atoms.property && event.state == Property::NEW_VALUE =>
            {
                let chunk = conn
                    .get_property(true, window, atoms.property, AtomEnum::ANY, 0, u32::MAX / 4)
                    .map_err(x11_error)?
                    .reply()
                    .map_err(x11_error)?;
                if chunk.value.is_empty() {
                    return Ok(Some(text));
                }
                text.extend_from_slice(&chunk.value);
                if text.len() > MAX_TEXT_BYTES {
                    return Err(Error::Clipboard(format!(
                        "the clipboard holds more than {MAX_TEXT_BYTES} bytes"
                    )));
                }
                conn.flush().map_err(x11_error)?;
            }
            Some(_) => continue,
            None if Instant::now() >= deadline => {
                return Err(Error::Clipboard(
                    "the clipboard's text stopped coming".into(),
                ))
            }
            None => std::thread::sleep(POLL),
        }
    }
}

/// Serves `text` to every app that asks for the clipboard, until another client
/// takes it.
fn serve(
    conn: RustConnection,
    window: Window,
    atoms: Atoms,
    text: Arc<String>,
    held: Arc<Mutex<Option<Held>>>,
) {
    while let Ok(event) = conn.wait_for_event() {
        match event {
            Event::SelectionRequest(request) => {
                let _ = answer(&conn, &atoms, &request, &text);
            }
            Event::SelectionClear(clear) if clear.selection == atoms.clipboard => break,
            _ => {}
        }
    }
    let mut held = held.lock().unwrap_or_else(|e| e.into_inner());
    if held.as_ref().is_some_and(|h| h.window == window) {
        *held = None;
    }
}

/// Hands `text` to one app that asked for it, in the form it asked for.
fn answer(
    conn: &RustConnection,
    atoms: &Atoms,
    request: &SelectionRequestEvent,
    text: &str,
) -> Result<()> {
    // Obsolete clients name no property: the target is the property then.
    let property = if request.property == x11rb::NONE {
        request.target
    } else {
        request.property
    };
    let string: Atom = AtomEnum::STRING.into();
    let given = if request.target == atoms.targets {
        let offered = [atoms.targets, atoms.utf8, atoms.text, string];
        conn.change_property32(
            PropMode::REPLACE,
            request.requestor,
            property,
            AtomEnum::ATOM,
            &offered,
        )
        .map_err(x11_error)?;
        property
    } else if [atoms.utf8, atoms.text, string].contains(&request.target) {
        // STRING is Latin-1: what it cannot carry becomes '?'.
        let (kind, bytes) = if request.target == string {
            let latin1 = text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect();
            (string, latin1)
        } else {
            (atoms.utf8, text.as_bytes().to_vec())
        };
        conn.change_property8(PropMode::REPLACE, request.requestor, property, kind, &bytes)
            .map_err(x11_error)?;
        property
    } else {
        x11rb::NONE
    };
    let notify = SelectionNotifyEvent {
        response_type: SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: request.time,
        requestor: request.requestor,
        selection: request.selection,
        target: request.target,
        property: given,
    };
    conn.send_event(false, request.requestor, EventMask::NO_EVENT, notify)
        .map_err(x11_error)?;
    conn.flush().map_err(x11_error)
}

impl ScreenClipboard for Clipboard {
    /// Who holds the clipboard now, if anyone.
    fn owner(&self) -> Result<Option<u32>> {
        let (conn, _) = self.connect()?;
        let atoms = Atoms::intern(&conn)?;
        owner_of(&conn, atoms.clipboard)
    }

    /// The text the clipboard's holder offers; `None` when no one holds it or
    /// it holds no text.
    fn read(&self) -> Result<Option<ClipboardText>> {
        let (conn, window) = self.connect()?;
        let atoms = Atoms::intern(&conn)?;
        let Some(owner) = owner_of(&conn, atoms.clipboard)? else {
            return Ok(None);
        };
        let ours = self.held.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(held) = ours.filter(|held| held.window == owner) {
            return Ok(Some(ClipboardText {
                text: held.text.to_string(),
                owner,
            }));
        }
        if let Some(bytes) = convert(&conn, window, &atoms, atoms.utf8)? {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            return Ok(Some(ClipboardText { text, owner }));
        }
        // STRING is Latin-1.
        if let Some(bytes) = convert(&conn, window, &atoms, AtomEnum::STRING.into())? {
            let text = bytes.iter().map(|&b| char::from(b)).collect();
            return Ok(Some(ClipboardText { text, owner }));
        }
        Ok(None)
    }

    /// Takes the clipboard and holds `text` on it, served to every app that asks
    /// until another client takes the clipboard.
    fn hold(&self, text: String) -> Result<()> {
        if text.len() > MAX_TEXT_BYTES {
            return Err(Error::Clipboard(format!(
                "the text is {} bytes; the clipboard takes at most {MAX_TEXT_BYTES}",
                text.len()
            )));
        }
        let (conn, window) = self.connect()?;
        let atoms = Atoms::intern(&conn)?;
        conn.set_selection_owner(window, atoms.clipboard, x11rb::CURRENT_TIME)
            .map_err(x11_error)?;
        if owner_of(&conn, atoms.clipboard)? != Some(window) {
            return Err(Error::X11(
                "the X server did not give axsight the clipboard".into(),
            ));
        }
        let text = Arc::new(text);
        *self.held.lock().unwrap_or_else(|e| e.into_inner()) = Some(Held {
            window,
            text: text.clone(),
        });
        let held = self.held.clone();
        std::thread::Builder::new()
            .name("axsight-clipboard".into())
            .spawn(move || serve(conn, window, atoms, text, held))
            .map_err(|e| Error::X11(format!("cannot start the clipboard's thread: {e}")))?;
        Ok(())
    }
}
