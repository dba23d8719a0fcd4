//! The pixels as a witness of what events cannot show: an action in a window
//! whose app is not on the bus (it sends no events at all), an action whose
//! app sent none (a web page's class toggle, a custom-drawn widget), and an
//! action on a silent surface (an icon view's selection). The window is
//! captured before the action; after it, the captures are compared, and each
//! changed region is named with what OCR reads there now.
//!
//! A window without events is watched until its pixels settle: the first
//! change within [`EXPECT`], then [`QUIET`] without another, polled every
//! [`EVERY`] (there is no event to wait on). The answer never says "no
//! change" while the screen changed.
//!
//! # The pixel witness
//!
//! **The pixel witness** (`axsight-session/src/acting/witness.rs`, core's
//! `pixel_change.rs`). `Session::before` captures the acted window's box (when a diff
//! is asked). In `Session::answer`: a settle that ended `Silent` is followed by
//! `settle_pixels`, a poll every 50 ms until a change has been followed by 200 ms of
//! the same pixels, or none came within 1 s (or the timeout); the tree diff is made as
//! always; then, for a silent window, a quiet tree diff, a settle that saw no event (unless
//! the window moved or was resized: its old pixels witness nothing of its new), a
//! silent surface acted on, or a control of a document whose page shows no change but
//! focus (`Before::aiming_at`, `witness::page_shows_no_change`: a web chip that
//! toggles a class), `witness_lines` compares the captures, within the surface or the
//! control's box where the tree did change elsewhere. `changed_regions`
//! marks pixels that moved by more than 24 in a channel, gathers them in 4×4 blocks
//! and eight-connected groups with exact pixel boxes, joins groups 8 px apart or
//! closer, and drops those one or two pixels thin. Regions under where this click
//! landed, and where this session last clicked (`Session::pointer`), come last; a
//! region a line high is widened over its text (`text_run`) and read as one line
//! (`read_line`, padded by 6 px), a taller one read whole with its lines that meet it
//! joined. A change under a pointer that already hovered there is the control's own
//! state, not its hover look, and says so.

use std::time::{Duration, Instant};

use axsight_core::{
    changed_regions, quote_at_most, text_run, Bounds, Capture, ElementId, Engine, FieldChange,
    Point, Tree, WindowChange,
};

use crate::session::Session;

/// How long a silent window's pixels are watched for a first change.
pub const EXPECT: Duration = Duration::from_millis(1000);
/// How long they must then stay the same.
pub const QUIET: Duration = Duration::from_millis(200);
/// How often they are captured meanwhile.
pub const EVERY: Duration = Duration::from_millis(50);
/// Regions named in an answer at most; the rest are counted.
const MAX_REGIONS: usize = 3;
/// Larger regions are named by their box alone: reading them would cost more
/// than a tree read (the agent reads them with `get_window_tree`).
const MAX_READ: (i32, i32) = (640, 320);
/// Characters of a region's text quoted at most.
const MAX_TEXT: usize = 120;

/// Where the pointer is and was, for telling a control's own look from what
/// the action changed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pointers {
    /// Where this action clicked.
    pub clicked: Option<Point>,
    /// Where this session's pointer was before.
    pub before: Option<Point>,
    /// Whether what changed under the pointer is worth reading: an item
    /// picked in a silent surface (its name), not a button pressed.
    pub read_under_pointer: bool,
}

/// How watching a window's pixels ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PixelsSettled {
    /// They changed, then stayed the same for [`QUIET`].
    Settled(Duration),
    /// They did not change within [`EXPECT`].
    Unchanged(Duration),
    /// They were still changing when the time was up.
    StillChanging(Duration),
    /// The screen could not be captured: nothing can be said.
    Blind,
}

impl std::fmt::Display for PixelsSettled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PixelsSettled::Settled(waited) => write!(
                f,
                "its app sends no accessibility events; its pixels settled in {} ms",
                waited.as_millis()
            ),
            PixelsSettled::Unchanged(waited) => write!(
                f,
                "its app sends no accessibility events; its pixels did not change within {} ms",
                waited.as_millis()
            ),
            PixelsSettled::StillChanging(waited) => write!(
                f,
                "its app sends no accessibility events; its pixels were still changing after {} ms: read again to see the rest",
                waited.as_millis()
            ),
            PixelsSettled::Blind => {
                f.write_str("its app sends no accessibility events, and its pixels could not be read")
            }
        }
    }
}

impl<E: Engine> Session<E> {
    /// The pixels of `area` now; `None` when the screen cannot be captured.
    pub(crate) async fn capture_for_witness(&self, engine: &E, area: Bounds) -> Option<Capture> {
        match engine.capture(Some(area)).await {
            Ok(capture) => Some(capture),
            Err(error) => {
                tracing::debug!(%error, "no capture to witness an action with");
                None
            }
        }
    }

    /// Watches the place of `before` after an action until its pixels settle
    /// (see the module's doc); the last capture, and how it ended.
    pub(crate) async fn settle_pixels(
        &self,
        engine: &E,
        before: &Capture,
        timeout: Duration,
    ) -> (Option<Capture>, PixelsSettled) {
        let started = Instant::now();
        let area = before.bounds();
        let mut last: Option<Capture> = None;
        let mut changed_at: Option<Instant> = None;
        loop {
            tokio::time::sleep(EVERY).await;
            let Some(now) = self.capture_for_witness(engine, area).await else {
                return (last, PixelsSettled::Blind);
            };
            let waited = started.elapsed();
            let moved = match &last {
                Some(last) => !changed_regions(last, &now).is_empty(),
                None => !changed_regions(before, &now).is_empty(),
            };
            if moved {
                changed_at = Some(Instant::now());
            }
            last = Some(now);
            match changed_at {
                Some(at) if at.elapsed() >= QUIET => {
                    return (last, PixelsSettled::Settled(waited));
                }
                None if waited >= EXPECT.min(timeout) => {
                    return (last, PixelsSettled::Unchanged(waited));
                }
                _ if waited >= timeout => return (last, PixelsSettled::StillChanging(waited)),
                _ => {}
            }
        }
    }

    /// The lines that say where `after` differs from `before` and what each
    /// changed region reads now, the largest first; only regions that meet
    /// `within` when it is given. Regions under the pointer come last: where
    /// it clicked (`pointers.clicked`) is the clicked control's own look
    /// (pressed, hovered), read only when `read_under_pointer` says so (an
    /// item picked in a silent surface); where it was before, the look of the
    /// control it left, never read. Empty when nothing visible changed.
    pub(crate) async fn witness_lines(
        &self,
        before: &Capture,
        after: Capture,
        within: Option<Bounds>,
        pointers: Pointers,
    ) -> Vec<String> {
        let under = |p: Option<Point>, r: &Bounds| p.is_some_and(|p| r.contains(p.x, p.y));
        let mut regions: Vec<Bounds> = changed_regions(before, &after)
            .into_iter()
            .filter(|r| within.is_none_or(|w| w.intersection(r).is_some()))
            .collect();
        // Stable: the largest first within each kind.
        regions.sort_by_key(|r| (under(pointers.clicked, r), under(pointers.before, r)));
        let mut lines = Vec::new();
        for region in regions.iter().take(MAX_REGIONS) {
            let b = region;
            let place = format!("[{},{},{},{}]", b.x, b.y, b.width, b.height);
            let readable = b.width <= MAX_READ.0 && b.height <= MAX_READ.1;
            let line = if under(pointers.clicked, region) && !pointers.read_under_pointer {
                // The pointer already hovered here before: not a hover look.
                match under(pointers.before, region) {
                    true => format!(
                        "pixels changed under the pointer in {place}, where it already was: the clicked control \
                         changed its look (a state shown only in colour, or a press)"
                    ),
                    false => format!(
                        "pixels changed under the pointer in {place} (the clicked control's look: its hover, or a \
                         state shown only in colour)"
                    ),
                }
            } else if under(pointers.before, region) && !under(pointers.clicked, region) {
                format!("pixels changed where the pointer was in {place} (the look of the control it left)")
            } else {
                let mut line = match under(pointers.clicked, region) {
                    true => format!("pixels changed under the pointer in {place}"),
                    false => format!("pixels changed in {place}"),
                };
                if readable {
                    if let Some(text) = self.read_region(&after, *region).await {
                        line.push_str(&format!(": now reads {}", quote_at_most(&text, MAX_TEXT)));
                    }
                }
                line
            };
            lines.push(line);
        }
        if regions.len() > MAX_REGIONS {
            lines.push(format!(
                "and {} smaller regions changed",
                regions.len() - MAX_REGIONS
            ));
        }
        lines
    }

    /// What OCR reads over `region` of `capture`; `None` when it reads
    /// nothing or cannot run. A region a line high (a display's digits, a
    /// cell's value) is read as one line, with a small margin: the text
    /// detector finds nothing in so small a picture. A taller one is read
    /// whole, padded (a line touching the crop's edge is not found), its lines
    /// that meet the region joined.
    async fn read_region(&self, capture: &Capture, region: Bounds) -> Option<String> {
        const MARGIN: i32 = 4;
        const ONE_LINE: i32 = 48;
        // A changed digit reads with the rest of its number.
        let region = match region.height <= ONE_LINE {
            true => text_run(capture, region),
            false => region,
        };
        let around = Bounds {
            x: region.x - MARGIN,
            y: region.y - MARGIN,
            width: region.width + 2 * MARGIN,
            height: region.height + 2 * MARGIN,
        };
        let crop = capture.cropped(around)?;
        if region.height <= ONE_LINE {
            // Some room around the glyphs, of their own background: Tesseract
            // misreads a digit that touches the picture's edge.
            return self
                .ocr_line(crop.padded(6))
                .await
                .filter(|t| !t.trim().is_empty());
        }
        let (_, mut lines) = self.ocr_lines(crop.padded(16)).await.ok()?;
        lines.retain(|line| line.bounds.intersection(&region).is_some());
        lines.sort_by_key(|line| (line.bounds.y, line.bounds.x));
        let text = lines
            .into_iter()
            .map(|line| line.text)
            .collect::<Vec<_>>()
            .join(" ");
        Some(text).filter(|t| !t.trim().is_empty())
    }
}

/// Whether `changes` show nothing but focus moving and windows turning active
/// or inactive.
pub(crate) fn shows_only_focus(changes: &[WindowChange]) -> bool {
    changes.iter().all(|change| {
        change.diff.added.is_empty()
            && change.diff.removed.is_empty()
            && change.diff.changed.iter().all(|item| {
                item.fields.iter().all(|field| {
                    matches!(
                        field,
                        FieldChange::State {
                            state: "focused" | "active",
                            ..
                        }
                    )
                })
            })
    })
}

/// Whether `changes` show nothing inside the document `page` but focus moving:
/// what an action there did, if anything, only its pixels can tell (Chromium
/// renames a tab's hover card meanwhile; that is outside the page).
pub(crate) fn page_shows_no_change(changes: &[WindowChange], page: &ElementId) -> bool {
    let inside = |tree: &Tree, node| {
        std::iter::once(node)
            .chain(tree.ancestors(node))
            .any(|n| &tree.element(n).id == page)
    };
    changes.iter().all(|change| {
        let added = change.after.is_none_or(|after| {
            change.diff.added.iter().all(|&n| !inside(after, n))
                && change.diff.changed.iter().all(|item| {
                    !inside(after, item.after)
                        || item.fields.iter().all(|field| {
                            matches!(
                                field,
                                FieldChange::State {
                                    state: "focused",
                                    ..
                                }
                            )
                        })
                })
        });
        let removed = change
            .before
            .is_none_or(|before| change.diff.removed.iter().all(|&n| !inside(before, n)));
        added && removed
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Element, Role, State};

    fn window(focused: bool, name: &str) -> Tree {
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let mut field = Element::new("f", Role::Edit, "text");
        field.name = name.into();
        field.states.insert(State::Showing);
        if focused {
            field.states.insert(State::Focused);
        }
        tree.push(tree.root(), field);
        tree
    }

    #[test]
    fn focus_alone_is_only_focus_and_a_new_name_is_not() {
        let then = window(false, "Name");
        let focused = window(true, "Name");
        assert!(shows_only_focus(&[WindowChange::between(&then, &focused)]));
        let renamed = window(true, "Name: on");
        assert!(!shows_only_focus(&[WindowChange::between(&then, &renamed)]));
        assert!(!shows_only_focus(&[WindowChange::opened(&then)]));
    }
}
