//! The little the engine needs from X11: the `AT_SPI_BUS` root-window property (how
//! apps find the accessibility bus when the environment does not say) and where a
//! toplevel window sits on screen (GTK4 reports extents relative to its window).
//! Submodules send real input through XTest (`input`) and raise, close and
//! hit-test toplevel windows (`windows`).

mod capture;
mod clipboard;
mod input;
mod placement;
mod shm;
mod toplevels;
mod windows;

use std::collections::HashMap;

use axsight_core::{Bounds, ElementId};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use crate::screen::matching::{Candidate, Matches, Wanted};
use crate::screen::{WindowId, WindowOrigin};
use crate::{Error, Result};
pub use clipboard::Clipboard;

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
        let (left, top) = match self.cardinals(window, "_GTK_FRAME_EXTENTS")?.as_deref() {
            Some([left, _right, top, _bottom]) => (*left as i32, *top as i32),
            _ => (
                ((width - frame_size.0) / 2).max(0),
                ((height - frame_size.1) / 2).max(0),
            ),
        };
        Ok(Some(WindowOrigin {
            x: x + left,
            y: y + top,
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

    fn candidates_with(
        &self,
        (net_wm_name, utf8, net_wm_pid): (u32, u32, u32),
    ) -> Result<Vec<Candidate>> {
        let mut windows = Vec::new();
        let top = self
            .conn
            .query_tree(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        for frame in top.children {
            windows.push(frame);
            if let Ok(cookie) = self.conn.query_tree(frame) {
                if let Ok(tree) = cookie.reply() {
                    windows.extend(tree.children);
                }
            }
        }
        let mut candidates = Vec::new();
        for window in windows {
            let Ok(title) = self.title_of(window, net_wm_name, utf8) else {
                continue;
            };
            let size = self.size_of(window);
            let pid = self
                .conn
                .get_property(false, window, net_wm_pid, AtomEnum::CARDINAL, 0, 1)
                .map_err(x11_error)?
                .reply()
                .ok()
                .and_then(|reply| reply.value32().and_then(|mut v| v.next()));
            let mapped = self
                .conn
                .get_window_attributes(window)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == x11rb::protocol::xproto::MapState::VIEWABLE);
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

    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        X11::reaches(self, x_window(window)?, x, y)
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
