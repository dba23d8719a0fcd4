//! Handles of what screenshot sources saw (`#o` OCR, `#m` detector, `#v` vision
//! model): each belongs to one capture of one window (or of one silent surface
//! in it), kept relative to that window so a click after the window moved still
//! lands, and a newer capture of the same source for the same window and
//! surface retires the older numbers.
//!
//! # Spotted handles
//!
//! **Spotted handles** (`axsight-core/src/spotted.rs`). What a screenshot source saw is
//! a `Spotted`: its source, its window (the root's identity), its box relative to the
//! window's top-left corner at capture time, the window's size then, a label (the text
//! read) and a confidence. The session keeps a `SpottedRegistry` beside the tree's
//! `HandleRegistry`.
//!
//! - Numbers are per source (`#o1`, `#o2`, …), count up through the session and are
//!   never reused.
//! - The registry keeps, per (source, window), the handles of the latest capture.
//!   Recording a newer capture retires the older ones; a capture that found nothing
//!   (`clear`) retires them too. Other sources and other windows keep theirs.
//! - `resolve` answers the `Spotted`, `Retired` (the agent is told it is stale) or
//!   `Unknown` (never given out).
//! - Why relative boxes: a window moved since the capture is still clicked on its text.
//!   Why the window's size: a resized window has been laid out again, and the box may
//!   no longer be on the text.

use std::collections::HashMap;

use crate::{Bounds, ElementId, Handle, Look, Point, Source};

/// Something a screenshot source saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Spotted {
    pub source: Source,
    /// The window it was seen in.
    pub window: ElementId,
    /// The element whose box was read, a silent surface of the window; `None`
    /// when the whole window was.
    pub area: Option<ElementId>,
    /// Its box, relative to the window's top-left corner at capture time.
    pub relative: Bounds,
    /// The window's size at capture time: a window of another size has been
    /// laid out anew, and the box may no longer be right.
    pub window_size: (i32, i32),
    /// What it reads or is (text, or a role word).
    pub label: String,
    /// 0 to 1.
    pub confidence: f32,
    /// How its box looked at the capture: a click first checks that it still
    /// looks so (`None`: the box was not wholly captured, nothing to check).
    pub look: Option<Look>,
}

impl Spotted {
    /// Where the box's centre is now, for a window whose top-left corner is now
    /// at `origin`.
    pub fn centre_at(&self, origin: Point) -> Point {
        let (x, y) = self.relative.offset(origin.x, origin.y).center();
        Point { x, y }
    }
}

/// Why a screenshot source's handle cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpottedError {
    /// No capture ever gave it out.
    Unknown,
    /// A newer capture of its window by the same source replaced it.
    Retired,
}

/// What one capture of a source covered: a window, or a surface in it.
type CaptureKey = (Source, ElementId, Option<ElementId>);

/// Hands out `o`, `m` and `v` numbers, and retires them capture by capture.
#[derive(Debug, Default, Clone)]
pub struct SpottedRegistry {
    next: HashMap<Source, u32>,
    live: HashMap<Handle, Spotted>,
    /// The handles of the latest capture, by what was captured.
    latest: HashMap<CaptureKey, Vec<Handle>>,
    retired: std::collections::HashSet<Handle>,
}

impl SpottedRegistry {
    pub fn new() -> SpottedRegistry {
        SpottedRegistry::default()
    }

    /// Records one capture's findings of `source` in `window` (or in its
    /// surface `area`) and numbers them; the previous capture's handles of that
    /// source, window and area retire.
    ///
    /// ```
    /// use axsight_core::{Bounds, ElementId, Source, Spotted, SpottedError, SpottedRegistry};
    /// let seen = |label: &str| Spotted {
    ///     source: Source::Ocr,
    ///     window: ElementId("w".into()),
    ///     area: None,
    ///     relative: Bounds { x: 0, y: 0, width: 10, height: 10 },
    ///     window_size: (100, 100),
    ///     label: label.into(),
    ///     confidence: 0.9,
    ///     look: None,
    /// };
    /// let mut registry = SpottedRegistry::new();
    /// let first = registry.record(vec![seen("Open")]);
    /// let second = registry.record(vec![seen("Open"), seen("Save")]);
    /// assert_eq!(first[0].to_string(), "#o1");
    /// assert_eq!(second[1].to_string(), "#o3");
    /// assert_eq!(registry.resolve(first[0]), Err(SpottedError::Retired));
    /// assert_eq!(registry.resolve(second[1]).unwrap().label, "Save");
    /// ```
    pub fn record(&mut self, found: Vec<Spotted>) -> Vec<Handle> {
        let mut handles = Vec::with_capacity(found.len());
        let mut by_window: HashMap<CaptureKey, Vec<Handle>> = HashMap::new();
        for spotted in found {
            let next = self.next.entry(spotted.source).or_insert(1);
            let handle = Handle {
                source: spotted.source,
                number: *next,
            };
            *next += 1;
            by_window
                .entry((spotted.source, spotted.window.clone(), spotted.area.clone()))
                .or_default()
                .push(handle);
            self.live.insert(handle, spotted);
            handles.push(handle);
        }
        for (key, new) in by_window {
            if let Some(old) = self.latest.insert(key, new) {
                for handle in old {
                    self.live.remove(&handle);
                    self.retired.insert(handle);
                }
            }
        }
        handles
    }

    /// Retires every handle of `source` in `window`'s `area` (a capture that
    /// found nothing).
    pub fn clear(&mut self, source: Source, window: &ElementId, area: Option<&ElementId>) {
        if let Some(old) = self.latest.remove(&(source, window.clone(), area.cloned())) {
            for handle in old {
                self.live.remove(&handle);
                self.retired.insert(handle);
            }
        }
    }

    /// The live sighting of `window` whose box holds `point` (relative to the
    /// window's top-left corner), the smallest where several do; what a
    /// click at a point in a silent surface names.
    ///
    /// ```
    /// use axsight_core::{Bounds, ElementId, Point, Source, Spotted, SpottedRegistry};
    /// let seen = |label: &str, x| Spotted {
    ///     source: Source::Ocr,
    ///     window: ElementId("w".into()),
    ///     area: None,
    ///     relative: Bounds { x, y: 10, width: 40, height: 14 },
    ///     window_size: (300, 200),
    ///     label: label.into(),
    ///     confidence: 0.9,
    ///     look: None,
    /// };
    /// let mut registry = SpottedRegistry::new();
    /// registry.record(vec![seen("old", 10), seen("draft.txt", 70)]);
    /// let (handle, spotted) = registry.at(&ElementId("w".into()), Point { x: 80, y: 15 }).unwrap();
    /// assert_eq!((handle.to_string(), spotted.label.as_str()), ("#o2".into(), "draft.txt"));
    /// assert!(registry.at(&ElementId("w".into()), Point { x: 5, y: 15 }).is_none());
    /// ```
    pub fn at(&self, window: &ElementId, point: Point) -> Option<(Handle, &Spotted)> {
        self.live
            .iter()
            .filter(|(_, s)| &s.window == window && s.relative.contains(point.x, point.y))
            .min_by_key(|(h, s)| (s.relative.area(), h.number))
            .map(|(h, s)| (*h, s))
    }

    /// What `handle` was given to.
    pub fn resolve(&self, handle: Handle) -> Result<&Spotted, SpottedError> {
        match self.live.get(&handle) {
            Some(spotted) => Ok(spotted),
            None if self.retired.contains(&handle) => Err(SpottedError::Retired),
            None => Err(SpottedError::Unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(source: Source, window: &str) -> Spotted {
        Spotted {
            source,
            window: ElementId(window.into()),
            area: None,
            relative: Bounds {
                x: 10,
                y: 20,
                width: 30,
                height: 10,
            },
            window_size: (200, 100),
            label: "x".into(),
            confidence: 0.5,
            look: None,
        }
    }

    #[test]
    fn captures_retire_only_their_own_source_and_window() {
        let mut registry = SpottedRegistry::new();
        let ocr_a = registry.record(vec![seen(Source::Ocr, "a")]);
        let ocr_b = registry.record(vec![seen(Source::Ocr, "b")]);
        let detector_a = registry.record(vec![seen(Source::Detector, "a")]);
        assert_eq!(detector_a[0].to_string(), "#m1");
        registry.record(vec![seen(Source::Ocr, "a")]);
        assert_eq!(registry.resolve(ocr_a[0]), Err(SpottedError::Retired));
        assert!(registry.resolve(ocr_b[0]).is_ok());
        assert!(registry.resolve(detector_a[0]).is_ok());
        registry.clear(Source::Detector, &ElementId("a".into()), None);
        assert_eq!(registry.resolve(detector_a[0]), Err(SpottedError::Retired));
        let never = Handle {
            source: Source::Vision,
            number: 9,
        };
        assert_eq!(registry.resolve(never), Err(SpottedError::Unknown));
    }

    #[test]
    fn a_surface_read_retires_only_that_surfaces_handles() {
        let mut registry = SpottedRegistry::new();
        let in_area = |area: &str| Spotted {
            area: Some(ElementId(area.into())),
            ..seen(Source::Ocr, "w")
        };
        let icons = registry.record(vec![in_area("icons")]);
        let sheet = registry.record(vec![in_area("sheet")]);
        let whole = registry.record(vec![seen(Source::Ocr, "w")]);
        let icons_again = registry.record(vec![in_area("icons")]);
        assert_eq!(registry.resolve(icons[0]), Err(SpottedError::Retired));
        assert!(registry.resolve(sheet[0]).is_ok());
        assert!(registry.resolve(whole[0]).is_ok());
        assert!(registry.resolve(icons_again[0]).is_ok());
        registry.clear(
            Source::Ocr,
            &ElementId("w".into()),
            Some(&ElementId("sheet".into())),
        );
        assert_eq!(registry.resolve(sheet[0]), Err(SpottedError::Retired));
        assert!(registry.resolve(whole[0]).is_ok());
    }

    #[test]
    fn boxes_follow_their_window() {
        let spotted = seen(Source::Ocr, "a");
        assert_eq!(
            spotted.centre_at(Point { x: 0, y: 0 }),
            Point { x: 25, y: 25 }
        );
        assert_eq!(
            spotted.centre_at(Point { x: 100, y: 50 }),
            Point { x: 125, y: 75 }
        );
    }
}
