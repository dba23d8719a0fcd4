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
