//! Lines split where their pixels leave a wide blank gap. The text detector
//! joins text that sits on one row (an icon view's labels, "draft.txt" and
//! "notes.md" 22 px apart; a table row's columns) into one line, whose box
//! then lies between the items and reads as one string. A gap wider than
//! [`GAP_OF_HEIGHT`] of the line box's height (a word space is about a fifth
//! of it) parts two pieces, each read on its own.
//!
//! # OCR fit for it
//!
//! **OCR fit for it** (`axsight-vision/src/ocr/gaps.rs`, `prepare.rs`). The text
//! detector joins what lies on one row (an icon view's labels): `split_at_gaps` parts
//! a line box at blank gaps wider than 0.6 of its height (8 px at least). A line
//! crop is inverted when its text is lighter than its background (the most common
//! grey; the pixels far from it decide), and what lies outside a lighter background
//! from the crop's edges (the white around a selection's rounded box) is made
//! background first. `read_line` reads a whole capture as one line, without the text
//! detector, for regions too small for it.

use image::GrayImage;

use super::regions::TextBox;

/// The least gap that parts a line, as a share of its box's height.
const GAP_OF_HEIGHT: f32 = 0.6;
/// ... and never less than this many pixels.
const MIN_GAP: u32 = 8;
/// A column whose pixels are all this close to the background is blank.
const BLANK_WITHIN: u8 = 40;
/// Pixels of background kept around each piece's ink.
const MARGIN: u32 = 3;

/// `line` in pieces at its wide blank gaps (itself when it has none), in
/// `picture`'s pixels, left to right.
pub(crate) fn split_at_gaps(picture: &GrayImage, line: TextBox) -> Vec<TextBox> {
    let x2 = line.x2.min(picture.width());
    let y2 = line.y2.min(picture.height());
    if line.x1 >= x2 || line.y1 >= y2 {
        return vec![line];
    }
    let background = most_common(picture, line);
    let blank = |x: u32| {
        (line.y1..y2).all(|y| picture.get_pixel(x, y).0[0].abs_diff(background) <= BLANK_WITHIN)
    };
    let min_gap = ((line.y2 - line.y1) as f32 * GAP_OF_HEIGHT).round() as u32;
    let min_gap = min_gap.max(MIN_GAP);
    // Runs of ink columns, joined across gaps narrower than `min_gap`.
    let mut pieces: Vec<(u32, u32)> = Vec::new();
    let mut x = line.x1;
    while x < x2 {
        if blank(x) {
            x += 1;
            continue;
        }
        let start = x;
        while x < x2 && !blank(x) {
            x += 1;
        }
        match pieces.last_mut() {
            Some(last) if start - last.1 < min_gap => last.1 = x,
            _ => pieces.push((start, x)),
        }
    }
    if pieces.len() < 2 {
        return vec![line];
    }
    pieces
        .into_iter()
        .map(|(start, end)| TextBox {
            x1: start.saturating_sub(MARGIN).max(line.x1),
            y1: line.y1,
            x2: (end + MARGIN).min(x2),
            y2: line.y2,
        })
        .collect()
}

/// The grey level most of the box's pixels have: its background.
fn most_common(picture: &GrayImage, b: TextBox) -> u8 {
    let mut counts = [0u32; 256];
    for y in b.y1..b.y2.min(picture.height()) {
        for x in b.x1..b.x2.min(picture.width()) {
            counts[usize::from(picture.get_pixel(x, y).0[0])] += 1;
        }
    }
    (0..=255u8)
        .max_by_key(|&v| counts[usize::from(v)])
        .unwrap_or(255)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A white 200×24 line with dark blocks ("words") at the given columns.
    fn line_with(words: &[(u32, u32)]) -> GrayImage {
        let mut picture = GrayImage::from_pixel(200, 24, Luma([255]));
        for &(start, end) in words {
            for x in start..end {
                for y in 6..18 {
                    picture.put_pixel(x, y, Luma([30]));
                }
            }
        }
        picture
    }

    const WHOLE: TextBox = TextBox {
        x1: 0,
        y1: 0,
        x2: 200,
        y2: 24,
    };

    #[test]
    fn word_spaces_stay_and_wide_gaps_part() {
        // "draft.txt" then "notes.md" 22 px apart; a word space of 4 px inside.
        let picture = line_with(&[(10, 40), (44, 70), (92, 150)]);
        let pieces = split_at_gaps(&picture, WHOLE);
        assert_eq!(
            pieces,
            vec![
                TextBox {
                    x1: 7,
                    y1: 0,
                    x2: 73,
                    y2: 24
                },
                TextBox {
                    x1: 89,
                    y1: 0,
                    x2: 153,
                    y2: 24
                },
            ]
        );
    }

    #[test]
    fn a_line_without_wide_gaps_is_itself() {
        let picture = line_with(&[(10, 40), (45, 80)]);
        assert_eq!(split_at_gaps(&picture, WHOLE), vec![WHOLE]);
        let blank = line_with(&[]);
        assert_eq!(split_at_gaps(&blank, WHOLE), vec![WHOLE]);
    }
}
