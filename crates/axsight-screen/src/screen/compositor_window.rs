//! A compositor's toplevel windows as a script running inside it lists and
//! moves them (axsight's GNOME Shell extension, axsight's KWin scripts): one
//! JSON shape for both, read into plain data and tested without a compositor;
//! what each window's fields say about where its content starts; and the window
//! half of [`super::Screen`] built once on a script's few operations
//! ([`ScriptedWindows`]).

use axsight_core::{Bounds, ElementId, Placement};
use serde::Deserialize;

use super::matching::{Candidate, Matches, Wanted};
use super::{WindowId, WindowOrigin};
use crate::{Error, Result};

/// One window as the compositor's script reports it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CompositorWindow {
    pub id: u64,
    #[serde(default)]
    pub pid: Option<i64>,
    #[serde(default)]
    pub title: String,
    /// The window's class or app id (missing from extensions and scripts
    /// before axsight 0.2).
    #[serde(default)]
    pub class: String,
    /// The visible window, server-drawn title bar and borders included
    /// (mutter's frame rect, KWin's frameGeometry), in the layout.
    pub frame: [i32; 4],
    /// The client's whole surface: with its shadow when it draws its own
    /// decorations, without the compositor's title bar when it does not
    /// (mutter's buffer rect, KWin's bufferGeometry).
    pub buffer: [i32; 4],
    pub focused: bool,
    pub minimized: bool,
    pub maximized: bool,
    pub fullscreen: bool,
    /// Not minimized, and on the active workspace.
    pub shown: bool,
    pub xwayland: bool,
    /// Screen pixels per pixel its app reports: the scale of the monitor it
    /// is on where the screen is device pixels (mutter's physical layout),
    /// else 1 (see [`WindowScript::app_scale`]). Not in the JSON.
    #[serde(skip, default = "unscaled")]
    pub scale: f64,
}

fn unscaled() -> f64 {
    1.0
}

impl CompositorWindow {
    /// The visible window's bounds.
    pub fn content(&self) -> Bounds {
        rect(self.frame)
    }

    /// The app's own part of the window: its surface where that lies inside
    /// the visible window (under the compositor's title bar: KWin's
    /// decorations), else the visible window (the app draws its own title
    /// bar). Where `move_window` puts its top-left, as on X11 and sway.
    pub fn client(&self) -> Bounds {
        let (frame, buffer) = (self.content(), rect(self.buffer));
        match buffer != frame && frame.intersection(&buffer) == Some(buffer) {
            true => buffer,
            false => frame,
        }
    }

    /// Where the client-side shadow around the visible window starts: how far
    /// the surface reaches out left and up.
    pub fn shadow(&self) -> (i32, i32) {
        (
            (self.frame[0] - self.buffer[0]).max(0),
            (self.frame[1] - self.buffer[1]).max(0),
        )
    }

    /// The process, when the compositor knows it.
    pub fn pid(&self) -> Option<u32> {
        self.pid.and_then(|pid| u32::try_from(pid).ok())
    }

    /// Where the accessible frame `wanted` describes starts on screen.
    ///
    /// A surface inside the visible window is the client's area under the
    /// compositor's title bar (KWin's decorations): the frame starts with it.
    /// Otherwise the app draws its own decorations: a surface larger than the
    /// visible window holds a shadow, which the compositor measures exactly
    /// (the app's own inset, its children's corner, is fooled by a child at
    /// 0,0: gtk3-widget-factory's); else the app's inset places the frame.
    pub fn frame_origin(&self, wanted: &Wanted) -> (i32, i32) {
        if self.scale == 1.0 {
            return self.unscaled_frame_origin(wanted);
        }
        // The app's units, from the visible window's corner: worked out there
        // and scaled back.
        let (left, top) = (self.frame[0], self.frame[1]);
        let down = |[x, y, width, height]: [i32; 4]| {
            let v = |n: i32| (f64::from(n) / self.scale).round() as i32;
            [v(x - left), v(y - top), v(width), v(height)]
        };
        let app = CompositorWindow {
            frame: down(self.frame),
            buffer: down(self.buffer),
            scale: 1.0,
            ..self.clone()
        };
        let (x, y) = app.unscaled_frame_origin(wanted);
        let up = |n: i32| (f64::from(n) * self.scale).round() as i32;
        (left + up(x), top + up(y))
    }

    fn unscaled_frame_origin(&self, wanted: &Wanted) -> (i32, i32) {
        let (frame, buffer) = (self.content(), rect(self.buffer));
        if buffer == frame {
            return super::frame_origin(frame, wanted.size, wanted.inset.or(Some((0, 0))));
        }
        if frame.intersection(&buffer) == Some(buffer) {
            return super::frame_origin(buffer, wanted.size, Some((0, 0)));
        }
        super::frame_origin(frame, wanted.size, Some(self.shadow()))
    }

    /// What matching weighs of the window, for an accessible frame of
    /// `wanted` size: in the app's units (the frame as its tree reports it),
    /// or the screen's where only those fit (a window's bounds as a listing
    /// printed them, its shadow included: the surface's size).
    pub fn candidate_for(&self, wanted: Option<(i32, i32)>) -> Candidate {
        let mut candidate = self.candidate();
        let (Some(app), Some(wanted)) = (candidate.size, wanted) else {
            return candidate;
        };
        if !super::matching::fits(app, wanted) {
            let screen = [self.frame, self.buffer].map(|[_, _, width, height]| (width, height));
            if let Some(&size) = screen
                .iter()
                .find(|&&size| super::matching::fits(size, wanted))
            {
                candidate.size = Some(size);
            }
        }
        candidate
    }

    /// What matching weighs of the window: its size in the app's units.
    pub fn candidate(&self) -> Candidate {
        Candidate {
            window: self.id,
            title: self.title.clone(),
            size: Some((
                (f64::from(self.frame[2]) / self.scale).round() as i32,
                (f64::from(self.frame[3]) / self.scale).round() as i32,
            )),
            pid: self.pid(),
            mapped: self.shown,
        }
    }
}

fn rect([x, y, width, height]: [i32; 4]) -> Bounds {
    Bounds {
        x,
        y,
        width,
        height,
    }
}

/// The windows of a script's JSON list, bottom first; `who` names the script
/// in the error.
pub fn parse(json: &str, who: &str) -> Result<Vec<CompositorWindow>, String> {
    serde_json::from_str(json).map_err(|e| format!("{who}'s window list does not parse: {e}"))
}

/// The topmost shown window whose visible window holds (`x`, `y`).
pub fn window_at(windows: &[CompositorWindow], x: i32, y: i32) -> Option<&CompositorWindow> {
    windows
        .iter()
        .rev()
        .find(|w| w.shown && w.content().contains(x, y))
}

/// The operations a compositor's window script offers.
pub trait WindowScript {
    /// Every toplevel window, bottom first.
    fn list(&mut self) -> Result<Vec<CompositorWindow>>;
    /// Unminimizes, raises and focuses the window.
    fn activate(&mut self, id: WindowId) -> Result<()>;
    /// Asks the window to close.
    fn close(&mut self, id: WindowId) -> Result<()>;
    /// Places the visible window (restoring it first when maximized).
    fn move_resize(&mut self, id: WindowId, bounds: Bounds) -> Result<()>;
    fn maximize(&mut self, id: WindowId, on: bool) -> Result<()>;
    fn minimize(&mut self, id: WindowId, on: bool) -> Result<()>;
    /// The window `id` as it is now, by one request cheaper than [`list`]
    /// where the compositor has one; `None` (the default) sends the caller to
    /// the list.
    ///
    /// [`list`]: WindowScript::list
    fn look_up(&mut self, _id: WindowId) -> Result<Option<CompositorWindow>> {
        Ok(None)
    }
    /// Screen pixels per pixel an app reports in a window whose visible part
    /// is `frame`: 1 (the default) where the screen is in the apps' own
    /// logical pixels, as on most compositors.
    fn app_scale(&self, _frame: Bounds) -> f64 {
        1.0
    }
}

/// The window half of a [`super::Screen`], on a compositor's script: which
/// window shows an accessible one, where its content starts, and focus,
/// closing and placing, each waited for until the compositor shows it.
pub struct ScriptedWindows<S> {
    pub script: S,
    matches: Matches,
}

impl<S: WindowScript> ScriptedWindows<S> {
    pub fn new(script: S) -> ScriptedWindows<S> {
        ScriptedWindows {
            script,
            matches: Matches::default(),
        }
    }

    /// Every toplevel window, bottom first, each with its app's scale.
    fn listed(&mut self) -> Result<Vec<CompositorWindow>> {
        let mut all = self.script.list()?;
        for window in &mut all {
            window.scale = self.script.app_scale(window.content());
        }
        Ok(all)
    }

    /// The window `id` as it is now.
    pub fn window(&mut self, id: WindowId) -> Result<CompositorWindow> {
        self.listed()?
            .into_iter()
            .find(|w| w.id == id)
            .ok_or(Error::WindowGone)
    }

    /// The window that shows the accessible window `id`: the one matched to
    /// it before, looked up alone while it still fits, else the best of all.
    pub fn matched(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<CompositorWindow>> {
        if let Some(known) = self.matches.remembered(id) {
            if let Some(mut window) = self.script.look_up(known)? {
                window.scale = self.script.app_scale(window.content());
                let fits = wanted.size.is_none_or(|frame| {
                    let size = window.candidate_for(Some(frame)).size.unwrap_or_default();
                    super::matching::fits(size, frame)
                });
                if fits {
                    return Ok(Some(window));
                }
            }
        }
        let all = self.listed()?;
        Ok(self
            .matches
            .find_in(id, siblings, wanted, all, |w| w.candidate_for(wanted.size)))
    }

    /// The id of the window that shows the accessible window `id`.
    pub fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>> {
        Ok(self.matched(id, siblings, wanted)?.map(|w| w.id))
    }

    /// The visible bounds of the window that shows the accessible window `id`.
    pub fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        Ok(self.matched(id, siblings, wanted)?.map(|w| w.content()))
    }

    /// The window of process `pid` titled `title`.
    pub fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>> {
        let wanted = Wanted {
            title: title.to_string(),
            size: None,
            pid,
            inset: None,
        };
        let candidates: Vec<Candidate> = self
            .listed()?
            .iter()
            .map(CompositorWindow::candidate)
            .collect();
        Ok(super::matching::best(&candidates, &wanted, &[]))
    }

    /// Where the accessible frame of `id` starts on screen.
    pub fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        let Some(window) = self.matched(id, siblings, wanted)? else {
            return Ok(None);
        };
        if window.xwayland {
            // XWayland apps report screen coordinates already.
            return Ok(Some(WindowOrigin::unscaled(0, 0)));
        }
        let (x, y) = window.frame_origin(wanted);
        Ok(Some(WindowOrigin {
            x,
            y,
            scale: window.scale,
        }))
    }

    /// The shown windows of process `pid`, with their titles and bounds.
    pub fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        Ok(self
            .listed()?
            .into_iter()
            .filter(|w| w.pid() == Some(pid) && w.shown)
            .map(|w| (w.title.clone(), w.content()))
            .collect())
    }

    /// The shown windows, bottom first.
    pub fn toplevels(&mut self) -> Result<Vec<super::Toplevel>> {
        Ok(self
            .listed()?
            .into_iter()
            .filter(|w| w.shown)
            .map(|w| super::Toplevel {
                id: w.id,
                bounds: w.content(),
                pid: w.pid(),
                title: w.title,
                class: w.class,
                active: w.focused,
            })
            .collect())
    }

    /// Whether (`x`, `y`) lands in `window`.
    pub fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        let all = self.listed()?;
        Ok(window_at(&all, x, y).is_some_and(|w| w.id == window))
    }

    /// Focuses `window` and waits until the compositor says it has the focus.
    pub fn activate(&mut self, window: WindowId) -> Result<()> {
        self.script.activate(window)?;
        self.await_window(window, "focused", |w| w.focused)
            .map(drop)
    }

    /// Focuses the window under (`x`, `y`), if any.
    pub fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        let all = self.listed()?;
        match window_at(&all, x, y).map(|w| w.id) {
            Some(id) => self.activate(id),
            None => Ok(()),
        }
    }

    /// Places `window` and waits until the compositor shows it so; its visible
    /// bounds then (`None` when minimized).
    pub fn place(&mut self, window: WindowId, placement: Placement) -> Result<Option<Bounds>> {
        let before = self.window(window)?;
        let [bx, by, bw, bh] = before.frame;
        // The compositor places the visible window; the caller means the
        // app's part of it, which a compositor's title bar may push down.
        let client = before.client();
        let (left, top) = (client.x - bx, client.y - by);
        let (more_width, more_height) = (bw - client.width, bh - client.height);
        let placed = match placement {
            Placement::Move { x, y, size } => {
                let (width, height) = size
                    .map(|(w, h)| (w + more_width, h + more_height))
                    .unwrap_or((bw, bh));
                let frame = [x - left, y - top, width, height];
                self.script.move_resize(window, rect(frame))?;
                self.await_window(window, "moved", move |w| w.frame == frame)?
            }
            Placement::Resize { width, height } => {
                let (width, height) = (width + more_width, height + more_height);
                self.script
                    .move_resize(window, rect([bx, by, width, height]))?;
                self.await_window(window, "resized", move |w| {
                    (w.frame[2], w.frame[3]) == (width, height)
                })?
            }
            Placement::Maximize(on) => {
                if before.maximized == on {
                    return Ok(Some(before.client()));
                }
                self.script.maximize(window, on)?;
                let done = if on { "maximized" } else { "restored" };
                self.await_window(window, done, move |w| {
                    w.maximized == on && w.frame != before.frame
                })?
            }
            Placement::Minimize(on) => {
                self.script.minimize(window, on)?;
                let done = if on { "minimized" } else { "shown" };
                let shown = self.await_window(window, done, move |w| w.minimized == on)?;
                if on {
                    return Ok(None);
                }
                shown
            }
        };
        Ok(Some(placed.client()))
    }

    /// Looks at the window until `wanted` holds (see [`super::await_window`]).
    fn await_window(
        &mut self,
        id: WindowId,
        done: &str,
        wanted: impl Fn(&CompositorWindow) -> bool,
    ) -> Result<CompositorWindow> {
        super::await_window(done, || self.window(id), wanted, CompositorWindow::client)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = r#"[
        {"id": 11, "pid": 40, "title": "axsight fixture", "frame": [160, 168, 852, 689],
         "buffer": [134, 145, 904, 741], "focused": false, "minimized": false,
         "maximized": false, "fullscreen": false, "shown": true, "xwayland": false},
        {"id": 12, "pid": 41, "title": "Calculator", "frame": [57, 73, 360, 503],
         "buffer": [-4, 18, 482, 613], "focused": true, "minimized": false,
         "maximized": false, "fullscreen": false, "shown": true, "xwayland": false},
        {"id": 13, "pid": -1, "title": "hidden", "frame": [0, 0, 10, 10],
         "buffer": [0, 0, 10, 10], "focused": false, "minimized": true,
         "maximized": false, "fullscreen": false, "shown": false, "xwayland": true}
    ]"#;

    #[test]
    fn a_reply_becomes_windows_bottom_first() {
        let windows = parse(REPLY, "the extension").unwrap();
        assert_eq!(windows.len(), 3);
        assert_eq!(
            windows[0].content(),
            Bounds {
                x: 160,
                y: 168,
                width: 852,
                height: 689
            }
        );
        assert_eq!(windows[0].shadow(), (26, 23));
        assert_eq!(windows[2].pid(), None);
        assert!(parse("{", "the extension").is_err());
    }

    #[test]
    fn the_point_belongs_to_the_topmost_shown_window() {
        let windows = parse(REPLY, "the extension").unwrap();
        assert_eq!(window_at(&windows, 200, 200).map(|w| w.id), Some(12));
        assert_eq!(window_at(&windows, 900, 800).map(|w| w.id), Some(11));
        assert_eq!(window_at(&windows, 5, 5), None); // only the minimized one is there
    }
}

#[cfg(test)]
mod frame_tests {
    use super::*;

    fn window(frame: [i32; 4], buffer: [i32; 4]) -> CompositorWindow {
        CompositorWindow {
            id: 1,
            pid: None,
            title: String::new(),
            class: String::new(),
            frame,
            buffer,
            focused: false,
            minimized: false,
            maximized: false,
            fullscreen: false,
            shown: true,
            xwayland: false,
            scale: 1.0,
        }
    }

    fn wanted(size: (i32, i32)) -> Wanted {
        Wanted {
            title: String::new(),
            size: Some(size),
            pid: None,
            inset: None,
        }
    }

    #[test]
    fn a_server_decorated_frame_starts_below_the_compositors_title_bar() {
        // KWin with Breeze: the fixture's 800×600 surface under a 37 px title bar.
        let w = window([560, 221, 800, 637], [560, 258, 800, 600]);
        assert_eq!(w.frame_origin(&wanted((800, 600))), (560, 258));
        assert_eq!(w.client(), rect([560, 258, 800, 600]));
    }

    #[test]
    fn a_client_decorated_frame_starts_at_its_shadow_or_its_window() {
        // GTK4 on KWin: the frame is the visible window, the surface larger.
        let gtk4 = window([780, 309, 360, 495], [719, 254, 482, 617]);
        assert_eq!(gtk4.frame_origin(&wanted((360, 495))), (780, 309));
        assert_eq!(gtk4.client(), rect([780, 309, 360, 495]));
        // GTK3 with a header bar: the frame holds the shadow, which the
        // compositor knows better than the app's children tell.
        let gtk3 = window([760, 366, 400, 347], [734, 343, 452, 405]);
        assert_eq!(gtk3.frame_origin(&wanted((452, 399))), (734, 343));
        let fooled = Wanted {
            inset: Some((0, 0)),
            ..wanted((452, 399))
        };
        assert_eq!(gtk3.frame_origin(&fooled), (734, 343));
    }

    #[test]
    fn in_mutters_physical_layout_a_scaled_window_is_matched_and_placed_in_app_units() {
        // GTK3 at scale 2 (measured): an 852×689 frame with its shadow, drawn
        // as a 1600×1274 window in a 1704×1378 surface.
        let gtk3 = CompositorWindow {
            scale: 2.0,
            ..window([0, 64, 1600, 1274], [-52, 18, 1704, 1378])
        };
        assert_eq!(gtk3.candidate().size, Some((800, 637)));
        assert_eq!(gtk3.frame_origin(&wanted((852, 689))), (-52, 18));
        // A listing's bounds are the screen's: the surface's size fits them.
        assert_eq!(
            gtk3.candidate_for(Some((1704, 1378))).size,
            Some((1704, 1378))
        );
        assert_eq!(gtk3.candidate_for(Some((852, 689))).size, Some((800, 637)));
    }
}
