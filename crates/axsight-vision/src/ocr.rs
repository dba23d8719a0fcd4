//! OCR: the text in a capture, as lines with screen boxes and a confidence.
//!
//! Two steps, both in process. Where the text is: PP-OCRv4's text detector
//! (text_detector.rs, ONNX Runtime) on the capture at 0.75×; each box it finds is
//! one line (regions.rs). What it says: Tesseract's LSTM engine (tesseract.rs,
//! libtesseract through its C API, raw grey pixels) reads each line's crop, made
//! grey, inverted when the crop is dark (dark themes, white text on a coloured
//! button) and magnified 2× with a Catmull-Rom cubic, as one line (`--psm 7`),
//! on one engine per core in parallel. Lines under 0.3 confidence are dropped.
//! Without the detector's model (`scripts/get-ocr-model`) or without ONNX
//! Runtime, Tesseract reads the whole window as sparse text (`--psm 11`) on one
//! engine instead: as complete, about twice as slow on two cores.
//!
//! Measured with `scripts/bench_ocr.py --candidates` (docs/ocr.md): recall
//! against the accessibility tree over 6 windows, 96.8 % of the names drawn as
//! text (the Tesseract CLI before: 95.6 %), and about 480 ms of CPU per window,
//! spread over the two cores (the CLI: the same CPU on one core). The detector
//! costs ~130 ms of it at 0.75× (0.5× loses a third of the lines, 0.625× reads
//! 95.2 %); reading the lines is the rest, Tesseract's LSTM above all.
//!
//! # The OCR pipeline
//!
//! **The OCR pipeline** (`axsight-vision/src/ocr.rs`, `read_text`). Chosen with
//! `scripts/bench_ocr.py --candidates`, which scores each candidate's lines against the
//! tree over six windows (the fixture and gtk3-widget-factory's pages 1 to 3, and the
//! fixture and page 1 again in Adwaita dark; Tesseract 5.3.0, two cores); OCR (the book's `docs/ocr.md`)
//! has the table. "text" below is recall over the 252 elements whose name is
//! drawn as text in their box.
//!
//! | step | setting | why |
//! |---|---|---|
//! | what is read | one window's capture, not the screen | Far more is found on a window crop, and sooner. |
//! | where the text is | PP-OCRv4's mobile text detector (DB), ONNX Runtime, on the capture at 0.75× (rounded to multiples of 32), `v / 127.5 - 1` | Its lines make Tesseract's own layout analysis unneeded, and can be read in parallel. 0.75×: 96.8 %, ~130 ms of CPU; 0.6875× 96.4 %; 0.625× 95.2 %; 0.5× 63.9 %. Intra-op spinning off: the pool's threads would burn the cores the readers need next. |
//! | lines | the map over 0.3, 4-connected regions with a mean over 0.5, each grown by `area × 1.6 / perimeter` (PP-OCR's own settings), as upright boxes (`regions.rs`) | UI text is upright: no rotated rectangles, no polygon clipping. |
//! | reading a line | Tesseract in process (libtesseract's C API opened at run time, like ONNX Runtime), LSTM only, `--psm 7`, told 70 dpi per 1× | No child process, no PNG: raw grey pixels. `--psm 13` (raw line) is 13 % faster but reads 78.2 %. Engines are kept in a pool: loading `eng` costs ~100 ms. |
//! | each crop | grey (Rec. 709), inverted when its mean is below mid-grey, 2× Catmull-Rom (fixed point) | Per crop, so white text on a coloured button reads too. At 1×: 92.1 %. |
//! | readers | one engine per core (2 here), widest lines first; OpenMP's active levels set to 0 in each reader | Debian's Tesseract asks OpenMP for 4 threads per LSTM layer; against two readers they doubled the time, most of it in futex calls (the CLI's `OMP_THREAD_LIMIT=1`; the setting is per thread under OpenMP 5, so it is made before each read). |
//! | minimum confidence | 0.3 | Lines below it were noise (`@`, `—`, icon shapes). |
//! | fallback | without the model or ONNX Runtime: Tesseract in process on the whole window, `--psm 11`, 2×, dark inverted, words grouped by (block, paragraph, line) | As complete (94.8 %), one core only. |
//!
//! Not used: the PP-OCRv4 recogniser from the same wheel (90.9 %, ~1.7 s of CPU per
//! window: its 6,623-character Chinese and English head, ~19 ms per line). Left unread:
//! rows cut by a scrolled pane's edge, and three greyed-out labels in the dark theme that
//! the whole-window read finds. A missing libtesseract or language
//! data is an error that names the Debian package; a missing model file named in
//! `AXSIGHT_OCR_MODEL` is an error that names `scripts/get-ocr-model`.

mod gaps;
mod prepare;
mod regions;
mod tesseract;
mod text_detector;
mod tsv;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use axsight_core::{Bounds, Capture, Point};
use image::GrayImage;

use crate::picture::VisionError;
use prepare::{grey, invert_if_light_text, prepare, upscale};
use regions::TextBox;
use tesseract::Engine;
pub use text_detector::OCR_MODEL_VARIABLE;
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
    /// The text detector's ONNX model (PP-OCR's DB detector); `None` reads the
    /// whole capture with Tesseract's own layout analysis (`page_mode`).
    pub text_detector: Option<PathBuf>,
    /// `libonnxruntime.so` for the detector; searched for when `None` (see
    /// [`crate::RUNTIME_VARIABLE`]). ONNX Runtime loads once per process: the
    /// UI-element detector and OCR share it.
    pub runtime_library: Option<PathBuf>,
    /// The capture is resized this many times for the detector (0.1 to 2).
    pub detector_scale: f32,
    /// Tesseract's page segmentation mode without a detector: 11 finds sparse
    /// text, 3 and 6 expect a page or a block.
    pub page_mode: u8,
    /// Magnify what Tesseract reads this many times first (1 to 4): GTK's small
    /// text reads far better at 2×.
    pub upscale: u32,
    /// Turn a dark picture (mean under mid-grey) into its negative first; with the
    /// detector, each line's crop is judged on its own.
    pub invert_dark: bool,
    /// Lines read at once (one Tesseract each), and the detector's threads.
    pub threads: usize,
    /// Lines whose confidence is below this (0 to 1) are dropped.
    pub min_confidence: f32,
    /// Tesseract's language, e.g. `eng` or `eng+deu`.
    pub language: String,
}

impl Default for OcrOptions {
    /// The detector's model where `scripts/get-ocr-model` puts it (or
    /// `AXSIGHT_OCR_MODEL`), one reader per core.
    fn default() -> OcrOptions {
        OcrOptions {
            text_detector: text_detector::default_model(),
            runtime_library: None,
            detector_scale: 0.75,
            page_mode: tesseract::SPARSE_TEXT,
            upscale: 2,
            invert_dark: true,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(4)),
            min_confidence: 0.3,
            language: "eng".to_string(),
        }
    }
}

/// The resolution Tesseract is told a 1× picture has: a typical screen's, so it
/// does not guess one from each crop.
const SCREEN_DPI: u32 = 70;

/// Reads the text of `capture`: its lines top to bottom, with boxes in screen
/// pixels. Blocks while it reads (a few hundred milliseconds for a window).
pub fn read_text(capture: &Capture, options: &OcrOptions) -> Result<Vec<OcrLine>, VisionError> {
    if !(1..=4).contains(&options.upscale) {
        return Err(VisionError::Ocr(format!(
            "upscale must be between 1 and 4, not {}",
            options.upscale
        )));
    }
    if !(0.1..=2.0).contains(&options.detector_scale) {
        return Err(VisionError::Ocr(format!(
            "detector_scale must be between 0.1 and 2, not {}",
            options.detector_scale
        )));
    }
    if capture.width == 0 || capture.height == 0 {
        return Ok(Vec::new());
    }
    if let Some(model) = options.text_detector.as_ref().filter(|m| !m.is_file()) {
        return Err(VisionError::Ocr(format!(
            "no text detector model at {} ({OCR_MODEL_VARIABLE}; scripts/get-ocr-model makes it)",
            model.display()
        )));
    }
    // Without ONNX Runtime, Tesseract alone: slower, as complete.
    let with_detector = options
        .text_detector
        .as_ref()
        .filter(|_| crate::detector::runtime::runtime(options.runtime_library.as_deref()).is_ok());
    match with_detector {
        Some(model) => {
            let picture = grey(capture)?;
            let boxes: Vec<TextBox> = text_detector::detect_text(
                capture,
                model,
                options.detector_scale,
                options.threads,
            )?
            .into_iter()
            .flat_map(|line| gaps::split_at_gaps(&picture, line))
            .collect();
            read_lines(&picture, &boxes, capture.origin, options)
        }
        None => read_page(capture, options),
    }
}

/// Reads `capture` as one line of text, without looking for where the text is
/// (what an action changed: a display's digits, a cell's value, where a text
/// detector finds nothing in so small a picture). `None` when nothing is read
/// with `options.min_confidence`.
pub fn read_line(capture: &Capture, options: &OcrOptions) -> Result<Option<OcrLine>, VisionError> {
    if capture.width == 0 || capture.height == 0 {
        return Ok(None);
    }
    let picture = grey(capture)?;
    let whole = TextBox {
        x1: 0,
        y1: 0,
        x2: capture.width,
        y2: capture.height,
    };
    let single = OcrOptions {
        threads: 1,
        ..options.clone()
    };
    Ok(read_lines(&picture, &[whole], capture.origin, &single)?
        .into_iter()
        .next())
}

/// Tesseract's layout analysis on the whole capture, one engine.
fn read_page(capture: &Capture, options: &OcrOptions) -> Result<Vec<OcrLine>, VisionError> {
    let image = prepare(capture, options)?;
    let mut engine = Engine::take(&options.language)?;
    let tsv = engine.read_tsv(&image, options.page_mode, SCREEN_DPI * options.upscale);
    engine.give_back();
    Ok(group_lines(
        &parse_tsv(&tsv?),
        f64::from(options.upscale),
        capture.origin,
        options.min_confidence,
    ))
}

/// Reads each box of `picture` as one line, `options.threads` at a time.
fn read_lines(
    picture: &GrayImage,
    boxes: &[TextBox],
    origin: Point,
    options: &OcrOptions,
) -> Result<Vec<OcrLine>, VisionError> {
    if boxes.is_empty() {
        return Ok(Vec::new());
    }
    // Widest first, so that the last lines handed out are short ones.
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(boxes[i].x2 - boxes[i].x1));
    let next = AtomicUsize::new(0);
    let read: Mutex<Vec<(usize, String, f32)>> = Mutex::new(Vec::with_capacity(boxes.len()));
    let workers = options.threads.clamp(1, boxes.len());
    std::thread::scope(|scope| -> Result<(), VisionError> {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<(), VisionError> {
                    let mut engine = Engine::take(&options.language)?;
                    let outcome = loop {
                        let Some(&at) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break Ok(());
                        };
                        let crop = line_picture(picture, boxes[at], options);
                        match engine.read_line(&crop, SCREEN_DPI * options.upscale) {
                            Ok((text, confidence)) => read
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((at, text, confidence)),
                            Err(error) => break Err(error),
                        }
                    };
                    engine.give_back();
                    outcome
                })
            })
            .collect();
        for handle in handles {
            handle
                .join()
                .map_err(|_| VisionError::Ocr("a Tesseract reader panicked".into()))??;
        }
        Ok(())
    })?;
    let mut read = read.into_inner().unwrap_or_else(|e| e.into_inner());
    read.sort_by_key(|&(at, ..)| at);
    Ok(read
        .into_iter()
        .filter(|(_, text, confidence)| {
            !text.is_empty() && *confidence >= options.min_confidence * 100.0
        })
        .map(|(at, text, confidence)| {
            let b = boxes[at];
            OcrLine {
                text,
                bounds: Bounds {
                    x: origin.x + b.x1 as i32,
                    y: origin.y + b.y1 as i32,
                    width: (b.x2 - b.x1) as i32,
                    height: (b.y2 - b.y1) as i32,
                },
                confidence: confidence / 100.0,
            }
        })
        .collect())
}

/// The crop of one line as Tesseract reads it: inverted when dark, magnified.
fn line_picture(picture: &GrayImage, b: TextBox, options: &OcrOptions) -> GrayImage {
    let mut crop =
        image::imageops::crop_imm(picture, b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1).to_image();
    if options.invert_dark {
        invert_if_light_text(&mut crop);
    }
    upscale(&crop, options.upscale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Point;
    use image::RgbImage;

    #[test]
    fn bad_options_and_a_missing_model_are_clear_errors() {
        let capture = Capture {
            origin: Point { x: 0, y: 0 },
            width: 2,
            height: 2,
            rgb: vec![255; 12],
        };
        let error = read_text(
            &capture,
            &OcrOptions {
                upscale: 9,
                ..OcrOptions::default()
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("between 1 and 4"), "{error}");
        let error = read_text(
            &capture,
            &OcrOptions {
                detector_scale: 0.0,
                ..OcrOptions::default()
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("detector_scale"), "{error}");
        let error = read_text(
            &capture,
            &OcrOptions {
                text_detector: Some("/nonexistent/ppocr.onnx".into()),
                ..OcrOptions::default()
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("get-ocr-model"), "{error}");
        let empty = Capture {
            width: 0,
            rgb: Vec::new(),
            ..capture
        };
        assert_eq!(read_text(&empty, &OcrOptions::default()).unwrap(), []);
    }

    /// Digits drawn in the marks' bitmap font, 2 pixels a dot (at 3 or more
    /// Tesseract is unsure or sees nothing: blocky digits read like small ones),
    /// at (20,16)-(78,30) of a 120x40 capture placed at (500,300).
    fn drawn_number() -> Capture {
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
        Capture {
            origin: Point { x: 500, y: 300 },
            width,
            height,
            rgb: image.into_raw(),
        }
    }

    fn tesseract_installed() -> bool {
        let installed = Engine::take("eng").map(Engine::give_back).is_ok();
        if !installed {
            eprintln!("libtesseract or its English data not installed: skipped");
        }
        installed
    }

    /// Reads a real picture with Tesseract's own layout analysis when Tesseract
    /// is installed (skips otherwise).
    #[test]
    fn tesseract_reads_a_drawn_number() {
        if !tesseract_installed() {
            return;
        }
        let options = OcrOptions {
            text_detector: None,
            ..OcrOptions::default()
        };
        let lines = read_text(&drawn_number(), &options).unwrap();
        let line = lines
            .iter()
            .find(|line| line.text.contains("31415"))
            .unwrap_or_else(|| panic!("31415 not read: {lines:?}"));
        // Drawn at (520,316)-(578,330) on screen.
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

    /// The repository's `.venv` ONNX Runtime (scripts/install-deps puts it there).
    fn venv_onnxruntime() -> Option<PathBuf> {
        let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/lib");
        std::fs::read_dir(lib).ok()?.flatten().find_map(|python| {
            let capi = python.path().join("site-packages/onnxruntime/capi");
            std::fs::read_dir(capi)
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("libonnxruntime.so"))
                })
        })
    }

    /// The detector finds the drawn line and Tesseract reads it, with a box that
    /// hugs the digits. Runs where scripts/install-deps ran (CI): the model from
    /// scripts/get-ocr-model, ONNX Runtime from `.venv`.
    #[test]
    fn the_text_detector_finds_the_line_tesseract_reads() {
        let (Some(model), Some(runtime)) = (text_detector::default_model(), venv_onnxruntime())
        else {
            eprintln!("no OCR model (scripts/get-ocr-model) or no .venv ONNX Runtime: skipped");
            return;
        };
        if !tesseract_installed() {
            return;
        }
        let options = OcrOptions {
            text_detector: Some(model),
            runtime_library: Some(runtime),
            ..OcrOptions::default()
        };
        let capture = drawn_number();
        let lines = read_text(&capture, &options).unwrap();
        // The detector ran (the runtime is loaded now): its one box is the line.
        let model = options.text_detector.as_ref().unwrap();
        let boxes = text_detector::detect_text(&capture, model, 0.75, 1).unwrap();
        assert_eq!(boxes.len(), 1, "{boxes:?}");
        let [line] = &lines[..] else {
            panic!("one line expected: {lines:?} (boxes {boxes:?})");
        };
        assert_eq!(line.text, "31415", "{line:?}");
        // The digits span (520,316)-(578,330); DB's box grows a little past them.
        let b = line.bounds;
        assert!(
            (510..=520).contains(&b.x) && (306..=316).contains(&b.y),
            "{line:?}"
        );
        assert!(
            b.x + b.width >= 578
                && b.x + b.width <= 590
                && b.y + b.height >= 330
                && b.y + b.height <= 340,
            "{line:?}"
        );
        assert!(line.confidence > 0.5, "{line:?}");
        // A blank picture: no box, no line, no error.
        let blank = Capture {
            rgb: vec![255; capture.rgb.len()],
            ..capture
        };
        assert_eq!(read_text(&blank, &options).unwrap(), []);
    }
}
