//! The selector language: how agents and the CLI name elements of a tree without
//! handles. This module owns the grammar, the parser and the matching rules.
//!
//! # Grammar
//!
//! ```text
//! selector := step (">>" step)*
//! step     := or                      -- nth:N only as a top-level "&&" operand
//! or       := and ("||" and)*
//! and      := unary ("&&" unary)*
//! unary    := "!" unary | primary
//! primary  := "(" or ")" | key ":" value | value
//! value    := bare-word | "double-quoted"
//! ```
//!
//! Precedence, loosest first: `>>`, `||`, `&&`, `!`. Whitespace between tokens is
//! optional. Keys are lower case but accepted in any case. `(` and `!` nest at most
//! 64 deep.
//!
//! **Values.** A bare word runs up to whitespace, `(`, `)`, `"`, or an operator `&&`,
//! `||`, `>>`; it may hold letters, digits and symbols such as `_ - . / # ' @ : & !`
//! (a word cannot *start* with `!`, `&`, `|` or `>`). Anything else goes in double
//! quotes, where `\"` is a quote and `\\` a backslash. Values may not be empty.
//!
//! **Bare text.** A word or quoted string without a key means `text:` — `Save` and
//! `"Save as"` find elements by text. A bare word holding a `:` is read as
//! `key:value`, so quote text that has a colon (`"http://x"`).
//!
//! # Keys
//!
//! | atom | matches an element when |
//! |---|---|
//! | `role:R` | `R` names its normalised role, ignoring case (`role:button`, `role:MenuItem`); any other `R` must be a raw AT-SPI role name, compared with the element's raw role ignoring case (`role:"push button"`). A name that is both (`text`) means the normalised role. |
//! | `name:N` | its name equals `N`, ignoring case and surrounding whitespace |
//! | `text:T` | `T` is a substring of its name, value or description, ignoring case |
//! | `id:I` | its accessible id equals `I` exactly (case counts) |
//! | `desc:T` | `T` is a substring of its description, ignoring case |
//! | `value:T` | `T` is a substring of its value, ignoring case |
//! | `state:S` | it has state `S` (`state:checked`, `state:expanded`) |
//! | `app:A` | `A` is a substring of the application's name, ignoring case |
//! | `window:W` | `W` is a substring of the window's title, ignoring case |
//! | `visible:true\|false` | it is (not) drawn on screen: SHOWING with a non-empty box |
//! | `enabled:true\|false` | it does (not) take input: ENABLED or SENSITIVE |
//! | `focused:true\|false` | it does (not) have the FOCUSED state |
//! | `checked:true\|false` | it does (not) have the CHECKED state |
//! | `nth:N` | keeps the N-th match of its step, in document order: 0 first, -1 last |
//!
//! The value of a secret element (a password field) is never compared: `value:` and
//! `text:` cannot match it through its value, so a selector cannot probe a password.
//! `app:` and `window:` test where the tree came from, not the element.
//!
//! # Chains and `nth:`
//!
//! `A >> B` selects the elements matching `B` that have an ancestor among `A`'s
//! matches; `A` is resolved first, and chains may be longer (`A >> B >> C`).
//! `nth:N` filters the ordered matches of its own step: it must be a top-level `&&`
//! operand of the step (`role:Button && nth:2`), at most once, never alone, and never
//! inside `||`, `!` or parentheses. `role:Dialog >> role:Button && nth:-1` is the last
//! button inside any dialog. An index past either end matches nothing.
//!
//! # Errors
//!
//! A [`SelectorError`] names the character position (0-based; its message says the
//! 1-based column) and what was expected there.

mod ast;
mod error;
mod keys;
mod lexer;
mod matcher;
mod near;
mod parse;
mod suggest;

#[cfg(test)]
mod tests;

use std::str::FromStr;

pub use ast::{Atom, Expr, RoleMatch, Selector, Step};
pub use error::SelectorError;
pub use matcher::MatchContext;
pub use near::NearMiss;
pub use suggest::close_matches;

impl Selector {
    /// Parses selector text.
    ///
    /// ```
    /// use axsight_core::Selector;
    /// let selector = Selector::parse("role:dialog >> role:button && name:OK").unwrap();
    /// assert_eq!(selector.steps().len(), 2);
    /// assert_eq!(selector.to_string(), "role:Dialog >> role:Button && name:OK");
    ///
    /// let error = Selector::parse("role: Button").unwrap_err();
    /// assert_eq!(error.position, 5);
    /// assert_eq!(error.message, "expected a value after 'role:'");
    /// ```
    pub fn parse(selector: &str) -> Result<Selector, SelectorError> {
        parse::parse(selector)
    }
}

impl FromStr for Selector {
    type Err = SelectorError;

    fn from_str(selector: &str) -> Result<Selector, SelectorError> {
        Selector::parse(selector)
    }
}
