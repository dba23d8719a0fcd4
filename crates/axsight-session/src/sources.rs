//! The screenshot sources' sections of a window's tree — what OCR read (`#o`),
//! what the detector found (`#m`), what a vision model saw (`#v`) — each thing
//! numbered, and pointing at the tree element it coincides with (`= #u14`) so
//! the agent prefers the tree.
//!
//! Every source here captures one window, finds boxes in screen pixels, and
//! hands them to [`Session::record_sightings`], which keeps them relative to
//! the window (a later click follows the window) and drops text read over
//! secret fields.
//!
//! This module and `session` import each other on purpose: what is here is
//! [`Session`]'s own methods, kept apart by subject as `acting`, `browsing`,
//! `target` and `describe` keep theirs, and the state they work on (the
//! detector, the surfaces read, the sightings) is the session's, held in its
//! fields. One type split over files, not two rooms: a `Sources` type of its
//! own would need the session's engine, registry and browsers passed into every
//! call.
//!
//! # The sightings path
//!
//! **The sightings path** (`axsight-session/src/sources.rs`, with `sources/ocr.rs`,
//! `sources/detector.rs`, `sources/vision.rs`). Every source captures the window's root
//! box (`window_frame`), finds boxes in screen pixels, and returns them as `Found`
//! (box, text, kind, confidence). `Session::record_sightings` is the one way in:
//!
//! 1. It drops a `Found` that has text and whose box meets a secret element's visible
//!    box (OCR's lines, a model's labels; a detector box has no text).
//! 2. It records each as a `Spotted`, box relative to the window, with the window's
//!    size and a `Look` of the box in this capture, which retires that source's earlier
//!    handles of the window; the numbered result is a `Sighting`.
//!
//! `print_section` prints a source's sightings under the tree, in the order detector,
//! vision, OCR: `#m1 [icon] [x,y,w,h] 0.92 = #u8`, `#v1 [button] "Delete" [x,y,w,h] =
//! #u43`, `#o1 "File" [x,y,w,h] 0.97 = #u3`. `same_as_tree` decides the `= #uN`, among
//! drawn elements whose visible box overlaps the sighting's:
//!
//! - with text: `says_the_same` holds for the element's name and the text. After
//!   lower-casing and collapsing whitespace, one must contain the other and the shorter
//!   must be at least 60 % of the longer: OCR may miss or add a word, but a canvas
//!   named "Canvas" does not say "Canvas text 42";
//! - a bare box (the detector's, or a model's element without a label): the
//!   intersection over union with the element's visible box must be at least 0.5.
//!
//! Of the elements that fit, the best intersection over union wins, then the smaller
//! element: a DOM link points at the `Link`, not at the `Text` inside it that says the
//! same with a smaller box; a label, not the window titled alike.
//!
//! The element gets its handle then. `capture_screenshot` with `include_ocr` or
//! `include_detector` uses the same path and the same rule: a sighting that is a tree
//! element is not marked, and the caption counts both (`the detector found 22 boxes: 4
//! marked with their #m handles, 18 are tree elements marked with theirs`).

mod detector;
mod dom;
mod ocr;
mod surfaces;
mod vision;

use axsight_core::{
    quote, visible_box, Bounds, Capture, ElementId, Engine, Handle, Look, NodeId, Source, Spotted,
    Tree, WindowSnapshot,
};

pub(crate) use detector::DetectorSlot;
pub(crate) use dom::DomHandles;
pub use surfaces::FallThrough;
pub(crate) use surfaces::{SurfaceMemory, SurfaceReads};
pub(crate) use vision::WaitingLooks;
pub use vision::{ClientModel, VisionAnswer, VisionChannel, VisionQuestion, VISION_SYSTEM_PROMPT};

use crate::session::Session;
use crate::ToolError;

/// One thing a screenshot source found, before it is numbered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// Screen pixels.
    pub bounds: Bounds,
    /// What it reads (OCR, a vision model's label), or empty.
    pub text: String,
    /// What it is, in the source's words (`icon`, `button`), if it says.
    pub kind: Option<String>,
    /// 0 to 1, where the source gives one.
    pub confidence: Option<f32>,
}

/// A numbered [`Found`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sighting {
    pub handle: Handle,
    pub found: Found,
}

impl<E: Engine> Session<E> {
    /// Numbers what `source` found in `capture`, a capture of `snapshot`'s
    /// window (or of its silent surface `area`, whose box the capture is), and
    /// keeps how each box looked. Text read over a secret field is dropped
    /// first. The previous capture's handles of that source, window and area
    /// retire.
    pub(crate) fn record_sightings(
        &self,
        snapshot: &WindowSnapshot,
        capture: &Capture,
        source: Source,
        found: Vec<Found>,
        area: Option<&ElementId>,
    ) -> Result<Vec<Sighting>, ToolError> {
        let frame = window_frame(snapshot)?;
        let secrets: Vec<Bounds> = snapshot
            .tree
            .ids()
            .filter(|&n| snapshot.tree.element(n).is_secret())
            .filter_map(|n| visible_box(&snapshot.tree, n))
            .collect();
        let found: Vec<Found> = found
            .into_iter()
            .filter(|f| {
                f.text.is_empty() || secrets.iter().all(|s| s.intersection(&f.bounds).is_none())
            })
            .collect();
        let window = snapshot.window_id();
        let spotted: Vec<Spotted> = found
            .iter()
            .map(|f| Spotted {
                source,
                window: window.clone(),
                area: area.cloned(),
                relative: f.bounds.offset(-frame.x, -frame.y),
                window_size: (frame.width, frame.height),
                label: if f.text.is_empty() {
                    f.kind.clone().unwrap_or_default()
                } else {
                    f.text.clone()
                },
                confidence: f.confidence.unwrap_or(1.0),
                look: Look::of(capture, f.bounds),
            })
            .collect();
        let handles = {
            let mut registry = self.spotted.lock().unwrap_or_else(|e| e.into_inner());
            if spotted.is_empty() {
                registry.clear(source, &window, area);
            }
            registry.record(spotted)
        };
        Ok(handles
            .into_iter()
            .zip(found)
            .map(|(handle, found)| Sighting { handle, found })
            .collect())
    }

    /// The section of `source`'s sightings under a window's tree.
    pub(crate) fn print_section(&self, tree: &Tree, source: Source, seen: &[Sighting]) -> String {
        let (title, nothing) = match source {
            Source::Ocr => ("ocr", "no text read"),
            Source::Detector => ("detector", "nothing detected"),
            Source::Vision => ("vision", "the model named nothing"),
            Source::Tree | Source::Dom => ("other", "nothing"),
        };
        let mut out = format!("- {title}\n");
        if seen.is_empty() {
            out.push_str(&format!("  ({nothing})\n"));
        }
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        for sighting in seen {
            out.push_str("  ");
            out.push_str(&sighting_line(tree, sighting, &mut registry));
            out.push('\n');
        }
        out
    }
}

/// One sighting's line, without indent: `#o1 "File" [x,y,w,h] 0.97 = #u3`,
/// `#m2 [icon] [x,y,w,h] 0.64`; a tree element it coincides with gets its
/// handle from `registry`.
pub(crate) fn sighting_line(
    tree: &Tree,
    sighting: &Sighting,
    registry: &mut axsight_core::HandleRegistry,
) -> String {
    let f = &sighting.found;
    let b = f.bounds;
    let mut line = sighting.handle.to_string();
    if let Some(kind) = &f.kind {
        line.push_str(&format!(" [{kind}]"));
    }
    if !f.text.is_empty() || sighting.handle.source == Source::Ocr {
        line.push(' ');
        line.push_str(&quote(&f.text));
    }
    line.push_str(&format!(" [{},{},{},{}]", b.x, b.y, b.width, b.height));
    if let Some(confidence) = f.confidence {
        line.push_str(&format!(" {confidence:.2}"));
    }
    if let Some(node) = same_as_tree(tree, f) {
        let element = tree.element(node);
        let handle = registry.assign(&element.id, element.role, &element.name);
        line.push_str(&format!(" = {handle}"));
    }
    line
}

/// The box of a window on screen, which its sightings are kept relative to.
pub(crate) fn window_frame(snapshot: &WindowSnapshot) -> Result<Bounds, ToolError> {
    snapshot
        .tree
        .element(snapshot.tree.root())
        .bounds
        .filter(Bounds::has_area)
        .ok_or_else(|| {
            ToolError::CannotAct(format!(
                "'{}' has no box on screen to look at",
                snapshot.title
            ))
        })
}

/// The drawn tree element a sighting is: for text, one whose name says the
/// same where the boxes overlap; for a bare box, one whose box it matches with
/// an intersection over union of at least one half. Of several, the best
/// overlap wins (the link, not the text inside it), then the smaller element
/// (the label, not the window titled alike).
pub(crate) fn same_as_tree(tree: &Tree, found: &Found) -> Option<NodeId> {
    let read = normalise(&found.text);
    let mut best: Option<(NodeId, f64, f64)> = None;
    for node in tree.ids().skip(1) {
        let element = tree.element(node);
        let Some(visible) = visible_box(tree, node) else {
            continue;
        };
        let Some(shared) = visible.intersection(&found.bounds).filter(Bounds::has_area) else {
            continue;
        };
        let union = area(&visible) + area(&found.bounds) - area(&shared);
        let overlap = area(&shared) / union.max(1.0);
        let fits = if read.is_empty() {
            overlap >= 0.5
        } else {
            says_the_same(&normalise(&element.name), &read)
        };
        if !fits {
            continue;
        }
        let size = area(&visible);
        let better = best.is_none_or(|(_, o, s)| overlap > o || (overlap == o && size < s));
        if better {
            best = Some((node, overlap, size));
        }
    }
    best.map(|(node, _, _)| node)
}

fn area(b: &Bounds) -> f64 {
    f64::from(b.width.max(0)) * f64::from(b.height.max(0))
}

/// Whether two normalised texts say the same: equal, or one within the other
/// where the shorter is most of the longer (OCR may miss or add a word; a canvas
/// named "Canvas" does not say "Canvas text 42").
fn says_the_same(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty() && long.contains(short) && short.len() * 10 >= long.len() * 6
}

fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Element, Role};

    #[test]
    fn texts_say_the_same_when_most_of_one_is_the_other() {
        assert!(says_the_same("open dialog later", "open dialog later"));
        assert!(says_the_same("row item 1", "row item 1."));
        assert!(!says_the_same("canvas", "canvas text 42"));
        assert!(!says_the_same("", "x"));
    }

    fn window_with_button() -> Tree {
        let mut window = Element::new("w", Role::Window, "frame");
        window.bounds = Some(Bounds {
            x: 0,
            y: 0,
            width: 400,
            height: 300,
        });
        window.states = [axsight_core::State::Showing, axsight_core::State::Visible]
            .into_iter()
            .collect();
        let mut tree = Tree::new(window);
        let mut button = Element::new("b", Role::Button, "push button");
        button.name = "Save".into();
        button.bounds = Some(Bounds {
            x: 100,
            y: 100,
            width: 40,
            height: 20,
        });
        button.states = [axsight_core::State::Showing, axsight_core::State::Visible]
            .into_iter()
            .collect();
        tree.push(tree.root(), button);
        tree
    }

    fn found(text: &str, bounds: Bounds) -> Found {
        Found {
            bounds,
            text: text.into(),
            kind: None,
            confidence: None,
        }
    }

    #[test]
    fn a_bare_box_is_the_element_it_covers() {
        let tree = window_with_button();
        let close = found(
            "",
            Bounds {
                x: 102,
                y: 98,
                width: 40,
                height: 22,
            },
        );
        assert_eq!(same_as_tree(&tree, &close), Some(NodeId(1)));
        // Half off: not the same thing.
        let off = found(
            "",
            Bounds {
                x: 125,
                y: 100,
                width: 40,
                height: 20,
            },
        );
        assert_eq!(same_as_tree(&tree, &off), None);
    }

    #[test]
    fn text_must_say_the_same_where_it_overlaps() {
        let tree = window_with_button();
        let inside = Bounds {
            x: 105,
            y: 102,
            width: 30,
            height: 14,
        };
        assert_eq!(same_as_tree(&tree, &found("save", inside)), Some(NodeId(1)));
        assert_eq!(same_as_tree(&tree, &found("Cancel", inside)), None);
        let elsewhere = Bounds {
            x: 300,
            y: 200,
            width: 30,
            height: 14,
        };
        assert_eq!(same_as_tree(&tree, &found("Save", elsewhere)), None);
    }
}
