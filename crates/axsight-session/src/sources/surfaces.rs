//! Silent surfaces read inline: where a printed tree has an element that shows
//! content but says nothing of it (an icon view without items, a sheet without
//! cells, a canvas, a window whose app is not on the bus; see
//! `axsight_core::silent_surfaces`), OCR reads that element's box and its
//! lines print as the element's children, with `#o` handles that click like
//! any other. A window without accessibility is read by the detector too,
//! where one is configured (`#m`, its boxes that hold no line OCR read).
//!
//! A read has a time budget; what is kept is keyed by the surface's pixels, so
//! an unchanged surface costs one capture on the next read and keeps its
//! handles. It never fails the tree read: a surface that cannot be read says
//! why in a closing note.
//!
//! # Silent surfaces
//!
//! **Silent surfaces** (`axsight-core/src/silent.rs`, `axsight-session/src/sources/surfaces.rs`).
//! `silent_surfaces(tree, top)` finds, outermost first, the container-like elements
//! drawn at 40×20 or more with no value, not editable, and nothing drawn below but
//! nameless quiet containers (the measurements behind the rule are in Where the tree is silent (the book's `docs/fall-through.md`)).
//! `Session::read_surfaces` takes them in document order while the read is within
//! `SURFACE_BUDGET` (1500 ms): it asks `input_reaches_each` of a 3×3 grid over the surface
//! (all covered: not read; some: lines whose middle is covered are dropped), captures
//! the surface's visible box, and looks up `SurfaceMemory` by the capture's
//! `Capture::digest` (FNV-1a over the pixels and size), the surface's place in its
//! window and the window's size: a hit whose handles the spotted registry still
//! resolves is reused as it was. Otherwise OCR reads the capture (`ocr_lines`), and
//! for a window off the bus the detector too (`detections`; a failure to run leaves
//! OCR's lines), boxes holding an OCR line's middle dropped; the sightings are
//! recorded with `Spotted::area` set to the surface, so that a newer read of that
//! surface retires only its own handles (`SpottedRegistry`'s captures are keyed by
//! source, window and area), numbered in reading order (rows of 8 px, then left to
//! right). The lines go to `render_with` as `InlineLines`, printed after the
//! surface's own children one level deeper; the closing note (`SurfaceReads::note`)
//! is made after rendering, so the surfaces' handles keep the tree's order.
//! `get_window_tree` (text) and `open_application` read surfaces; `fall_through`
//! (the request's, else the session's `FallThrough` from `--no-fall-through`) turns it
//! off; the CLI's acting commands read the tree only to number handles, and do not
//! read surfaces unless the target is an `#o`/`#m` handle.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axsight_core::{
    silent_surfaces, visible_box, Bounds, ElementId, Engine, InlineLines, NodeId, Source,
    WindowSnapshot,
};

use super::{sighting_line, window_frame, Found, Sighting};
use crate::session::Session;

/// The longest a tree read spends reading surfaces: a surface is started only
/// within it (one started is finished). One window's OCR takes 0.2–1 s here.
pub const SURFACE_BUDGET: Duration = Duration::from_millis(1500);

/// Where a surface's coverage is asked: a 3×3 grid, inset from the edges.
const GRID: [(f32, f32); 9] = [
    (0.1, 0.1),
    (0.5, 0.1),
    (0.9, 0.1),
    (0.1, 0.5),
    (0.5, 0.5),
    (0.9, 0.5),
    (0.1, 0.9),
    (0.5, 0.9),
    (0.9, 0.9),
];

/// Most lines printed under one surface; the rest are counted.
const MAX_LINES: usize = 60;

/// Surfaces whose reads are kept, at most, before the lot is dropped.
const MAX_KEPT: usize = 64;

/// Whether tree reads read silent surfaces by themselves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FallThrough {
    /// Read them (the default).
    #[default]
    On,
    /// Leave them as the tree has them; `include_ocr` still reads a window.
    Off,
}

/// What was read in one surface, kept while its pixels stay the same.
struct Kept {
    digest: u64,
    /// The surface's box relative to its window, and the window's size.
    place: (Bounds, (i32, i32)),
    /// What was found, boxes relative to the surface's top-left corner.
    seen: Vec<Sighting>,
}

/// The reads kept, by surface.
#[derive(Default)]
pub(crate) struct SurfaceMemory {
    kept: HashMap<ElementId, Kept>,
}

/// What reading a tree's surfaces gave: lines under their elements, and how
/// each surface went.
#[derive(Debug, Default)]
pub(crate) struct SurfaceReads {
    pub lines: InlineLines,
    pub outcomes: Vec<(NodeId, Outcome)>,
    /// Every sighting printed, for marks on a screenshot.
    pub sightings: Vec<Sighting>,
}

impl SurfaceReads {
    /// The closing note of the printed tree, the surfaces named by `handle`
    /// (call it after the tree is printed, so that handles keep its order).
    pub fn note(&self, mut handle: impl FnMut(NodeId) -> String) -> Option<String> {
        let named: Vec<(String, &Outcome)> = self
            .outcomes
            .iter()
            .map(|(node, outcome)| (handle(*node), outcome))
            .collect();
        note(&named)
    }
}

/// How one surface went, for the note.
#[derive(Debug)]
pub(crate) enum Outcome {
    Read {
        lines: usize,
        ms: u128,
    },
    Unchanged {
        lines: usize,
    },
    OverBudget,
    /// Another window lies over all of it: its pixels are that window's.
    Covered,
    Failed(String),
}

/// How much of a surface another window covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coverage {
    Clear,
    Partly,
    Whole,
}

impl Coverage {
    /// The coverage of a grid of points, each `true` where input reaches
    /// the surface's window.
    fn of_grid(reached: &[bool]) -> Coverage {
        match reached.iter().filter(|&&r| r).count() {
            0 => Coverage::Whole,
            n if n == reached.len() => Coverage::Clear,
            _ => Coverage::Partly,
        }
    }
}

impl<E: Engine> Session<E> {
    /// Reads the silent surfaces of `snapshot` at or below `top` (see the
    /// module's doc).
    pub(crate) async fn read_surfaces(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        top: NodeId,
    ) -> SurfaceReads {
        let tree = &snapshot.tree;
        let surfaces = silent_surfaces(tree, top);
        if surfaces.is_empty() {
            return SurfaceReads::default();
        }
        let Ok(frame) = window_frame(snapshot) else {
            return SurfaceReads::default();
        };
        let started = Instant::now();
        let mut reads = SurfaceReads::default();
        let areas: Vec<(NodeId, Bounds)> = surfaces
            .into_iter()
            .filter_map(|node| Some((node, visible_box(tree, node)?)))
            .collect();
        let boxes: Vec<Bounds> = areas.iter().map(|&(_, area)| area).collect();
        let coverages = self.coverages(engine, snapshot, &boxes).await;
        for ((node, area), coverage) in areas.into_iter().zip(coverages) {
            let outcome = match started.elapsed() < SURFACE_BUDGET {
                true if coverage == Coverage::Whole => Outcome::Covered,
                true => match self.read_surface(engine, snapshot, node, area, frame).await {
                    Ok((mut seen, outcome)) => {
                        if coverage == Coverage::Partly {
                            seen = self.uncovered(engine, snapshot, seen).await;
                        }
                        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
                        let mut lines: Vec<String> = seen
                            .iter()
                            .take(MAX_LINES)
                            .map(|s| sighting_line(tree, s, &mut registry))
                            .collect();
                        if seen.len() > MAX_LINES {
                            lines.push(format!(
                                "[{} more lines; capture_screenshot of this element shows them]",
                                seen.len() - MAX_LINES
                            ));
                        }
                        if lines.is_empty() {
                            lines.push("(OCR read no text here)".into());
                        }
                        reads.lines.insert(node, lines);
                        reads.sightings.extend(seen.into_iter().take(MAX_LINES));
                        outcome
                    }
                    Err(why) => Outcome::Failed(why),
                },
                false => Outcome::OverBudget,
            };
            reads.outcomes.push((node, outcome));
        }
        reads
    }

    /// Reads one surface, or takes what was kept of it when its pixels are the
    /// same; the sightings in screen pixels, reading order.
    async fn read_surface(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        node: NodeId,
        area: Bounds,
        frame: Bounds,
    ) -> Result<(Vec<Sighting>, Outcome), String> {
        let element = snapshot.tree.element(node);
        let capture = engine
            .capture(Some(area))
            .await
            .map_err(|error| format!("no capture: {error}"))?;
        let area = capture.bounds();
        let digest = capture.digest();
        let place = (area.offset(-frame.x, -frame.y), (frame.width, frame.height));
        if let Some(seen) = self.kept_read(&element.id, digest, place) {
            let lines = seen.len();
            let seen = seen
                .into_iter()
                .map(|s| Sighting {
                    found: Found {
                        bounds: s.found.bounds.offset(area.x, area.y),
                        ..s.found
                    },
                    ..s
                })
                .collect();
            return Ok((seen, Outcome::Unchanged { lines }));
        }
        let started = Instant::now();
        let (capture, mut lines) = self
            .ocr_lines(capture)
            .await
            .map_err(|error| error.to_string())?;
        // Numbered in reading order.
        lines.sort_by_key(|line| reading_order(&line.bounds));
        let mut seen = self
            .record_sightings(snapshot, &capture, Source::Ocr, lines, Some(&element.id))
            .map_err(|error| error.to_string())?;
        // A window without accessibility: the controls the detector finds too,
        // those that hold no line OCR read (an icon, an unlabelled button). A
        // detector that cannot run leaves OCR's lines as they are.
        if !snapshot.accessible && self.has_detector() {
            match self.detections(capture).await {
                Ok((capture, boxes)) => {
                    let mut boxes: Vec<Found> = boxes
                        .into_iter()
                        .filter(|b| {
                            !seen
                                .iter()
                                .any(|s| holds_centre(&b.bounds, &s.found.bounds))
                        })
                        .collect();
                    boxes.sort_by_key(|found| reading_order(&found.bounds));
                    let detected = self
                        .record_sightings(
                            snapshot,
                            &capture,
                            Source::Detector,
                            boxes,
                            Some(&element.id),
                        )
                        .map_err(|error| error.to_string())?;
                    seen.extend(detected);
                }
                Err(error) => tracing::debug!(%error, "the detector did not read a silent window"),
            }
        }
        seen.sort_by_key(|s| reading_order(&s.found.bounds));
        let kept = seen
            .iter()
            .map(|s| Sighting {
                handle: s.handle,
                found: Found {
                    bounds: s.found.bounds.offset(-area.x, -area.y),
                    ..s.found.clone()
                },
            })
            .collect();
        self.keep_read(
            &element.id,
            Kept {
                digest,
                place,
                seen: kept,
            },
        );
        let ms = started.elapsed().as_millis();
        Ok((
            seen.clone(),
            Outcome::Read {
                lines: seen.len(),
                ms,
            },
        ))
    }

    /// How much of each of `areas` windows above `snapshot`'s cover: pointer
    /// input is asked of points on a grid over each, all in one question. A
    /// screen that cannot tell (the portals') counts as clear.
    async fn coverages(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        areas: &[Bounds],
    ) -> Vec<Coverage> {
        let points: Vec<axsight_core::Point> = areas
            .iter()
            .flat_map(|area| {
                GRID.iter().map(|(fx, fy)| axsight_core::Point {
                    x: area.x + (area.width as f32 * fx) as i32,
                    y: area.y + (area.height as f32 * fy) as i32,
                })
            })
            .collect();
        let reached = engine
            .input_reaches_each(&snapshot.window_id(), &points)
            .await
            .unwrap_or_else(|_| vec![true; points.len()]);
        reached.chunks(GRID.len()).map(Coverage::of_grid).collect()
    }

    /// The sightings whose middles no other window covers.
    async fn uncovered(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        seen: Vec<Sighting>,
    ) -> Vec<Sighting> {
        let points: Vec<axsight_core::Point> = seen
            .iter()
            .map(|sighting| {
                let (x, y) = sighting.found.bounds.center();
                axsight_core::Point { x, y }
            })
            .collect();
        let reached = engine
            .input_reaches_each(&snapshot.window_id(), &points)
            .await
            .unwrap_or_else(|_| vec![true; points.len()]);
        seen.into_iter()
            .zip(reached)
            .filter_map(|(sighting, reached)| reached.then_some(sighting))
            .collect()
    }

    /// The kept read of `surface` if its pixels and place are the same and
    /// every handle it gave out still stands.
    fn kept_read(
        &self,
        surface: &ElementId,
        digest: u64,
        place: (Bounds, (i32, i32)),
    ) -> Option<Vec<Sighting>> {
        let memory = self.surfaces.lock().unwrap_or_else(|e| e.into_inner());
        let kept = memory.kept.get(surface)?;
        if kept.digest != digest || kept.place != place {
            return None;
        }
        let spotted = self.spotted.lock().unwrap_or_else(|e| e.into_inner());
        kept.seen
            .iter()
            .all(|s| spotted.resolve(s.handle).is_ok())
            .then(|| kept.seen.clone())
    }

    fn keep_read(&self, surface: &ElementId, kept: Kept) {
        let mut memory = self.surfaces.lock().unwrap_or_else(|e| e.into_inner());
        // Surfaces come and go with their windows: a bound, not a cache to tend.
        if memory.kept.len() >= MAX_KEPT {
            memory.kept.clear();
        }
        memory.kept.insert(surface.clone(), kept);
    }
}

/// Whether `outer` holds the centre of `inner`.
fn holds_centre(outer: &Bounds, inner: &Bounds) -> bool {
    let (x, y) = inner.center();
    outer.contains(x, y)
}

/// Top to bottom in rows (boxes whose middles are within a few pixels share
/// one), left to right within a row.
fn reading_order(b: &Bounds) -> (i32, i32) {
    ((b.y + b.height / 2) / 8, b.x)
}

/// The closing note of a tree whose surfaces were read: what, how long, and
/// how to turn it off.
fn note(outcomes: &[(String, &Outcome)]) -> Option<String> {
    if outcomes.is_empty() {
        return None;
    }
    let mut read = Vec::new();
    let mut skipped = Vec::new();
    let mut covered = Vec::new();
    let mut failed = Vec::new();
    for (handle, outcome) in outcomes {
        match outcome {
            Outcome::Read { lines, ms } => read.push(format!("{handle} ({lines} in {ms} ms)")),
            Outcome::Unchanged { lines } => read.push(format!("{handle} ({lines}, unchanged)")),
            Outcome::OverBudget => skipped.push(handle.as_str()),
            Outcome::Covered => covered.push(handle.as_str()),
            Outcome::Failed(why) => failed.push(format!("{handle}: {why}")),
        }
    }
    let mut parts = Vec::new();
    if !read.is_empty() {
        parts.push(format!(
            "read by OCR where the tree is silent: {}",
            read.join(", ")
        ));
    }
    if !skipped.is_empty() {
        parts.push(format!(
            "not read within the {} ms budget: {} (get_window_tree from one of them reads it)",
            SURFACE_BUDGET.as_millis(),
            skipped.join(", ")
        ));
    }
    if !covered.is_empty() {
        parts.push(format!(
            "not read, another window covers it: {} (activate_window brings it forward)",
            covered.join(", ")
        ));
    }
    if !failed.is_empty() {
        parts.push(format!("could not read {}", failed.join("; ")));
    }
    Some(format!(
        "[{}; fall_through: false leaves this out]\n",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_reached_nowhere_is_covered_somewhere_partly_everywhere_clear() {
        let mut grid = [true; GRID.len()];
        assert_eq!(Coverage::of_grid(&grid), Coverage::Clear);
        grid[4] = false;
        assert_eq!(Coverage::of_grid(&grid), Coverage::Partly);
        assert_eq!(Coverage::of_grid(&[false; GRID.len()]), Coverage::Whole);
        // Two surfaces asked in one question are told apart by their grids.
        let both: Vec<bool> = [[true; GRID.len()], [false; GRID.len()]].concat();
        let told: Vec<Coverage> = both.chunks(GRID.len()).map(Coverage::of_grid).collect();
        assert_eq!(told, [Coverage::Clear, Coverage::Whole]);
    }

    #[test]
    fn the_note_says_what_was_read_skipped_or_failed() {
        let outcomes = [
            ("#u35".to_string(), &Outcome::Read { lines: 3, ms: 412 }),
            ("#u1".to_string(), &Outcome::Unchanged { lines: 12 }),
            ("#u92".to_string(), &Outcome::OverBudget),
            (
                "#u93".to_string(),
                &Outcome::Failed("no capture: gone".into()),
            ),
        ];
        assert_eq!(
            note(&outcomes).unwrap(),
            "[read by OCR where the tree is silent: #u35 (3 in 412 ms), #u1 (12, unchanged); \
             not read within the 1500 ms budget: #u92 (get_window_tree from one of them reads \
             it); could not read #u93: no capture: gone; fall_through: false leaves this out]\n"
        );
        assert_eq!(note(&[]), None);
    }

    #[test]
    fn lines_read_in_rows_then_left_to_right() {
        let at = |x, y| Bounds {
            x,
            y,
            width: 30,
            height: 14,
        };
        let mut boxes = [at(200, 102), at(10, 100), at(10, 140)];
        boxes.sort_by_key(reading_order);
        assert_eq!(boxes, [at(10, 100), at(200, 102), at(10, 140)]);
    }
}
