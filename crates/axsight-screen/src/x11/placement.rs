//! Moving, resizing, maximizing and minimizing a toplevel window, and waiting
//! until the display shows it so.
//!
//! Where an EWMH window manager runs it is asked (`_NET_MOVERESIZE_WINDOW`,
//! `_NET_WM_STATE`, `WM_CHANGE_STATE`), since it owns placement and may adjust
//! the request (a minimum size, the work area); where none runs the X server is
//! told directly. Positions and sizes are the client window's, the content the
//! accessibility tree shows, not a window manager's frame around it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axsight_core::{Bounds, Placement};
use x11rb::protocol::xproto::{ConfigureWindowAux, ConnectionExt as _, MapState, Window};

use super::{x11_error, X11};
use crate::{Error, Result};

/// How long the display gets to show a placement.
const PLACE_DEADLINE: Duration = Duration::from_secs(2);
/// How long a window's bounds must hold still after a maximize or restore for
/// the window manager to be done with it: openbox's steps come within a few ms.
const STEADY: Duration = Duration::from_millis(60);
/// `_NET_WM_STATE` actions.
const STATE_REMOVE: u32 = 0;
const STATE_ADD: u32 = 1;
/// EWMH source indication of a pager (honoured without focus-stealing rules).
const SOURCE_PAGER: u32 = 2;
/// `_NET_MOVERESIZE_WINDOW` flags: static gravity (the client's own corner) and
/// which of x, y, width and height are given.
const STATIC_GRAVITY: u32 = 10;
const HAS_X: u32 = 1 << 8;
const HAS_Y: u32 = 1 << 9;
const HAS_WIDTH: u32 = 1 << 10;
const HAS_HEIGHT: u32 = 1 << 11;
/// ICCCM `IconicState`, asked for with `WM_CHANGE_STATE`.
const ICONIC_STATE: u32 = 3;

/// What a window looked like before the X server itself maximized it (no window
/// manager runs), to undo it.
pub(super) type Unmaximized = HashMap<Window, Bounds>;

impl X11 {
    /// Does `placement` to the client window `window` and waits until the
    /// display shows it so; the window's bounds on screen then (`None` when
    /// minimized).
    pub fn place(&mut self, window: Window, placement: Placement) -> Result<Option<Bounds>> {
        self.require_window(window)?;
        let before = self.client_bounds(window)?;
        let managed = self.wm_supports("_NET_WM_STATE")?;
        match placement {
            Placement::Move { x, y, size } => {
                let (width, height) = size.unwrap_or((before.width, before.height));
                check_size(width, height)?;
                self.move_resize(
                    window,
                    Bounds {
                        x,
                        y,
                        width,
                        height,
                    },
                )?;
                let wanted = move |b: &Bounds| {
                    (b.x, b.y) == (x, y)
                        && size.is_none_or(|_| (b.width, b.height) == (width, height))
                };
                self.await_bounds(window, "moved", wanted)
            }
            Placement::Resize { width, height } => {
                check_size(width, height)?;
                let target = Bounds {
                    width,
                    height,
                    ..before
                };
                self.move_resize(window, target)?;
                self.await_bounds(window, "resized", move |b| {
                    (b.width, b.height) == (width, height)
                })
            }
            Placement::Maximize(on) if managed => {
                let state = self.atom("_NET_WM_STATE")?;
                let vertical = self.atom("_NET_WM_STATE_MAXIMIZED_VERT")?;
                let horizontal = self.atom("_NET_WM_STATE_MAXIMIZED_HORZ")?;
                let action = if on { STATE_ADD } else { STATE_REMOVE };
                let already = self.has_state(window, horizontal)? == on;
                self.tell_wm(
                    window,
                    state,
                    [action, vertical, horizontal, SOURCE_PAGER, 0],
                )?;
                self.await_state(window, on, horizontal)?;
                if already {
                    return Ok(Some(before));
                }
                // A window manager may set the state before it configures the
                // window (openbox does), and may configure it in steps (openbox
                // restores the position, then the size): the answer is the
                // bounds once they have changed and hold still.
                let done = if on { "maximized" } else { "restored" };
                self.await_bounds(window, done, move |b| *b != before)?;
                self.await_steady(window).map(Some)
            }
            Placement::Maximize(true) => {
                let screen = self.screen_bounds()?;
                self.unmaximized.insert(window, before);
                self.move_resize(window, screen)?;
                self.await_bounds(window, "maximized", move |b| *b == screen)
            }
            Placement::Maximize(false) => {
                let Some(earlier) = self.unmaximized.remove(&window) else {
                    return Ok(Some(before));
                };
                self.move_resize(window, earlier)?;
                self.await_bounds(window, "restored", move |b| *b == earlier)
            }
            Placement::Minimize(true) if managed => {
                let change = self.atom("WM_CHANGE_STATE")?;
                self.tell_wm(window, change, [ICONIC_STATE, 0, 0, 0, 0])?;
                self.await_mapped(window, false)?;
                Ok(None)
            }
            Placement::Minimize(false) if managed => {
                // Activation de-iconifies: what a task bar does.
                self.activate(window)?;
                self.await_mapped(window, true)?;
                Ok(Some(self.client_bounds(window)?))
            }
            Placement::Minimize(_) => Err(Error::Placement(
                "minimizing needs a window manager, and none runs on this display (there is \
                 nowhere to show the window's icon)"
                    .into(),
            )),
        }
    }

    /// Asks for `target` as the client window's bounds.
    fn move_resize(&mut self, window: Window, target: Bounds) -> Result<()> {
        if self.wm_supports("_NET_MOVERESIZE_WINDOW")? {
            let message = self.atom("_NET_MOVERESIZE_WINDOW")?;
            let flags =
                STATIC_GRAVITY | HAS_X | HAS_Y | HAS_WIDTH | HAS_HEIGHT | (SOURCE_PAGER << 12);
            return self.tell_wm(
                window,
                message,
                [
                    flags,
                    target.x as u32,
                    target.y as u32,
                    target.width as u32,
                    target.height as u32,
                ],
            );
        }
        // No window manager: the client window is a child of the root (or of a
        // frame that does not move it), and is configured itself.
        let top = self.root_child_of(window)?;
        let aux = ConfigureWindowAux::new()
            .x(target.x)
            .y(target.y)
            .width(target.width as u32)
            .height(target.height as u32);
        let configured = if top == window {
            aux
        } else {
            ConfigureWindowAux::new()
                .width(target.width as u32)
                .height(target.height as u32)
        };
        self.conn
            .configure_window(window, &configured)
            .map_err(x11_error)?
            .check()
            .map_err(x11_error)
    }

    /// The client window's bounds on screen.
    fn client_bounds(&self, window: Window) -> Result<Bounds> {
        let (x, y, width, height) = self.placement(window)?;
        Ok(Bounds {
            x,
            y,
            width,
            height,
        })
    }

    fn screen_bounds(&self) -> Result<Bounds> {
        let geometry = self
            .conn
            .get_geometry(self.root)
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(Bounds {
            x: 0,
            y: 0,
            width: i32::from(geometry.width),
            height: i32::from(geometry.height),
        })
    }

    /// Polls the window's bounds until `wanted` holds them, within the deadline.
    /// A window manager may refuse or adjust a request (a minimum size, the
    /// work area): then the bounds it settled on are an error naming them.
    fn await_bounds(
        &self,
        window: Window,
        done: &str,
        wanted: impl Fn(&Bounds) -> bool,
    ) -> Result<Option<Bounds>> {
        let deadline = Instant::now() + PLACE_DEADLINE;
        loop {
            let now = self.client_bounds(window)?;
            if wanted(&now) {
                return Ok(Some(now));
            }
            if Instant::now() >= deadline {
                return Err(Error::Placement(format!(
                    "the window was not {done} as asked within {} ms: it is at [{},{},{},{}] \
                     (a window manager may hold it to a minimum size or the work area)",
                    PLACE_DEADLINE.as_millis(),
                    now.x,
                    now.y,
                    now.width,
                    now.height
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Polls the window's bounds until they have held still for [`STEADY`],
    /// within the deadline; the bounds then, or the last seen at the deadline
    /// (a window manager that keeps moving a window has placed it all the same).
    fn await_steady(&self, window: Window) -> Result<Bounds> {
        let deadline = Instant::now() + PLACE_DEADLINE;
        let mut last = self.client_bounds(window)?;
        let mut since = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(10));
            let now = self.client_bounds(window)?;
            if now != last {
                (last, since) = (now, Instant::now());
            }
            if since.elapsed() >= STEADY || Instant::now() >= deadline {
                return Ok(now);
            }
        }
    }

    /// Whether the window's `_NET_WM_STATE` holds `state`.
    fn has_state(&mut self, window: Window, state: u32) -> Result<bool> {
        let property = self.atom("_NET_WM_STATE")?;
        let states = self
            .conn
            .get_property(
                false,
                window,
                property,
                x11rb::protocol::xproto::AtomEnum::ATOM,
                0,
                32,
            )
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(states
            .value32()
            .is_some_and(|mut values| values.any(|value| value == state)))
    }

    /// Waits until the window's `_NET_WM_STATE` holds `state` (or not).
    fn await_state(&mut self, window: Window, on: bool, state: u32) -> Result<()> {
        let deadline = Instant::now() + PLACE_DEADLINE;
        loop {
            if self.has_state(window, state)? == on {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Error::Placement(format!(
                    "the window manager did not {} window {window:#x} within {} ms",
                    if on { "maximize" } else { "restore" },
                    PLACE_DEADLINE.as_millis()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until the window is viewable (or not).
    fn await_mapped(&self, window: Window, mapped: bool) -> Result<()> {
        let deadline = Instant::now() + PLACE_DEADLINE;
        loop {
            let state = self
                .conn
                .get_window_attributes(window)
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?
                .map_state;
            if (state == MapState::VIEWABLE) == mapped {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Error::Placement(format!(
                    "the window manager did not {} window {window:#x} within {} ms",
                    if mapped { "show" } else { "minimize" },
                    PLACE_DEADLINE.as_millis()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Sizes an X window can take.
fn check_size(width: i32, height: i32) -> Result<()> {
    if (1..=32767).contains(&width) && (1..=32767).contains(&height) {
        Ok(())
    } else {
        Err(Error::Placement(format!(
            "a window cannot be {width}×{height}: width and height run from 1 to 32767"
        )))
    }
}
