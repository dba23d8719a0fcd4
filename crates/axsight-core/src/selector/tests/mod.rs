//! Tests of the selector language on hand-built trees: matching rules, parse errors,
//! and properties of the parser and printer.

mod matching;
mod parsing;
mod properties;
