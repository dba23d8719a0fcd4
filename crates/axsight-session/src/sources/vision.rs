//! The vision-model source (`#v`): a model looks at a window's capture and
//! names the elements it sees, with boxes.
//!
//! The model is the client's own where the client offers one — asked at once
//! through a [`ClientModel`], or, where the client wants the question in the
//! call's result, parked here until the call comes back with the answer — else
//! an OpenAI-compatible endpoint the user configured. Which one a call can use
//! is the protocol adapter's to decide (it knows the client); this module asks
//! and reads the answer. It knows no protocol's message shapes.

mod waiting;

pub(crate) use waiting::WaitingLooks;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axsight_core::{Bounds, Capture, Engine, Source, WindowSnapshot};
use axsight_vision::{
    ask_chat_endpoint, encode, parse_reply, vision_prompt, ChatEndpoint, Format, PictureOptions,
};

use super::{window_frame, Found, Sighting};
use crate::session::Session;
use crate::ToolError;

/// Longest side of the picture a model is shown: enough to read a window's
/// controls, few enough tokens.
const MAX_SIDE: u32 = 1280;

/// How long a model may take to answer.
const ANSWER_DEADLINE: Duration = Duration::from_secs(120);

/// A model the client lends, asked at once (MCP: a sampling request the server
/// sends the client). Implemented by the protocol adapter.
pub trait ClientModel: Send + Sync + std::fmt::Debug {
    /// The model's reply to `question` (its text), within `deadline`.
    fn ask<'a>(
        &'a self,
        question: &'a VisionQuestion,
        deadline: Duration,
    ) -> Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + 'a>>;
}

/// How this call can reach a vision model.
#[derive(Debug, Clone)]
pub enum VisionChannel {
    /// The client's model, asked now.
    Client(Arc<dyn ClientModel>),
    /// The client's model, asked in the call's result: the call ends with
    /// [`ToolError::NeedsClientModel`] and comes back with the answer
    /// ([`Session::client_answered`]).
    AskClient,
    /// The answer the client's model gave to an earlier [`VisionQuestion`].
    Answered(VisionAnswer),
    /// A configured OpenAI-compatible endpoint.
    Endpoint(ChatEndpoint),
    /// None: the error says what to do instead.
    Unavailable,
}

/// What a model is asked: a window's picture and the instruction.
#[derive(Debug, Clone)]
pub struct VisionQuestion {
    /// The window's picture, PNG.
    pub png: Vec<u8>,
    /// What the model is asked to do with it.
    pub prompt: String,
    /// How the picture maps to the window: its size, its scale (image pixels
    /// per screen pixel), and the window's size at the capture.
    pub(crate) geometry: Geometry,
}

/// The system prompt a model is asked with.
pub const VISION_SYSTEM_PROMPT: &str =
    "You locate user-interface elements in screenshots and answer with JSON only.";

/// How a picture shown to a model maps back to its window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Geometry {
    pub width: u32,
    pub height: u32,
    pub scale: f64,
    pub window_size: (i32, i32),
}

/// A model's reply to a [`VisionQuestion`] asked earlier.
#[derive(Debug, Clone)]
pub struct VisionAnswer {
    pub(crate) reply: String,
    pub(crate) geometry: Geometry,
}

/// What the user says when no model can be asked.
pub(crate) const NO_VISION_MODEL: &str = "include_vision needs a vision model: this client \
offers no sampling, and no OpenAI-compatible endpoint is configured (start the server with \
--vision-url URL --vision-model NAME [--vision-key-env VARIABLE], or set AXSIGHT_VISION_URL, \
AXSIGHT_VISION_MODEL, AXSIGHT_VISION_KEY_ENV); meanwhile capture_screenshot with annotate: true \
shows the window with the tree's handles drawn on it";

impl<E: Engine> Session<E> {
    /// numbered.
    pub(crate) async fn look(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        channel: &VisionChannel,
    ) -> Result<Vec<Sighting>, ToolError> {
        let frame = window_frame(snapshot)?;
        if let VisionChannel::Unavailable = channel {
            return Err(ToolError::CannotAct(NO_VISION_MODEL.into()));
        }
        // For an answer brought back, this capture is later than the picture
        // the model saw: it only keeps how the boxes look from now on.
        let capture = engine
            .capture(Some(frame))
            .await
            .map_err(ToolError::engine)?;
        let answer = match channel {
            VisionChannel::Unavailable => unreachable!("answered above"),
            VisionChannel::Answered(answer) => answer.clone(),
            VisionChannel::AskClient => {
                return Err(ToolError::NeedsClientModel(Box::new(question(&capture)?)));
            }
            VisionChannel::Client(model) => {
                let question = question(&capture)?;
                VisionAnswer {
                    reply: model.ask(&question, ANSWER_DEADLINE).await?,
                    geometry: question.geometry,
                }
            }
            VisionChannel::Endpoint(endpoint) => {
                let VisionQuestion {
                    png,
                    prompt,
                    geometry,
                } = question(&capture)?;
                let endpoint = endpoint.clone();
                let reply = tokio::task::spawn_blocking(move || {
                    ask_chat_endpoint(&endpoint, &png, &prompt, ANSWER_DEADLINE)
                })
                .await
                .map_err(|error| ToolError::CannotAct(format!("the vision model failed: {error}")))?
                .map_err(|error| {
                    ToolError::CannotAct(format!("the vision model failed: {error}"))
                })?;
                VisionAnswer { reply, geometry }
            }
        };
        let geometry = answer.geometry;
        if geometry.window_size != (frame.width, frame.height) {
            return Err(ToolError::CannotAct(
                "the window changed size while the model looked at it; ask again".into(),
            ));
        }
        let seen =
            parse_reply(&answer.reply, geometry.width, geometry.height).map_err(|error| {
                ToolError::CannotAct(format!("the vision model's answer is unusable: {error}"))
            })?;
        let found = seen
            .into_iter()
            .map(|element| Found {
                bounds: to_screen(element.bounds, frame, geometry.scale),
                text: element.label,
                kind: Some(element.role),
                confidence: None,
            })
            .collect();
        self.record_sightings(snapshot, &capture, Source::Vision, found, None)
    }
}

/// A window's picture, as a model is shown it, and the instruction.
fn question(capture: &Capture) -> Result<VisionQuestion, ToolError> {
    let options = PictureOptions {
        format: Format::Png,
        max_dimension: Some(MAX_SIDE),
        ..PictureOptions::default()
    };
    let picture =
        encode(capture, &options).map_err(|error| ToolError::CannotAct(error.to_string()))?;
    Ok(VisionQuestion {
        prompt: vision_prompt(picture.width, picture.height),
        geometry: Geometry {
            width: picture.width,
            height: picture.height,
            scale: picture.scale,
            window_size: (capture.width as i32, capture.height as i32),
        },
        png: picture.bytes,
    })
}

/// A box in the pixels of a picture of `frame` shown at `scale`, on screen.
fn to_screen(b: Bounds, frame: Bounds, scale: f64) -> Bounds {
    let at = |v: i32| (f64::from(v) / scale).round() as i32;
    let x = at(b.x);
    let y = at(b.y);
    Bounds {
        x: frame.x + x,
        y: frame.y + y,
        width: (at(b.x + b.width) - x).max(1),
        height: (at(b.y + b.height) - y).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picture_boxes_map_back_to_the_screen() {
        let frame = Bounds {
            x: 100,
            y: 50,
            width: 2560,
            height: 1440,
        };
        // Shown at half size: picture pixel 10 is window pixel 20.
        let b = to_screen(
            Bounds {
                x: 10,
                y: 20,
                width: 30,
                height: 40,
            },
            frame,
            0.5,
        );
        assert_eq!(
            b,
            Bounds {
                x: 120,
                y: 90,
                width: 60,
                height: 80
            }
        );
    }
}
