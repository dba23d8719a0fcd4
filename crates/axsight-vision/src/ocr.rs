//! OCR: the text in a capture, as lines with screen boxes and a confidence, read by
//! Tesseract (Debian's `tesseract-ocr` and `tesseract-ocr-eng`) run as a
//! subprocess.
//!
//! Feed it a window's capture, not the whole screen: Tesseract finds far more on a
//! window crop, and takes about a second instead of several. The picture is made
//! grey, inverted if it is dark, magnified 2× with a Catmull-Rom cubic, sent as a
//! PNG on stdin and read with `--psm 11` (sparse text: a UI is labels scattered
//! about, not a page) on one thread (`OMP_THREAD_LIMIT=1`). The words of the TSV
//! answer are grouped into lines by Tesseract's (block, paragraph, line) numbers;
//! lines under 0.3 confidence are dropped.
//!
//! Measured with `scripts/bench_ocr.py` (Tesseract 5.3.0, two cores; it says how):
//! recall against the accessibility tree, where a named element is found when a
//! line overlapping its box reads its name, over 6 windows: the fixture app and
//! gtk3-widget-factory's pages 1 to 3, and the fixture and page 1 in Adwaita dark.
//! "text" counts the 252 elements whose name is drawn as text in their box, "all"
//! every one of the 308 named elements (icons, containers and fields named by a
//! label beside them included, which no OCR can find in their box). Time is
//! Tesseract's, mean per window.
//!
//! | psm | picture | text | all | time |
//! |---|---|---|---|---|
//! | 3 (Tesseract's default) | as captured | 79.0 % | 66.6 % | 0.86 s |
//! | 6 | as captured | 78.6 % | 66.6 % | 0.78 s |
//! | 11 | as captured | 89.3 % | 74.4 % | 0.85 s |
//! | 12 | as captured | 90.1 % | 75.0 % | 1.42 s |
//! | 3 | 2× cubic, grey, dark inverted | 93.7 % | 78.6 % | 0.99 s |
//! | 11 | 2× nearest | 95.2 % | 79.2 % | 1.27 s |
//! | 11 | 3× cubic | 96.4 % | 80.2 % | 1.60 s |
//! | 11 | 1.5× cubic, grey, dark inverted | 94.0 % | 77.9 % | 0.75 s |
//! | **11** | **2× cubic, grey, dark inverted** | **96.4 %** | **79.9 %** | **0.82 s** |
//!
//! `read_text` with these defaults: 96.0 % / 79.5 % (fixture 93.5 % / 83.8 %,
//! widget factory page 1 100 % / 84.3 %), every greyed-out label found, 0.5 s for
//! the 800×600 fixture and 0.8 to 1.6 s for the 1366×741 factory pages. Inverting
//! dark pictures reads the same words 30 % sooner (Tesseract otherwise tries each
//! line inverted itself). Two threads gain nothing on two cores and four take 6 s;
//! greyscale costs no recall; lines under 0.3 confidence were all noise (`@`, `—`,
//! icon shapes). Left unread: lone digits ("5" in a list of swatches), white text
//! on a coloured button or selected tab, and rows cut by a scrolled pane's edge.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axsight_core::{Bounds, Capture, Point};
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::{ExtendedColorType, GrayImage, ImageEncoder};

use crate::picture::VisionError;

/// One line of text read from a capture.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrLine {
    /// The line's words, joined by single spaces.
    pub text: String,
    /// Where the line is, in screen pixels.
    pub bounds: Bounds,
    /// Tesseract's mean word confidence, 0 to 1.
    pub confidence: f32,
}

/// How to read a capture.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrOptions {
    /// Tesseract's page segmentation mode (`--psm`): 11 finds sparse text, 3 and 6
    /// expect a page or a block.
    pub psm: u8,
    /// Magnify the picture this many times first (1 to 4): GTK's small text reads
    /// far better at 2×.
    pub upscale: u32,
    /// Turn a picture whose mean is darker than mid-grey into its negative first
    /// (dark themes), so the text is dark on light as Tesseract expects.
    pub invert_dark: bool,
    /// Tesseract's threads (`OMP_THREAD_LIMIT`).
    pub threads: u32,
    /// Lines whose confidence is below this (0 to 1) are dropped.
    pub min_confidence: f32,
    /// Tesseract is killed after this long.
    pub timeout: Duration,
    /// Tesseract's language (`-l`), e.g. `eng` or `eng+deu`.
    pub language: String,
    /// The Tesseract binary: a path, or a name looked up in `PATH`.
    pub program: String,
}

impl Default for OcrOptions {
    fn default() -> OcrOptions {
        OcrOptions {
            psm: 11,
            upscale: 2,
            invert_dark: true,
            threads: 1,
            min_confidence: 0.3,
            timeout: Duration::from_secs(20),
            language: "eng".to_string(),
            program: "tesseract".to_string(),
        }
    }
}

/// The hint in every error about a missing Tesseract.
const INSTALL: &str = "install tesseract-ocr (Debian) or run scripts/install-deps";

/// Reads the text of `capture`: its lines in Tesseract's reading order, with boxes
/// in screen pixels. Blocks for as long as Tesseract runs (about a second for a
/// window), at most `options.timeout`.
pub fn read_text(capture: &Capture, options: &OcrOptions) -> Result<Vec<OcrLine>, VisionError> {
    if !(1..=4).contains(&options.upscale) {
        return Err(VisionError::Ocr(format!(
            "upscale must be between 1 and 4, not {}",
            options.upscale
        )));
    }
    if capture.width == 0 || capture.height == 0 {
        return Ok(Vec::new());
    }
    let image = prepare(capture, options)?;
    let tsv = run_tesseract(&png(&image)?, options)?;
    let words = parse_tsv(&tsv);
    Ok(group_lines(
        &words,
        f64::from(options.upscale),
        capture.origin,
        options.min_confidence,
    ))
}

/// The capture made grey, inverted if dark and asked to, and magnified.
fn prepare(capture: &Capture, options: &OcrOptions) -> Result<GrayImage, VisionError> {
    let bad = || VisionError::BadCapture {
        width: capture.width,
        height: capture.height,
    };
    let pixels = (capture.width as usize)
        .checked_mul(capture.height as usize)
        .ok_or_else(bad)?;
    if capture.rgb.len() < pixels.saturating_mul(3) {
        return Err(bad());
    }
    // Rec. 709 luma, as `image::imageops::grayscale`.
    let luma = capture.rgb[..pixels * 3]
        .chunks_exact(3)
        .map(|p| {
            let sum = 2126 * u32::from(p[0]) + 7152 * u32::from(p[1]) + 722 * u32::from(p[2]);
            ((sum + 5000) / 10000) as u8
        })
        .collect();
    let mut grey = GrayImage::from_raw(capture.width, capture.height, luma).ok_or_else(bad)?;
    if options.invert_dark && is_dark(&grey) {
        image::imageops::invert(&mut grey);
    }
    Ok(upscale(&grey, options.upscale))
}

/// Magnifies `image` a whole number of times with the Catmull-Rom cubic (Pillow's
/// bicubic, which measured best), in fixed point: `image::imageops::resize` takes
/// 215 ms on a 1366×741 window at 2×, this a tenth of that.
fn upscale(image: &GrayImage, factor: u32) -> GrayImage {
    let (width, height) = image.dimensions();
    if factor <= 1 || width == 0 || height == 0 {
        return image.clone();
    }
    const ONE: i32 = 1 << 12;
    // Output pixel `k * factor + phase` has its centre at source `k + offset`,
    // `offset = (phase + 0.5) / factor - 0.5`; it mixes source pixels
    // `k + base - 1 ..= k + base + 2`, `base = floor(offset)`.
    let phases: Vec<(i64, [i32; 4])> = (0..factor)
        .map(|phase| {
            let offset = (f64::from(phase) + 0.5) / f64::from(factor) - 0.5;
            let base = offset.floor();
            let t = offset - base;
            let weights = [1.0 + t, t, 1.0 - t, 2.0 - t].map(|d| {
                let d: f64 = d;
                let w = if d <= 1.0 {
                    1.5 * d * d * d - 2.5 * d * d + 1.0
                } else {
                    -0.5 * d * d * d + 2.5 * d * d - 4.0 * d + 2.0
                };
                (w * f64::from(ONE)).round() as i32
            });
            (base as i64, weights)
        })
        .collect();
    let mix = |taps: [i32; 4], weights: &[i32; 4]| -> i64 {
        taps.iter()
            .zip(weights)
            .map(|(&a, &b)| i64::from(a) * i64::from(b))
            .sum()
    };
    let (w, h, f) = (width as i64, height as i64, i64::from(factor));
    let clamp = |i: i64, n: i64| i.clamp(0, n - 1) as usize;
    let source = image.as_raw();
    // Across: values scaled by ONE, kept in i32.
    let wide_width = (w * f) as usize;
    let mut wide = vec![0i32; wide_width * height as usize];
    for y in 0..h as usize {
        let row = &source[y * width as usize..(y + 1) * width as usize];
        let out = &mut wide[y * wide_width..(y + 1) * wide_width];
        for k in 0..w {
            for (phase, (base, weights)) in phases.iter().enumerate() {
                let at = k + base;
                let taps = [-1, 0, 1, 2].map(|d| i32::from(row[clamp(at + d, w)]));
                // At most 255 * 1.3 * ONE: fits.
                out[(k * f) as usize + phase] = mix(taps, weights) as i32;
            }
        }
    }
    // Down, back to bytes.
    let tall_height = (h * f) as usize;
    let mut result = vec![0u8; wide_width * tall_height];
    for k in 0..h {
        for (phase, (base, weights)) in phases.iter().enumerate() {
            let at = k + base;
            let rows = [-1, 0, 1, 2].map(|d| clamp(at + d, h) * wide_width);
            let out_row = (k * f) as usize + phase;
            let out = &mut result[out_row * wide_width..(out_row + 1) * wide_width];
            for (x, value) in out.iter_mut().enumerate() {
                let taps = rows.map(|row| wide[row + x]);
                let sum = mix(taps, weights);
                *value = ((sum + (1 << 23)) >> 24).clamp(0, 255) as u8;
            }
        }
    }
    GrayImage::from_raw(wide_width as u32, tall_height as u32, result)
        .expect("the buffer fits the size")
}

/// Whether the picture's mean is below mid-grey.
fn is_dark(image: &GrayImage) -> bool {
    let pixels = image.as_raw();
    let sum: u64 = pixels.iter().map(|&p| u64::from(p)).sum();
    !pixels.is_empty() && sum < 128 * pixels.len() as u64
}

/// The picture as a PNG, compressed fast: Tesseract reads PNG sooner than the
/// PGM that costs nothing to write (1.05 s against 1.29 s on a 2732×1482 window).
fn png(image: &GrayImage) -> Result<Vec<u8>, VisionError> {
    let mut bytes = Vec::new();
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Fast, PngFilter::Adaptive)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            ExtendedColorType::L8,
        )
        .map_err(|error| VisionError::Encode(error.to_string()))?;
    Ok(bytes)
}

/// Runs Tesseract on `input` and returns its TSV, killing it past the deadline.
fn run_tesseract(input: &[u8], options: &OcrOptions) -> Result<String, VisionError> {
    let mut child = Command::new(&options.program)
        .args(["stdin", "stdout", "--psm"])
        .arg(options.psm.to_string())
        .args(["-l", &options.language, "tsv"])
        .env("OMP_THREAD_LIMIT", options.threads.max(1).to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => VisionError::OcrMissing(INSTALL),
            _ => VisionError::Ocr(format!("cannot start {}: {error}", options.program)),
        })?;
    // Feed and drain on threads, so neither pipe can fill up and stall the other.
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        // A write error means Tesseract stopped early; its status says why.
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let complainer = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let deadline = Instant::now() + options.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VisionError::OcrTimeout(options.timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(error) => return Err(VisionError::Ocr(format!("waiting for tesseract: {error}"))),
        }
    };
    let _ = feeder.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = complainer.join().unwrap_or_default();
    if !status.success() {
        let said = String::from_utf8_lossy(&stderr);
        let said = said.trim();
        if said.contains("Failed loading language") || said.contains("Error opening data file") {
            return Err(VisionError::Ocr(format!(
                "tesseract has no '{}' language data: install tesseract-ocr-{} (Debian) \
                 or run scripts/install-deps ({said})",
                options.language,
                options.language.split('+').next().unwrap_or("eng"),
            )));
        }
        return Err(VisionError::Ocr(format!(
            "tesseract failed ({status}): {said}"
        )));
    }
    Ok(String::from_utf8_lossy(&stdout).into_owned())
}

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
    use image::{imageops::FilterType, RgbImage};

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

    #[test]
    fn pictures_are_grey_inverted_when_dark_and_magnified() {
        let capture = Capture {
            origin: Point { x: 0, y: 0 },
            width: 3,
            height: 2,
            rgb: vec![20; 18],
        };
        let options = OcrOptions {
            invert_dark: true,
            ..OcrOptions::default()
        };
        let image = prepare(&capture, &options).unwrap();
        assert_eq!(image.dimensions(), (6, 4));
        assert!(image.as_raw().iter().all(|&p| p > 200), "dark became light");
        assert_eq!(&png(&image).unwrap()[1..4], b"PNG");
        let mut short = capture.clone();
        short.rgb.truncate(4);
        assert!(matches!(
            prepare(&short, &options),
            Err(VisionError::BadCapture { .. })
        ));
    }

    #[test]
    fn upscaling_matches_the_image_crates_catmull_rom() {
        // A busy picture: edges, a gradient, noise.
        let (width, height) = (37u32, 23u32);
        let mut seed = 7u32;
        let image = GrayImage::from_fn(width, height, |x, y| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            image::Luma([match (x / 8 + y / 6) % 3 {
                0 => (x * 7) as u8,
                1 => (seed >> 16) as u8,
                _ => {
                    if (x + y) % 2 == 0 {
                        0
                    } else {
                        255
                    }
                }
            }])
        });
        for factor in [2, 3] {
            let ours = upscale(&image, factor);
            let theirs = image::imageops::resize(
                &image,
                width * factor,
                height * factor,
                FilterType::CatmullRom,
            );
            assert_eq!(ours.dimensions(), theirs.dimensions());
            let worst = ours
                .as_raw()
                .iter()
                .zip(theirs.as_raw())
                .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
                .max()
                .unwrap();
            // Within rounding: the image crate rounds between its passes.
            assert!(worst <= 8, "{factor}x differs by {worst}");
        }
        // Flat stays flat, and 1x is a copy.
        let flat = GrayImage::from_pixel(3, 2, image::Luma([90]));
        assert!(upscale(&flat, 4).as_raw().iter().all(|&p| p == 90));
        assert_eq!(upscale(&image, 1), image);
        // An edge as Pillow's bicubic draws it, in both directions.
        let edge = GrayImage::from_fn(8, 1, |x, _| image::Luma([if x >= 4 { 255 } else { 0 }]));
        let row = [
            0, 0, 0, 0, 0, 0, 0, 52, 203, 255, 255, 255, 255, 255, 255, 255,
        ];
        assert_eq!(upscale(&edge, 2).as_raw()[..16], row);
        let tall = GrayImage::from_fn(1, 8, |_, y| image::Luma([if y >= 4 { 255 } else { 0 }]));
        let column: Vec<u8> = upscale(&tall, 2)
            .as_raw()
            .iter()
            .step_by(2)
            .copied()
            .collect();
        assert_eq!(column, row);
    }

    #[test]
    fn a_missing_tesseract_says_how_to_install_it() {
        let capture = Capture {
            origin: Point { x: 0, y: 0 },
            width: 2,
            height: 2,
            rgb: vec![255; 12],
        };
        let options = OcrOptions {
            program: "/nonexistent/tesseract".to_string(),
            ..OcrOptions::default()
        };
        let error = read_text(&capture, &options).unwrap_err();
        assert!(
            error.to_string().contains("install tesseract-ocr"),
            "{error}"
        );
        let error = read_text(
            &capture,
            &OcrOptions {
                upscale: 9,
                ..OcrOptions::default()
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("between 1 and 4"), "{error}");
        let empty = Capture {
            width: 0,
            rgb: Vec::new(),
            ..capture
        };
        assert_eq!(read_text(&empty, &options).unwrap(), []);
    }

    #[test]
    fn a_slow_tesseract_is_killed_at_the_deadline() {
        let dir = std::env::temp_dir().join(format!("axsight-ocr-slow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("tesseract");
        std::fs::write(&program, "#!/bin/sh\nexec sleep 30\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let capture = Capture {
            origin: Point { x: 0, y: 0 },
            width: 2,
            height: 2,
            rgb: vec![255; 12],
        };
        let options = OcrOptions {
            program: program.to_string_lossy().into_owned(),
            timeout: Duration::from_millis(300),
            ..OcrOptions::default()
        };
        let started = Instant::now();
        let error = read_text(&capture, &options).unwrap_err();
        assert!(matches!(error, VisionError::OcrTimeout(_)), "{error}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Reads a real picture when Tesseract is installed (skips otherwise): digits
    /// drawn in the marks' bitmap font, 2 pixels a dot (at 3 or more Tesseract
    /// is unsure or sees nothing: blocky digits read like small ones).
    #[test]
    fn tesseract_reads_a_drawn_number() {
        if Command::new("tesseract").arg("--version").output().is_err() {
            eprintln!("tesseract not installed: skipped");
            return;
        }
        let (width, height, dot) = (120u32, 40u32, 2u32);
        let mut image = RgbImage::from_pixel(width, height, image::Rgb([255, 255, 255]));
        for (i, c) in "31415".chars().enumerate() {
            let rows = crate::glyphs::rows(c).unwrap();
            for (row, bits) in rows.iter().enumerate() {
                for column in 0..crate::glyphs::WIDTH {
                    if bits >> (crate::glyphs::WIDTH - 1 - column) & 1 == 1 {
                        let x0 = 20 + i as u32 * (crate::glyphs::WIDTH + 1) * dot + column * dot;
                        let y0 = 16 + row as u32 * dot;
                        for (x, y) in
                            (x0..x0 + dot).flat_map(|x| (y0..y0 + dot).map(move |y| (x, y)))
                        {
                            image.put_pixel(x, y, image::Rgb([0, 0, 0]));
                        }
                    }
                }
            }
        }
        let capture = Capture {
            origin: Point { x: 500, y: 300 },
            width,
            height,
            rgb: image.into_raw(),
        };
        let lines = read_text(&capture, &OcrOptions::default()).unwrap();
        let line = lines
            .iter()
            .find(|line| line.text.contains("31415"))
            .unwrap_or_else(|| panic!("31415 not read: {lines:?}"));
        // Drawn at (20,16)-(78,30) in the capture, (520,316)-(578,330) on screen.
        let b = line.bounds;
        assert!(
            (518..=522).contains(&b.x) && (314..=318).contains(&b.y),
            "{line:?}"
        );
        assert!(
            (54..=62).contains(&b.width) && (12..=17).contains(&b.height),
            "{line:?}"
        );
        assert!(line.confidence > 0.5 && line.confidence <= 1.0, "{line:?}");
    }
}
