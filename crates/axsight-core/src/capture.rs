//! A captured piece of the screen: RGB pixels and where on screen they came from.
//! Engines capture; encoding, scaling and drawing marks are the vision crate's.

use crate::{Bounds, Point};

/// Pixels of a screen region, row by row, three bytes (R, G, B) each.
#[derive(Clone, PartialEq, Eq)]
pub struct Capture {
    /// Where the top-left pixel is on screen.
    pub origin: Point,
    pub width: u32,
    pub height: u32,
    /// `width * height * 3` bytes.
    pub rgb: Vec<u8>,
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Capture {{ {}x{} at ({}, {}) }}",
            self.width, self.height, self.origin.x, self.origin.y
        )
    }
}

impl Capture {
    /// The screen region the pixels cover.
    pub fn bounds(&self) -> Bounds {
        Bounds {
            x: self.origin.x,
            y: self.origin.y,
            width: self.width as i32,
            height: self.height as i32,
        }
    }

    /// The RGB value at image pixel (`x`, `y`), if inside.
    ///
    /// ```
    /// use axsight_core::{Capture, Point};
    /// let c = Capture { origin: Point { x: 5, y: 5 }, width: 2, height: 1, rgb: vec![1, 2, 3, 4, 5, 6] };
    /// assert_eq!(c.pixel(1, 0), Some([4, 5, 6]));
    /// assert_eq!(c.pixel(2, 0), None);
    /// ```
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = ((y * self.width + x) * 3) as usize;
        self.rgb.get(at..at + 3).map(|p| [p[0], p[1], p[2]])
    }

    /// The part of the capture inside `area` (screen coordinates), or `None`
    /// when they do not overlap.
    ///
    /// ```
    /// use axsight_core::{Bounds, Capture, Point};
    /// let c = Capture { origin: Point { x: 10, y: 0 }, width: 2, height: 2, rgb: (0..12).collect() };
    /// let right = c.cropped(Bounds { x: 11, y: 0, width: 5, height: 5 }).unwrap();
    /// assert_eq!((right.origin, right.width, right.height), (Point { x: 11, y: 0 }, 1, 2));
    /// assert_eq!(right.rgb, vec![3, 4, 5, 9, 10, 11]);
    /// assert!(c.cropped(Bounds { x: 0, y: 0, width: 10, height: 10 }).is_none());
    /// ```
    pub fn cropped(&self, area: Bounds) -> Option<Capture> {
        let inside = self.bounds().intersection(&area)?;
        let (left, top) = (
            (inside.x - self.origin.x) as usize,
            (inside.y - self.origin.y) as usize,
        );
        let (width, height) = (inside.width as usize, inside.height as usize);
        let stride = self.width as usize * 3;
        let mut rgb = Vec::with_capacity(width * height * 3);
        for row in top..top + height {
            let start = row * stride + left * 3;
            rgb.extend_from_slice(self.rgb.get(start..start + width * 3)?);
        }
        Some(Capture {
            origin: Point {
                x: inside.x,
                y: inside.y,
            },
            width: width as u32,
            height: height as u32,
            rgb,
        })
    }

    /// A digest of the pixels and the size: two captures with the same digest
    /// show the same picture (with odds of a wrong match of 1 in 2^64), so
    /// what was read from one holds for the other. Where on screen they were
    /// taken is not part of it.
    ///
    /// ```
    /// use axsight_core::{Capture, Point};
    /// let c = |rgb: Vec<u8>| Capture { origin: Point { x: 0, y: 0 }, width: 2, height: 1, rgb };
    /// assert_eq!(c(vec![1, 2, 3, 4, 5, 6]).digest(), c(vec![1, 2, 3, 4, 5, 6]).digest());
    /// assert_ne!(c(vec![1, 2, 3, 4, 5, 6]).digest(), c(vec![1, 2, 3, 4, 5, 7]).digest());
    /// ```
    pub fn digest(&self) -> u64 {
        // FNV-1a over eight bytes at a time: megabytes of pixels in a few
        // milliseconds, with no hashing crate for one use.
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |word: u64| {
            hash ^= word;
            hash = hash.wrapping_mul(PRIME);
        };
        mix(u64::from(self.width) << 32 | u64::from(self.height));
        let mut words = self.rgb.chunks_exact(8);
        for word in &mut words {
            mix(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        let mut rest = [0u8; 8];
        rest[..words.remainder().len()].copy_from_slice(words.remainder());
        mix(u64::from_le_bytes(rest));
        hash
    }

    /// The capture with `margin` pixels more on every side, each a copy of
    /// the nearest edge pixel, its origin moved out to match: a text
    /// detector finds no line that touches a picture's edge, and a crop cut
    /// at a window's edge often has one.
    ///
    /// ```
    /// use axsight_core::{Capture, Point};
    /// let c = Capture { origin: Point { x: 10, y: 10 }, width: 2, height: 1, rgb: vec![1, 1, 1, 9, 9, 9] };
    /// let p = c.padded(1);
    /// assert_eq!((p.origin, p.width, p.height), (Point { x: 9, y: 9 }, 4, 3));
    /// assert_eq!(p.pixel(0, 0), Some([1, 1, 1]));
    /// assert_eq!(p.pixel(3, 2), Some([9, 9, 9]));
    /// ```
    pub fn padded(&self, margin: u32) -> Capture {
        if self.width == 0 || self.height == 0 {
            return self.clone();
        }
        let (width, height) = (self.width + 2 * margin, self.height + 2 * margin);
        let mut rgb = Vec::with_capacity((width * height * 3) as usize);
        for y in 0..height {
            let from_y = y.saturating_sub(margin).min(self.height - 1);
            for x in 0..width {
                let from_x = x.saturating_sub(margin).min(self.width - 1);
                let at = ((from_y * self.width + from_x) * 3) as usize;
                rgb.extend_from_slice(&self.rgb[at..at + 3]);
            }
        }
        Capture {
            origin: Point {
                x: self.origin.x - margin as i32,
                y: self.origin.y - margin as i32,
            },
            width,
            height,
            rgb,
        }
    }
}
