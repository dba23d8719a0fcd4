//! Every top-level window the X display shows, whatever its app: the list a
//! window of a program without accessibility is found in.
//!
//! With an EWMH window manager its client list (in stacking order) is the
//! truth; without one, the viewable children of the root that could be an
//! app's window (input-output, not a popup, big enough, with a class or a
//! title). A window that does not say its process (`_NET_WM_PID`: Xt and
//! Athena programs never set it) is asked of the X server through the
//! X-Resource extension, which knows each local client's pid. Nothing here
//! changes a window.

use x11rb::protocol::res::{ClientIdMask, ClientIdSpec, ConnectionExt as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, MapState, Window, WindowClass};

use super::{x11_error, X11};
use crate::screen::Toplevel;
use crate::Result;

/// Smaller windows are no app's window (GTK's 1×1 and 10×10 helpers, input
/// catchers) when no window manager says which windows are clients.
const MIN_SIDE: i32 = 16;

/// Window types that are no app's window to act on: the desktop's furniture,
/// and a splash shown while an app starts (LibreOffice's `oosplash` is a
/// process of its own, off the accessibility bus, and stays for seconds on a
/// new profile: taken for the app, it would be read and acted on instead).
const NOT_APP_WINDOWS: [&str; 3] = [
    "_NET_WM_WINDOW_TYPE_DOCK",
    "_NET_WM_WINDOW_TYPE_DESKTOP",
    "_NET_WM_WINDOW_TYPE_SPLASH",
];

impl X11 {
    /// The top-level windows shown, bottom first (see the module's doc).
    pub fn toplevels(&mut self) -> Result<Vec<Toplevel>> {
        let managed = self.wm_supports("_NET_CLIENT_LIST")?;
        let windows = match managed {
            true => self.client_list()?,
            false => self.root_windows()?,
        };
        let active = self.active_toplevel(managed)?;
        let net_wm_name = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let net_wm_pid = self.atom("_NET_WM_PID")?;
        let window_type = self.atom("_NET_WM_WINDOW_TYPE")?;
        let mut skipped = Vec::with_capacity(NOT_APP_WINDOWS.len());
        for name in NOT_APP_WINDOWS {
            skipped.push(self.atom(name)?);
        }
        let (width, height) = self.screen_size();
        let mut found = Vec::new();
        for window in windows {
            // A window destroyed while it is read answers with errors: left out.
            let Ok(attributes) = self
                .conn
                .get_window_attributes(window)
                .map_err(x11_error)?
                .reply()
            else {
                continue;
            };
            if attributes.map_state != MapState::VIEWABLE
                || attributes.class == WindowClass::INPUT_ONLY
                || (!managed && attributes.override_redirect)
            {
                continue;
            }
            let Ok((x, y, w, h)) = self.placement(window) else {
                continue;
            };
            let on_screen = x < width && y < height && x + w > 0 && y + h > 0;
            if !on_screen || (!managed && (w < MIN_SIDE || h < MIN_SIDE)) {
                continue;
            }
            let types = self.atoms_of(window, window_type)?;
            if types.iter().any(|t| skipped.contains(t)) {
                continue;
            }
            let title = self.title_of(window, net_wm_name, utf8).unwrap_or_default();
            let class = self.class_of(window)?;
            if !managed && title.is_empty() && class.is_empty() {
                continue;
            }
            let pid = match self.cardinal_of(window, net_wm_pid)? {
                Some(pid) => Some(pid),
                None => self.client_pid(window),
            };
            found.push(Toplevel {
                id: u64::from(window),
                title,
                class,
                pid,
                bounds: axsight_core::Bounds {
                    x,
                    y,
                    width: w,
                    height: h,
                },
                active: active.is_some_and(|a| a == window || self.holds(window, a)),
            });
        }
        Ok(found)
    }

    /// The window manager's clients, bottom first.
    fn client_list(&mut self) -> Result<Vec<Window>> {
        for name in ["_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST"] {
            let atom = self.atom(name)?;
            let reply = self
                .conn
                .get_property(false, self.root, atom, AtomEnum::WINDOW, 0, 4096)
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?;
            let windows: Vec<Window> = reply.value32().map(Iterator::collect).unwrap_or_default();
            if !windows.is_empty() || name == "_NET_CLIENT_LIST" {
                return Ok(windows);
            }
        }
        Ok(Vec::new())
    }

    /// The root's children, bottom first.
    fn root_windows(&self) -> Result<Vec<Window>> {
        Ok(self
            .conn
            .query_tree(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .children)
    }

    /// The window that has the keyboard: the window manager's active window,
    /// else the input focus.
    fn active_toplevel(&mut self, managed: bool) -> Result<Option<Window>> {
        if managed {
            let active = self.atom("_NET_ACTIVE_WINDOW")?;
            return self.window_property(self.root, active);
        }
        let focus = self
            .conn
            .get_input_focus()
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .focus;
        Ok((focus != x11rb::NONE && focus != self.root && focus != 1).then_some(focus))
    }

    /// Whether `inner` is `outer` or lies inside it.
    fn holds(&self, outer: Window, inner: Window) -> bool {
        let mut current = inner;
        for _ in 0..super::windows::MAX_NESTING {
            if current == outer {
                return true;
            }
            let Ok(Ok(tree)) = self.conn.query_tree(current).map(|c| c.reply()) else {
                return false;
            };
            if tree.parent == x11rb::NONE || tree.parent == self.root {
                return false;
            }
            current = tree.parent;
        }
        false
    }

    /// The program's name as the window gives it: `WM_CLASS`'s instance part
    /// (`xcalc` of `"xcalc", "XCalc"`), else its class part.
    fn class_of(&self, window: Window) -> Result<String> {
        let reply = self
            .conn
            .get_property(false, window, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
            .map_err(x11_error)?
            .reply();
        let Ok(reply) = reply else {
            return Ok(String::new());
        };
        let mut parts = reply
            .value
            .split(|&b| b == 0)
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .filter(|part| !part.is_empty());
        Ok(parts.next().unwrap_or_default())
    }

    /// The atoms of an atom-list property (a window's types).
    fn atoms_of(&self, window: Window, property: u32) -> Result<Vec<u32>> {
        let reply = self
            .conn
            .get_property(false, window, property, AtomEnum::ATOM, 0, 16)
            .map_err(x11_error)?
            .reply();
        Ok(reply
            .ok()
            .and_then(|r| r.value32().map(Iterator::collect))
            .unwrap_or_default())
    }

    /// A one-number property (a pid).
    fn cardinal_of(&self, window: Window, property: u32) -> Result<Option<u32>> {
        let reply = self
            .conn
            .get_property(false, window, property, AtomEnum::CARDINAL, 0, 1)
            .map_err(x11_error)?
            .reply();
        Ok(reply
            .ok()
            .and_then(|r| r.value32().and_then(|mut v| v.next())))
    }

    /// The process of the client that made `window`, as the X server knows it
    /// (local clients only); `None` without the X-Resource extension.
    fn client_pid(&self, window: Window) -> Option<u32> {
        let spec = ClientIdSpec {
            client: window,
            mask: ClientIdMask::LOCAL_CLIENT_PID,
        };
        let reply = self.conn.res_query_client_ids(&[spec]).ok()?.reply().ok()?;
        reply
            .ids
            .iter()
            .find(|id| id.spec.mask.contains(ClientIdMask::LOCAL_CLIENT_PID))
            .and_then(|id| id.value.first().copied())
    }
}
