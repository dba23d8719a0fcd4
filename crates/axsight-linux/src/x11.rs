//! The little the engine needs from X11: the `AT_SPI_BUS` root-window property (how
//! apps find the accessibility bus when the environment does not say) and where a
//! toplevel window sits on screen (GTK4 reports extents relative to its window).
//! Submodules send real input through XTest (`input`) and raise, close and
//! hit-test toplevel windows (`windows`).

mod capture;
mod clipboard;
mod input;
mod keysyms;
mod matching;
mod placement;
mod shm;
mod windows;

use std::collections::HashMap;

use axsight_core::{Bounds, ElementId};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use crate::{Error, Result};
pub use clipboard::Clipboard;
pub use matching::{Candidate, Wanted};

/// A connection to one X display.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    /// Atoms by name: interned once.
    atoms: HashMap<&'static str, u32>,
    /// Toplevels matched to accessible windows (by their ids): a search walks
    /// every window, a hit is checked with one request.
    toplevels: HashMap<ElementId, Window>,
    /// XTest availability and the keyboard map, for `send_input`.
    input: input::InputState,
    /// The MIT-SHM segment screen captures go through, where the display allows.
    shm: shm::Shm,
    /// Windows the X server itself maximized (no window manager runs), with
    /// their bounds before.
    unmaximized: placement::Unmaximized,
}

/// A toplevel X window's content origin on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowOrigin {
    pub x: i32,
    pub y: i32,
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
            toplevels: HashMap::new(),
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
        // The app's windows that closed free their X windows.
        let bus = bus_of(id);
        self.toplevels
            .retain(|known, _| bus_of(known) != bus || known == id || siblings.contains(known));
        if let Some(window) = self.toplevels.get(id).copied() {
            let still_fits = match (self.size_of(window), wanted.size) {
                (Some(have), Some(frame)) => matching::fits(have, frame),
                (Some(_), None) => true,
                (None, _) => false,
            };
            if still_fits {
                return Ok(Some(window));
            }
            self.toplevels.remove(id);
        }
        let taken: Vec<Window> = self
            .toplevels
            .iter()
            .filter(|(known, _)| bus_of(known) == bus)
            .map(|(_, window)| *window)
            .collect();
        let found = matching::best(&self.candidates()?, wanted, &taken);
        if let Some(window) = found {
            self.toplevels.insert(id.clone(), window);
        }
        Ok(found)
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
    /// reparenting window manager, their children, with what [`matching::best`]
    /// weighs. Windows destroyed while they are read are left out.
    fn candidates(&mut self) -> Result<Vec<Candidate>> {
        let net_wm_name = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let net_wm_pid = self.atom("_NET_WM_PID")?;
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
                window,
                title,
                size,
                pid,
                mapped,
            });
        }
        Ok(candidates)
    }
}

/// The bus name part of an element id (`:1.42` of `:1.42/org/a11y/...`): the app.
fn bus_of(id: &ElementId) -> &str {
    id.0.split_once('/').map_or(id.0.as_str(), |(bus, _)| bus)
}

/// Runs blocking X11 work on a blocking thread and waits `deadline` at most: an X
/// server that accepts connections but never answers must not stall the caller.
pub async fn off_thread<T: Send + 'static>(
    deadline: std::time::Duration,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::time::timeout(deadline, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(Error::X11(format!("X11 work failed: {join}"))),
        Err(_) => Err(Error::X11(format!(
            "the X server did not answer within {} ms",
            deadline.as_millis()
        ))),
    }
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
