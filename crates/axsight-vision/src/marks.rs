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

/// Font pixels per label pixel.
const LABEL_SCALE: u32 = 2;
/// Box outline width.
const LINE: u32 = 2;

/// Draws `marks` onto `image`, whose top-left pixel is `origin` on screen and
/// which shows the screen at `scale` (image pixels per screen pixel). Marks
/// outside the image are skipped; cut ones are drawn in part.
pub fn draw_marks(image: &mut RgbImage, origin: Point, scale: f64, marks: &[Mark]) {
    for mark in marks {
        let to_image = |x: i32, y: i32| {
            (
                ((x - origin.x) as f64 * scale).round() as i64,
                ((y - origin.y) as f64 * scale).round() as i64,
            )
        };
        let b = mark.bounds;
        let (left, top) = to_image(b.x, b.y);
        let (right, bottom) = to_image(b.x + b.width, b.y + b.height);
        let colour = colour(mark.source);
        outline(image, left, top, right - 1, bottom - 1, colour);
        label(image, left, top, &mark.label, colour);
    }
}

/// A rectangle outline `LINE` pixels wide, inside the given corners.
fn outline(image: &mut RgbImage, left: i64, top: i64, right: i64, bottom: i64, colour: Rgb<u8>) {
    let line = i64::from(LINE);
    fill(image, left, top, right, top + line - 1, colour);
    fill(image, left, bottom - line + 1, right, bottom, colour);
    fill(image, left, top, left + line - 1, bottom, colour);
    fill(image, right - line + 1, top, right, bottom, colour);
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

/// The label: white glyphs on the source's colour, at the box's top-left corner
/// (above it when there is room, so the element stays visible).
fn label(image: &mut RgbImage, left: i64, top: i64, text: &str, colour: Rgb<u8>) {
    let glyph_w = i64::from((glyphs::WIDTH + 1) * LABEL_SCALE);
    let height = i64::from((glyphs::HEIGHT + 2) * LABEL_SCALE);
    let width = glyph_w * text.chars().count() as i64 + i64::from(LABEL_SCALE);
    let y = if top >= height { top - height } else { top };
    fill(image, left, y, left + width - 1, y + height - 1, colour);
    let white = Rgb([255, 255, 255]);
    let scale = i64::from(LABEL_SCALE);
    for (i, c) in text.chars().enumerate() {
        let Some(rows) = glyphs::rows(c) else {
            continue;
        };
        let gx = left + scale + i as i64 * glyph_w;
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..glyphs::WIDTH {
                if bits & (1 << (glyphs::WIDTH - 1 - col)) != 0 {
                    let px = gx + i64::from(col) * scale;
                    let py = y + scale + row as i64 * scale;
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
        draw_marks(&mut image, Point { x: 100, y: 50 }, 0.5, &[mark]);
        let blue = colour(Source::Tree);
        // Box corners: (140-100)/2 = 20, (80-50)/2 = 15; far corner 70-1, 45-1.
        assert_eq!(*image.get_pixel(20, 44), blue);
        assert_eq!(*image.get_pixel(69, 44), blue);
        assert_eq!(*image.get_pixel(69, 20), blue);
        // Inside the box, away from the label: untouched.
        assert_eq!(*image.get_pixel(45, 35), Rgb([255, 255, 255]));
        // The label sits above the box's top-left corner... unless no room:
        // 15 < 18 label pixels, so it is drawn inside, from the corner down.
        assert_eq!(*image.get_pixel(20, 15), blue);
        let white_in_label =
            (20..70).any(|x| (15..33).any(|y| *image.get_pixel(x, y) == Rgb([255, 255, 255])));
        assert!(white_in_label, "the label's glyphs are white");
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
