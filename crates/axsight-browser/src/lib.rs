//! The browser source: what axsight reads and does in Chromium-based browsers
//! and Electron apps through the DevTools protocol (CDP), and in Firefox
//! through WebDriver BiDi.
//!
//! It starts a browser with its page's accessibility tree and a loopback
//! DevTools endpoint switched on, or attaches to one; navigates pages and
//! waits for them to load; and reads a page's elements (`#d` handles) with
//! boxes that [`to_screen`] puts on the screen. It does not click, read the
//! accessibility tree or number handles: the engine clicks, the session
//! numbers.
//!
//! The protocol is spoken by a small client of its own ([`cdp`]) on one
//! WebSocket: axsight needs a dozen methods, and a client generated for the
//! whole protocol would cost minutes of build for them. BiDi's commands
//! ([`bidi`]) go over the same client.

pub mod bidi;
pub mod cdp;

mod browser;
mod changes;
mod dom;
mod launch;
mod page;

use std::time::Duration;

pub use browser::{Browser, PageInfo, Protocol};
pub use changes::QUIET as CHANGE_QUIET;
pub use dom::{to_screen, CssRect, DomElement, DomSnapshot};
pub use launch::{
    accessibility_flags, chromium_flags, electron_flags, find_chromium, find_firefox,
    firefox_flags, is_chromium, is_electron_app, is_firefox,
};
pub use page::{HistoryMove, Page};

/// Why the browser could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("cannot start {program}: {why}")]
    Launch { program: String, why: String },
    #[error("cannot reach the browser's DevTools endpoint {endpoint}: {why}")]
    Unreachable { endpoint: String, why: String },
    #[error("the browser closed its DevTools connection")]
    Closed,
    #[error("the browser did not answer {method} within {} ms", after.as_millis())]
    TimedOut { method: String, after: Duration },
    #[error("the browser refused {method}: {error}")]
    Protocol { method: String, error: String },
    #[error("the page's script failed: {0}")]
    Script(String),
    #[error("navigation to {url} failed: {why}")]
    Navigation { url: String, why: String },
    #[error("there is no page to go {0} to in this tab")]
    NoHistory(&'static str),
}
