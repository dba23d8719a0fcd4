//! Set-of-marks drawing: a box around each element and its handle in a label, in
//! the colour of the element's source, so a picture shows what can be clicked.

use axsight_core::{Bounds, Point, Source};
use image::{Rgb, RgbImage};

use crate::glyphs;

/// One element to mark: its screen box and the label to print (its handle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub bounds: Bounds,
    pub label: String,
    pub source: Source,
}

/// The colour of a source's marks: distinct, and dark enough for white labels.
pub fn colour(source: Source) -> Rgb<u8> {
    Rgb(match source {
        Source::Tree => [0, 90, 230],
        Source::Dom => [0, 140, 150],
        Source::Detector => [200, 0, 160],
        Source::Vision => [20, 140, 20],
        Source::Ocr => [220, 90, 0],
    })
}

/// Font pixels per label pixel: the larger size where there is room, the
/// smaller where labels crowd.
const LABEL_SCALES: [u32; 2] = [2, 1];
/// Box outline width.
const LINE: u32 = 1;
/// The longest arm of a box's corner bracket.
const CORNER: i64 = 8;
/// Pixels between a label outside its box and the box.
const GAP: i64 = 3;

/// A rectangle of image pixels, `[x0, x1) × [y0, y1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelBox {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl LabelBox {
    fn overlaps(&self, other: &LabelBox) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    fn contains(&self, other: &LabelBox) -> bool {
        self.x0 <= other.x0 && self.y0 <= other.y0 && self.x1 >= other.x1 && self.y1 >= other.y1
    }

    fn inside(&self, width: i64, height: i64) -> bool {
        self.x0 >= 0 && self.y0 >= 0 && self.x1 <= width && self.y1 <= height
    }
}

/// What [`draw_marks`] drew: how many boxes, and where their labels went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drawn {
    /// Marks drawn (nested ones are left out).
    pub marks: usize,
    pub labels: Vec<PlacedLabel>,
}

/// Where one mark's label went, and at which size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedLabel {
    pub text: String,
    pub at: LabelBox,
    pub scale: u32,
}

/// Draws `marks` onto `image`, whose top-left pixel is `origin` on screen and
/// which shows the screen at `scale` (image pixels per screen pixel), and
/// says what it drew. Marks outside the image are skipped; cut ones are drawn
/// in part. See [`place_labels`] for which marks are drawn and where their
/// labels go.
pub fn draw_marks(image: &mut RgbImage, origin: Point, scale: f64, marks: &[Mark]) -> Drawn {
    let to_image = |x: i32, y: i32| {
        (
            ((x - origin.x) as f64 * scale).round() as i64,
            ((y - origin.y) as f64 * scale).round() as i64,
        )
    };
    let boxes: Vec<LabelBox> = marks
        .iter()
        .map(|mark| {
            let b = mark.bounds;
            let (x0, y0) = to_image(b.x, b.y);
            let (x1, y1) = to_image(b.x + b.width, b.y + b.height);
            LabelBox { x0, y0, x1, y1 }
        })
        .collect();
    let labels: Vec<&str> = marks.iter().map(|m| m.label.as_str()).collect();
    let sources: Vec<Source> = marks.iter().map(|m| m.source).collect();
    let size = (i64::from(image.width()), i64::from(image.height()));
    let placement = place_labels(&boxes, &labels, &sources, size);
    let drawn = placement.len();
    let mut placed = Vec::new();
    for (index, label_at) in placement {
        let colour = colour(marks[index].source);
        let b = boxes[index];
        outline(image, b.x0, b.y0, b.x1 - 1, b.y1 - 1, colour);
        if let Some((at, scale)) = label_at {
            label(image, at, scale, &marks[index].label, colour);
            placed.push(PlacedLabel {
                text: marks[index].label.clone(),
                at,
                scale,
            });
        }
    }
    Drawn {
        marks: drawn,
        labels: placed,
    }
}

/// Which marks are drawn, and where each one's label goes (with its font
/// scale), for `boxes` in an image of `size`:
///
/// - Nested marks are thinned: a box that holds another one of its source (a
///   menu bar and its menus, a combo box and its field) is left out, the inner
///   one stays; of two boxes alike, the later one (deeper in the tree) stays.
/// - A label goes outside its box where it fits without covering another box
///   (but one that holds its own) or label (above, then below, left, right),
///   in the larger type, else the
///   smaller; else, in a box three labels high, inside its top right, then top
///   left corner, small; else it is left out (the box is still drawn, and the
///   tree has the handle): a label never covers an element's own words.
pub fn place_labels(
    boxes: &[LabelBox],
    labels: &[&str],
    sources: &[Source],
    (width, height): (i64, i64),
) -> Vec<(usize, Option<(LabelBox, u32)>)> {
    let image = LabelBox {
        x0: 0,
        y0: 0,
        x1: width,
        y1: height,
    };
    let shown = |b: &LabelBox| b.x1 > b.x0 && b.y1 > b.y0 && b.overlaps(&image);
    let kept: Vec<usize> = (0..boxes.len())
        .filter(|&i| shown(&boxes[i]))
        .filter(|&i| {
            !(0..boxes.len()).any(|j| {
                j != i
                    && sources[j] == sources[i]
                    && shown(&boxes[j])
                    && boxes[i].contains(&boxes[j])
                    && (boxes[i] != boxes[j] || j > i)
            })
        })
        .collect();
    let mut order = kept.clone();
    order.sort_by_key(|&i| (boxes[i].y0, boxes[i].x0));
    let mut taken: Vec<LabelBox> = Vec::new();
    let mut placed: Vec<(usize, Option<(LabelBox, u32)>)> = Vec::new();
    for &i in &order {
        let b = boxes[i];
        // A box that holds this one (a canvas around the words OCR read in
        // it) is room for its label, as long as no other mark is covered.
        let free = |at: &LabelBox, own_box_allowed: bool| {
            at.inside(width, height)
                && !taken.iter().any(|t| t.overlaps(at))
                && kept.iter().all(|&k| {
                    !boxes[k].overlaps(at)
                        || (k == i && own_box_allowed)
                        || (k != i && boxes[k].contains(&b))
                })
        };
        let mut chosen = None;
        'sizes: for scale in LABEL_SCALES {
            let (w, h) = label_size(labels[i], scale);
            // A gap between label and box: a text detector reading the
            // picture takes a label touching a line of text for part of it.
            let outside = [
                (b.x0, b.y0 - h - GAP),
                (b.x1 - w, b.y0 - h - GAP),
                (b.x0, b.y1 + GAP),
                (b.x0 - w - GAP, b.y0),
                (b.x1 + GAP, b.y0),
            ];
            for (x, y) in outside {
                let at = LabelBox {
                    x0: x,
                    y0: y,
                    x1: x + w,
                    y1: y + h,
                };
                if free(&at, false) {
                    chosen = Some((at, scale));
                    break 'sizes;
                }
            }
        }
        // Inside its own box only where the box is three labels high: the
        // label then keeps to its top, clear of a label centred below.
        let (w, h) = label_size(labels[i], LABEL_SCALES[LABEL_SCALES.len() - 1]);
        if chosen.is_none() && b.y1 - b.y0 >= 3 * h && b.x1 - b.x0 >= w {
            let scale = LABEL_SCALES[LABEL_SCALES.len() - 1];
            for (x, y) in [(b.x1 - w, b.y0), (b.x0, b.y0)] {
                let at = LabelBox {
                    x0: x,
                    y0: y,
                    x1: x + w,
                    y1: y + h,
                };
                if b.contains(&at) && free(&at, true) {
                    chosen = Some((at, scale));
                    break;
                }
            }
        }
        if let Some((at, _)) = chosen {
            taken.push(at);
        }
        placed.push((i, chosen));
    }
    placed
}

/// A label's width and height in image pixels at font `scale`.
fn label_size(text: &str, scale: u32) -> (i64, i64) {
    let glyph_w = i64::from((glyphs::WIDTH + 1) * scale);
    let height = i64::from((glyphs::HEIGHT + 2) * scale);
    (
        glyph_w * text.chars().count() as i64 + i64::from(scale),
        height,
    )
}

/// The box's corners, `LINE` pixels wide, inside the given corners: brackets
/// a third of each side long (8 pixels at most) show the box and leave the
/// edges along its words bare, so the words still read (a full outline a few
/// pixels from a menu's word made OCR lose it).
fn outline(image: &mut RgbImage, left: i64, top: i64, right: i64, bottom: i64, colour: Rgb<u8>) {
    let line = i64::from(LINE);
    let across = ((right - left + 1) / 3).clamp(1, CORNER);
    let down = ((bottom - top + 1) / 3).clamp(1, CORNER);
    for (x, dx) in [(left, 1), (right, -1)] {
        for (y, dy) in [(top, 1), (bottom, -1)] {
            let far_x = x + dx * (across - 1);
            let far_y = y + dy * (down - 1);
            let inner_x = x + dx * (line - 1);
            let inner_y = y + dy * (line - 1);
            fill(
                image,
                x.min(far_x),
                y.min(inner_y),
                x.max(far_x),
                y.max(inner_y),
                colour,
            );
            fill(
                image,
                x.min(inner_x),
                y.min(far_y),
                x.max(inner_x),
                y.max(far_y),
                colour,
            );
        }
    }
}

/// Fills the rectangle between two corners (inclusive), cut to the image.
fn fill(image: &mut RgbImage, x0: i64, y0: i64, x1: i64, y1: i64, colour: Rgb<u8>) {
    let (w, h) = (i64::from(image.width()), i64::from(image.height()));
    for y in y0.max(0)..=y1.min(h - 1) {
        for x in x0.max(0)..=x1.min(w - 1) {
            image.put_pixel(x as u32, y as u32, colour);
        }
    }
}

/// A label at `at`: white glyphs at font `scale` on the source's colour.
fn label(image: &mut RgbImage, at: LabelBox, scale: u32, text: &str, colour: Rgb<u8>) {
    fill(image, at.x0, at.y0, at.x1 - 1, at.y1 - 1, colour);
    let white = Rgb([255, 255, 255]);
    let glyph_w = i64::from((glyphs::WIDTH + 1) * scale);
    let scale = i64::from(scale);
    for (i, c) in text.chars().enumerate() {
        let Some(rows) = glyphs::rows(c) else {
            continue;
        };
        let gx = at.x0 + scale + i as i64 * glyph_w;
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..glyphs::WIDTH {
                if bits & (1 << (glyphs::WIDTH - 1 - col)) != 0 {
                    let px = gx + i64::from(col) * scale;
                    let py = at.y0 + scale + row as i64 * scale;
                    fill(image, px, py, px + scale - 1, py + scale - 1, white);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_land_on_the_scaled_corners_with_their_source_colour() {
        let mut image = RgbImage::from_pixel(200, 100, Rgb([255, 255, 255]));
        let mark = Mark {
            bounds: Bounds {
                x: 140,
                y: 80,
                width: 100,
                height: 60,
            },
            label: "#u14".into(),
            source: Source::Tree,
        };
        // The image shows the screen from (100, 50) at half size.
        let placed = draw_marks(&mut image, Point { x: 100, y: 50 }, 0.5, &[mark]).labels;
        let blue = colour(Source::Tree);
        // Box corners: (140-100)/2 = 20, (80-50)/2 = 15; far corner 70-1, 45-1.
        assert_eq!(*image.get_pixel(20, 44), blue);
        assert_eq!(*image.get_pixel(69, 44), blue);
        assert_eq!(*image.get_pixel(69, 20), blue);
        // Inside the box: untouched.
        assert_eq!(*image.get_pixel(45, 35), Rgb([255, 255, 255]));
        // No room above (15 < 18 label pixels and a gap): the label goes
        // below, outside, 3 pixels from the box.
        let at = placed[0].at;
        assert_eq!((at.x0, at.y0, placed[0].scale), (20, 48, 2));
        assert_eq!(*image.get_pixel(20, 48), blue);
        assert_eq!(*image.get_pixel(20, 46), Rgb([255, 255, 255]));
        let white_in_label =
            (20..70).any(|x| (48..66).any(|y| *image.get_pixel(x, y) == Rgb([255, 255, 255])));
        assert!(white_in_label, "the label's glyphs are white");
    }

    fn at(x0: i64, y0: i64, x1: i64, y1: i64) -> LabelBox {
        LabelBox { x0, y0, x1, y1 }
    }

    #[test]
    fn a_box_that_holds_another_is_thinned_out() {
        // A menu bar, its menu at the same corner, and a menu item alike.
        let boxes = [at(0, 20, 400, 45), at(0, 20, 40, 45), at(0, 20, 40, 45)];
        let placed = place_labels(
            &boxes,
            &["#u2", "#u3", "#u4"],
            &[Source::Tree; 3],
            (400, 300),
        );
        let drawn: Vec<usize> = placed.iter().map(|(i, _)| *i).collect();
        assert_eq!(drawn, vec![2]);
        // A box holding what OCR read in it stays: they are different things.
        let sources = [Source::Tree, Source::Ocr];
        let placed = place_labels(&boxes[..2], &["#u2", "#o1"], &sources, (400, 300));
        assert_eq!(placed.len(), 2);
    }

    #[test]
    fn a_label_may_lie_in_the_box_that_holds_its_own() {
        // A canvas reaching the picture's top, and a line OCR read in it: the
        // line's label goes above the line, inside the canvas.
        let boxes = [at(0, 0, 300, 120), at(20, 80, 180, 96)];
        let sources = [Source::Tree, Source::Ocr];
        let placed = place_labels(&boxes, &["#u31", "#o1"], &sources, (300, 120));
        let line = placed.iter().find(|(i, _)| *i == 1).unwrap().1;
        let (label, scale) = line.expect("the line keeps its label");
        assert_eq!((label.x0, label.y1, scale), (20, 77, 2));
        assert!(boxes[0].contains(&label));
    }

    #[test]
    fn labels_in_a_dense_row_never_overlap_each_other_or_a_box() {
        // Gnumeric's formatting toolbar: 37-pixel buttons side by side, a row
        // of them above too.
        let mut boxes = Vec::new();
        let mut labels = Vec::new();
        for row in 0..2 {
            for column in 0..12 {
                let x = 4 + column * 37;
                let y = 40 + row * 36;
                boxes.push(at(x, y, x + 37, y + 35));
                labels.push(format!("#u{}", 30 + row * 12 + column));
            }
        }
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let placed = place_labels(&boxes, &labels, &[Source::Tree; 24], (500, 200));
        let drawn: Vec<LabelBox> = placed
            .iter()
            .filter_map(|(_, l)| l.map(|(b, _)| b))
            .collect();
        assert_eq!(drawn.len(), boxes.len(), "every button keeps its label");
        for (i, a) in drawn.iter().enumerate() {
            assert!(a.inside(500, 200));
            for b in &drawn[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} and {b:?} overlap");
            }
        }
        // Each label is outside every box but, at worst, its own.
        for (i, label) in placed.iter().filter_map(|(i, l)| Some((*i, l.as_ref()?.0))) {
            for (j, b) in boxes.iter().enumerate() {
                assert!(j == i || !b.overlaps(&label), "#{i}'s label covers box {j}");
            }
        }
        // The top row's labels go above it, in the larger type, a gap apart.
        assert_eq!(placed[0].1.map(|(b, s)| (b.y1, s)), Some((37, 2)));
    }

    #[test]
    fn without_room_anywhere_a_label_is_left_out() {
        // Two boxes filling the image, each smaller than a label.
        let boxes = [at(0, 0, 12, 8), at(12, 0, 24, 8)];
        let placed = place_labels(&boxes, &["#u1", "#u2"], &[Source::Tree; 2], (24, 8));
        assert!(
            placed.iter().all(|(_, label)| label.is_none()),
            "{placed:?}"
        );
    }

    #[test]
    fn marks_off_the_image_do_not_panic() {
        let mut image = RgbImage::from_pixel(10, 10, Rgb([0, 0, 0]));
        let far = Mark {
            bounds: Bounds {
                x: -500,
                y: 900,
                width: 40,
                height: 40,
            },
            label: "#o7".into(),
            source: Source::Ocr,
        };
        draw_marks(&mut image, Point { x: 0, y: 0 }, 1.0, &[far]);
        assert!(image.pixels().all(|p| *p == Rgb([0, 0, 0])));
    }
}
