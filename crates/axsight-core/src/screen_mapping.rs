//! [`ScreenMapping`]: how the boxes a toolkit reports become boxes in screen
//! pixels, the one space every tool works in.
//!
//! Toolkits report extents in their own units. On a scaled screen most report
//! logical pixels (GTK 3 and 4 under `GDK_SCALE`, Qt under its scale factors,
//! Java under `sun.java2d.uiScale`, Firefox under GDK's scale), positions and
//! sizes alike, while the screen's pixels, input and captures are device
//! pixels; some report window-relative extents (GTK4, every app on Wayland).
//! One mapping per window puts them right: `screen = origin + reported ×
//! scale`.

use crate::Bounds;

/// How a window's reported boxes become screen boxes: `screen = origin +
/// reported × scale`.
///
/// ```
/// use axsight_core::{Bounds, ScreenMapping};
/// // GTK4 at GDK_SCALE=2, its window's content at (301, 220) on screen.
/// let mapping = ScreenMapping { origin: (301, 220), scale: 2.0 };
/// let button = Bounds { x: 13, y: 97, width: 48, height: 24 };
/// assert_eq!(mapping.bounds(button), Bounds { x: 327, y: 414, width: 96, height: 48 });
/// assert_eq!(ScreenMapping::IDENTITY.bounds(button), button);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenMapping {
    /// Where the reported (0, 0) lies on screen.
    pub origin: (i32, i32),
    /// Screen pixels per reported pixel.
    pub scale: f64,
}

impl ScreenMapping {
    /// Reported boxes are screen boxes already.
    pub const IDENTITY: ScreenMapping = ScreenMapping {
        origin: (0, 0),
        scale: 1.0,
    };

    /// Reported boxes moved by `origin`, at the same scale.
    pub fn offset(origin: (i32, i32)) -> ScreenMapping {
        ScreenMapping { origin, scale: 1.0 }
    }

    /// Screen coordinates reported at `scale`: from the screen's origin (an
    /// X11 app that scales itself reports its positions scaled down too).
    pub fn scaled(scale: f64) -> ScreenMapping {
        ScreenMapping {
            origin: (0, 0),
            scale,
        }
    }

    /// The same mapping with its origin moved by (`dx`, `dy`) screen pixels.
    pub fn shifted(self, dx: i32, dy: i32) -> ScreenMapping {
        ScreenMapping {
            origin: (self.origin.0 + dx, self.origin.1 + dy),
            ..self
        }
    }

    /// The same origin with reported pixels taken as screen pixels: for the
    /// parts of a window a toolkit reports in device pixels (Chromium's pages)
    /// while it reports the rest in logical ones.
    pub fn unscaled(self) -> ScreenMapping {
        ScreenMapping { scale: 1.0, ..self }
    }

    /// Whether the mapping scales (so that reported boxes are not screen boxes
    /// even where they are not offset).
    pub fn is_scaled(&self) -> bool {
        (self.scale - 1.0).abs() > f64::EPSILON
    }

    /// `reported` in screen pixels. Edges are rounded, not sizes, so boxes
    /// that touch when reported still touch on screen.
    pub fn bounds(&self, reported: Bounds) -> Bounds {
        let x = self.coordinate(reported.x, self.origin.0);
        let y = self.coordinate(reported.y, self.origin.1);
        let right = self.coordinate(reported.x + reported.width, self.origin.0);
        let bottom = self.coordinate(reported.y + reported.height, self.origin.1);
        Bounds {
            x,
            y,
            width: right - x,
            height: bottom - y,
        }
    }

    fn coordinate(&self, reported: i32, origin: i32) -> i32 {
        if !self.is_scaled() {
            return origin + reported;
        }
        origin + (f64::from(reported) * self.scale).round() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: i32, y: i32, width: i32, height: i32) -> Bounds {
        Bounds {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn logical_screen_boxes_scale_from_the_screen_origin() {
        // GTK3 at GDK_SCALE=2, measured: the Count button reported at
        // (229, 457) 222×34 is drawn at (458, 914) 444×68.
        let mapping = ScreenMapping::scaled(2.0);
        assert_eq!(mapping.bounds(b(229, 457, 222, 34)), b(458, 914, 444, 68));
    }

    #[test]
    fn fractional_scales_round_edges_so_neighbours_still_touch() {
        // Qt at QT_SCALE_FACTOR=1.5, measured: (624, 335) 196×22 is drawn at
        // (936, 502) 294×33; 502.5 rounds to the next pixel.
        let mapping = ScreenMapping::scaled(1.5);
        assert_eq!(mapping.bounds(b(624, 335, 196, 22)), b(936, 503, 294, 33));
        let left = mapping.bounds(b(0, 0, 3, 3));
        let right = mapping.bounds(b(3, 0, 3, 3));
        assert_eq!(left.x + left.width, right.x);
    }

    #[test]
    fn an_offset_alone_moves_without_scaling() {
        let mapping = ScreenMapping::offset((100, 200)).shifted(0, 25);
        assert!(!mapping.is_scaled());
        assert_eq!(mapping.bounds(b(1, 2, 3, 4)), b(101, 227, 3, 4));
        let scaled = ScreenMapping {
            origin: (10, 10),
            scale: 2.0,
        };
        assert_eq!(scaled.unscaled().bounds(b(1, 2, 3, 4)), b(11, 12, 3, 4));
    }
}
