//! Where two captures of the same place differ: the pixels as a witness of an
//! action whose app says nothing (no accessibility events, or no
//! accessibility at all).
//!
//! Pixels differ where any channel moved by more than [`MIN_STEP`] (antialiased
//! edges and dithering stay under it). Changed pixels are gathered into 4×4
//! blocks, neighbouring blocks (gaps of up to [`JOIN_GAP`] pixels, the space
//! between a word's letters or a display's digits) into regions, each with
//! its exact pixel box. A region one or two pixels thin is a blinking caret
//! or a moving line, not a change anyone acts on, and is left out.

use crate::{Bounds, Capture};

/// The least change of one channel that counts.
pub const MIN_STEP: u8 = 24;

/// Regions this close (in pixels) are one.
pub const JOIN_GAP: i32 = 8;

/// Regions thinner than this on either side are left out (a text caret).
const MIN_SIDE: i32 = 3;

/// Pixels per side of a block.
const BLOCK: usize = 4;

/// The regions where `after` shows other pixels than `before`, largest first,
/// in screen pixels. Captures of different places or sizes differ everywhere:
/// `after`'s whole box.
///
/// ```
/// use axsight_core::{changed_regions, Bounds, Capture, Point};
/// let blank = |w: u32, h: u32| Capture { origin: Point { x: 100, y: 50 }, width: w, height: h, rgb: vec![255; (w * h * 3) as usize] };
/// let before = blank(40, 20);
/// let mut after = blank(40, 20);
/// for y in 5..12 {
///     for x in 20..26 {
///         let at = ((y * 40 + x) * 3) as usize;
///         after.rgb[at..at + 3].copy_from_slice(&[0, 0, 0]);
///     }
/// }
/// assert_eq!(changed_regions(&before, &after), vec![Bounds { x: 120, y: 55, width: 6, height: 7 }]);
/// assert!(changed_regions(&before, &before).is_empty());
/// ```
pub fn changed_regions(before: &Capture, after: &Capture) -> Vec<Bounds> {
    if before.bounds() != after.bounds() || before.rgb.len() != after.rgb.len() {
        return vec![after.bounds()];
    }
    let (width, height) = (after.width as usize, after.height as usize);
    let (columns, rows) = (width.div_ceil(BLOCK), height.div_ceil(BLOCK));
    // Per block, the box of its changed pixels (image coordinates).
    let mut blocks: Vec<Option<PixelBox>> = vec![None; columns * rows];
    for y in 0..height {
        let row = y * width * 3;
        for x in 0..width {
            let at = row + x * 3;
            let differs = (0..3).any(|c| before.rgb[at + c].abs_diff(after.rgb[at + c]) > MIN_STEP);
            if differs {
                let block = &mut blocks[(y / BLOCK) * columns + x / BLOCK];
                block.get_or_insert(PixelBox::at(x, y)).add(x, y);
            }
        }
    }
    let mut regions = regions_of(&blocks, columns, rows);
    regions = joined(regions);
    let mut found: Vec<Bounds> = regions
        .into_iter()
        .filter(|r| r.width() >= MIN_SIDE && r.height() >= MIN_SIDE)
        .map(|r| r.on_screen(after))
        .collect();
    found.sort_by_key(|b| std::cmp::Reverse(b.area()));
    found
}

/// `region` of `capture` widened left and right over the text it is part of:
/// a display whose first digit changed ("12" to "42") reads whole. Columns
/// of the region's rows are ink when any pixel differs from the band's most
/// common colour by more than [`MIN_STEP`]; the widening stops at a blank
/// gap as wide as the band is high (a word space is narrower), or at the
/// capture's edge.
///
/// ```
/// use axsight_core::{text_run, Bounds, Capture, Point};
/// let mut c = Capture { origin: Point { x: 0, y: 0 }, width: 60, height: 10, rgb: vec![255; 60 * 10 * 3] };
/// for x in [10, 11, 14, 15, 18, 19, 40, 41] {
///     for y in 2..8 {
///         let at = (y * 60 + x) * 3;
///         c.rgb[at..at + 3].copy_from_slice(&[0, 0, 0]);
///     }
/// }
/// let changed = Bounds { x: 18, y: 2, width: 2, height: 6 };
/// assert_eq!(text_run(&c, changed), Bounds { x: 10, y: 2, width: 10, height: 6 });
/// ```
pub fn text_run(capture: &Capture, region: Bounds) -> Bounds {
    let Some(band) = capture.bounds().intersection(&region) else {
        return region;
    };
    let rows = (band.y - capture.origin.y) as u32..(band.y + band.height - capture.origin.y) as u32;
    let background = most_common_colour(capture, rows.clone());
    let ink = |x: u32| {
        rows.clone().any(|y| {
            capture
                .pixel(x, y)
                .is_some_and(|p| (0..3).any(|c| p[c].abs_diff(background[c]) > MIN_STEP))
        })
    };
    let gap = band.height.max(MIN_SIDE) as u32;
    let (mut left, mut right) = (
        (band.x - capture.origin.x) as u32,
        (band.x + band.width - 1 - capture.origin.x) as u32,
    );
    let mut blank = 0;
    let mut x = left;
    while x > 0 && blank < gap {
        x -= 1;
        match ink(x) {
            true => {
                left = x;
                blank = 0;
            }
            false => blank += 1,
        }
    }
    blank = 0;
    x = right;
    while x + 1 < capture.width && blank < gap {
        x += 1;
        match ink(x) {
            true => {
                right = x;
                blank = 0;
            }
            false => blank += 1,
        }
    }
    Bounds {
        x: capture.origin.x + left as i32,
        y: band.y,
        width: (right - left + 1) as i32,
        height: band.height,
    }
}

/// The colour most pixels of `rows` have: their background.
fn most_common_colour(capture: &Capture, rows: std::ops::Range<u32>) -> [u8; 3] {
    let mut counts: std::collections::HashMap<[u8; 3], u32> = std::collections::HashMap::new();
    for y in rows {
        for x in 0..capture.width {
            if let Some(p) = capture.pixel(x, y) {
                *counts.entry(p).or_default() += 1;
            }
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(colour, n)| (n, colour))
        .map_or([255; 3], |(colour, _)| colour)
}

/// A box of pixels in image coordinates, ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PixelBox {
    left: usize,
    top: usize,
    right: usize,
    bottom: usize,
}

impl PixelBox {
    fn at(x: usize, y: usize) -> PixelBox {
        PixelBox {
            left: x,
            top: y,
            right: x,
            bottom: y,
        }
    }

    fn add(&mut self, x: usize, y: usize) {
        self.left = self.left.min(x);
        self.top = self.top.min(y);
        self.right = self.right.max(x);
        self.bottom = self.bottom.max(y);
    }

    fn union(&self, other: &PixelBox) -> PixelBox {
        PixelBox {
            left: self.left.min(other.left),
            top: self.top.min(other.top),
            right: self.right.max(other.right),
            bottom: self.bottom.max(other.bottom),
        }
    }

    fn width(&self) -> i32 {
        (self.right - self.left + 1) as i32
    }

    fn height(&self) -> i32 {
        (self.bottom - self.top + 1) as i32
    }

    /// The gap between two boxes along the axis they are furthest apart on.
    fn gap(&self, other: &PixelBox) -> i32 {
        let apart = |a_start: usize, a_end: usize, b_start: usize, b_end: usize| -> i32 {
            if b_start > a_end {
                (b_start - a_end) as i32 - 1
            } else if a_start > b_end {
                (a_start - b_end) as i32 - 1
            } else {
                -1
            }
        };
        apart(self.left, self.right, other.left, other.right).max(apart(
            self.top,
            self.bottom,
            other.top,
            other.bottom,
        ))
    }

    fn on_screen(&self, capture: &Capture) -> Bounds {
        Bounds {
            x: capture.origin.x + self.left as i32,
            y: capture.origin.y + self.top as i32,
            width: self.width(),
            height: self.height(),
        }
    }
}

/// The boxes of the groups of touching changed blocks (eight neighbours).
fn regions_of(blocks: &[Option<PixelBox>], columns: usize, rows: usize) -> Vec<PixelBox> {
    let mut seen = vec![false; blocks.len()];
    let mut regions = Vec::new();
    for start in 0..blocks.len() {
        let Some(first) = blocks[start] else { continue };
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut region = first;
        let mut stack = vec![start];
        while let Some(at) = stack.pop() {
            let (column, row) = ((at % columns) as isize, (at / columns) as isize);
            for (dx, dy) in NEIGHBOURS {
                let (c, r) = (column + dx, row + dy);
                if c < 0 || r < 0 || c >= columns as isize || r >= rows as isize {
                    continue;
                }
                let next = r as usize * columns + c as usize;
                if let (false, Some(pixels)) = (seen[next], blocks[next]) {
                    seen[next] = true;
                    region = region.union(&pixels);
                    stack.push(next);
                }
            }
        }
        regions.push(region);
    }
    regions
}

const NEIGHBOURS: [(isize, isize); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// Regions within [`JOIN_GAP`] of each other merged, until none are.
fn joined(mut regions: Vec<PixelBox>) -> Vec<PixelBox> {
    loop {
        let mut merged = false;
        let mut out: Vec<PixelBox> = Vec::with_capacity(regions.len());
        for region in regions {
            match out.iter_mut().find(|r| r.gap(&region) <= JOIN_GAP) {
                Some(near) => {
                    *near = near.union(&region);
                    merged = true;
                }
                None => out.push(region),
            }
        }
        regions = out;
        if !merged {
            return regions;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Point;

    fn blank(width: u32, height: u32) -> Capture {
        Capture {
            origin: Point { x: 0, y: 0 },
            width,
            height,
            rgb: vec![240; (width * height * 3) as usize],
        }
    }

    fn paint(capture: &mut Capture, x: std::ops::Range<u32>, y: std::ops::Range<u32>, grey: u8) {
        for row in y {
            for column in x.clone() {
                let at = ((row * capture.width + column) * 3) as usize;
                capture.rgb[at..at + 3].copy_from_slice(&[grey; 3]);
            }
        }
    }

    #[test]
    fn a_caret_and_faint_shading_are_no_change() {
        let before = blank(200, 100);
        let mut after = blank(200, 100);
        paint(&mut after, 50..52, 10..30, 0); // a caret, two pixels wide
        paint(&mut after, 100..160, 40..60, 225); // a hover shade, 15 levels
        assert!(changed_regions(&before, &after).is_empty());
    }

    #[test]
    fn the_letters_of_a_word_are_one_region_and_far_changes_two() {
        let before = blank(300, 100);
        let mut after = blank(300, 100);
        // "23" on a display: two digits 4 px apart.
        paint(&mut after, 200..208, 10..22, 0);
        paint(&mut after, 212..220, 10..22, 0);
        // A pressed button far away, larger.
        paint(&mut after, 10..60, 60..90, 120);
        assert_eq!(
            changed_regions(&before, &after),
            vec![
                Bounds {
                    x: 10,
                    y: 60,
                    width: 50,
                    height: 30
                },
                Bounds {
                    x: 200,
                    y: 10,
                    width: 20,
                    height: 12
                },
            ]
        );
    }

    #[test]
    fn captures_of_other_places_differ_everywhere() {
        let before = blank(10, 10);
        let mut moved = blank(10, 10);
        moved.origin = Point { x: 5, y: 0 };
        assert_eq!(changed_regions(&before, &moved), vec![moved.bounds()]);
    }
}
