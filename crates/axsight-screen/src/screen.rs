//! The display-server seam: what the engine asks of whatever shows the windows
//! (real input, the screen's pixels, where each app window sits, and raising,
//! closing and placing windows). [`crate::x11::X11`] answers it on an X display,
//! [`crate::sway::Sway`] on a sway (wlroots) Wayland session, [`crate::gnome::Gnome`]
//! on a GNOME one, [`crate::kde::Kde`] on a KDE one, [`crate::portal::Portal`]
//! (the desktop portals) on any other; `crate::backends` picks one when the
//! engine connects, and the engine never asks which it holds. Nothing here
//! names a backend.
//!
//! Points and bounds are in one screen space: the X root window's, or the
//! compositor's output layout. Window ids are the display server's own (an X
//! window, a sway container), only ever handed back to the screen that gave them.
//! The parts every backend shares live here too: key names and characters as
//! keysyms ([`keysyms`]), the pause between clicks ([`click_gap`]), which display
//! window shows an accessible window ([`matching`]), input as events of
//! virtual devices ([`virtual_input`], for the Wayland backends, and
//! [`remote_input`] for remote-desktop sessions), PNG screenshots
//! ([`png_file`]), the clipboard's seam ([`clipboard`]), the desktop portals'
//! client ([`portals`]), Wayland's client protocols ([`wayland`]: outputs,
//! seats, keymaps, and the devices and screencopy wlroots compositors offer),
//! calls on the session bus ([`session_bus`]) and reading a pipe ([`pipe`]).

pub mod click_gap;
pub mod clipboard;
pub mod compositor_window;
pub mod keysyms;
pub mod matching;
pub mod pipe;
pub mod png_file;
pub mod portals;
pub mod remote_input;
pub mod session_bus;
pub mod virtual_input;
pub mod wayland;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axsight_core::{Bounds, Capture, ElementId, Input, Placement};

use crate::{Error, Result};
use matching::Wanted;

/// A screen shared by the engine's calls.
pub type SharedScreen = Arc<Mutex<dyn Screen>>;

/// A display server's id for a toplevel window.
pub type WindowId = u64;

/// Where a toplevel window's content (the accessible frame) starts on screen,
/// and at what scale the app draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowOrigin {
    pub x: i32,
    pub y: i32,
    /// Screen pixels per pixel the app reports (2 for GTK at `GDK_SCALE=2`
    /// on X11); 1 where the app reports screen pixels.
    pub scale: f64,
}

impl WindowOrigin {
    /// Content at (`x`, `y`), reported in screen pixels.
    pub fn unscaled(x: i32, y: i32) -> WindowOrigin {
        WindowOrigin { x, y, scale: 1.0 }
    }
}

/// A monitor the screen spans (core's, which the engine hands on).
pub use axsight_core::Output;

/// A top-level window as the display server lists it: all that is known of a
/// window whose app may not be on the accessibility bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toplevel {
    pub id: WindowId,
    pub title: String,
    /// The program's name as the window gives it (X11's `WM_CLASS` instance,
    /// a Wayland app id or window class); empty when it gives none.
    pub class: String,
    pub pid: Option<u32>,
    /// Its content on screen.
    pub bounds: Bounds,
    /// It has the keyboard focus.
    pub active: bool,
}

/// What the engine needs from the display server. Calls block: the engine runs
/// them off the runtime, each within a deadline ([`off_thread`]).
pub trait Screen: Send {
    /// What serves the screen and how, as `axsight doctor` says it
    /// (`X11: input through XTest, …`).
    fn name(&self) -> String;

    /// Whether every app reports its extents relative to its own window, so that
    /// each window needs its origin added (Wayland), not only GTK4's (X11).
    fn extents_are_window_relative(&self) -> bool;

    /// Whether this screen made input devices of its own when it connected
    /// (Wayland's virtual pointer and keyboard): apps take a moment to start
    /// listening to a new device, and input sent before is lost.
    fn made_input_devices(&self) -> bool;

    /// The clipboard this screen brings, when it is not the X display's.
    fn clipboard(&self) -> Option<Box<dyn clipboard::Clipboard>> {
        None
    }

    /// One request answered: whether the display server still serves us.
    fn round_trip(&mut self) -> Result<()>;

    /// Sends `input` as the devices would, returning once it was delivered with
    /// every key and button released again.
    fn send_input(&mut self, input: &Input) -> Result<()>;

    /// The pixels of `region` of the screen (cut to the screen), or all of it.
    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture>;

    /// The window that shows the accessible window `id`, one of its app's current
    /// windows `siblings` (see [`matching::Matches::find`]).
    fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>>;

    /// The window of process `pid` titled `title`, not remembered (for a window
    /// whose app does not answer).
    fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>>;

    /// Where the content of the accessible window `id` (a frame of
    /// `wanted.size`) starts on screen, and the scale its app draws it at;
    /// `None` when no window matches.
    fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>>;

    /// The monitors the screen spans, for `doctor`; none where the display
    /// server does not say.
    fn outputs(&mut self) -> Result<Vec<Output>> {
        Ok(Vec::new())
    }

    /// The screen bounds of the window that shows the accessible window `id`,
    /// for frames that report no extents (Java's).
    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>>;

    /// The windows process `pid` shows, with their titles and bounds.
    fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>>;

    /// Every top-level window shown, bottom first: where the windows of apps
    /// without accessibility are found.
    fn toplevels(&mut self) -> Result<Vec<Toplevel>>;

    /// Whether pointer input at (`x`, `y`) lands in `window` (no other window
    /// covers the point there).
    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool>;

    /// [`Screen::reaches`] for each of `points`, in their order. A screen that
    /// can answer many points at the cost of one (X11) says so here.
    fn reaches_each(&mut self, window: WindowId, points: &[(i32, i32)]) -> Result<Vec<bool>> {
        points
            .iter()
            .map(|&(x, y)| self.reaches(window, x, y))
            .collect()
    }

    /// Raises `window` and gives it the keyboard focus.
    fn activate(&mut self, window: WindowId) -> Result<()>;

    /// Raises and focuses the window under (`x`, `y`).
    fn activate_at(&mut self, x: i32, y: i32) -> Result<()>;

    /// Asks `window` to close, as its close button would.
    fn close(&mut self, window: WindowId) -> Result<()>;

    /// Moves, resizes, maximizes or minimizes `window` and waits until the
    /// screen shows it so; its content's bounds then (`None` when minimized).
    fn place(&mut self, window: WindowId, placement: Placement) -> Result<Option<Bounds>>;
}

/// Where a window's accessible frame starts on screen, given where the window
/// the compositor shows is (`content`), the frame's size, and where the content
/// starts inside the frame (`inset`, from the app's own tree or the
/// compositor).
///
/// - The frame is the visible window (GTK4, or a server-decorated window): it
///   starts there.
/// - The frame is larger: it holds a client-side shadow (GTK3 with a header
///   bar, floating) and starts `inset` before the window; without an inset the
///   shadow is taken to be even on each side.
/// - The frame is smaller: the app draws its own decorations outside it (Qt's
///   title bar on GNOME): borders as wide on the sides and at the bottom, and
///   the title bar above taking the rest.
pub fn frame_origin(
    content: Bounds,
    frame: Option<(i32, i32)>,
    inset: Option<(i32, i32)>,
) -> (i32, i32) {
    let (x, y) = (content.x, content.y);
    let Some((width, height)) = frame else {
        return (x, y);
    };
    let (extra_w, extra_h) = (width - content.width, height - content.height);
    if extra_w.abs() <= 2 && extra_h.abs() <= 2 {
        return (x, y);
    }
    if extra_w <= 0 && extra_h <= 0 {
        let border = -extra_w / 2;
        return (x + border, y + (-extra_h - border).max(0));
    }
    let (left, top) = inset.unwrap_or(((extra_w / 2).max(0), (extra_h / 2).max(0)));
    (x - left, y - top)
}

/// The part of `layout` (the screen) a capture of `region` covers, all of it
/// when no region is asked for; an error for a region off the screen.
pub fn capture_area(layout: Bounds, region: Option<Bounds>) -> Result<Bounds> {
    match region {
        Some(region) => region.intersection(&layout).ok_or_else(|| {
            Error::Wayland(format!(
                "the region [{},{},{},{}] lies off the screen",
                region.x, region.y, region.width, region.height
            ))
        }),
        None => Ok(layout),
    }
}

/// The Linux input event code of a pointer button (`BTN_LEFT`…), as Wayland
/// and mutter take them.
pub fn evdev_button(button: axsight_core::MouseButton) -> u32 {
    match button {
        axsight_core::MouseButton::Left => 0x110,
        axsight_core::MouseButton::Right => 0x111,
        axsight_core::MouseButton::Middle => 0x112,
    }
}

/// How long a compositor gets to show a focus change or a placement.
pub const SHOW_DEADLINE: Duration = Duration::from_secs(2);

/// Looks at a window (`look`) until `wanted` holds, within [`SHOW_DEADLINE`]:
/// the window then, or an error naming what was not `done` and where the
/// window is (`bounds_of`).
pub fn await_window<W>(
    done: &str,
    mut look: impl FnMut() -> Result<W>,
    wanted: impl Fn(&W) -> bool,
    bounds_of: impl Fn(&W) -> Bounds,
) -> Result<W> {
    let deadline = std::time::Instant::now() + SHOW_DEADLINE;
    loop {
        let window = look()?;
        if wanted(&window) {
            return Ok(window);
        }
        if std::time::Instant::now() >= deadline {
            let b = bounds_of(&window);
            return Err(Error::Placement(format!(
                "the window was not {done} as asked within {} ms: it is at [{},{},{},{}]",
                SHOW_DEADLINE.as_millis(),
                b.x,
                b.y,
                b.width,
                b.height
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs blocking display-server work on a blocking thread and waits `deadline`
/// at most: a display server that accepts connections but never answers must
/// not stall the caller.
pub async fn off_thread<T: Send + 'static>(
    deadline: Duration,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::time::timeout(deadline, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(Error::Screen(format!("display work failed: {join}"))),
        Err(_) => Err(Error::Screen(format!(
            "the display server did not answer within {} ms",
            deadline.as_millis()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_with_a_shadow_starts_that_far_before_the_window() {
        let window = Bounds {
            x: 760,
            y: 366,
            width: 400,
            height: 347,
        };
        // GTK3 with a header bar: the frame (452×399) holds the shadow, whose
        // top is thinner than its bottom (measured: 23 and 29).
        assert_eq!(
            frame_origin(window, Some((452, 399)), Some((26, 23))),
            (734, 343)
        );
        // Not knowing the inset: an even shadow.
        assert_eq!(frame_origin(window, Some((452, 399)), None), (734, 340));
        // The frame is the window (server decorations, or GTK4).
        assert_eq!(
            frame_origin(window, Some((400, 347)), Some((0, 27))),
            (760, 366)
        );
        assert_eq!(frame_origin(window, None, None), (760, 366));
    }

    #[test]
    fn a_frame_inside_the_apps_own_decorations_starts_below_its_title_bar() {
        // Qt 6 on GNOME: mutter's frame 646×513 around an accessible 640×480,
        // 3 px borders and a 30 px title bar (measured from a screenshot).
        let window = Bounds {
            x: 313,
            y: 38,
            width: 646,
            height: 513,
        };
        assert_eq!(
            frame_origin(window, Some((640, 480)), Some((0, 0))),
            (316, 68)
        );
    }
}
