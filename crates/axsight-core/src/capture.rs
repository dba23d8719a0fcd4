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

    /// The capture sampled to `width` × `height` pixels over the same part of
    /// the screen: each pixel the mean of the pixels it covers. A compositor
    /// hands over a scaled output's pixels (1.5 or 2 per screen pixel); its
    /// screen, and so every capture, is in logical pixels. A mean keeps thin
    /// strokes of text that picking one pixel in two or three drops.
    ///
    /// ```
    /// use axsight_core::{Capture, Point};
    /// // 2×2 pixels of a scale-2 output: one screen pixel.
    /// let c = Capture { origin: Point { x: 3, y: 4 }, width: 2, height: 2,
    ///                   rgb: vec![0, 0, 0, 200, 200, 200, 0, 0, 0, 200, 200, 200] };
    /// let s = c.sampled(1, 1);
    /// assert_eq!((s.origin, s.width, s.height, s.rgb), (Point { x: 3, y: 4 }, 1, 1, vec![100, 100, 100]));
    /// ```
    pub fn sampled(self, width: u32, height: u32) -> Capture {
        if (width, height) == (self.width, self.height) {
            return self;
        }
        if self.width == 0 || self.height == 0 {
            let rgb = vec![0; width as usize * height as usize * 3];
            return Capture {
                width,
                height,
                rgb,
                origin: self.origin,
            };
        }
        // Each output pixel covers source columns [x0, x1) and rows [y0, y1);
        // where the scale is below 1 (an enlargement) that is one pixel.
        let span = |i: u32, out: u32, size: u32| {
            let from = (u64::from(i) * u64::from(size) / u64::from(out)) as u32;
            let to = (u64::from(i + 1) * u64::from(size)).div_ceil(u64::from(out)) as u32;
            (from.min(size - 1), to.clamp(from + 1, size))
        };
        let columns: Vec<(u32, u32)> = (0..width).map(|x| span(x, width, self.width)).collect();
        let mut rgb = Vec::with_capacity((width * height * 3) as usize);
        for y in 0..height {
            let (y0, y1) = span(y, height, self.height);
            for &(x0, x1) in &columns {
                let mut sum = [0u32; 3];
                for row in y0..y1 {
                    let start = ((row * self.width + x0) * 3) as usize;
                    let end = ((row * self.width + x1) * 3) as usize;
                    for px in self.rgb[start..end].chunks_exact(3) {
                        sum[0] += u32::from(px[0]);
                        sum[1] += u32::from(px[1]);
                        sum[2] += u32::from(px[2]);
                    }
                }
                let count = (y1 - y0) * (x1 - x0);
                rgb.extend(sum.map(|channel| ((channel + count / 2) / count) as u8));
            }
        }
        Capture {
            width,
            height,
            rgb,
            origin: self.origin,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn grey(width: u32, height: u32, values: &[u8]) -> Capture {
        Capture {
            origin: Point { x: 0, y: 0 },
            width,
            height,
            rgb: values.iter().flat_map(|&v| [v, v, v]).collect(),
        }
    }

    #[test]
    fn a_scale_of_one_and_a_half_averages_what_each_pixel_covers() {
        // Three pixels in a row of a 1.5 output are two screen pixels; the
        // middle one counts for both.
        let sampled = grey(3, 1, &[0, 90, 180]).sampled(2, 1);
        assert_eq!(sampled.rgb, grey(2, 1, &[45, 135]).rgb);
    }

    #[test]
    fn a_thin_dark_stroke_survives_halving() {
        // One dark column of four at scale 2: picking every other column
        // would lose it.
        let sampled = grey(4, 2, &[255, 0, 255, 255, 255, 0, 255, 255]).sampled(2, 1);
        assert_eq!(sampled.rgb, grey(2, 1, &[128, 255]).rgb);
    }

    #[test]
    fn an_enlargement_repeats_pixels_and_an_empty_capture_gives_black() {
        assert_eq!(grey(1, 1, &[7]).sampled(2, 2).rgb, grey(2, 2, &[7; 4]).rgb);
        assert_eq!(grey(0, 0, &[]).sampled(1, 1).rgb, vec![0, 0, 0]);
        assert_eq!(
            grey(2, 2, &[1, 2, 3, 4]).sampled(0, 0).rgb,
            Vec::<u8>::new()
        );
    }
}
