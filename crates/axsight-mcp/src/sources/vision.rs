//! The vision-model source (`#v`): a model looks at a window's capture and
//! names the elements it sees, with boxes.
//!
//! The model is the client's own where the client offers sampling — asked with
//! a server-to-client request on protocols before 2026-07-28, with an
//! input-required result from then on — else an OpenAI-compatible endpoint the
//! user configured. Which one a call can use is the server's to decide (it
//! knows the client); this module asks and reads the answer.

// rmcp marks its sampling types deprecated (SEP-2577 moves sampling into
// input-required results); they are still how a client lends its model.
#![allow(deprecated)]

use std::time::Duration;

use axsight_core::{Bounds, Capture, Engine, Source, WindowSnapshot};
use axsight_vision::{
    ask_chat_endpoint, encode, parse_reply, vision_prompt, ChatEndpoint, Format, PictureOptions,
};
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ImageContent,
    InputRequest, InputRequiredResult, InputResponses, Role, SamplingMessage,
    SamplingMessageContentBlock,
};
use rmcp::service::{Peer, RoleServer};

use super::{window_frame, Found, Sighting};
use crate::session::Session;
use crate::ToolError;

/// Longest side of the picture a model is shown: enough to read a window's
/// controls, few enough tokens.
const MAX_SIDE: u32 = 1280;

/// How long a model may take to answer.
const ANSWER_DEADLINE: Duration = Duration::from_secs(120);

/// Most tokens a model's answer may use.
const MAX_TOKENS: u32 = 4096;

/// How this call can reach a vision model.
#[derive(Debug, Clone)]
pub(crate) enum VisionChannel {
    /// The client's model, asked now with a sampling request.
    Sampling(Peer<RoleServer>),
    /// The client's model, asked through an input-required result: the call
    /// ends with [`ToolError::NeedsClientModel`] and comes back with the answer.
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
    pub(crate) png: Vec<u8>,
    pub(crate) prompt: String,
    /// How the picture maps to the window: its size, its scale (image pixels
    /// per screen pixel), and the window's size at the capture.
    pub(crate) geometry: Geometry,
}

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
pub(crate) struct VisionAnswer {
    pub reply: String,
    pub geometry: Geometry,
}

impl VisionQuestion {
    /// The sampling request that asks the client's model.
    pub fn sampling_request(&self) -> CreateMessageRequestParams {
        use base64::Engine as _;
        let image = base64::engine::general_purpose::STANDARD.encode(&self.png);
        CreateMessageRequestParams::new(
            vec![SamplingMessage::new_multiple(
                Role::User,
                vec![
                    SamplingMessageContentBlock::Image(ImageContent::new(
                        image,
                        Format::Png.mime(),
                    )),
                    SamplingMessageContentBlock::text(self.prompt.clone()),
                ],
            )],
            MAX_TOKENS,
        )
        .with_system_prompt(
            "You locate user-interface elements in screenshots and answer with JSON only.",
        )
        .with_temperature(0.0)
    }
}

/// The key of the one request an input-required result carries.
const LOOK: &str = "look";

/// At most this many questions wait for a client's answer; older ones are
/// forgotten (a client that never answers must not grow the server).
const MAX_WAITING: usize = 16;

/// Questions put to the client's model through input-required results, by the
/// request state the client echoes back.
#[derive(Debug, Default)]
pub(crate) struct WaitingLooks {
    next: u64,
    waiting: std::collections::VecDeque<(String, Geometry)>,
}

/// What the user says when no model can be asked.
pub(crate) const NO_VISION_MODEL: &str = "include_vision needs a vision model: this client \
offers no sampling, and no OpenAI-compatible endpoint is configured (start the server with \
--vision-url URL --vision-model NAME [--vision-key-env VARIABLE], or set AXSIGHT_VISION_URL, \
AXSIGHT_VISION_MODEL, AXSIGHT_VISION_KEY_ENV); meanwhile capture_screenshot with annotate: true \
shows the window with the tree's handles drawn on it";

impl<E: Engine> Session<E> {
    /// The input-required result that asks the client's model `question`; the
    /// picture's geometry waits here for the answer.
    pub(crate) fn ask_client(&self, question: VisionQuestion) -> InputRequiredResult {
        let mut looks = self.waiting_looks.lock().unwrap_or_else(|e| e.into_inner());
        looks.next += 1;
        // The process id keeps a restarted server from taking an old answer
        // for a new question.
        let state = format!("look-{}-{}", std::process::id(), looks.next);
        if looks.waiting.len() >= MAX_WAITING {
            looks.waiting.pop_front();
        }
        looks.waiting.push_back((state.clone(), question.geometry));
        let request =
            InputRequest::CreateMessage(CreateMessageRequest::new(question.sampling_request()));
        InputRequiredResult::new(
            Some([(LOOK.to_string(), request)].into_iter().collect()),
            Some(state),
        )
    }

    /// The client's answer to a question [`Session::ask_client`] put, if this
    /// call brings one.
    pub(crate) fn client_answer(
        &self,
        state: Option<String>,
        responses: Option<InputResponses>,
    ) -> Result<Option<VisionAnswer>, ToolError> {
        let Some(mut responses) = responses else {
            return Ok(None);
        };
        let unknown = || {
            ToolError::BadArguments(
                "this call brings an answer to a question this server is not waiting for; \
                 call again without inputResponses"
                    .into(),
            )
        };
        let state = state.ok_or_else(unknown)?;
        let geometry = {
            let mut looks = self.waiting_looks.lock().unwrap_or_else(|e| e.into_inner());
            let at = looks
                .waiting
                .iter()
                .position(|(s, _)| *s == state)
                .ok_or_else(unknown)?;
            looks
                .waiting
                .remove(at)
                .map(|(_, g)| g)
                .ok_or_else(unknown)?
        };
        let answer = responses.remove(LOOK).ok_or_else(unknown)?;
        let result: CreateMessageResult = serde_json::from_value(answer).map_err(|error| {
            ToolError::CannotAct(format!(
                "the client's model answered in an unknown shape: {error}"
            ))
        })?;
        Ok(Some(VisionAnswer {
            reply: reply_text(result),
            geometry,
        }))
    }

    /// Asks a vision model what it sees in the window: the elements it names,
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
            VisionChannel::Sampling(peer) => {
                let question = question(&capture)?;
                let asked = peer.create_message(question.sampling_request());
                let result = tokio::time::timeout(ANSWER_DEADLINE, asked)
                    .await
                    .map_err(|_| {
                        ToolError::TimedOut(format!(
                            "the client's model did not answer within {} s",
                            ANSWER_DEADLINE.as_secs()
                        ))
                    })?
                    .map_err(|error| {
                        ToolError::CannotAct(format!(
                            "the client's model could not look at the window: {error}"
                        ))
                    })?;
                VisionAnswer {
                    reply: reply_text(result),
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
        Ok(self.record_sightings(snapshot, &capture, Source::Vision, found))
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

/// The text of a sampling result (its text blocks, joined).
pub(crate) fn reply_text(result: CreateMessageResult) -> String {
    result
        .message
        .content
        .into_vec()
        .into_iter()
        .filter_map(|block| match block {
            SamplingMessageContentBlock::Text(text) => Some(text.text),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
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
