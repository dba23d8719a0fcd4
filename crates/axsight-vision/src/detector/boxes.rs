//! From the model's raw output to boxes: score threshold, non-maximum
//! suppression, and the way back from the model's input to the picture.
//!
//! A YOLO (v8/11) detection head gives `[4 + classes, anchors]`: each anchor's
//! centre x, centre y, width, height in input pixels, then one score per class.

use super::letterbox::Placement;

/// One box in picture pixels (floating point until the very end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
    pub score: f32,
    pub class: usize,
}

impl Scored {
    fn area(&self) -> f32 {
        (self.x2 - self.x1).max(0.0) * (self.y2 - self.y1).max(0.0)
    }

    /// Intersection over union.
    pub fn overlap(&self, other: &Scored) -> f32 {
        let width = (self.x2.min(other.x2) - self.x1.max(other.x1)).max(0.0);
        let height = (self.y2.min(other.y2) - self.y1.max(other.y1)).max(0.0);
        let shared = width * height;
        let union = self.area() + other.area() - shared;
        if union <= 0.0 {
            0.0
        } else {
            shared / union
        }
    }
}

/// The anchors scoring at least `min_score`, as boxes in the picture's pixels
/// (clipped to its `width`×`height`). `output` is `rows` rows of `anchors`
/// values each, row-major.
pub(crate) fn decode(
    output: &[f32],
    rows: usize,
    anchors: usize,
    min_score: f32,
    placement: &Placement,
    (width, height): (u32, u32),
) -> Vec<Scored> {
    let at = |row: usize, anchor: usize| output[row * anchors + anchor];
    let mut found = Vec::new();
    for anchor in 0..anchors {
        let (class, score) = (4..rows)
            .map(|row| (row - 4, at(row, anchor)))
            .fold((0, f32::MIN), |best, c| if c.1 > best.1 { c } else { best });
        if score.is_nan() || score < min_score {
            continue;
        }
        let (cx, cy, w, h) = (at(0, anchor), at(1, anchor), at(2, anchor), at(3, anchor));
        let (x1, y1) = placement.picture_point(cx - w / 2.0, cy - h / 2.0);
        let (x2, y2) = placement.picture_point(cx + w / 2.0, cy + h / 2.0);
        let clipped = Scored {
            x1: x1.clamp(0.0, width as f32),
            y1: y1.clamp(0.0, height as f32),
            x2: x2.clamp(0.0, width as f32),
            y2: y2.clamp(0.0, height as f32),
            score,
            class,
        };
        if clipped.area() >= 1.0 {
            found.push(clipped);
        }
    }
    found
}

/// Greedy non-maximum suppression: best score first, dropping any box of the
/// same class that overlaps a kept one by more than `max_overlap` (IoU); at most
/// `limit` boxes survive.
pub(crate) fn suppress(mut boxes: Vec<Scored>, max_overlap: f32, limit: usize) -> Vec<Scored> {
    boxes.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut kept: Vec<Scored> = Vec::new();
    for candidate in boxes {
        if kept.len() >= limit {
            break;
        }
        let overlapped = kept
            .iter()
            .any(|k| k.class == candidate.class && k.overlap(&candidate) > max_overlap);
        if !overlapped {
            kept.push(candidate);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(x1: f32, y1: f32, x2: f32, y2: f32, score: f32) -> Scored {
        Scored {
            x1,
            y1,
            x2,
            y2,
            score,
            class: 0,
        }
    }

    #[test]
    fn overlap_is_intersection_over_union() {
        let a = boxed(0.0, 0.0, 10.0, 10.0, 1.0);
        let b = boxed(5.0, 0.0, 15.0, 10.0, 1.0);
        assert!((a.overlap(&b) - 50.0 / 150.0).abs() < 1e-6);
        assert_eq!(a.overlap(&boxed(20.0, 20.0, 30.0, 30.0, 1.0)), 0.0);
    }

    #[test]
    fn decoding_keeps_scores_above_the_threshold_and_maps_back() {
        // Two anchors, one class: rows cx, cy, w, h, score.
        let output = [
            100.0, 300.0, // cx
            200.0, 300.0, // cy
            20.0, 10.0, // w
            10.0, 10.0, // h
            0.9, 0.1, // score
        ];
        // A 1280×720 picture shown at half size, 140 px down.
        let placement = Placement {
            scale: 0.5,
            left: 0,
            top: 140,
            width: 640,
            height: 360,
        };
        let found = decode(&output, 5, 2, 0.25, &placement, (1280, 720));
        assert_eq!(found.len(), 1);
        let b = found[0];
        assert_eq!((b.x1, b.y1, b.x2, b.y2), (180.0, 110.0, 220.0, 130.0));
        assert_eq!(b.score, 0.9);
    }

    #[test]
    fn decoding_clips_to_the_picture_and_takes_the_best_class() {
        // One anchor, two classes; the box spills over the left edge.
        let output = [5.0, 50.0, 20.0, 20.0, 0.3, 0.6];
        let placement = Placement {
            scale: 1.0,
            left: 0,
            top: 0,
            width: 100,
            height: 100,
        };
        let found = decode(&output, 6, 1, 0.5, &placement, (100, 100));
        assert_eq!((found[0].x1, found[0].x2, found[0].class), (0.0, 15.0, 1));
    }

    #[test]
    fn suppression_keeps_the_best_of_overlapping_boxes() {
        let boxes = vec![
            boxed(0.0, 0.0, 10.0, 10.0, 0.5),
            boxed(1.0, 0.0, 11.0, 10.0, 0.9),
            boxed(50.0, 50.0, 60.0, 60.0, 0.4),
        ];
        let kept = suppress(boxes.clone(), 0.5, 10);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].score, 0.9);
        assert_eq!(kept[1].score, 0.4);
        assert_eq!(suppress(boxes, 0.5, 1).len(), 1);
    }
}
