//! How a spot on screen looked when a screenshot source saw it, so a later
//! click can tell whether the spot still shows the same thing: a handle from a
//! capture older than a change in its area must be refused, not clicked.
//!
//! The comparison forgives what pointing itself changes — a hover highlight,
//! a pressed shade, a focus ring at the edge — and notices what matters: other
//! content, or another window on top.
//!
//! # Stale by area
//!
//! **Stale by area** (`axsight-core/src/look.rs`). A `Look` is a grey (Rec. 709) picture
//! of the middle of a sighting's box: 15 % off each side, at least 2 px, where the box is
//! big enough, so focus rings and borders are left out. `None` when the box is not
//! wholly inside the capture; such a sighting is not compared. `resembles` says the
//! place still shows the same thing when the sizes match and at most 20 % of the
//! pixels differ by more than 48 grey levels: a hover or pressed shade moves a flat
//! button by a few dozen levels, a changed digit is a few percent of the pixels, while
//! new text, another icon or a window on top are far more. The fixture's `Count`
//! button, renamed `Count 1`, fails it.

use crate::{Bounds, Capture};

/// A grey picture of the middle of a box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    width: u32,
    height: u32,
    luma: Vec<u8>,
}

/// Grey levels two pixels may differ by and still count as alike: a hover or
/// pressed shade moves a flat button by a few dozen at most.
const ALIKE: u8 = 48;

/// The share of pixels that may differ before the spot counts as changed:
/// a digit changing in a label is a few percent; a new text, icon or window
/// is far more.
const CHANGED_SHARE: f32 = 0.2;

impl Look {
    /// How `area` (screen pixels) looks in `capture`, leaving out a margin
    /// (15 %, at least 2 px, where the box is big enough) where focus rings
    /// and borders are drawn; `None` where the area is not wholly inside the
    /// capture.
    ///
    /// ```
    /// use axsight_core::{Bounds, Capture, Look, Point};
    /// let capture = Capture { origin: Point { x: 10, y: 10 }, width: 4, height: 4, rgb: vec![200; 48] };
    /// let inside = Bounds { x: 10, y: 10, width: 4, height: 4 };
    /// assert!(Look::of(&capture, inside).is_some());
    /// assert!(Look::of(&capture, Bounds { x: 0, ..inside }).is_none());
    /// ```
    pub fn of(capture: &Capture, area: Bounds) -> Option<Look> {
        let inner = inner(area);
        let left = u32::try_from(inner.x - capture.origin.x).ok()?;
        let top = u32::try_from(inner.y - capture.origin.y).ok()?;
        let width = u32::try_from(inner.width).ok()?;
        let height = u32::try_from(inner.height).ok()?;
        if width == 0
            || height == 0
            || left + width > capture.width
            || top + height > capture.height
        {
            return None;
        }
        let mut luma = Vec::with_capacity((width * height) as usize);
        for y in top..top + height {
            for x in left..left + width {
                let [r, g, b] = capture.pixel(x, y)?;
                // Rec. 709 weights, in integers.
                let grey =
                    (2126 * u32::from(r) + 7152 * u32::from(g) + 722 * u32::from(b) + 5000) / 10000;
                luma.push(grey as u8);
            }
        }
        Some(Look {
            width,
            height,
            luma,
        })
    }

    /// Whether `now` shows about what `self` showed: the same size, and few
    /// pixels changed by more than a shade.
    ///
    /// ```
    /// use axsight_core::{Bounds, Capture, Look, Point};
    /// let grey = |level: u8| Capture { origin: Point { x: 0, y: 0 }, width: 10, height: 10, rgb: vec![level; 300] };
    /// let area = Bounds { x: 0, y: 0, width: 10, height: 10 };
    /// let before = Look::of(&grey(200), area).unwrap();
    /// assert!(before.resembles(&Look::of(&grey(220), area).unwrap()));
    /// assert!(!before.resembles(&Look::of(&grey(40), area).unwrap()));
    /// ```
    pub fn resembles(&self, now: &Look) -> bool {
        if (self.width, self.height) != (now.width, now.height) {
            return false;
        }
        let differing = self
            .luma
            .iter()
            .zip(&now.luma)
            .filter(|(a, b)| a.abs_diff(**b) > ALIKE)
            .count();
        (differing as f32) <= CHANGED_SHARE * self.luma.len() as f32
    }
}

/// The middle of a box: 15 % off each side, at least 2 px, where that leaves
/// something.
fn inner(area: Bounds) -> Bounds {
    let margin = |side: i32| ((side as f32 * 0.15).round() as i32).max(2);
    let (mx, my) = (margin(area.width), margin(area.height));
    let (mx, my) = (
        if area.width > 2 * mx { mx } else { 0 },
        if area.height > 2 * my { my } else { 0 },
    );
    Bounds {
        x: area.x + mx,
        y: area.y + my,
        width: area.width - 2 * mx,
        height: area.height - 2 * my,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Point;

    /// A 20×20 capture, grey 230, with `paint` applied to each pixel (x, y).
    fn picture(paint: impl Fn(u32, u32) -> u8) -> Capture {
        let mut rgb = Vec::new();
        for y in 0..20 {
            for x in 0..20 {
                rgb.extend([paint(x, y); 3]);
            }
        }
        Capture {
            origin: Point { x: 100, y: 100 },
            width: 20,
            height: 20,
            rgb,
        }
    }

    const AREA: Bounds = Bounds {
        x: 100,
        y: 100,
        width: 20,
        height: 20,
    };

    #[test]
    fn a_focus_ring_at_the_edge_is_not_a_change() {
        let before = Look::of(&picture(|_, _| 230), AREA).unwrap();
        let ring = picture(|x, y| {
            if x < 2 || y < 2 || x > 17 || y > 17 {
                40
            } else {
                230
            }
        });
        assert!(before.resembles(&Look::of(&ring, AREA).unwrap()));
    }

    #[test]
    fn new_content_in_the_middle_is_a_change() {
        let before = Look::of(&picture(|_, _| 230), AREA).unwrap();
        // Dark text over the middle third.
        let text = picture(|_, y| if (7..13).contains(&y) { 20 } else { 230 });
        assert!(!before.resembles(&Look::of(&text, AREA).unwrap()));
    }

    #[test]
    fn a_small_change_is_not() {
        let before = Look::of(&picture(|_, _| 230), AREA).unwrap();
        let dot = picture(|x, y| {
            if (9..11).contains(&x) && (9..11).contains(&y) {
                0
            } else {
                230
            }
        });
        assert!(before.resembles(&Look::of(&dot, AREA).unwrap()));
    }

    #[test]
    fn another_size_never_resembles() {
        let capture = picture(|_, _| 230);
        let small = Bounds { width: 10, ..AREA };
        let before = Look::of(&capture, AREA).unwrap();
        assert!(!before.resembles(&Look::of(&capture, small).unwrap()));
    }

    #[test]
    fn tiny_boxes_are_compared_whole() {
        let capture = picture(|_, _| 230);
        let tiny = Bounds {
            width: 3,
            height: 3,
            ..AREA
        };
        let look = Look::of(&capture, tiny).unwrap();
        assert_eq!((look.width, look.height), (3, 3));
    }
}
