//! What axsight makes of the screen's pixels: pictures an agent can read.
//!
//! It turns a [`axsight_core::Capture`] into an encoded image — scaled to a largest
//! side, or zoomed, as PNG or JPEG — and draws set-of-marks boxes and handle labels
//! onto it ([`draw_marks`]), so an agent (or a person) can match what it sees with
//! the handles it can click. It does not capture, click, or speak MCP: the engine
//! captures and acts, the server shapes tool results.
//!
//! # Pictures
//!
//! **Pictures** (`axsight-vision`: `picture.rs`, `marks.rs`, `glyphs.rs`). `encode`
//! makes a capture into PNG, or JPEG at quality 85.
//!
//! - `max_dimension` shrinks the picture (triangle filter) so that neither side is
//!   larger. It never enlarges, and takes at least 16.
//! - `zoom`, 1 to 8, magnifies with nearest-neighbour pixels, so edges stay sharp, and
//!   wins over `max_dimension`. Past 8 a window's picture would be hundreds of
//!   megabytes.
//! - The scale is taken again from the rounded size, so the marks and the caption's
//!   mapping agree: `screen = origin + image / scale`.
//! - `draw_marks` draws, for each mark `place_labels` keeps, the box's corners
//!   (1-px brackets up to 8 px long: a full outline a few pixels from a menu's word
//!   made OCR lose the word) and a label: white glyphs on the source's colour (tree
//!   blue, OCR orange, detector magenta, vision model green, DOM teal) at twice the
//!   font's size, or once where labels crowd. `place_labels`, on plain boxes in image
//!   pixels: a box that holds another of its source is dropped; in reading order, a
//!   label goes outside its box, 3 px away (a detector reading the picture takes a
//!   label touching a word for part of it), above, below, left or right, where it
//!   covers no label and no kept box but one holding its own; else inside a box three
//!   labels high, at its top right or left; else it is left out. `Picture::drawn`
//!   says how many marks were drawn and where each label went (the caption counts
//!   what thinning left out; the tests check labels never overlap). The 5×7 font is
//!   built in: labels need digits, the source letters and a few signs, and a font
//!   file or a rasteriser would be a dependency for ten glyphs.

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
