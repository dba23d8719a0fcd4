//! Integration tests against the real headless desktop: run them under
//! `scripts/with-desktop` (`scripts/test` does). Each test starts its own apps, with
//! window titles of its own, so tests run in parallel on one desktop.

mod cli;
mod engine;
mod session;
mod support;
