//! Which display-server window (an X window, a compositor's toplevel) shows an
//! accessible window: the scoring and the rules, on plain data, so that they are
//! tested without a display, and the matches remembered between calls.
//!
//! An app's windows may share a title (a second window of the same document, a
//! demo's copies), so the title alone never decides: the size must fit where it is
//! known, a window already matched to another of the app's accessible windows is
//! not given out twice, and equal candidates go in creation order.

use std::collections::HashMap;

use axsight_core::ElementId;

/// How much larger (or smaller) than its accessible frame a client window may be,
/// in each dimension: GTK4 draws its shadows inside its own window, and some
/// toolkits count the window manager's decorations in their frame.
pub const SHADOW_MARGIN: i32 = 80;

/// A window that may be the one wanted, as read from the display server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The display server's id: both X and sway hand out increasing ids.
    pub window: u64,
    /// The title (X: `_NET_WM_NAME`, else `WM_NAME`); empty when it has none.
    pub title: String,
    /// Width and height; `None` when the window is gone.
    pub size: Option<(i32, i32)>,
    /// The client's process (X: `_NET_WM_PID`).
    pub pid: Option<u32>,
    /// Viewable (mapped, and its ancestors too).
    pub mapped: bool,
}

/// What is known of the accessible window whose X window is looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub title: String,
    /// The accessible frame's width and height, when the app reports extents.
    pub size: Option<(i32, i32)>,
    /// The app's process.
    pub pid: Option<u32>,
    /// Where the frame's content starts inside it, as the app's own tree says
    /// (its children's top-left corner), where the engine read it: a frame that
    /// holds a client-side shadow starts that far before the visible window.
    pub inset: Option<(i32, i32)>,
}

/// The scales a toolkit may draw at, screen pixels per reported pixel: GTK's
/// integer `GDK_SCALE`, Qt's and Java's fractional factors, GNOME's and KDE's
/// fractional steps.
pub const SCALES: [f64; 11] = [1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.5, 4.0];

/// How much narrower than its frame's width times the scale a scaled window
/// may be, per unit of scale: the window manager's borders, which GTK 3 and
/// Firefox count in their frames (2 logical pixels), and rounding.
const SCALED_WIDTH_SLACK: f64 = 4.0;

/// How much wider it may be, per unit of scale: a border the toolkit draws
/// around its frame without declaring it (GTK 4's resize border under a window
/// manager that composites nothing: 5 logical pixels a side, measured on
/// gnome-calculator at `GDK_SCALE=2`, a 355×486 frame in a 730×992 window).
const SCALED_BORDER_SLACK: f64 = 32.0;

/// The same for the height, which also holds the window manager's title bar
/// where the toolkit counts it in its frame (GTK 3, Firefox, LibreOffice).
const SCALED_HEIGHT_SLACK: f64 = 40.0;

/// Whether a window of size `have` can show an accessible frame of size `frame`
/// drawn at the same scale: within [`SHADOW_MARGIN`] either way.
pub fn fits_unscaled(have: (i32, i32), frame: (i32, i32)) -> bool {
    (have.0 - frame.0).abs() <= SHADOW_MARGIN && (have.1 - frame.1).abs() <= SHADOW_MARGIN
}

/// Whether a window of size `have` can show an accessible frame of size `frame`:
/// at the same scale (see [`fits_unscaled`]), or at one of [`SCALES`] (see
/// [`scale_of`]).
pub fn fits(have: (i32, i32), frame: (i32, i32)) -> bool {
    fits_unscaled(have, frame) || scale_of(&[have], frame).is_some()
}

/// The scale at which a window shows an accessible frame of size `frame`,
/// judged from its sizes `sizes` (the whole window, and without its
/// client-side shadow where the window says how wide that is): the one of
/// [`SCALES`] that makes the frame's width the closest to one of them, within
/// a few pixels less or a border more, with the height within a title bar. `None` when no scale fits
/// so closely (a shadow the window does not declare, another window).
///
/// Widths decide because toolkits count the window manager's title bar in their
/// frame's height (GTK 3 at scale 2: a 801×611 frame in a 1600×1200 window).
///
/// ```
/// use axsight_screen::screen::matching::scale_of;
/// assert_eq!(scale_of(&[(1600, 1200)], (801, 611)), Some(2.0));
/// assert_eq!(scale_of(&[(960, 720)], (640, 480)), Some(1.5));
/// assert_eq!(scale_of(&[(800, 600)], (802, 621)), Some(1.0));
/// assert_eq!(scale_of(&[(700, 600)], (640, 480)), None);
/// ```
pub fn scale_of(sizes: &[(i32, i32)], frame: (i32, i32)) -> Option<f64> {
    if frame.0 <= 0 || frame.1 <= 0 {
        return None;
    }
    let mut best: Option<(f64, f64)> = None;
    for &(width, height) in sizes {
        for scale in SCALES {
            let width_off = f64::from(width) - scale * f64::from(frame.0);
            let height_off = (f64::from(height) - scale * f64::from(frame.1)).abs();
            let close = (-SCALED_WIDTH_SLACK * scale..=SCALED_BORDER_SLACK * scale)
                .contains(&width_off)
                && height_off <= SCALED_HEIGHT_SLACK * scale;
            if close && best.is_none_or(|(_, off)| width_off.abs() < off) {
                best = Some((scale, width_off.abs()));
            }
        }
    }
    best.map(|(scale, _)| scale)
}

/// The candidate that best shows `wanted`, leaving out the windows in `taken`
/// (matched to other accessible windows of the app).
///
/// Each clue counts: a matching (non-empty) title most, then a fitting size
/// (the frame's own size beating a scaled one, so that a scaled-looking window
/// never takes the place of the right one), then the pid, then being mapped; a
/// title or a size must match. Where a size is known a window that does not
/// fit never wins, whatever its title. Where the app's own windows are among
/// the candidates, another app's never wins. Among equals the lowest window id
/// wins: X hands out a client's ids in increasing order, so that is the window
/// created first, as the app lists its accessible windows.
pub fn best(candidates: &[Candidate], wanted: &Wanted, taken: &[u64]) -> Option<u64> {
    let mut scored: Vec<(u32, bool, u64)> = Vec::new();
    for candidate in candidates {
        if taken.contains(&candidate.window) {
            continue;
        }
        let size = match (wanted.size, candidate.size) {
            (Some(frame), Some(have)) if fits_unscaled(have, frame) => 4,
            (Some(frame), Some(have)) if fits(have, frame) => 3,
            (Some(_), _) => continue,
            (None, _) => 0,
        };
        let titled = !wanted.title.is_empty() && candidate.title == wanted.title;
        // A title or a size must match; pid and mapping only break ties.
        if !titled && size == 0 {
            continue;
        }
        let same_pid = wanted.pid.is_some() && candidate.pid == wanted.pid;
        let score =
            8 * u32::from(titled) + size + 2 * u32::from(same_pid) + u32::from(candidate.mapped);
        scored.push((score, same_pid, candidate.window));
    }
    if scored.iter().any(|(_, same_pid, _)| *same_pid) {
        scored.retain(|(_, same_pid, _)| *same_pid);
    }
    scored
        .into_iter()
        .max_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)))
        .map(|(_, _, window)| window)
}

/// The windows matched to accessible windows, by their ids: a search reads
/// every window, a hit is checked with one request.
#[derive(Debug, Default)]
pub struct Matches {
    by_accessible: HashMap<ElementId, u64>,
}

impl Matches {
    /// The window matched to the accessible window `id` last, if any.
    pub fn remembered(&self, id: &ElementId) -> Option<u64> {
        self.by_accessible.get(id).copied()
    }

    /// The window that shows the accessible window `id`, one of the app's
    /// current windows `siblings`; `wanted` is what is known of it.
    ///
    /// Matches are remembered by accessible window, never by title: an app's
    /// windows may share one. A remembered match is used while the window exists
    /// (`size_of` gives its size) and still fits the frame; windows matched to
    /// the app's other (live) windows are not given out again, so that each gets
    /// its own. `candidates` are read only when no remembered match holds.
    pub fn find<E>(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
        size_of: impl Fn(u64) -> Option<(i32, i32)>,
        candidates: impl FnOnce() -> Result<Vec<Candidate>, E>,
    ) -> Result<Option<u64>, E> {
        // The app's windows that closed free their display windows.
        let bus = bus_of(id);
        self.by_accessible
            .retain(|known, _| bus_of(known) != bus || known == id || siblings.contains(known));
        if let Some(window) = self.by_accessible.get(id).copied() {
            let still_fits = match (size_of(window), wanted.size) {
                (Some(have), Some(frame)) => fits(have, frame),
                (Some(_), None) => true,
                (None, _) => false,
            };
            if still_fits {
                return Ok(Some(window));
            }
            self.by_accessible.remove(id);
        }
        let taken: Vec<u64> = self
            .by_accessible
            .iter()
            .filter(|(known, _)| bus_of(known) == bus)
            .map(|(_, window)| *window)
            .collect();
        let found = best(&candidates()?, wanted, &taken);
        if let Some(window) = found {
            self.by_accessible.insert(id.clone(), window);
        }
        Ok(found)
    }
}

impl Matches {
    /// [`Matches::find`] among `windows`, all read at once (a compositor's
    /// window list), each weighed as `candidate` says: the window found.
    pub fn find_in<W>(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
        windows: Vec<W>,
        candidate: impl Fn(&W) -> Candidate,
    ) -> Option<W> {
        let candidates: Vec<Candidate> = windows.iter().map(&candidate).collect();
        let size_of = |window: u64| {
            candidates
                .iter()
                .find(|c| c.window == window)
                .and_then(|c| c.size)
        };
        let found = self
            .find(id, siblings, wanted, size_of, || {
                Ok::<_, std::convert::Infallible>(candidates.clone())
            })
            .unwrap_or_else(|never| match never {})?;
        windows.into_iter().find(|w| candidate(w).window == found)
    }
}

/// The bus name part of an element id (`:1.42` of `:1.42/org/a11y/...`): the app.
fn bus_of(id: &ElementId) -> &str {
    id.0.split_once('/').map_or(id.0.as_str(), |(bus, _)| bus)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(window: u64, title: &str, size: (i32, i32)) -> Candidate {
        Candidate {
            window,
            title: title.to_string(),
            size: Some(size),
            pid: Some(7),
            mapped: true,
        }
    }

    fn wanted(title: &str, size: (i32, i32)) -> Wanted {
        Wanted {
            title: title.to_string(),
            size: Some(size),
            pid: Some(7),
            inset: None,
        }
    }

    /// The GTK4 fixture's windows: main and second share a title, a modal dialog.
    fn fixture() -> Vec<Candidate> {
        vec![
            candidate(0x400002, "axsight-gtk4-fixture", (1, 1)),
            candidate(0x400004, "demo", (546, 446)),
            candidate(0x400011, "demo", (346, 246)),
            candidate(0x40001a, "Modal question", (306, 166)),
        ]
    }

    #[test]
    fn windows_sharing_a_title_are_told_apart_by_size() {
        let all = fixture();
        assert_eq!(best(&all, &wanted("demo", (500, 400)), &[]), Some(0x400004));
        assert_eq!(best(&all, &wanted("demo", (300, 200)), &[]), Some(0x400011));
    }

    #[test]
    fn a_dialog_is_found_by_its_own_title() {
        let all = fixture();
        let dialog = wanted("Modal question", (260, 120));
        assert_eq!(best(&all, &dialog, &[]), Some(0x40001a));
        // Its title wins where its size would fit the second window too.
        let grown = wanted("Modal question", (300, 200));
        assert_eq!(best(&all, &grown, &[]), Some(0x40001a));
    }

    #[test]
    fn a_window_taken_by_another_accessible_window_is_not_given_twice() {
        let all = vec![
            candidate(0x400011, "demo", (346, 246)),
            candidate(0x400004, "demo", (346, 246)),
        ];
        let want = wanted("demo", (300, 200));
        // Equal candidates: the first created (lowest id) first, then the other.
        assert_eq!(best(&all, &want, &[]), Some(0x400004));
        assert_eq!(best(&all, &want, &[0x400004]), Some(0x400011));
        assert_eq!(best(&all, &want, &[0x400004, 0x400011]), None);
    }

    #[test]
    fn a_title_alone_does_not_win_when_the_size_does_not_fit() {
        let all = vec![candidate(0x400004, "demo", (546, 446))];
        // The window was resized (or is another one of that title).
        assert_eq!(best(&all, &wanted("demo", (300, 200)), &[]), None);
        // A window that is gone has no size, and never fits.
        let gone = vec![Candidate {
            size: None,
            ..candidate(0x400004, "demo", (546, 446))
        }];
        assert_eq!(best(&gone, &wanted("demo", (500, 400)), &[]), None);
        // Without a frame size the title decides.
        let sizeless = Wanted {
            size: None,
            ..wanted("demo", (0, 0))
        };
        assert_eq!(best(&all, &sizeless, &[]), Some(0x400004));
    }

    #[test]
    fn an_untitled_window_is_found_by_size_and_pid_not_by_an_empty_title() {
        let all = vec![
            candidate(0x200001, "", (10, 10)),
            candidate(0x200005, "", (810, 610)),
        ];
        assert_eq!(best(&all, &wanted("", (800, 600)), &[]), Some(0x200005));
        assert_eq!(best(&all, &wanted("", (600, 450)), &[]), None);
    }

    #[test]
    fn a_scaled_window_is_found_only_where_none_shows_the_frame_at_its_size() {
        // GTK 3 at GDK_SCALE=2 under a window manager, measured: a 801×611
        // frame (the title bar counted) in a 1600×1200 window.
        let scaled = candidate(0x400007, "demo", (1600, 1200));
        assert_eq!(
            best(
                std::slice::from_ref(&scaled),
                &wanted("demo", (801, 611)),
                &[]
            ),
            Some(0x400007)
        );
        // A window of the frame's own size wins over a scaled-looking one.
        let own = candidate(0x400009, "demo", (801, 611));
        let both = vec![scaled.clone(), own];
        assert_eq!(
            best(&both, &wanted("demo", (801, 611)), &[]),
            Some(0x400009)
        );
        // Another app's window of the frame's own size never wins over the
        // app's own scaled one (an app at scale 1 closing as one at 1.5 starts).
        let other_app = Candidate {
            pid: Some(99),
            ..candidate(0x20000b, "other", (801, 611))
        };
        assert_eq!(
            best(
                &[other_app, scaled.clone()],
                &wanted("demo", (801, 611)),
                &[]
            ),
            Some(0x400007)
        );
        // Near a scale is not at it.
        let off = candidate(0x40000b, "demo", (1500, 1200));
        assert_eq!(best(&[off], &wanted("demo", (801, 611)), &[]), None);
    }

    #[test]
    fn the_scale_is_read_off_the_width_with_the_shadow_left_out() {
        // Qt at 1.25 in a small dialog: within the shadow margin of scale 1,
        // but the width says 1.25.
        assert_eq!(scale_of(&[(250, 125)], (200, 100)), Some(1.25));
        // GTK4's shadow at scale 1: the window without it (from
        // _GTK_FRAME_EXTENTS) is the frame's size.
        assert_eq!(scale_of(&[(246, 146), (200, 100)], (200, 100)), Some(1.0));
        // GTK 4's undeclared resize border under openbox (gnome-calculator,
        // measured at GDK_SCALE=2).
        assert_eq!(scale_of(&[(730, 992)], (355, 486)), Some(2.0));
        // Java's root pane, measured at uiScale=2.
        assert_eq!(scale_of(&[(1040, 696)], (520, 348)), Some(2.0));
        assert_eq!(scale_of(&[(1040, 696)], (0, 0)), None);
    }

    #[test]
    fn the_apps_own_window_beats_another_apps_and_mapped_beats_hidden() {
        let other_app = Candidate {
            pid: Some(99),
            ..candidate(0x100001, "demo", (500, 400))
        };
        let hidden = Candidate {
            mapped: false,
            ..candidate(0x400004, "demo", (500, 400))
        };
        let shown = candidate(0x400009, "demo", (500, 400));
        let want = wanted("demo", (500, 400));
        let all = vec![other_app.clone(), hidden.clone(), shown];
        assert_eq!(best(&all, &want, &[]), Some(0x400009));
        assert_eq!(best(&[other_app, hidden], &want, &[]), Some(0x400004));
    }

    #[test]
    fn fitting_allows_the_shadow_margin_either_way() {
        assert!(fits_unscaled((371, 495), (361, 485)));
        assert!(!fits_unscaled((1600, 1200), (801, 611)));
        assert!(fits((1600, 1200), (801, 611)));
        assert!(fits((371, 495), (361, 485)));
        assert!(fits((500, 400), (500, 400)));
        assert!(fits((580, 480), (500, 400)));
        assert!(!fits((581, 400), (500, 400)));
        assert!(!fits((300, 200), (500, 400)));
    }

    #[test]
    fn a_match_is_kept_while_it_fits_and_each_sibling_gets_its_own() {
        let mut matches = Matches::default();
        let (a, b) = (ElementId(":1.5/w/1".into()), ElementId(":1.5/w/2".into()));
        let siblings = [a.clone(), b.clone()];
        let two = || {
            Ok::<_, ()>(vec![
                candidate(4, "demo", (300, 200)),
                candidate(9, "demo", (300, 200)),
            ])
        };
        let want = wanted("demo", (300, 200));
        let size = |_| Some((300, 200));
        assert_eq!(matches.find(&a, &siblings, &want, size, two), Ok(Some(4)));
        assert_eq!(matches.find(&b, &siblings, &want, size, two), Ok(Some(9)));
        // Remembered: no candidates are read.
        let unread = || -> Result<Vec<Candidate>, ()> { panic!("candidates read again") };
        assert_eq!(
            matches.find(&a, &siblings, &want, size, unread),
            Ok(Some(4))
        );
        // The window is gone: searched again.
        assert_eq!(
            matches.find(&a, &siblings, &want, |_| None, two),
            Ok(Some(4))
        );
    }
}
