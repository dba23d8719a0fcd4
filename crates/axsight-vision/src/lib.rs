//! What axsight makes of the screen's pixels: pictures an agent can read.
//!
//! It turns a [`axsight_core::Capture`] into an encoded image — scaled to a largest
//! side, or zoomed, as PNG or JPEG — and draws set-of-marks boxes and handle labels
//! onto it ([`draw_marks`]), so an agent (or a person) can match what it sees with
//! the handles it can click. It does not capture, click, or speak MCP: the engine
//! captures and acts, the server shapes tool results.

mod detector;
mod glyphs;
mod installed;
mod marks;
mod ocr;
mod picture;
mod vision_model;

pub use detector::{
    installed_detector_model, Detection, Detector, DetectorError, DetectorOptions,
    HOW_TO_GET_A_MODEL, MODEL_VARIABLE, RUNTIME_VARIABLE,
};
pub use marks::{draw_marks, place_labels, Drawn, LabelBox, Mark, PlacedLabel};
pub use ocr::{read_line, read_text, OcrLine, OcrOptions, OCR_MODEL_VARIABLE};
pub use picture::{encode, Format, Picture, PictureOptions, VisionError};
pub use vision_model::{
    ask_chat_endpoint, parse_reply, vision_prompt, ChatEndpoint, EndpointError, ReplyError,
    SeenElement,
};
