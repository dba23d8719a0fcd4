//! The little the engine needs from X11: the `AT_SPI_BUS` root-window property (how
//! apps find the accessibility bus when the environment does not say) and where a
//! toplevel window sits on screen (GTK4 reports extents relative to its window).
//! Submodules send real input through XTest (`input`) and raise, close and
//! hit-test toplevel windows (`windows`).
//!
//! # X11 in detail
//!
//! **Input** (`x11/input.rs`, `screen/keysyms.rs`, `screen/click_gap.rs`):
//!
//! - XTest `FakeInput` on the core devices, so the X server delivers it as it would a
//!   physical device's. A call returns after a `sync`, with every key and button it
//!   pressed released again, whatever failed. A point off the screen is refused before
//!   anything is pressed.
//! - Keys: a keysym is looked up in the core keyboard map (a plain level anywhere beats
//!   a shifted one). The map is cached until a `MappingNotify`. Characters are Latin-1
//!   keysyms or `0x01000000 + code point`.
//! - **Spare keycodes.** A keysym the map lacks (`€`, `日`) is bound for the call to a
//!   keycode with no keysyms, highest first, on both shift levels (else the core rules
//!   give a lone letter its other case on one level). The binding must outlive the
//!   app's reading of the key: GDK looks a keycode up when it reads the event and
//!   refetches the map only then, and restoring right after the server took the keys
//!   lost every bound character in a GTK3 entry. So before restoring, axsight sends
//!   `_NET_WM_PING` to the client with the keyboard focus (found up or down from the
//!   focus window, or under the pointer) and waits for the answer on the root window.
//!   The answer comes after the app has read the keys sent before the ping. It gets 1 s
//!   plus 10 ms per key sent, at most 5 s. No answer is an error (characters may be
//!   missing); an app that takes no ping gets a 50 ms pause. When a text needs more
//!   distinct missing characters than there are spare keycodes, they are all freed
//!   (after a ping) and bound again.
//! - Caps Lock is switched off while text is typed and back on after: it would change
//!   the case of letters, and of bound characters in ways Shift cannot undo.
//! - In a chord, `ctrl+S` presses the S key (menus write accelerators that way); only
//!   an explicit `shift` adds Shift.
//! - **Click spacing.** A press waits until 450 ms have passed since the last click or
//!   drag press, unless both are single clicks on two different controls that count
//!   their own clicks (`Role::counts_own_clicks`: buttons, toggle buttons, check
//!   boxes, radio buttons, switches; the session names the control in
//!   `Input::Click::control`, from `Aimed::control`). GTK counts presses in one widget
//!   within its double-click time (400 ms) as one multiple click, whatever the
//!   distance: a double click 24 px from a single click just before put the caret
//!   mid-word in an entry instead of selecting the word (the fixture test
//!   `a_double_click_just_after_a_click_in_the_same_field_still_selects_a_word`).
//!   Different buttons count apart: ten GTK4 calculator buttons clicked with no pause
//!   all landed. A list's rows, a field's characters and a menu's items are parts of
//!   one widget, so clicks on them stay spaced, as do multiple clicks (GTK3 takes a
//!   press soon after a double click for a triple). A double click is two presses in
//!   one `Input::Click`.
//! - **Drags** are paced: 10 steps 5 ms apart and 50 ms before the release, because a
//!   drop (XDND) is a conversation with the target. Unpaced, 0 of 5 drops landed in a
//!   GTK3 entry; paced, 5 of 5.
//! - The wheel is buttons 4–7, at most 1000 notches in one call.
//!
//! **Windows** (`x11.rs`, `x11/windows.rs`):
//!
//! - **Which X window.** `LinuxEngine::display_window` takes the accessible window's
//!   id, pid, title and size, and its app's other windows, from the app listing.
//!   `screen::matching::Matches` keeps matches by the accessible window's id (bus name
//!   and path), never by title: an app's windows may share one (a GTK4 demo's second
//!   window). A cached match is kept while its X window exists and still fits the
//!   frame; otherwise `screen/matching.rs` chooses among the root's children and their
//!   children (frames of a reparenting window manager), on plain data so that it is
//!   unit-tested: an equal, non-empty title 8, a size within 80 px of the accessible
//!   frame (GTK4 draws client-side shadows inside its window) 4, the same
//!   `_NET_WM_PID` 2, mapped 1. A title or a size must match, and where the frame's
//!   size is known a window that does not fit never wins on its title. X windows
//!   matched to the app's other live windows are left out (each accessible window
//!   gets its own), and equals go to the lowest X id: a client's ids increase, and
//!   apps list their windows in creation order, which the listing follows when it
//!   matches them (one after the other). Untitled windows (gtk3-widget-factory's)
//!   are found by size and pid, and an app's hidden helper windows never win on an
//!   empty title. `toplevel_of` (by title alone, not cached) is left for closing a
//!   stuck app's window.
//! - **Activate.** With a live EWMH window manager that supports `_NET_ACTIVE_WINDOW`
//!   (checked through `_NET_SUPPORTING_WM_CHECK`): a request with the pager source
//!   indication, which managers honour without focus-stealing prevention; then up to
//!   1 s until the window is active and no managed window above overlaps it (popups do
//!   not count). Without one: the window, or the frame that holds it, is restacked on
//!   top and the window given the input focus directly.
//! - **Close.** `_NET_CLOSE_WINDOW` through the window manager, else `WM_DELETE_WINDOW`
//!   when the window takes it, else an error. Nothing is killed, moved or resized.
//! - **Reaches.** Pointer input at a point reaches a window when the topmost viewable
//!   root child there is the window or its frame, and the point lies inside the
//!   window itself (not on a title bar). One exception: when the topmost is an
//!   override-redirect window (a menu, a combo box list) made by the same X client as
//!   the target window, the input counts as reaching it. X gives each client its own
//!   range of ids, so the bits outside `resource_id_mask` tell. The app's own popups
//!   lie over its windows, and a click on a menu item is meant to land there.

mod capture;
mod clipboard;
mod input;
mod input_watch;
mod keymap;
mod outputs;
mod placement;
mod shm;
mod toplevels;
mod windows;

use std::collections::HashMap;

use axsight_core::{Bounds, ElementId};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, GetPropertyReply, Window};
use x11rb::rust_connection::RustConnection;

use crate::screen::matching::{self, Candidate, Matches, Wanted};
use crate::screen::{WindowId, WindowOrigin};
use crate::{Error, Result};
pub use clipboard::Clipboard;
pub use input_watch::watch_input;

/// A connection to one X display.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    /// Atoms by name: interned once.
    atoms: HashMap<&'static str, u32>,
    /// Toplevels matched to accessible windows.
    toplevels: Matches,
    /// XTest availability and the keyboard map, for `send_input`.
    input: input::InputState,
    /// The MIT-SHM segment screen captures go through, where the display allows.
    shm: shm::Shm,
    /// Windows the X server itself maximized (no window manager runs), with
    /// their bounds before.
    unmaximized: placement::Unmaximized,
}

impl X11 {
    /// Connects to `display` (such as `:0`).
    pub fn connect(display: &str) -> Result<X11> {
        let (conn, screen) = x11rb::connect(Some(display))
            .map_err(|e| Error::X11(format!("cannot open display {display}: {e}")))?;
        let root = conn.setup().roots[screen].root;
        Ok(X11 {
            conn,
            root,
            atoms: HashMap::new(),
            toplevels: Matches::default(),
            unmaximized: HashMap::new(),
            input: input::InputState::default(),
            shm: shm::Shm::default(),
        })
    }

    /// One request answered: whether the X server still serves this
    /// connection.
    pub fn round_trip(&self) -> Result<()> {
        self.conn
            .get_input_focus()
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)
            .map(drop)
    }

    fn atom(&mut self, name: &'static str) -> Result<u32> {
        if let Some(atom) = self.atoms.get(name) {
            return Ok(*atom);
        }
        let atom = self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .atom;
        self.atoms.insert(name, atom);
        Ok(atom)
    }

    /// The accessibility bus address the bus launcher published on the root window.
    pub fn at_spi_bus(&mut self) -> Result<Option<String>> {
        let atom = self.atom("AT_SPI_BUS")?;
        let reply = self
            .conn
            .get_property(false, self.root, atom, AtomEnum::STRING, 0, 1024)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        let text = String::from_utf8_lossy(&reply.value)
            .trim_end_matches('\0')
            .to_string();
        Ok((!text.is_empty()).then_some(text))
    }

    /// Where a frame of `wanted.size` drawn inside the X window of the accessible
    /// window `id` starts on screen (see [`X11::toplevel_for`]).
    ///
    /// GTK4 draws client-side shadows around its content: the X window is larger than
    /// the accessible frame. `_GTK_FRAME_EXTENTS` gives the margins where a window
    /// manager asked for it; otherwise the margin is split evenly on each side.
    ///
    /// On X11 an app scales itself (`GDK_SCALE`, Qt's factors or `Xft.dpi`,
    /// Java's `uiScale`) and reports logical pixels: the scale is the one at which
    /// the frame fills the window (see [`matching::scale_of`]), 1 where none fits.
    pub fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        let Some(frame_size) = wanted.size else {
            return Ok(None);
        };
        let Some(window) = self.toplevel_for(id, siblings, wanted)? else {
            return Ok(None);
        };
        let (x, y, width, height) = self.placement(window)?;
        let shadow = match self.cardinals(window, "_GTK_FRAME_EXTENTS")?.as_deref() {
            Some(&[left, right, top, bottom]) => Some([left, right, top, bottom].map(|m| m as i32)),
            _ => None,
        };
        let mut sizes = vec![(width, height)];
        if let Some([left, right, top, bottom]) = shadow {
            sizes.push((width - left - right, height - top - bottom));
        }
        let scale = matching::scale_of(&sizes, frame_size).unwrap_or(1.0);
        let scaled = |length: i32| (f64::from(length) * scale).round() as i32;
        let (left, top) = match shadow {
            Some([left, _right, top, _bottom]) => (left, top),
            None => (
                ((width - scaled(frame_size.0)) / 2).max(0),
                ((height - scaled(frame_size.1)) / 2).max(0),
            ),
        };
        Ok(Some(WindowOrigin {
            x: x + left,
            y: y + top,
            scale,
        }))
    }

    /// The screen bounds of the X window that shows the accessible window `id`
    /// (see [`X11::toplevel_for`]), for toolkits whose frames report no extents:
    /// Java's ATK wrapper answers a frame's `GetExtents` with -1s.
    pub fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        let Some(window) = self.toplevel_for(id, siblings, wanted)? else {
            return Ok(None);
        };
        let (x, y, width, height) = self.placement(window)?;
        Ok(Bounds::from_extents(x, y, width, height))
    }

    /// A window's position on screen and its size.
    pub(super) fn placement(&self, window: Window) -> Result<(i32, i32, i32, i32)> {
        let geometry = self
            .conn
            .get_geometry(window)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        let position = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok((
            i32::from(position.dst_x),
            i32::from(position.dst_y),
            i32::from(geometry.width),
            i32::from(geometry.height),
        ))
    }

    /// The client X window that shows the accessible window `id`, one of the app's
    /// current windows `siblings`; `wanted` is what is known of it.
    ///
    /// Matches are remembered by accessible window, never by title: an app's
    /// windows may share one. A remembered match is used while the X window exists
    /// and still fits the frame; X windows matched to the app's other (live)
    /// windows are not given out again, so that each gets its own.
    pub fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Window>> {
        let atoms = self.candidate_atoms()?;
        // Taken out for the call, so that the look-ups may borrow the connection.
        let mut toplevels = std::mem::take(&mut self.toplevels);
        let found = toplevels.find(
            id,
            siblings,
            wanted,
            |window| self.size_of(u32::try_from(window).ok()?),
            || self.candidates_with(atoms),
        );
        self.toplevels = toplevels;
        Ok(found?.and_then(|window| u32::try_from(window).ok()))
    }

    /// A window's size; `None` when the request fails, which means it is gone.
    fn size_of(&self, window: Window) -> Option<(i32, i32)> {
        self.conn
            .get_geometry(window)
            .ok()
            .and_then(|cookie| cookie.reply().ok())
            .map(|g| (i32::from(g.width), i32::from(g.height)))
    }

    fn cardinals(&mut self, window: Window, name: &'static str) -> Result<Option<Vec<u32>>> {
        let atom = self.atom(name)?;
        let reply = self
            .conn
            .get_property(false, window, atom, AtomEnum::CARDINAL, 0, 16)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(reply.value32().map(|values| values.collect()))
    }

    fn title_of(&self, window: Window, net_wm_name: u32, utf8: u32) -> Result<String> {
        for (property, kind) in [
            (net_wm_name, utf8),
            (AtomEnum::WM_NAME.into(), AtomEnum::STRING.into()),
        ] {
            let reply = self
                .conn
                .get_property(false, window, property, kind, 0, 256)
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?;
            if !reply.value.is_empty() {
                return Ok(String::from_utf8_lossy(&reply.value).into_owned());
            }
        }
        Ok(String::new())
    }

    /// The windows that may be an app's toplevel: the root's children and, under a
    /// reparenting window manager, their children, with what [`crate::screen::matching::best`]
    /// weighs. Windows destroyed while they are read are left out.
    fn candidates(&mut self) -> Result<Vec<Candidate>> {
        let atoms = self.candidate_atoms()?;
        self.candidates_with(atoms)
    }

    /// `_NET_WM_NAME`, `UTF8_STRING` and `_NET_WM_PID`, which reading candidates needs.
    fn candidate_atoms(&mut self) -> Result<(u32, u32, u32)> {
        Ok((
            self.atom("_NET_WM_NAME")?,
            self.atom("UTF8_STRING")?,
            self.atom("_NET_WM_PID")?,
        ))
    }

    /// [`X11::candidates`] with the atoms asked. Every request is sent before
    /// any reply is read: a desktop's hundred windows cost three round trips,
    /// not five hundred.
    fn candidates_with(
        &self,
        (net_wm_name, utf8, net_wm_pid): (u32, u32, u32),
    ) -> Result<Vec<Candidate>> {
        let top = self
            .conn
            .query_tree(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        let below: Vec<_> = top
            .children
            .iter()
            .map(|&frame| self.conn.query_tree(frame).ok())
            .collect();
        let mut windows = Vec::new();
        for (frame, cookie) in top.children.iter().zip(below) {
            windows.push(*frame);
            if let Some(tree) = cookie.and_then(|c| c.reply().ok()) {
                windows.extend(tree.children);
            }
        }
        let asked: Vec<_> = windows
            .iter()
            .map(|&window| {
                let property = |name: u32, kind: u32, length: u32| {
                    self.conn
                        .get_property(false, window, name, kind, 0, length)
                        .ok()
                };
                (
                    window,
                    property(net_wm_name, utf8, 256),
                    property(AtomEnum::WM_NAME.into(), AtomEnum::STRING.into(), 256),
                    self.conn.get_geometry(window).ok(),
                    property(net_wm_pid, AtomEnum::CARDINAL.into(), 1),
                    self.conn.get_window_attributes(window).ok(),
                )
            })
            .collect();
        let mut candidates = Vec::new();
        for (window, net_name, name, geometry, pid, attributes) in asked {
            let text = |cookie: Option<x11rb::cookie::Cookie<'_, _, GetPropertyReply>>| {
                cookie
                    .and_then(|c| c.reply().ok())
                    .map(|reply| reply.value)
                    .filter(|value| !value.is_empty())
            };
            let (net_name, name) = (text(net_name), text(name));
            let size = geometry
                .and_then(|c| c.reply().ok())
                .map(|g| (i32::from(g.width), i32::from(g.height)));
            let pid = pid
                .and_then(|c| c.reply().ok())
                .and_then(|reply| reply.value32().and_then(|mut v| v.next()));
            let mapped = attributes
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == x11rb::protocol::xproto::MapState::VIEWABLE);
            // A window destroyed while it was read answers nothing: left out.
            if size.is_none() {
                continue;
            }
            let title = net_name
                .or(name)
                .map(|value| String::from_utf8_lossy(&value).into_owned())
                .unwrap_or_default();
            candidates.push(Candidate {
                window: u64::from(window),
                title,
                size,
                pid,
                mapped,
            });
        }
        Ok(candidates)
    }
}

impl crate::screen::Screen for X11 {
    fn name(&self) -> String {
        "X11: input through XTest, screenshots through MIT-SHM, window places from the X server"
            .into()
    }

    fn extents_are_window_relative(&self) -> bool {
        false
    }

    fn made_input_devices(&self) -> bool {
        false // XTest speaks for the devices the server has
    }

    fn round_trip(&mut self) -> Result<()> {
        X11::round_trip(self)
    }

    fn send_input(&mut self, input: &axsight_core::Input) -> Result<()> {
        X11::send_input(self, input)
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<axsight_core::Capture> {
        X11::capture(self, region)
    }

    fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>> {
        Ok(X11::toplevel_for(self, id, siblings, wanted)?.map(WindowId::from))
    }

    fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>> {
        Ok(X11::toplevel_of(self, pid, title, None)?.map(WindowId::from))
    }

    fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        X11::content_origin(self, id, siblings, wanted)
    }

    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        X11::window_bounds(self, id, siblings, wanted)
    }

    fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        X11::windows_of_pid(self, pid)
    }

    fn toplevels(&mut self) -> Result<Vec<crate::screen::Toplevel>> {
        X11::toplevels(self)
    }

    fn outputs(&mut self) -> Result<Vec<crate::screen::Output>> {
        X11::outputs(self)
    }

    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        X11::reaches(self, x_window(window)?, x, y)
    }

    fn reaches_each(&mut self, window: WindowId, points: &[(i32, i32)]) -> Result<Vec<bool>> {
        X11::reaches_each(self, x_window(window)?, points)
    }

    fn activate(&mut self, window: WindowId) -> Result<()> {
        X11::activate(self, x_window(window)?)
    }

    fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        X11::activate_at(self, x, y)
    }

    fn close(&mut self, window: WindowId) -> Result<()> {
        X11::close(self, x_window(window)?)
    }

    fn place(
        &mut self,
        window: WindowId,
        placement: axsight_core::Placement,
    ) -> Result<Option<Bounds>> {
        X11::place(self, x_window(window)?, placement)
    }
}

/// The X window a [`WindowId`] this screen gave out stands for.
fn x_window(window: WindowId) -> Result<Window> {
    Window::try_from(window).map_err(|_| Error::WindowGone)
}

/// An X11 request's failure: the connection itself broken (the X server went
/// away) is [`Error::DisplayLost`], which makes the session connect afresh;
/// anything else is a failed request.
fn x11_error(error: impl Into<x11rb::errors::ReplyOrIdError>) -> Error {
    match error.into() {
        x11rb::errors::ReplyOrIdError::ConnectionError(lost) => {
            Error::DisplayLost(lost.to_string())
        }
        other => Error::X11(other.to_string()),
    }
}
