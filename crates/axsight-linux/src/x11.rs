//! The little the engine needs from X11: the `AT_SPI_BUS` root-window property (how
//! apps find the accessibility bus when the environment does not say) and where a
//! toplevel window sits on screen (GTK4 reports extents relative to its window).
//! Submodules send real input through XTest (`input`) and raise, close and
//! hit-test toplevel windows (`windows`).

mod capture;
mod input;
mod keysyms;
mod shm;
mod windows;

use std::collections::HashMap;

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

use crate::{Error, Result};

/// A connection to one X display.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    /// Atoms by name: interned once.
    atoms: HashMap<&'static str, u32>,
    /// Toplevels found by (pid, title): a search walks every window, a hit is
    /// checked with one request.
    toplevels: HashMap<(Option<u32>, String), Window>,
    /// XTest availability and the keyboard map, for `send_input`.
    input: input::InputState,
    /// The MIT-SHM segment screen captures go through, where the display allows.
    shm: shm::Shm,
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
            input: input::InputState::default(),
            shm: shm::Shm::default(),
        })
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

    /// Finds the toplevel window titled `title` (preferring one of process `pid`) and
    /// returns where a frame of `frame_size` drawn inside it starts on screen.
    ///
    /// GTK4 draws client-side shadows around its content: the X window is larger than
    /// the accessible frame. `_GTK_FRAME_EXTENTS` gives the margins where a window
    /// manager asked for it; otherwise the margin is split evenly on each side.
    pub fn content_origin(
        &mut self,
        pid: Option<u32>,
        title: &str,
        frame_size: (i32, i32),
    ) -> Result<Option<WindowOrigin>> {
        let key = (pid, title.to_string());
        let known = self.toplevels.get(&key).copied();
        let known = known
            .and_then(|window| Some((window, self.conn.get_geometry(window).ok()?.reply().ok()?)));
        let (window, geometry) = match known {
            Some(found) => found,
            None => {
                self.toplevels.remove(&key);
                let Some(window) = self.find_toplevel(pid, title, Some(frame_size))? else {
                    return Ok(None);
                };
                let geometry = self
                    .conn
                    .get_geometry(window)
                    .map_err(x11_error)?
                    .reply()
                    .map_err(x11_error)?;
                self.toplevels.insert(key, window);
                (window, geometry)
            }
        };
        let position = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        let (left, top) = match self.cardinals(window, "_GTK_FRAME_EXTENTS")?.as_deref() {
            Some([left, _right, top, _bottom]) => (*left as i32, *top as i32),
            _ => (
                ((geometry.width as i32 - frame_size.0) / 2).max(0),
                ((geometry.height as i32 - frame_size.1) / 2).max(0),
            ),
        };
        Ok(Some(WindowOrigin {
            x: position.dst_x as i32 + left,
            y: position.dst_y as i32 + top,
        }))
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

    /// Whether the window is about `size` (an accessible frame's) big: as big, or
    /// bigger by a client-side shadow.
    fn has_size(&self, window: Window, (width, height): (i32, i32)) -> bool {
        let Ok(Ok(geometry)) = self.conn.get_geometry(window).map(|c| c.reply()) else {
            return false;
        };
        let close = |have: u16, want: i32| (i32::from(have) - want).abs() <= SHADOW_MARGIN;
        close(geometry.width, width) && close(geometry.height, height)
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

    /// Searches the root's children and, under a reparenting window manager, their
    /// children, for the client window of the accessible window titled `title`, of
    /// process `pid`, about `size` big (its accessible frame).
    ///
    /// Each clue counts: a matching (non-empty) title most, then a size within a
    /// client-side shadow's margin, then the pid, then being mapped. Untitled
    /// windows (gtk3-widget-factory's) are found by size and pid; an app's hidden
    /// helper windows never win on a title that merely is empty too.
    fn find_toplevel(
        &mut self,
        pid: Option<u32>,
        title: &str,
        size: Option<(i32, i32)>,
    ) -> Result<Option<Window>> {
        let net_wm_name = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let net_wm_pid = self.atom("_NET_WM_PID")?;
        let mut candidates = Vec::new();
        let top = self
            .conn
            .query_tree(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        for frame in top.children {
            candidates.push(frame);
            if let Ok(cookie) = self.conn.query_tree(frame) {
                if let Ok(tree) = cookie.reply() {
                    candidates.extend(tree.children);
                }
            }
        }
        // (score, pid matches, window)
        let mut scored: Vec<(u32, bool, Window)> = Vec::new();
        for window in candidates {
            // A window destroyed since the tree query is skipped, not fatal.
            let Ok(name) = self.title_of(window, net_wm_name, utf8) else {
                continue;
            };
            let mut score = 0;
            if !title.is_empty() && name == title {
                score += 8;
            }
            if size.is_some_and(|size| self.has_size(window, size)) {
                score += 4;
            }
            let window_pid = self
                .conn
                .get_property(false, window, net_wm_pid, AtomEnum::CARDINAL, 0, 1)
                .map_err(x11_error)?
                .reply()
                .ok()
                .and_then(|reply| reply.value32().and_then(|mut v| v.next()));
            let same_pid = pid.is_some() && window_pid == pid;
            if same_pid {
                score += 2;
            }
            let viewable = self
                .conn
                .get_window_attributes(window)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == x11rb::protocol::xproto::MapState::VIEWABLE);
            if viewable {
                score += 1;
            }
            // A title or a size must match; pid and mapping only break ties.
            if score >= 4 {
                scored.push((score, same_pid, window));
            }
        }
        // Where the app's own windows are among them, another app's never wins.
        if scored.iter().any(|(_, same_pid, _)| *same_pid) {
            scored.retain(|(_, same_pid, _)| *same_pid);
        }
        Ok(scored
            .into_iter()
            .max_by_key(|(score, _, _)| *score)
            .map(|(_, _, window)| window))
    }
}

/// How much larger than its accessible frame a client window may be, in each
/// dimension: GTK4 draws its shadows inside its own window.
const SHADOW_MARGIN: i32 = 80;

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

fn x11_error(error: impl std::fmt::Display) -> Error {
    Error::X11(error.to_string())
}
