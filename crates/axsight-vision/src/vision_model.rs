//! The vision-model grounding source (`#v`): a window's screenshot sent to a
//! multimodal chat model, which answers with the UI elements it sees and their
//! boxes.
//!
//! It owns three steps: the instruction sent with the picture ([`vision_prompt`]),
//! one blocking exchange with an OpenAI-compatible chat-completions endpoint
//! ([`ask_chat_endpoint`]), and the reading of the model's answer into boxes in
//! the pixels of the picture that was sent ([`parse_reply`]). It must not capture,
//! map boxes back to the screen, hold handles or decide when to ask: the engine
//! captures, the session maps picture pixels to the screen with the picture's scale
//! and origin and numbers what was seen, and the server says when a source runs.
//!
//! Whatever they are told, models answer in many dialects: fenced or bare, with
//! prose around, boxes as corners or as x/y/width/height, in pixels, in 0–1
//! fractions or in 0–1000 (Gemini's `box_2d`, y first). So the reader accepts all
//! of them and drops what it cannot place, instead of failing the whole answer.
//!
//! # The vision model
//!
//! **The vision model** (`axsight-vision/src/vision_model.rs` and `vision_model/`:
//! `prompt.rs`, `reply.rs`, `reply/boxes.rs`, `endpoint.rs`; the session side in
//! `axsight-session/src/sources/vision.rs`, and `axsight-mcp/src/server/client_model.rs` for asking
//! the client's own model). The window's capture is encoded as PNG with a
//! longest side of at most 1280 px; `vision_prompt` names the picture's size and asks
//! for `{"elements":[{"role","label","box":[x1,y1,x2,y2]}]}`, JSON only.
//!
//! - **Which model** (`AxsightServer::vision_channel`, a `VisionChannel`). A call that
//!   brings an answer back uses it (`Answered`). Else, when the client declared
//!   `sampling`: on protocol versions before 2026-07-28 the server sends
//!   `sampling/createMessage` to the client during the call (`Client`, holding the
//!   adapter's `SamplingModel`, the session's `ClientModel` trait in MCP's words; 120 s
//!   deadline, 4096 tokens, temperature 0, a system prompt asking for JSON only); from
//!   2026-07-28 a server sends no requests of its own, so the call ends with an
//!   input-required result holding the same request (`AskClient`, through
//!   `ToolError::NeedsClientModel`), and the client calls the tool again with the
//!   answer in its input responses. The question's geometry (picture size, scale,
//!   window size) waits in the session's `WaitingLooks` (`Session::await_client_answer`,
//!   `Session::client_answered`) under the request state, which carries the
//!   process id so a restarted server takes no old answer; at most 16 wait, older ones
//!   are forgotten, and an answer to an unknown state is refused. Else the configured
//!   endpoint (`Endpoint`). Else `Unavailable`, and the error suggests
//!   `capture_screenshot` with `annotate`. A client that offers sampling is always
//!   asked; the endpoint is for clients that offer none, and for the CLI.
//! - **The endpoint** (`endpoint.rs`, `ask_chat_endpoint`). One blocking `POST
//!   {base}/chat/completions` with ureq (rustls, Mozilla's roots; no OpenSSL), run on a
//!   blocking thread with a 120 s deadline: one user message with the prompt and the PNG
//!   as a `data:` URL, temperature 0, at most 4096 tokens. The key is read from the
//!   environment variable the user named, at each call, checked to be printable ASCII
//!   before the HTTP library sees it, and sent only as `Authorization: Bearer`; a
//!   server answer quoted in an error has it replaced by `[API key]`. Any status but
//!   2xx is an error quoting the start of the answer.
//! - **Reading the reply** (`reply.rs`, `parse_reply`). Models answer in many dialects,
//!   so the reader takes the first JSON that lists elements, skipping code fences and
//!   prose; a list is a top-level array or an object's `elements` (or its only array).
//!   Boxes may be corners, two points, strings of four numbers, corner keys or
//!   `x`/`y`/`width`/`height`, under `box`, `bbox`, `bounds`, `bbox_2d` and others;
//!   Gemini's `box_2d` is `[ymin, xmin, ymax, xmax]` in 0–1000. The units of the other
//!   boxes are judged over the whole reply, not box by box: all numbers at most 1 are
//!   fractions; a number past the picture's edge (by more than 2 %, since pixel
//!   answers often overshoot a little) with none past 1000 means 0–1000; else pixels.
//!   Boxes are cut to the picture; what cannot be placed is dropped; a reply cut short
//!   by the token limit still gives its complete items. Nothing a model says can make
//!   it panic.
//! - **Back to the screen** (`to_screen`): picture pixels divided by the picture's
//!   scale, plus the window's top-left corner. A window whose size changed while the
//!   model looked is an error ("ask again"). For an answer brought back through an
//!   input-required result, the `Look` comes from a capture taken when the answer
//!   arrives: later than the picture the model saw.

mod endpoint;
mod prompt;
mod reply;

pub use endpoint::{ask_chat_endpoint, ChatEndpoint, EndpointError};
pub use prompt::vision_prompt;
pub use reply::{parse_reply, ReplyError, SeenElement};

/// `text` with each run of whitespace made one space, cut to at most `max`
/// characters (the last one an ellipsis when cut): enough of a model's or a
/// server's answer to see what went wrong, short enough for an error message.
fn excerpt(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn excerpt_flattens_whitespace_and_cuts_at_a_character() {
        assert_eq!(excerpt("  a\n\n b\tc ", 120), "a b c");
        let long = "é".repeat(200);
        let cut = excerpt(&long, 120);
        assert_eq!(cut.chars().count(), 120);
        assert!(cut.ends_with('…'));
    }
}
