//! From a text detector's probability map to boxes of text: the map thresholded,
//! its 4-connected regions, each kept when its mean probability is high enough,
//! grown by the DB rule (PP-OCR's detector is a Differentiable Binarisation net:
//! it marks a shrunk core of each line) and mapped back to the picture's pixels.
//!
//! Plain data in, plain data out: no model, no pictures. UI text is upright, so
//! a region's box is its axis-aligned bounds (no rotated rectangles).

/// A box in the picture's pixels: `[x1, x2) × [y1, y2)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextBox {
    pub x1: u32,
    pub y1: u32,
    pub x2: u32,
    pub y2: u32,
}

/// How to read the map.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RegionRule {
    /// A pixel is text above this probability.
    pub pixel_threshold: f32,
    /// A region is kept when its pixels' mean probability reaches this.
    pub box_threshold: f32,
    /// DB's unclip ratio: the box grows by `area * ratio / perimeter` each side.
    pub unclip_ratio: f32,
}

impl Default for RegionRule {
    /// PP-OCR's own defaults.
    fn default() -> RegionRule {
        RegionRule {
            pixel_threshold: 0.3,
            box_threshold: 0.5,
            unclip_ratio: 1.6,
        }
    }
}

/// The text boxes of a `map_width`×`map_height` probability map (row-major),
/// in the pixels of a `width`×`height` picture the map was made from, top to
/// bottom then left to right. Boxes 3 pixels or less across are dropped.
pub(crate) fn text_boxes(
    map: &[f32],
    (map_width, map_height): (usize, usize),
    (width, height): (u32, u32),
    rule: RegionRule,
) -> Vec<TextBox> {
    if map_width == 0 || map_height == 0 || map.len() < map_width * map_height {
        return Vec::new();
    }
    let sx = f64::from(width) / map_width as f64;
    let sy = f64::from(height) / map_height as f64;
    let mut seen = vec![false; map_width * map_height];
    let mut stack = Vec::new();
    let mut boxes = Vec::new();
    for start in 0..map_width * map_height {
        if seen[start] || map[start] <= rule.pixel_threshold {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x1, mut y1) = (start % map_width, start / map_width);
        let (mut x2, mut y2) = (x1, y1);
        let (mut sum, mut count) = (0f64, 0usize);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % map_width, at / map_width);
            sum += f64::from(map[at]);
            count += 1;
            (x1, x2, y1, y2) = (x1.min(x), x2.max(x), y1.min(y), y2.max(y));
            let neighbours = [
                (x > 0).then(|| at - 1),
                (x + 1 < map_width).then(|| at + 1),
                (y > 0).then(|| at - map_width),
                (y + 1 < map_height).then(|| at + map_width),
            ];
            for next in neighbours.into_iter().flatten() {
                if !seen[next] && map[next] > rule.pixel_threshold {
                    seen[next] = true;
                    stack.push(next);
                }
            }
        }
        if sum / (count as f64) < f64::from(rule.box_threshold) {
            continue;
        }
        let (w, h) = ((x2 + 1 - x1) as f64, (y2 + 1 - y1) as f64);
        let grow = w * h * f64::from(rule.unclip_ratio) / (2.0 * (w + h));
        let clamp = |v: f64, most: u32| v.clamp(0.0, f64::from(most)) as u32;
        let found = TextBox {
            x1: clamp(((x1 as f64 - grow) * sx).floor(), width),
            y1: clamp(((y1 as f64 - grow) * sy).floor(), height),
            x2: clamp(((x2 as f64 + 1.0 + grow) * sx).ceil(), width),
            y2: clamp(((y2 as f64 + 1.0 + grow) * sy).ceil(), height),
        };
        if found.x2 - found.x1 > 3 && found.y2 - found.y1 > 3 {
            boxes.push(found);
        }
    }
    boxes.sort_by_key(|b| (b.y1, b.x1));
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_with(
        width: usize,
        height: usize,
        cores: &[(usize, usize, usize, usize, f32)],
    ) -> Vec<f32> {
        let mut map = vec![0.0; width * height];
        for &(x1, y1, x2, y2, p) in cores {
            for y in y1..y2 {
                for x in x1..x2 {
                    map[y * width + x] = p;
                }
            }
        }
        map
    }

    #[test]
    fn cores_grow_by_the_db_rule_and_map_back_to_the_picture() {
        // A 20x4 core at (10,5) on a 64x32 map of a 128x64 picture: it grows
        // by 20*4*1.6/48 = 2.67 map pixels each side, then doubles.
        let map = map_with(64, 32, &[(10, 5, 30, 9, 0.9)]);
        let boxes = text_boxes(&map, (64, 32), (128, 64), RegionRule::default());
        assert_eq!(
            boxes,
            [TextBox {
                x1: 14,
                y1: 4,
                x2: 66,
                y2: 24
            }]
        );
    }

    #[test]
    fn weak_and_tiny_regions_are_dropped_and_boxes_come_in_reading_order() {
        let map = map_with(
            64,
            32,
            &[
                (40, 20, 60, 24, 0.9), // lower line
                (2, 2, 20, 6, 0.9),    // upper line
                (30, 2, 40, 6, 0.4),   // above the pixel threshold, under the box one
                (50, 2, 51, 3, 0.9),   // a speck: 1x1 grows to 2x2
            ],
        );
        let boxes = text_boxes(&map, (64, 32), (64, 32), RegionRule::default());
        assert_eq!(boxes.len(), 2, "{boxes:?}");
        assert!(boxes[0].y1 < boxes[1].y1 && boxes[0].x1 < 5, "{boxes:?}");
        // Touching cores are one region; a gap splits them.
        let joined = map_with(64, 32, &[(2, 2, 20, 6, 0.9), (20, 2, 30, 6, 0.9)]);
        assert_eq!(
            text_boxes(&joined, (64, 32), (64, 32), RegionRule::default()).len(),
            1
        );
        // Malformed input: nothing, no panic.
        assert!(text_boxes(&map[..10], (64, 32), (64, 32), RegionRule::default()).is_empty());
        assert!(text_boxes(&[], (0, 0), (64, 32), RegionRule::default()).is_empty());
    }
}
