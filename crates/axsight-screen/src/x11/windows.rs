//! Window operations that come before or instead of input: finding an app's
//! toplevel X window, raising and focusing it, asking it to close, and telling
//! whether pointer input at a screen point would land in it.
//!
//! Where a window manager runs it is asked through EWMH messages, since it owns
//! stacking and focus; where none runs the X server is told directly. Moving and
//! resizing are `placement`'s; nothing here kills a client or sends input.

use std::time::{Duration, Instant};

use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask, InputFocus,
    MapState, StackMode, Window,
};

use super::{x11_error, X11};
use crate::{Error, Result};
use x11rb::connection::Connection as _;

/// How long a window manager gets to act on an activation request.
const WM_DEADLINE: Duration = Duration::from_secs(1);
/// The EWMH source indication of a pager: window managers honour these requests
/// without focus-stealing prevention (an application's are often refused).
const SOURCE_PAGER: u32 = 2;
/// Parent links followed at most from a window up to the root.
pub(super) const MAX_NESTING: usize = 32;

impl X11 {
    /// The toplevel X window titled `title`, of process `pid`, about `size` big;
    /// the client's own window, not a window manager's frame around it. Not
    /// remembered: an accessible window's is found with [`X11::toplevel_for`].
    pub fn toplevel_of(
        &mut self,
        pid: Option<u32>,
        title: &str,
        size: Option<(i32, i32)>,
    ) -> Result<Option<Window>> {
        let wanted = crate::screen::matching::Wanted {
            title: title.to_string(),
            size,
            pid,
            inset: None,
        };
        let found = crate::screen::matching::best(&self.candidates()?, &wanted, &[]);
        Ok(found.and_then(|window| u32::try_from(window).ok()))
    }

    /// Raises `window` and gives it the keyboard focus. With a window manager, asks
    /// it (`_NET_ACTIVE_WINDOW`) and waits until it reports the window active and
    /// no managed window covers it; without one, restacks and focuses the window
    /// itself.
    pub fn activate(&mut self, window: Window) -> Result<()> {
        self.require_window(window)?;
        if self.wm_supports("_NET_ACTIVE_WINDOW")? {
            let active = self.atom("_NET_ACTIVE_WINDOW")?;
            let current = self
                .window_property(self.root, active)?
                .unwrap_or(x11rb::NONE);
            // Sent even to the active window: it may be covered, and the request
            // raises it too.
            self.tell_wm(
                window,
                active,
                [SOURCE_PAGER, x11rb::CURRENT_TIME, current, 0, 0],
            )?;
            let deadline = Instant::now() + WM_DEADLINE;
            loop {
                let is_active = self.window_property(self.root, active)? == Some(window);
                if is_active && !self.covered(window)? {
                    return Ok(());
                }
                if Instant::now() >= deadline {
                    // A window kept above all (a dock, "always on top") may
                    // overlap an active window for good.
                    return match is_active {
                        true => Ok(()),
                        false => Err(Error::X11(format!(
                            "the window manager did not activate window {window:#x} within {} ms",
                            WM_DEADLINE.as_millis()
                        ))),
                    };
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        // No window manager: a frame-less window is its own root child, but a
        // non-EWMH manager may have framed it, and the frame is what stacks.
        let top = self.root_child_of(window)?;
        self.conn
            .configure_window(top, &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE))
            .map_err(x11_error)?
            .check()
            .map_err(x11_error)?;
        self.conn
            .set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
            .map_err(x11_error)?
            .check()
            .map_err(|e| Error::X11(format!("cannot focus window {window:#x}: {e}")))
    }

    /// Asks `window` to close, as its close button would: through the window
    /// manager (`_NET_CLOSE_WINDOW`) where one runs, else with `WM_DELETE_WINDOW`.
    /// The app may ask to save first, or refuse; it is never killed.
    pub fn close(&mut self, window: Window) -> Result<()> {
        self.require_window(window)?;
        if self.wm_supports("_NET_CLOSE_WINDOW")? {
            let close = self.atom("_NET_CLOSE_WINDOW")?;
            return self.tell_wm(window, close, [x11rb::CURRENT_TIME, SOURCE_PAGER, 0, 0, 0]);
        }
        let protocols = self.atom("WM_PROTOCOLS")?;
        let delete = self.atom("WM_DELETE_WINDOW")?;
        let listed = self
            .conn
            .get_property(false, window, protocols, AtomEnum::ATOM, 0, 64)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .value32()
            .is_some_and(|mut atoms| atoms.any(|atom| atom == delete));
        if !listed {
            return Err(Error::X11(format!(
                "window {window:#x} does not take WM_DELETE_WINDOW and no window manager \
                 runs; axsight does not kill apps"
            )));
        }
        let message = ClientMessageEvent::new(
            32,
            window,
            protocols,
            [delete, x11rb::CURRENT_TIME, 0, 0, 0],
        );
        self.conn
            .send_event(false, window, EventMask::NO_EVENT, message)
            .map_err(x11_error)?
            .check()
            .map_err(x11_error)
    }

    /// Whether pointer input at screen point (`x`, `y`) lands in `window`: the
    /// topmost viewable window there is `window` or the frame holding it, and the
    /// point is inside `window` itself (not on a frame's title bar).
    pub fn reaches(&mut self, window: Window, x: i32, y: i32) -> Result<bool> {
        Ok(self.reaches_each(window, &[(x, y)])?.first() == Some(&true))
    }

    /// [`X11::reaches`] for each of `points`, asking the server once for the
    /// lot: the stacking, `window`'s box and its frame are the same for every
    /// point (a 3×3 grid over a surface was 60 round trips one by one).
    pub fn reaches_each(&mut self, window: Window, points: &[(i32, i32)]) -> Result<Vec<bool>> {
        let shown = self.shown_root_children()?;
        // Asked only where a point needs them, as one point alone would.
        let mut inside: Option<Rect> = None;
        let mut frame: Option<Window> = None;
        let mut reached = Vec::with_capacity(points.len());
        for &(x, y) in points {
            let Some(top) = shown.iter().rev().find(|s| s.rect.contains(x, y)) else {
                reached.push(false);
                continue;
            };
            // The app's own popups (menus, combo box lists) lie over its windows:
            // input there goes to the app, as the menu item aimed at wants.
            if top.override_redirect && self.same_client(top.window, window) {
                reached.push(true);
                continue;
            }
            let rect = match inside {
                Some(rect) => rect,
                None => *inside.insert(self.rect_on_root(window)?),
            };
            if !rect.contains(x, y) {
                reached.push(false);
                continue;
            }
            if top.window == window {
                reached.push(true);
                continue;
            }
            let frame = match frame {
                Some(frame) => frame,
                None => *frame.insert(self.root_child_of(window)?),
            };
            reached.push(frame == top.window);
        }
        Ok(reached)
    }

    /// Whether two windows were made by the same X client: the server gives each
    /// client its own range of ids, the bits outside the resource id mask.
    fn same_client(&self, a: Window, b: Window) -> bool {
        let mask = self.conn.setup().resource_id_mask;
        a & !mask == b & !mask
    }

    /// Whether a managed window stacked above `window` overlaps it. Popups
    /// (override-redirect: menus, tooltips, notifications) do not count: the
    /// window manager does not stack them.
    fn covered(&self, window: Window) -> Result<bool> {
        let top = self.root_child_of(window)?;
        let shown = self.shown_root_children()?;
        let Some(position) = shown.iter().position(|s| s.window == top) else {
            return Ok(true); // not viewable yet
        };
        let rect = shown[position].rect;
        Ok(shown[position + 1..]
            .iter()
            .any(|above| !above.override_redirect && above.rect.overlaps(&rect)))
    }

    /// The viewable children of the root, bottom to top, with their outer
    /// rectangles (border included: it takes input too).
    fn shown_root_children(&self) -> Result<Vec<Shown>> {
        let children = self
            .conn
            .query_tree(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?
            .children;
        // All the questions first, then the answers: one round trip for the lot.
        let mut asked = Vec::with_capacity(children.len());
        for child in children {
            let attributes = self.conn.get_window_attributes(child).map_err(x11_error)?;
            let geometry = self.conn.get_geometry(child).map_err(x11_error)?;
            asked.push((child, attributes, geometry));
        }
        let mut shown = Vec::new();
        for (window, attributes, geometry) in asked {
            // A window destroyed meanwhile answers with an error: not shown.
            let (Ok(attributes), Ok(geometry)) = (attributes.reply(), geometry.reply()) else {
                continue;
            };
            if attributes.map_state != MapState::VIEWABLE {
                continue;
            }
            let border = i32::from(geometry.border_width) * 2;
            shown.push(Shown {
                window,
                override_redirect: attributes.override_redirect,
                rect: Rect {
                    x: i32::from(geometry.x),
                    y: i32::from(geometry.y),
                    width: i32::from(geometry.width) + border,
                    height: i32::from(geometry.height) + border,
                },
            });
        }
        Ok(shown)
    }

    /// Raises and focuses the topmost managed window under the screen point, for
    /// windows no accessible element names (an app that answers nothing).
    pub fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        let top = self
            .shown_root_children()?
            .into_iter()
            .rev()
            .find(|shown| !shown.override_redirect && shown.rect.contains(x, y))
            .ok_or_else(|| Error::X11(format!("no window lies at ({x}, {y})")))?;
        // Under a window manager the root child is its frame: focus the client.
        let client = match self.conn.query_tree(top.window).map(|c| c.reply()) {
            Ok(Ok(tree))
                if !tree.children.is_empty() && self.wm_supports("_NET_ACTIVE_WINDOW")? =>
            {
                tree.children[tree.children.len() - 1]
            }
            _ => top.window,
        };
        self.activate(client)
    }

    /// The titles and on-screen boxes of the mapped toplevel windows of process
    /// `pid`, bottom to top: what an app shows even while it answers no
    /// accessibility call.
    pub fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, axsight_core::Bounds)>> {
        let net_wm_name = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let net_wm_pid = self.atom("_NET_WM_PID")?;
        let mut found = Vec::new();
        for shown in self.shown_root_children()? {
            if shown.override_redirect {
                continue;
            }
            // The client itself, or the one inside a window manager's frame.
            let mut clients = vec![shown.window];
            if let Ok(Ok(tree)) = self.conn.query_tree(shown.window).map(|c| c.reply()) {
                clients.extend(tree.children);
            }
            for client in clients {
                let owner = self
                    .conn
                    .get_property(false, client, net_wm_pid, AtomEnum::CARDINAL, 0, 1)
                    .map_err(x11_error)?
                    .reply()
                    .ok()
                    .and_then(|reply| reply.value32().and_then(|mut v| v.next()));
                if owner != Some(pid) {
                    continue;
                }
                let title = self.title_of(client, net_wm_name, utf8).unwrap_or_default();
                let rect = shown.rect;
                found.push((
                    title,
                    axsight_core::Bounds {
                        x: rect.x,
                        y: rect.y,
                        width: rect.width,
                        height: rect.height,
                    },
                ));
                break;
            }
        }
        Ok(found)
    }

    /// `window`'s own area on screen (a frame's title bar is not in it).
    fn rect_on_root(&self, window: Window) -> Result<Rect> {
        let geometry = self
            .conn
            .get_geometry(window)
            .map_err(x11_error)?
            .reply()
            .map_err(|e| gone(window, e))?;
        let origin = self
            .conn
            .translate_coordinates(window, self.root, 0, 0)
            .map_err(x11_error)?
            .reply()
            .map_err(|e| gone(window, e))?;
        Ok(Rect {
            x: i32::from(origin.dst_x),
            y: i32::from(origin.dst_y),
            width: i32::from(geometry.width),
            height: i32::from(geometry.height),
        })
    }

    /// The child of the root that is `window` or holds it (its frame).
    pub(super) fn root_child_of(&self, window: Window) -> Result<Window> {
        let mut current = window;
        for _ in 0..MAX_NESTING {
            let tree = self
                .conn
                .query_tree(current)
                .map_err(x11_error)?
                .reply()
                .map_err(|e| gone(window, e))?;
            if tree.parent == self.root || tree.parent == x11rb::NONE {
                return Ok(current);
            }
            current = tree.parent;
        }
        Err(Error::X11(format!(
            "window {window:#x} is nested more than {MAX_NESTING} levels deep"
        )))
    }

    pub(super) fn require_window(&self, window: Window) -> Result<()> {
        self.conn
            .get_window_attributes(window)
            .map_err(x11_error)?
            .reply()
            .map(drop)
            .map_err(|e| gone(window, e))
    }

    /// Whether a live EWMH window manager runs and supports `feature`.
    pub(super) fn wm_supports(&mut self, feature: &'static str) -> Result<bool> {
        let check = self.atom("_NET_SUPPORTING_WM_CHECK")?;
        let Some(wm) = self.window_property(self.root, check)? else {
            return Ok(false);
        };
        // A manager that died leaves the root property behind; its check window,
        // gone or reused, then no longer names itself.
        if self.window_property(wm, check).ok().flatten() != Some(wm) {
            return Ok(false);
        }
        let supported = self.atom("_NET_SUPPORTED")?;
        let feature = self.atom(feature)?;
        let reply = self
            .conn
            .get_property(false, self.root, supported, AtomEnum::ATOM, 0, 4096)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(reply
            .value32()
            .is_some_and(|mut atoms| atoms.any(|atom| atom == feature)))
    }

    pub(super) fn window_property(&self, window: Window, property: u32) -> Result<Option<Window>> {
        let reply = self
            .conn
            .get_property(false, window, property, AtomEnum::WINDOW, 0, 1)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(reply
            .value32()
            .and_then(|mut values| values.next())
            .filter(|&w| w != x11rb::NONE))
    }

    /// Sends an EWMH request about `window` to the window manager (on the root).
    pub(super) fn tell_wm(&self, window: Window, message: u32, data: [u32; 5]) -> Result<()> {
        let event = ClientMessageEvent::new(32, window, message, data);
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(x11_error)?
            .check()
            .map_err(x11_error)
    }
}

/// A viewable child of the root.
struct Shown {
    window: Window,
    override_redirect: bool,
    rect: Rect,
}

/// A rectangle on screen; `width` and `height` count pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    x: i32,
    y: i32,
    width: i32,
    height: i32,
}

impl Rect {
    fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.width && y < self.y + self.height
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

fn gone(window: Window, error: impl std::fmt::Display) -> Error {
    Error::X11(format!("window {window:#x} is gone: {error}"))
}

#[cfg(test)]
mod tests {
    use super::Rect;

    #[test]
    fn rectangles_hold_their_top_left_pixel_but_not_their_far_edge() {
        let rect = Rect {
            x: 10,
            y: 20,
            width: 100,
            height: 50,
        };
        assert!(rect.contains(10, 20));
        assert!(rect.contains(109, 69));
        assert!(!rect.contains(110, 69));
        assert!(!rect.contains(109, 70));
        assert!(!rect.contains(9, 30));
        let right = Rect { x: 110, ..rect };
        assert!(!rect.overlaps(&right));
        let touching = Rect { x: 109, ..rect };
        assert!(rect.overlaps(&touching) && touching.overlaps(&rect));
        let below = Rect { y: 70, ..rect };
        assert!(!rect.overlaps(&below));
    }
}
