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

mod prepare;
mod tsv;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axsight_core::{Bounds, Capture};

use crate::picture::VisionError;
use prepare::{png, prepare};
use tsv::{group_lines, parse_tsv};

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

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Point;
    use image::RgbImage;

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
