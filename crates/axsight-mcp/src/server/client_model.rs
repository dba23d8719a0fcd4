//! The client's own model, in MCP's words: a sampling request the server sends
//! the client (protocols before 2026-07-28), or the same request carried in an
//! input-required result (2026-07-28 on), and the answer the client brings
//! back. What to ask and how to read the reply is the session's.

// rmcp marks its sampling types deprecated (SEP-2577 moves sampling into
// input-required results); they are still how a client lends its model.
#![allow(deprecated)]

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axsight_core::Engine;
use axsight_session::{
    ClientModel, Session, ToolError, VisionAnswer, VisionQuestion, VISION_SYSTEM_PROMPT,
};
use axsight_vision::Format;
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ImageContent,
    InputRequest, InputRequiredResult, InputResponses, Role, SamplingMessage,
    SamplingMessageContentBlock,
};
use rmcp::service::{Peer, RoleServer};

/// Most tokens a model's answer may use.
const MAX_TOKENS: u32 = 4096;

/// The key of the one request an input-required result carries.
const LOOK: &str = "look";

/// The sampling request that asks the client's model `question`.
fn sampling_request(question: &VisionQuestion) -> CreateMessageRequestParams {
    use base64::Engine as _;
    let image = base64::engine::general_purpose::STANDARD.encode(&question.png);
    CreateMessageRequestParams::new(
        vec![SamplingMessage::new_multiple(
            Role::User,
            vec![
                SamplingMessageContentBlock::Image(ImageContent::new(image, Format::Png.mime())),
                SamplingMessageContentBlock::text(question.prompt.clone()),
            ],
        )],
        MAX_TOKENS,
    )
    .with_system_prompt(VISION_SYSTEM_PROMPT)
    .with_temperature(0.0)
}

/// The input-required result that asks the client's model `question`, which
/// waits in the session for the answer.
pub(super) fn ask_client<E: Engine>(
    session: &Session<E>,
    question: &VisionQuestion,
) -> InputRequiredResult {
    let state = session.await_client_answer(question);
    let request =
        InputRequest::CreateMessage(CreateMessageRequest::new(sampling_request(question)));
    InputRequiredResult::new(
        Some([(LOOK.to_string(), request)].into_iter().collect()),
        Some(state),
    )
}

/// The client's answer to a question [`ask_client`] put, if this call brings
/// one.
pub(super) fn client_answer<E: Engine>(
    session: &Session<E>,
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
    let answer = responses.remove(LOOK).ok_or_else(unknown)?;
    let result: CreateMessageResult = serde_json::from_value(answer).map_err(|error| {
        ToolError::CannotAct(format!(
            "the client's model answered in an unknown shape: {error}"
        ))
    })?;
    session
        .client_answered(&state, reply_text(result))
        .map(Some)
        .ok_or_else(unknown)
}

/// The client's model, asked with sampling requests to its peer.
#[derive(Debug)]
pub(super) struct SamplingModel(pub Peer<RoleServer>);

impl ClientModel for SamplingModel {
    fn ask<'a>(
        &'a self,
        question: &'a VisionQuestion,
        deadline: Duration,
    ) -> Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + 'a>> {
        Box::pin(async move {
            let asked = self.0.create_message(sampling_request(question));
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
        })
    }
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
