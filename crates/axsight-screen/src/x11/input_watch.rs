//! Watching a person's clicks, wheel turns and keys on an X display through the
//! RECORD extension: the server copies every key and button event the devices
//! deliver (XTest's included, so a scripted person is seen as a real one) to a
//! second connection, with the pointer's place, the time and the modifiers held.
//!
//! Two connections, as the protocol asks: one to set the recording up and end
//! it, one that the server answers with the recorded events until it ends. Keys
//! become keysyms through the core keyboard map, read again when a key types
//! nothing the kept map knows (a program bound a spare keycode since). It sees
//! what the devices send, not events a client sends to one window
//! (`xdotool --window`), which no app trusts either.

use std::sync::mpsc;
use std::sync::Arc;

use axsight_core::{
    InputWatch, Key, KeyChord, Modifier, MouseButton, Observed, ObservedInput, Point,
    ScrollDirection,
};
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::record::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{
    ButtonPressEvent, KeyButMask, KeyPressEvent, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT,
    KEY_PRESS_EVENT,
};
use x11rb::rust_connection::RustConnection;
use x11rb::x11_utils::TryParse as _;

use super::keymap::Keymap;
use super::x11_error;
use crate::screen::keysyms;
use crate::{Error, Result};

/// What a RECORD reply's data is (the protocol's categories; x11rb's XML has
/// no names for them).
const FROM_SERVER: u8 = 0;
const END_OF_DATA: u8 = 5;
/// Every device event is 32 bytes on the wire.
const EVENT_SIZE: usize = 32;

/// Starts watching the input devices of the X display `display`.
///
/// Fails when the server lacks RECORD (an Xvfb started with `-extension
/// RECORD`, or a server built without it), with what to do instead.
pub fn watch_input(display: &str) -> Result<InputWatch> {
    let open = || {
        x11rb::connect(Some(display))
            .map(|(conn, _)| conn)
            .map_err(|e| Error::X11(format!("cannot open display {display}: {e}")))
    };
    let control = Arc::new(open()?);
    let data = open()?;
    if control
        .extension_information(record::X11_EXTENSION_NAME)
        .map_err(x11_error)?
        .is_none()
    {
        return Err(Error::Screen(format!(
            "display {display} has no RECORD extension, which watching input needs \
             (Xvfb and Xorg have it unless started with `-extension RECORD`)"
        )));
    }
    control
        .record_query_version(1, 13)
        .map_err(x11_error)?
        .reply()
        .map_err(x11_error)?;
    let keymap = Keymap::fetch(&control)?;
    let context = control.generate_id().map_err(x11_error)?;
    let none = record::Range8 { first: 0, last: 0 };
    let no_extension = record::ExtRange {
        major: none,
        minor: record::Range16 { first: 0, last: 0 },
    };
    let range = record::Range {
        core_requests: none,
        core_replies: none,
        ext_requests: no_extension,
        ext_replies: no_extension,
        delivered_events: none,
        // Key press and release, button press and release; no motion, which
        // would be most of the traffic and tells nothing a release does not.
        device_events: record::Range8 {
            first: KEY_PRESS_EVENT,
            last: BUTTON_RELEASE_EVENT,
        },
        errors: none,
        client_started: false,
        client_died: false,
    };
    control
        .record_create_context(context, 0, &[record::CS::ALL_CLIENTS.into()], &[range])
        .map_err(x11_error)?
        .check()
        .map_err(x11_error)?;
    let (sender, events) = mpsc::channel();
    let reader = Arc::clone(&control);
    std::thread::Builder::new()
        .name("axsight-input-watch".into())
        .spawn(move || read_events(&data, &reader, context, keymap, &sender))
        .map_err(|e| Error::Screen(format!("cannot start watching input: {e}")))?;
    let stop = move || {
        // The data connection's last reply comes once the context is disabled.
        let _ = control.record_disable_context(context);
        let _ = control.record_free_context(context);
        let _ = control.flush();
    };
    Ok(InputWatch::new(
        events,
        stop,
        "the X server's RECORD extension",
    ))
}

/// Reads recorded events until the recording ends or nobody listens.
fn read_events(
    data: &RustConnection,
    control: &RustConnection,
    context: u32,
    mut keymap: Keymap,
    sender: &mpsc::Sender<ObservedInput>,
) {
    let replies = match data.record_enable_context(context) {
        Ok(replies) => replies,
        Err(error) => {
            tracing::warn!(%error, "the input watch could not start");
            return;
        }
    };
    for reply in replies {
        let reply = match reply {
            Ok(reply) => reply,
            Err(error) => {
                tracing::debug!(%error, "the input watch ended");
                return;
            }
        };
        if reply.category == END_OF_DATA {
            return;
        }
        if reply.category != FROM_SERVER || reply.client_swapped {
            continue;
        }
        for event in reply.data.chunks_exact(EVENT_SIZE) {
            let Some(observed) = observe(event, &mut keymap, control) else {
                continue;
            };
            if sender.send(observed).is_err() {
                return; // the watch was dropped
            }
        }
    }
}

/// One recorded device event as observed input; `None` for what is not
/// reported (a modifier's own key, a key release, an unknown key).
fn observe(event: &[u8], keymap: &mut Keymap, control: &RustConnection) -> Option<ObservedInput> {
    let kind = event.first()? & 0x7f;
    if kind == KEY_PRESS_EVENT {
        let (key, _) = KeyPressEvent::try_parse(event).ok()?;
        let shift = key.state.contains(KeyButMask::SHIFT);
        let keysym = match keymap.keysym(key.detail, shift) {
            Some(keysym) => keysym,
            None => {
                // Bound since the map was read (xdotool binds spare keys).
                *keymap = Keymap::fetch(control).ok()?;
                keymap.keysym(key.detail, shift)?
            }
        };
        let chord = chord(keysym, key.state, keymap.keysym(key.detail, false))?;
        return Some(ObservedInput {
            what: Observed::Key(chord),
            time_ms: key.time,
        });
    }
    if kind != BUTTON_PRESS_EVENT && kind != BUTTON_RELEASE_EVENT {
        return None; // key releases
    }
    let (button_event, _) = ButtonPressEvent::try_parse(event).ok()?;
    let at = Point {
        x: i32::from(button_event.root_x),
        y: i32::from(button_event.root_y),
    };
    let pressed = kind == BUTTON_PRESS_EVENT;
    let what = match (button_event.detail, pressed) {
        (4..=7, false) => return None,
        (4, true) => Observed::Scrolled {
            direction: ScrollDirection::Up,
            at,
        },
        (5, true) => Observed::Scrolled {
            direction: ScrollDirection::Down,
            at,
        },
        (6, true) => Observed::Scrolled {
            direction: ScrollDirection::Left,
            at,
        },
        (7, true) => Observed::Scrolled {
            direction: ScrollDirection::Right,
            at,
        },
        (number @ 1..=3, _) => {
            let button = match number {
                1 => MouseButton::Left,
                2 => MouseButton::Middle,
                _ => MouseButton::Right,
            };
            match pressed {
                true => Observed::Pressed {
                    button,
                    at,
                    modifiers: held_modifiers(button_event.state, true),
                },
                false => Observed::Released { button, at },
            }
        }
        _ => return None,
    };
    Some(ObservedInput {
        what,
        time_ms: button_event.time,
    })
}

/// The chord a key press with `state` held makes: a character typed plainly
/// (Shift folded into it), or with Ctrl, Alt or Super the unshifted character
/// with its modifiers (`ctrl+shift+z`), or a named key with them (`shift+Tab`).
fn chord(keysym: u32, state: KeyButMask, plain: Option<u32>) -> Option<KeyChord> {
    if keysyms::is_modifier(keysym) {
        return None;
    }
    let mut modifiers = held_modifiers(state, false);
    let shift = state.contains(KeyButMask::SHIFT);
    if let Some(c) = keysyms::char_of(keysym) {
        if modifiers.is_empty() {
            return Some(KeyChord {
                modifiers,
                key: Key::Char(c),
            });
        }
        let plain = plain.and_then(keysyms::char_of).unwrap_or(c);
        if shift {
            modifiers.push(Modifier::Shift);
        }
        return Some(KeyChord {
            modifiers,
            key: Key::Char(keysyms::single_lowercase(plain)),
        });
    }
    let name = keysyms::name_of(keysym)?;
    if shift {
        modifiers.push(Modifier::Shift);
    }
    Some(KeyChord {
        modifiers,
        key: Key::Named(name),
    })
}

/// The modifiers `state` holds: Ctrl, Alt and Super, and Shift too when
/// `with_shift` (a key's chord decides on Shift itself).
fn held_modifiers(state: KeyButMask, with_shift: bool) -> Vec<Modifier> {
    let mut held = Vec::new();
    for (mask, modifier) in [
        (KeyButMask::CONTROL, Modifier::Ctrl),
        (KeyButMask::MOD1, Modifier::Alt),
        (KeyButMask::MOD4, Modifier::Super),
        (KeyButMask::SHIFT, Modifier::Shift),
    ] {
        if state.contains(mask) && (with_shift || modifier != Modifier::Shift) {
            held.push(modifier);
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(keysym: u32, state: KeyButMask, plain: Option<u32>) -> Option<String> {
        chord(keysym, state, plain).map(|c| c.to_string())
    }

    #[test]
    fn keys_become_chords_as_the_key_grammar_writes_them() {
        let none = KeyButMask::default();
        assert_eq!(
            said(0x41, KeyButMask::SHIFT, Some(0x61)).as_deref(),
            Some("A")
        );
        assert_eq!(
            said(0x21, KeyButMask::SHIFT, Some(0x31)).as_deref(),
            Some("!")
        );
        assert_eq!(
            said(0x73, KeyButMask::CONTROL, Some(0x73)).as_deref(),
            Some("ctrl+s")
        );
        assert_eq!(
            said(0x5a, KeyButMask::CONTROL | KeyButMask::SHIFT, Some(0x7a)).as_deref(),
            Some("ctrl+shift+z")
        );
        assert_eq!(
            said(0xfe20, KeyButMask::SHIFT, Some(0xff09)).as_deref(),
            Some("shift+Tab")
        );
        assert_eq!(
            said(0xffc1, KeyButMask::MOD1, None).as_deref(),
            Some("alt+F4")
        );
        assert_eq!(said(0xff0d, none, None).as_deref(), Some("Return"));
        // Caps Lock's state is not a modifier of the chord.
        assert_eq!(
            said(0x61, KeyButMask::LOCK, Some(0x61)).as_deref(),
            Some("a")
        );
        assert_eq!(said(0xffe3, none, None), None);
    }
}
