//! Tesseract's TSV answer: its words, and the lines they make, mapped back to the
//! screen. Malformed rows are skipped, never a panic.

use axsight_core::{Bounds, Point};

use super::OcrLine;

/// One word of Tesseract's TSV, in the pixels of the picture it read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    /// Page, block, paragraph and line numbers: which line the word is on.
    pub line: (u32, u32, u32, u32),
    pub left: i64,
    pub top: i64,
    pub width: i64,
    pub height: i64,
    /// 0 to 100.
    pub confidence: f32,
    pub text: String,
}

/// The words (level 5 rows with a confidence of 0 or more and some text) of
/// Tesseract's TSV. The header and rows that do not parse are skipped.
pub(crate) fn parse_tsv(tsv: &str) -> Vec<Word> {
    tsv.lines().filter_map(parse_row).collect()
}

fn parse_row(row: &str) -> Option<Word> {
    let columns: Vec<&str> = row.trim_end_matches('\r').splitn(12, '\t').collect();
    let [level, page, block, paragraph, line, _word, left, top, width, height, confidence, text] =
        columns[..]
    else {
        return None;
    };
    if level.trim() != "5" {
        return None;
    }
    let number = |text: &str| text.trim().parse::<u32>().ok();
    let pixels = |text: &str| text.trim().parse::<i64>().ok();
    let confidence = confidence.trim().parse::<f32>().ok()?;
    let text = text.trim();
    if confidence.is_nan() || confidence < 0.0 || text.is_empty() {
        return None;
    }
    let (width, height) = (pixels(width)?, pixels(height)?);
    if width < 0 || height < 0 {
        return None;
    }
    Some(Word {
        line: (
            number(page)?,
            number(block)?,
            number(paragraph)?,
            number(line)?,
        ),
        left: pixels(left)?,
        top: pixels(top)?,
        width,
        height,
        confidence: confidence.min(100.0),
        text: text.to_string(),
    })
}

/// Groups words into lines, in the order each line's first word came: the text is
/// the words joined by spaces, the box the union of theirs mapped back to the screen
/// (`screen = origin + picture / scale`, widened to whole pixels), the confidence
/// their mean over 100. Lines below `min_confidence` are dropped.
pub(crate) fn group_lines(
    words: &[Word],
    scale: f64,
    origin: Point,
    min_confidence: f32,
) -> Vec<OcrLine> {
    let scale = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    let mut order: Vec<(u32, u32, u32, u32)> = Vec::new();
    let mut by_line: std::collections::HashMap<(u32, u32, u32, u32), Vec<&Word>> =
        std::collections::HashMap::new();
    for word in words {
        let entry = by_line.entry(word.line).or_default();
        if entry.is_empty() {
            order.push(word.line);
        }
        entry.push(word);
    }
    let to_screen = |offset: i32, pixel: i64, round: fn(f64) -> f64| {
        let value = f64::from(offset) + round(pixel as f64 / scale);
        value.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    };
    order
        .iter()
        .filter_map(|key| {
            let words = &by_line[key];
            let text = words
                .iter()
                .map(|word| word.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let confidence =
                words.iter().map(|word| word.confidence).sum::<f32>() / words.len() as f32 / 100.0;
            if text.trim().is_empty() || confidence < min_confidence {
                return None;
            }
            let left = words.iter().map(|word| word.left).min()?;
            let top = words.iter().map(|word| word.top).min()?;
            let right = words.iter().map(|w| w.left.saturating_add(w.width)).max()?;
            let bottom = words.iter().map(|w| w.top.saturating_add(w.height)).max()?;
            let x = to_screen(origin.x, left, f64::floor);
            let y = to_screen(origin.y, top, f64::floor);
            let x_end = to_screen(origin.x, right, f64::ceil);
            let y_end = to_screen(origin.y, bottom, f64::ceil);
            Some(OcrLine {
                text,
                bounds: Bounds {
                    x,
                    y,
                    width: x_end.saturating_sub(x).max(0),
                    height: y_end.saturating_sub(y).max(0),
                },
                confidence,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";

    fn tsv(rows: &[&str]) -> String {
        let mut text = HEADER.to_string();
        for row in rows {
            text.push('\n');
            text.push_str(row);
        }
        text
    }

    #[test]
    fn words_are_level_five_rows_with_a_confidence_and_text() {
        let words = parse_tsv(&tsv(&[
            "1\t1\t0\t0\t0\t0\t0\t0\t1600\t1200\t-1\t",
            "4\t1\t1\t1\t1\t0\t20\t40\t200\t30\t-1\t",
            "5\t1\t1\t1\t1\t1\t20\t40\t90\t30\t96.5\tSave",
            "5\t1\t1\t1\t1\t2\t120\t40\t100\t30\t-1\t",
            "5\t1\t1\t1\t1\t3\t120\t40\t100\t30\t80\t   ",
        ]));
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].text, "Save");
        assert_eq!(words[0].line, (1, 1, 1, 1));
        assert_eq!((words[0].left, words[0].width), (20, 90));
        assert!((words[0].confidence - 96.5).abs() < 1e-6);
    }

    #[test]
    fn malformed_rows_are_skipped_not_a_panic() {
        let garbage = [
            "",
            "5",
            "5\t1\t1",
            "5\tx\t1\t1\t1\t1\t20\t40\t90\t30\t96\tWord",
            "5\t1\t1\t1\t1\t1\t20\t40\t-9\t30\t96\tNegative",
            "5\t1\t1\t1\t1\t1\t20\t40\t90\t30\tNaN\tNotANumber",
            "5\t1\t1\t1\t1\t1\t99999999999999999999\t40\t90\t30\t96\tHuge",
            "\t\t\t\t\t\t\t\t\t\t\t",
            "5\t1\t1\t1\t1\t1\t20\t40\t90\t30\t96\tKept\twith a tab",
            "5\t1\t1\t1\t1\t1\t20\t40\t90\t30\t96\tWindows\r",
        ];
        let words = parse_tsv(&garbage.join("\n"));
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Kept\twith a tab", "Windows"]);
        assert!(parse_tsv("").is_empty());
        assert!(parse_tsv("\u{0}\u{ffff}\t5\t\n\n").is_empty());
    }

    #[test]
    fn words_group_into_lines_mapped_back_to_the_screen() {
        let words = parse_tsv(&tsv(&[
            "5\t1\t1\t1\t1\t1\t20\t40\t90\t30\t90\tOpen",
            "5\t1\t1\t1\t1\t2\t121\t38\t100\t33\t70\tdialog",
            "5\t1\t2\t1\t1\t1\t300\t200\t60\t24\t40\tReady",
            "5\t1\t1\t1\t1\t3\t230\t40\t81\t30\t80\tlater",
        ]));
        let lines = group_lines(&words, 2.0, Point { x: 100, y: 10 }, 0.0);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text, "Open dialog later");
        // Union (20,38)-(311,71) in the 2x picture: (10,19)-(156,36) on the window.
        assert_eq!(
            lines[0].bounds,
            Bounds {
                x: 110,
                y: 29,
                width: 146,
                height: 17
            }
        );
        assert!((lines[0].confidence - 0.8).abs() < 1e-6);
        assert_eq!(lines[1].text, "Ready");
        assert_eq!(
            lines[1].bounds,
            Bounds {
                x: 250,
                y: 110,
                width: 30,
                height: 12
            }
        );
    }

    #[test]
    fn unsure_lines_are_dropped() {
        let words = parse_tsv(&tsv(&[
            "5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t90\tsure",
            "5\t1\t1\t1\t2\t1\t0\t20\t10\t10\t20\tmaybe",
        ]));
        let lines = group_lines(&words, 1.0, Point { x: 0, y: 0 }, 0.5);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].text, "sure");
        // A nonsense scale maps 1:1 instead of dividing by zero.
        let lines = group_lines(&words, 0.0, Point { x: 5, y: 5 }, 0.0);
        assert_eq!(lines[1].bounds.y, 25);
    }
}
