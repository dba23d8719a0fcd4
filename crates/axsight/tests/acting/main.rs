//! Acting on real apps through the session the MCP tools run: clicks, typing, keys,
//! values, toggles, windows, waiting, and what happens when things go wrong.
//!
//! Real pointer and keyboard input goes to whatever window is on top, and without a
//! window manager every window maps at (0, 0): so these tests take turns (each
//! holds [`turn`] while it runs).

mod browser;
mod cli;
mod detector;
mod fixture;
mod gtk4;
mod pictures;
mod safety;
mod sources;
#[path = "../desktop/support.rs"]
mod support;
mod toolkits;
#[path = "../../../axsight-browser/tests/support/web_fixtures.rs"]
mod web_fixtures;

use axsight_linux::LinuxEngine;
use axsight_session::Target;

pub type Session = axsight_session::Session<LinuxEngine>;

/// One test at a time drives the pointer and keyboard.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits for this test's turn at the desktop's input; held until dropped.
pub async fn turn() -> tokio::sync::MutexGuard<'static, ()> {
    TURN.lock().await
}

/// The first element matching `selector` in the window titled `title`.
pub fn aim(title: &str, selector: &str) -> Target {
    Target::Selector {
        selector: selector.to_string(),
        app: None,
        window: Some(title.to_string()),
    }
}

/// The handle printed on the first line of `text` that contains `needle`.
pub fn handle_in(text: &str, needle: &str) -> Target {
    let handle = text
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.split_whitespace().find(|w| w.starts_with("#u")))
        .unwrap_or_else(|| panic!("no handle on a line with {needle:?} in:\n{text}"));
    Target::Handle(handle.to_string())
}

/// Moves the fixture window titled `title` 120 px right and 80 px down (its
/// File > Move window: there is no window manager to ask); the answer.
pub async fn move_fixture_window(session: &Session, title: &str) -> String {
    let click = axsight_session::ClickOptions::default();
    let options = axsight_session::ActOptions::default();
    let menu = session
        .click(&aim(title, "role:Menu && name:File"), &click, &options)
        .await
        .unwrap();
    session
        .click(
            &handle_in(&menu, "[MenuItem] Move window"),
            &click,
            &options,
        )
        .await
        .unwrap()
}
