//! Real input through the XTest extension: pointer motion, clicks, wheel turns,
//! drags, key chords and typed text, delivered by the X server as if from the
//! physical devices.
//!
//! It owns the keyboard-map lookups (keysym → keycode and shift level) and the
//! temporary binding of keysyms the map lacks to spare keycodes. When a call
//! returns, no key or button it pressed is still down, whatever failed. It does not
//! decide where to click or which window gets the keys: callers give screen points
//! and focus windows first.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axsight_core::{Input, Key, KeyChord, Modifier, MouseButton, Point, ScrollDirection};
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::xproto::{
    AtomEnum, ChangeWindowAttributesAux, ClientMessageEvent, ConnectionExt as _, EventMask,
    InputFocus, KeyButMask, Keycode, Keysym, Mapping, Window, BUTTON_PRESS_EVENT,
    BUTTON_RELEASE_EVENT, KEY_PRESS_EVENT, KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::{self, ConnectionExt as _};
use x11rb::protocol::Event;
use x11rb::wrapper::ConnectionExt as _;

use super::keymap::{Keymap, Stroke};
use super::windows::MAX_NESTING;
use super::{x11_error, X11};
use crate::screen::click_gap::ClickPacing;
use crate::screen::keysyms;
use crate::{Error, Result};

/// More notches than any page needs; a bigger number is a caller's mistake, and
/// would tie up the X connection for a long time.
const MAX_SCROLL: u32 = 1000;
/// Pointer positions between a drag's press and its release.
const DRAG_STEPS: i32 = 10;
/// A drag is paced, because drag-and-drop between widgets or apps (XDND) is a
/// conversation: the target must answer the source's position messages before
/// the drop counts. Measured with a GTK3 drag source and entry: 0 of 5 drops
/// landed unpaced, 5 of 5 with a pause of 5 ms before the release or 1 ms per
/// step; these leave room for a loaded machine.
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(5);
const DROP_PAUSE: Duration = Duration::from_millis(50);
/// How long an app gets to answer a ping that follows keys typed through
/// temporary bindings: a base, plus time for each key it has not read yet (GTK3
/// took 3 ms a character in an entry, and up to 0.4 s to answer after 70 keys),
/// up to a cap for an app that is hung.
const PING_BASE: Duration = Duration::from_millis(1000);
const PING_PER_KEY: Duration = Duration::from_millis(10);
const PING_CAP: Duration = Duration::from_secs(5);
/// The pause before temporary key bindings go when no app can be pinged.
const UNPINGED_SETTLE: Duration = Duration::from_millis(50);

/// What the input code remembers between calls.
#[derive(Default)]
pub(super) struct InputState {
    /// Whether the server has XTest, once asked.
    xtest: Option<bool>,
    /// The core keyboard map, until a MappingNotify says it changed.
    keymap: Option<Keymap>,
    /// The last `_NET_WM_PING` number sent, to know its answer.
    pings: u32,
    /// Key presses sent since the last answered ping.
    unread_keys: u32,
    /// The last click or drag, for the pause before the next.
    clicks: ClickPacing,
}

/// Keys and buttons pressed and not yet released, so that any exit releases them.
#[derive(Default)]
struct Held {
    keys: Vec<Keycode>,
    buttons: Vec<u8>,
}

/// Keysyms bound to spare keycodes for this call.
#[derive(Default)]
struct Bindings {
    free: Vec<Keycode>,
    bound: HashMap<Keysym, Keycode>,
    per_keycode: usize,
}

impl X11 {
    /// Sends `input` through XTest and returns once the X server has processed it,
    /// with every key and button released again.
    pub fn send_input(&mut self, input: &Input) -> Result<()> {
        self.ensure_xtest()?;
        // A keyboard-map change since the last call (a layout switch, our own
        // bindings) makes the cached map stale. Errors left from before are not
        // this call's.
        self.drain_events(&mut Ok(()))?;
        let mut refused = Ok(());
        let mut held = Held::default();
        let mut binds = Bindings::default();
        // Keys of earlier calls had the caller's round trip to be read.
        self.input.unread_keys = 0;
        let result = self.perform(input, &mut held, &mut binds);
        // Clean up whatever happened: a stuck key or a stray binding outlives us.
        let released = self.release_all(&mut held);
        let unbound = self.unbind(&mut binds, &mut refused);
        let synced = self.conn.sync().map_err(x11_error);
        let drained = self.drain_events(&mut refused);
        result
            .and(released)
            .and(unbound)
            .and(synced)
            .and(drained)
            .and(refused)
    }

    fn perform(&mut self, input: &Input, held: &mut Held, binds: &mut Bindings) -> Result<()> {
        match input {
            Input::Click {
                at,
                button,
                count,
                modifiers,
                control,
            } => {
                self.move_pointer(*at)?;
                self.input.clicks.await_gap(*count, *control);
                for modifier in modifiers {
                    let stroke = self.named_stroke(modifier.key_name(), binds, held)?;
                    self.press_key(stroke.keycode, held)?;
                }
                let button = button_number(*button);
                for _ in 0..*count {
                    self.press_button(button, held)?;
                    self.release_button(button, held)?;
                }
                self.release_all(held)
            }
            Input::Scroll {
                at,
                direction,
                amount,
            } => {
                if *amount > MAX_SCROLL {
                    return Err(Error::X11(format!(
                        "cannot scroll {amount} notches at once; {MAX_SCROLL} at most"
                    )));
                }
                self.move_pointer(*at)?;
                let button = match direction {
                    ScrollDirection::Up => 4,
                    ScrollDirection::Down => 5,
                    ScrollDirection::Left => 6,
                    ScrollDirection::Right => 7,
                };
                for _ in 0..*amount {
                    self.press_button(button, held)?;
                    self.release_button(button, held)?;
                }
                Ok(())
            }
            Input::Drag { from, to, button } => {
                let button = button_number(*button);
                self.on_screen(*to)?; // before anything is pressed
                self.move_pointer(*from)?;
                self.input.clicks.await_gap(1, None);
                self.press_button(button, held)?;
                for step in 1..=DRAG_STEPS {
                    self.pause(DRAG_STEP_PAUSE)?;
                    let between = |a: i32, b: i32| a + (b - a) * step / DRAG_STEPS;
                    self.move_pointer(Point {
                        x: between(from.x, to.x),
                        y: between(from.y, to.y),
                    })?;
                }
                self.pause(DROP_PAUSE)?;
                self.release_button(button, held)
            }
            Input::Keys(chords) => {
                for chord in chords {
                    self.press_chord(chord, binds, held)?;
                }
                Ok(())
            }
            Input::Text(text) => self.type_text(text, binds, held),
        }
    }

    fn press_chord(
        &mut self,
        chord: &KeyChord,
        binds: &mut Bindings,
        held: &mut Held,
    ) -> Result<()> {
        let stroke = match &chord.key {
            Key::Named(name) => self.named_stroke(name, binds, held)?,
            Key::Char(c) => {
                // `ctrl+S` means the S key, as menus write accelerators; only an
                // explicit shift adds Shift. A lone `A` types an A.
                let c = match chord.modifiers.is_empty() {
                    true => *c,
                    false => keysyms::single_lowercase(*c),
                };
                let keysym = keysyms::of_char(c).ok_or_else(|| no_keysym(c))?;
                self.stroke(keysym, binds, held)?
            }
        };
        for modifier in &chord.modifiers {
            let modifier = self.named_stroke(modifier.key_name(), binds, held)?;
            self.press_key(modifier.keycode, held)?;
        }
        if stroke.shift && !chord.modifiers.contains(&Modifier::Shift) {
            let shift = self.named_stroke(Modifier::Shift.key_name(), binds, held)?;
            self.press_key(shift.keycode, held)?;
        }
        self.press_key(stroke.keycode, held)?;
        self.release_all(held)
    }

    fn type_text(&mut self, text: &str, binds: &mut Bindings, held: &mut Held) -> Result<()> {
        // Every character is checked before the first is typed.
        let keysyms = keysyms::of_text(text).map_err(no_keysym)?;
        // Caps Lock would change the case of letters, and of characters on bound
        // keys in ways Shift cannot undo (GDK upper-cases the keysym itself). So
        // it is switched off for the text and back on after, as a person would.
        let caps_lock = self
            .conn
            .query_pointer(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .mask
            .contains(KeyButMask::LOCK);
        let caps = match caps_lock {
            true => Some(self.named_stroke("Caps_Lock", binds, held)?),
            false => None,
        };
        if let Some(caps) = caps {
            self.press_key(caps.keycode, held)?;
            self.release_all(held)?;
        }
        let typed = self.type_keysyms(&keysyms, binds, held);
        let restored = match caps {
            Some(caps) => self
                .release_all(held)
                .and_then(|()| self.press_key(caps.keycode, held))
                .and_then(|()| self.release_all(held)),
            None => Ok(()),
        };
        typed.and(restored)
    }

    fn type_keysyms(
        &mut self,
        keysyms: &[Keysym],
        binds: &mut Bindings,
        held: &mut Held,
    ) -> Result<()> {
        let shift = self.named_stroke(Modifier::Shift.key_name(), binds, held)?;
        for &keysym in keysyms {
            let stroke = self.stroke(keysym, binds, held)?;
            if stroke.shift {
                self.press_key(shift.keycode, held)?;
            }
            self.press_key(stroke.keycode, held)?;
            self.release_all(held)?;
        }
        Ok(())
    }

    /// The key for a canonical key name.
    fn named_stroke(
        &mut self,
        name: &str,
        binds: &mut Bindings,
        held: &mut Held,
    ) -> Result<Stroke> {
        let keysym = keysyms::named(name)
            .ok_or_else(|| Error::X11(format!("no keysym for key `{name}`")))?;
        self.stroke(keysym, binds, held)
    }

    /// The key that types `keysym`: from the keyboard map, else a spare keycode
    /// bound to it for this call.
    fn stroke(&mut self, keysym: Keysym, binds: &mut Bindings, held: &mut Held) -> Result<Stroke> {
        if let Some(keycode) = binds.bound.get(&keysym) {
            return Ok(Stroke {
                keycode: *keycode,
                shift: false,
            });
        }
        if let Some(stroke) = self.keymap()?.find(keysym) {
            return Ok(stroke);
        }
        if binds.free.is_empty() {
            if !binds.bound.is_empty() {
                // Every spare key is bound (a text with more distinct unmapped
                // characters than spare keys): free them all, once the app has
                // read the keys typed so far.
                self.release_all(held)?;
                let mut refused = Ok(());
                self.unbind(binds, &mut refused)?;
                refused?;
            }
            let keymap = self.keymap()?;
            binds.per_keycode = keymap.per_keycode;
            binds.free = keymap.spare_keycodes();
            binds.free.reverse(); // popped from the end: highest first
        }
        let keycode = binds.free.pop().ok_or_else(|| {
            Error::X11(format!(
                "keysym {keysym:#x} is not on the keyboard and no keycode is free to bind it"
            ))
        })?;
        // The keysym on both levels: a lone letter would otherwise get its other
        // case on one of them (core protocol rule), and É would type é.
        let mut syms = vec![0; binds.per_keycode.max(2)];
        syms[0] = keysym;
        syms[1] = keysym;
        self.conn
            .change_keyboard_mapping(1, keycode, syms.len() as u8, &syms)
            .map_err(x11_error)?;
        binds.bound.insert(keysym, keycode);
        Ok(Stroke {
            keycode,
            shift: false,
        })
    }

    /// Restores the spare keycodes bound during this call to no keysyms, once the
    /// app with the focus has read the keys typed through them.
    ///
    /// An app looks a keycode up when it reads the key event, and refetches the
    /// map after a change only then (GDK does): restored too early, the key
    /// types nothing. Measured: restoring right after the server took the keys
    /// lost every bound character in a GTK3 entry.
    fn unbind(&mut self, binds: &mut Bindings, refused: &mut Result<()>) -> Result<()> {
        if binds.bound.is_empty() {
            return Ok(());
        }
        let waited = self.await_focus_client(refused);
        let empty = vec![0; binds.per_keycode.max(2)];
        let mut result = Ok(());
        for (_, keycode) in binds.bound.drain() {
            let sent = self
                .conn
                .change_keyboard_mapping(1, keycode, empty.len() as u8, &empty)
                .map(drop)
                .map_err(x11_error);
            result = result.and(sent);
        }
        self.input.keymap = None;
        waited.and(result)
    }

    /// Waits until the app that has the keyboard focus has read every event sent
    /// before: a `_NET_WM_PING` to its window, answered to the root window, comes
    /// back after the app has read (and translated) the keys that preceded it.
    /// An app that takes no ping gets a fixed pause; one that does not answer in
    /// time is an error, since keys it reads later may find their binding gone.
    fn await_focus_client(&mut self, refused: &mut Result<()>) -> Result<()> {
        let protocols = self.atom("WM_PROTOCOLS")?;
        let ping = self.atom("_NET_WM_PING")?;
        let Some(client) = self.focus_client(protocols, ping)? else {
            std::thread::sleep(UNPINGED_SETTLE);
            self.input.unread_keys = 0;
            return Ok(());
        };
        // Answers go to the root window: listen there for the wait only.
        let before = self
            .conn
            .get_window_attributes(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .your_event_mask;
        let listen =
            ChangeWindowAttributesAux::new().event_mask(before | EventMask::SUBSTRUCTURE_NOTIFY);
        self.conn
            .change_window_attributes(self.root, &listen)
            .map_err(x11_error)?;
        self.input.pings = self.input.pings.wrapping_add(1);
        let id = self.input.pings;
        let message = ClientMessageEvent::new(32, client, protocols, [ping, id, client, 0, 0]);
        let sent = self
            .conn
            .send_event(false, client, EventMask::NO_EVENT, message)
            .map_err(x11_error)
            .and_then(|_| self.conn.flush().map_err(x11_error));
        let allowed = (PING_BASE + PING_PER_KEY * self.input.unread_keys).min(PING_CAP);
        let deadline = Instant::now() + allowed;
        let mut answered = false;
        while sent.is_ok() && !answered && Instant::now() < deadline {
            match self.conn.poll_for_event().map_err(x11_error)? {
                Some(Event::ClientMessage(pong))
                    if pong.type_ == protocols
                        && pong.data.as_data32()[..3] == [ping, id, client] =>
                {
                    answered = true;
                }
                Some(event) => self.note_event(event, refused),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        let restore = ChangeWindowAttributesAux::new().event_mask(before);
        self.conn
            .change_window_attributes(self.root, &restore)
            .map_err(x11_error)?;
        sent?;
        if !answered {
            return Err(Error::X11(format!(
                "the app with the keyboard focus (window {client:#x}) did not read the keys \
                 within {} ms: it may be hung; characters it reads later may be missing",
                allowed.as_millis()
            )));
        }
        self.input.unread_keys = 0;
        Ok(())
    }

    /// The window of the app that gets keys now: the focus window or, when focus
    /// follows the pointer, the window under it; then the first window up its
    /// ancestry, or else down its toplevel, that takes `_NET_WM_PING`.
    fn focus_client(&self, protocols: u32, ping: u32) -> Result<Option<Window>> {
        let mut focus = self
            .conn
            .get_input_focus()
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .focus;
        if focus == x11rb::NONE || focus == u32::from(InputFocus::POINTER_ROOT) {
            focus = self
                .conn
                .query_pointer(self.root)
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?
                .child;
        }
        let takes_ping = |window: Window| -> bool {
            self.conn
                .get_property(false, window, protocols, AtomEnum::ATOM, 0, 64)
                .ok()
                .and_then(|cookie| cookie.reply().ok())
                .and_then(|reply| reply.value32().map(|mut atoms| atoms.any(|a| a == ping)))
                .unwrap_or(false)
        };
        let mut window = focus;
        let mut top = focus;
        for _ in 0..MAX_NESTING {
            if window == x11rb::NONE || window == self.root {
                break;
            }
            if takes_ping(window) {
                return Ok(Some(window));
            }
            top = window;
            window = match self.conn.query_tree(window).map_err(x11_error)?.reply() {
                Ok(tree) => tree.parent,
                Err(_) => return Ok(None), // gone meanwhile
            };
        }
        // Focus on a window manager's frame: the client is inside it.
        let mut level = vec![top];
        for _ in 0..MAX_NESTING {
            let mut next = Vec::new();
            for window in level {
                if window == x11rb::NONE || window == self.root {
                    continue;
                }
                if let Ok(tree) = self.conn.query_tree(window).map_err(x11_error)?.reply() {
                    next.extend(tree.children);
                }
            }
            if let Some(client) = next.iter().copied().find(|&w| takes_ping(w)) {
                return Ok(Some(client));
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Ok(None)
    }

    fn keymap(&mut self) -> Result<&Keymap> {
        if self.input.keymap.is_none() {
            self.input.keymap = Some(Keymap::fetch(&self.conn)?);
        }
        self.input
            .keymap
            .as_ref()
            .ok_or_else(|| Error::X11("no keyboard map".into()))
    }

    fn ensure_xtest(&mut self) -> Result<()> {
        if self.input.xtest.is_none() {
            let present = self
                .conn
                .extension_information(xtest::X11_EXTENSION_NAME)
                .map_err(x11_error)?
                .is_some();
            self.input.xtest = Some(present);
        }
        match self.input.xtest {
            Some(true) => Ok(()),
            _ => Err(Error::X11(
                "the X server has no XTEST extension, so no input can be sent".into(),
            )),
        }
    }

    /// Reads what the server sent unasked: keyboard-map changes (which void the
    /// cached map) and errors of requests sent without waiting for a reply (the
    /// first goes into `refused`).
    fn drain_events(&mut self, refused: &mut Result<()>) -> Result<()> {
        while let Some(event) = self.conn.poll_for_event().map_err(x11_error)? {
            self.note_event(event, refused);
        }
        Ok(())
    }

    fn note_event(&mut self, event: Event, refused: &mut Result<()>) {
        match event {
            Event::MappingNotify(notify) if notify.request == Mapping::KEYBOARD => {
                self.input.keymap = None;
            }
            Event::Error(error) if refused.is_ok() => {
                *refused = Err(Error::X11(format!(
                    "the X server refused input: {:?} in request {}",
                    error.error_kind, error.major_opcode
                )));
            }
            _ => {}
        }
    }

    fn move_pointer(&mut self, at: Point) -> Result<()> {
        let (x, y) = self.on_screen(at)?;
        // Detail 0: absolute coordinates on `root`.
        self.fake(MOTION_NOTIFY_EVENT, 0, self.root, x, y)
    }

    /// The point as X coordinates, when it is on the screen.
    fn on_screen(&self, at: Point) -> Result<(i16, i16)> {
        let (width, height) = self.screen_size();
        let off = || {
            Error::X11(format!(
                "point ({}, {}) is off the {width}x{height} screen",
                at.x, at.y
            ))
        };
        if at.x >= width || at.y >= height {
            return Err(off());
        }
        Ok((
            i16::try_from(at.x)
                .ok()
                .filter(|x| *x >= 0)
                .ok_or_else(off)?,
            i16::try_from(at.y)
                .ok()
                .filter(|y| *y >= 0)
                .ok_or_else(off)?,
        ))
    }

    /// The root window's size: the screen.
    pub(super) fn screen_size(&self) -> (i32, i32) {
        self.conn
            .setup()
            .roots
            .iter()
            .find(|screen| screen.root == self.root)
            .map_or((0, 0), |screen| {
                (
                    i32::from(screen.width_in_pixels),
                    i32::from(screen.height_in_pixels),
                )
            })
    }

    /// Sends what is queued, then waits `pause`.
    fn pause(&self, pause: Duration) -> Result<()> {
        self.conn.flush().map_err(x11_error)?;
        std::thread::sleep(pause);
        Ok(())
    }

    fn press_key(&mut self, keycode: Keycode, held: &mut Held) -> Result<()> {
        self.fake(KEY_PRESS_EVENT, keycode, x11rb::NONE, 0, 0)?;
        self.input.unread_keys = self.input.unread_keys.saturating_add(1);
        held.keys.push(keycode);
        Ok(())
    }

    fn press_button(&mut self, button: u8, held: &mut Held) -> Result<()> {
        self.fake(BUTTON_PRESS_EVENT, button, x11rb::NONE, 0, 0)?;
        held.buttons.push(button);
        Ok(())
    }

    fn release_button(&mut self, button: u8, held: &mut Held) -> Result<()> {
        if let Some(i) = held.buttons.iter().rposition(|&b| b == button) {
            held.buttons.remove(i);
        }
        self.fake(BUTTON_RELEASE_EVENT, button, x11rb::NONE, 0, 0)
    }

    /// Releases every held key and button, last pressed first; tries them all even
    /// when one fails.
    fn release_all(&mut self, held: &mut Held) -> Result<()> {
        let mut result = Ok(());
        while let Some(keycode) = held.keys.pop() {
            result = result.and(self.fake(KEY_RELEASE_EVENT, keycode, x11rb::NONE, 0, 0));
        }
        while let Some(button) = held.buttons.pop() {
            result = result.and(self.fake(BUTTON_RELEASE_EVENT, button, x11rb::NONE, 0, 0));
        }
        result
    }

    /// One XTest event, at the server's current time, from the core devices.
    fn fake(&self, kind: u8, detail: u8, root: u32, x: i16, y: i16) -> Result<()> {
        self.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, root, x, y, 0)
            .map(drop)
            .map_err(x11_error)
    }
}

fn button_number(button: MouseButton) -> u8 {
    match button {
        MouseButton::Left => 1,
        MouseButton::Middle => 2,
        MouseButton::Right => 3,
    }
}

fn no_keysym(c: char) -> Error {
    Error::X11(keysyms::no_key_for(c))
}
