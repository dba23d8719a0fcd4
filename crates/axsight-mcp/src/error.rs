//! Errors a tool call can end in, each worded for the agent: what went wrong and
//! which call fixes it.

use axsight_core::{HandleParseError, SelectorError};

/// A failed tool call.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error(transparent)]
    Engine(#[from] axsight_linux::Error),

    #[error(transparent)]
    Selector(#[from] SelectorError),

    #[error(transparent)]
    Handle(#[from] HandleParseError),

    #[error("{handle} was never given out in this session; call get_window_tree or find_elements to get handles")]
    UnknownHandle { handle: String },

    #[error("{handle} is stale: {why}; call get_window_tree to get fresh handles")]
    StaleHandle { handle: String, why: String },

    #[error("{handle} could not be checked: its window was only partly read ({why}); try again")]
    Undecided { handle: String, why: String },

    #[error("only tree handles (#u…) can be used here; {handle} comes from another source")]
    WrongSource { handle: String },

    #[error("no element matches `{selector}` in the window")]
    NoMatch { selector: String },

    #[error("{0}")]
    BadArguments(String),
}
