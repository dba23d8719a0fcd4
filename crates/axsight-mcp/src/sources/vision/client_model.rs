//! Asking the client's own model: the sampling request, sent by the server
//! itself (protocols before 2026-07-28) or carried in an input-required
//! result (2026-07-28 on), and the answer the client brings back.

// rmcp marks its sampling types deprecated (SEP-2577 moves sampling into
// input-required results); they are still how a client lends its model.
#![allow(deprecated)]

use std::time::Duration;

use axsight_core::Engine;
use axsight_vision::Format;
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ImageContent,
    InputRequest, InputRequiredResult, InputResponses, Role, SamplingMessage,
    SamplingMessageContentBlock,
};
use rmcp::service::{Peer, RoleServer};

use super::{Geometry, VisionAnswer, VisionQuestion};
use crate::session::Session;
use crate::ToolError;

/// Most tokens a model's answer may use.
const MAX_TOKENS: u32 = 4096;

impl VisionQuestion {
    /// The sampling request that asks the client's model.
    fn sampling_request(&self) -> CreateMessageRequestParams {
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
}

/// Asks the client's model `question` with a sampling request of the
/// server's own (clients before 2026-07-28); its reply's text.
pub(super) async fn ask_by_sampling(
    peer: &Peer<RoleServer>,
    question: &VisionQuestion,
    deadline: Duration,
) -> Result<String, ToolError> {
    let asked = peer.create_message(question.sampling_request());
    let result = tokio::time::timeout(deadline, asked)
        .await
        .map_err(|_| {
            ToolError::TimedOut(format!(
                "the client's model did not answer within {} s",
                deadline.as_secs()
            ))
        })?
        .map_err(|error| {
            ToolError::CannotAct(format!(
                "the client's model could not look at the window: {error}"
            ))
        })?;
    Ok(reply_text(result))
}

/// The text of a sampling result (its text blocks, joined).
fn reply_text(result: CreateMessageResult) -> String {
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
