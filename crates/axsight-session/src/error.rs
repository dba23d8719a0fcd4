//! Errors a tool call can end in, each worded for the agent: what went wrong and
//! which call fixes it.

use axsight_core::{EngineError, FailureKind, HandleParseError, SelectorError};

/// A failed tool call.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("{0}")]
    Engine(Box<dyn EngineError>),

    #[error(transparent)]
    Selector(#[from] SelectorError),

    #[error(transparent)]
    Handle(#[from] HandleParseError),

    #[error("{handle} was never given out in this session; call get_window_tree or find_elements to get handles")]
    UnknownHandle { handle: String },

    #[error("{handle} is stale: {why}; call get_window_tree to get fresh handles")]
    StaleHandle { handle: String, why: String },

    #[error("{handle} expired: its window closed, and the session let its handles go; call get_window_tree to get fresh handles")]
    ExpiredHandle { handle: String },

    /// A stale handle whose element was found again with high confidence.
    #[error("{handle} is stale: {why}; {found} (pass `heal: true` to act on it)")]
    StaleButFound {
        handle: String,
        why: String,
        found: String,
    },

    /// A screenshot source's handle that no longer fits what is on screen.
    #[error("{handle} is stale: {why}; {refresh}", refresh = crate::target::refresh_call(*.seen_by))]
    StaleSighting {
        handle: String,
        why: String,
        seen_by: axsight_core::Source,
    },

    #[error("{handle} could not be checked: its window was only partly read ({why}); try again")]
    Undecided { handle: String, why: String },

    #[error("only tree handles (#u…) can be used here; {handle} comes from another source")]
    WrongSource { handle: String },

    /// `close` names the elements it missed by one test (see
    /// `Session::close_to`), `; close to it: …`, or is empty.
    #[error("no element matches `{selector}` in the window{close}")]
    NoMatch { selector: String, close: String },

    #[error("{0}")]
    BadArguments(String),

    #[error("no window lies at ({x}, {y}); get_applications lists windows with their bounds")]
    NoWindowAt { x: i32, y: i32 },

    #[error("{0}")]
    CannotAct(String),

    /// Whoever serves the desktop does not let the agent do this.
    #[error("not allowed: {0}")]
    NotAllowed(String),

    #[error("timed out: {0}")]
    TimedOut(String),

    /// The client's own model must look at a window before the call can end:
    /// the server turns this into an input-required result, never into text.
    #[error("the client's model was asked to look at the window, and has not answered")]
    NeedsClientModel(Box<crate::sources::VisionQuestion>),
}

impl ToolError {
    /// Wraps an engine's error.
    pub fn engine(error: impl EngineError) -> ToolError {
        ToolError::Engine(Box::new(error))
    }

    /// Whether a point target failed to aim only for want of a readable window
    /// there (none, its app answers nothing, or the window went as it was
    /// read): the pointer can still go there.
    pub fn leaves_point_blind(&self) -> bool {
        matches!(self, ToolError::NoWindowAt { .. })
            || matches!(
                self.engine_failure(),
                Some(FailureKind::NotAnswering | FailureKind::WindowGone)
            )
    }

    /// The engine failure's kind, if this is one.
    pub fn engine_failure(&self) -> Option<FailureKind> {
        match self {
            ToolError::Engine(error) => Some(error.kind()),
            _ => None,
        }
    }
}
