//! The one error a selector can fail to parse with: a position and a plain message.

use std::fmt;

/// A selector that could not be parsed.
///
/// `position` is a 0-based character offset into the selector; the `Display` form
/// names it as a 1-based column and repeats the selector with a caret under it:
///
/// ```text
/// selector error at column 6: expected a value after 'role:'
///   role: Button
///        ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SelectorError {
    /// Character offset (0-based) where the problem was found.
    pub position: usize,
    /// What was expected or what is wrong, without the position.
    pub message: String,
    /// The selector as given.
    pub selector: String,
}

impl SelectorError {
    pub(super) fn new(selector: &str, position: usize, message: impl Into<String>) -> Self {
        SelectorError {
            position,
            message: message.into(),
            selector: selector.to_string(),
        }
    }
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One character of the echo per character of the selector, so the caret lines
        // up; tabs and newlines would break the two-line picture.
        let echo: String = self
            .selector
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        write!(
            f,
            "selector error at column {}: {}\n  {}\n  {}^",
            self.position + 1,
            self.message,
            echo,
            " ".repeat(self.position)
        )
    }
}
