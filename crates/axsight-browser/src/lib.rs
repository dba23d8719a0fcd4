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
//!
//! # The browser source
//!
//! `axsight-browser` owns what speaks to the browser: the DevTools or WebDriver BiDi
//! connection, starting Chromium or Firefox, navigation, and reading the page's
//! elements. `axsight-mcp` decides which
//! browser and tab a window shows, numbers the `#d` handles and places the page's boxes
//! on screen through the accessibility tree; the engine clicks.
//!
//! **The DevTools client** (`cdp.rs`). The protocol is JSON over one WebSocket per
//! browser. `Connection` is cheap to clone. A writer task sends; a reader task takes
//! each message: a reply goes to the call waiting on its `id` (a oneshot channel), an
//! event to a broadcast channel (nothing subscribes yet). Calls may run concurrently.
//! Each has a deadline (`CALL_DEADLINE`, 10 s; the liveness check 2 s), and one that
//! runs out is forgotten. When the browser closes the socket, every waiting call fails
//! at once, not at its deadline. Sessions are flat: `Target.attachToTarget` with
//! `flatten: true`, and a page's calls carry its `sessionId` on the browser's one
//! connection; `Browser::page` attaches once per tab and keeps the session.
//!
//! **Why a client of our own.** axsight calls a dozen methods: `Target.getTargets`,
//! `createTarget`, `activateTarget`, `attachToTarget`; `Browser.getVersion`,
//! `getWindowForTarget`, `setWindowBounds`; `Runtime.evaluate`; `Page.navigate`,
//! `reload`, `getNavigationHistory`, `navigateToHistoryEntry`. Measured here with a
//! throw-away helper outside the repository, one small program each way, against
//! Chromium 156:
//!
//! | | chromiumoxide 0.9.1 | own client on tokio-tungstenite 0.30 |
//! |---|---|---|
//! | debug build | 139 s | 18–28 s |
//! | release build | 196–227 s | 37–45 s |
//! | crates built | 120 | 43 |
//! | stripped binary | 7.8 MB | 1.0 MB |
//!
//! chromiumoxide compiles a protocol generated for every domain (about 111,000 lines,
//! at Chromium revision about 145: 80 names that Chromium 156 has are missing), and its
//! `Handler` is a stream the caller must keep polling. The own client is `cdp.rs`, 182
//! lines. `tokio-tungstenite` is built without default features, so without TLS: the
//! endpoint is `ws://` on loopback.
//!
//! **Starting a browser** (`launch.rs`, `Browser::launch`).
//!
//! - The program: `/usr/lib/chromium/chromium`, Debian's program itself, since its
//!   `/usr/bin` wrapper script adds flags of its own; else the first of `chromium`,
//!   `chromium-browser`, `google-chrome-stable`, `google-chrome` on `PATH`.
//! - `accessibility_flags`, for every program: `--force-renderer-accessibility` (the
//!   page's tree), `--remote-debugging-address=127.0.0.1 --remote-debugging-port=0`
//!   (DevTools on loopback, on a port the browser picks) and `--user-data-dir=PROFILE`.
//! - `chromium_flags`, for a program named like Chromium (`is_chromium`), to start
//!   quietly in a fresh profile: `--no-first-run --no-default-browser-check
//!   --disable-gpu --disable-background-networking --disable-component-update
//!   --disable-sync --password-store=basic` (`--disable-gpu`: a headless X server has
//!   no GPU), and `--no-sandbox` when axsight runs as root, which Chromium needs (the
//!   effective uid is read from `/proc/self/status`).
//! - The profile is a fresh folder, `$XDG_RUNTIME_DIR/axsight-browser-PID-N` (else in
//!   the temporary folder). The browser writes its port and WebSocket path to the
//!   profile's `DevToolsActivePort`, checked every 50 ms for up to 20 s.
//! - The browser is spawned directly (no shell), without `NO_AT_BRIDGE` and
//!   `GTK_A11Y`, with its output discarded, in a process group of its own: a signal to
//!   axsight's group must not take it down. Dropping the `Browser` kills it, waits for
//!   it, and removes the profile.
//!
//! **Firefox over WebDriver BiDi** (`bidi.rs`). Firefox 153 speaks no DevTools
//! protocol. A program named like Firefox (`is_firefox`) is started with
//! `--remote-debugging-port=0 -no-remote -profile PROFILE` and `GNOME_ACCESSIBILITY=1`,
//! its profile's `user.js` written first (first-run pages, telemetry, studies, updates,
//! background traffic and the password prompt off); it writes its port to the profile's
//! `WebDriverBiDiServer.json`, checked every 50 ms. BiDi frames commands as the
//! DevTools protocol does (`id`, `method`, `params`; its errors name the error beside
//! the message), so it runs on the same `Connection`, without session ids, after one
//! `session.new`. `Browser` and `Page` keep their protocol (`Protocol`, `PageTarget`)
//! and each method sends that protocol's commands, so the session above sees one kind
//! of page: tabs are top-level browsing contexts (`browsingContext.getTree`, their
//! titles from `document.title`), a script is `script.evaluate` in the context, and its
//! serialized result becomes JSON (`bidi::to_json`: objects and maps to objects, `NaN`
//! and `undefined` to `null`, as `returnByValue` gives them). The DOM scripts are the
//! same files for both (`collect.js`, `locate.js`, called as `(function)(arguments)`).
//! `browsingContext.navigate` and `reload` wait for the document themselves (`wait:
//! "complete"`); `traverseHistory` is followed by the mark-and-poll wait (the session's `browsing` module), and an
//! entry that does not exist is `NoHistory`. Moving a window is DevTools only.
//!
//! **Attaching** (`endpoint_from_url`, `Browser::attach`). An `http://host:port`
//! address is asked for `/json/version` with one plain HTTP/1.1 request on a TCP socket
//! (no HTTP client crate), and its `webSocketDebuggerUrl` is the endpoint; a `ws://`
//! address is taken as it is. `Browsers::live` (`axsight-session/src/browsers.rs`) checks
//! each known browser with `Browser.getVersion`, drops those that do not answer, and
//! attaches to `--browser-url` when no attached browser is left; a failed attach is the
//! call's error, and the next call tries again.
//!
//! **Which tab a window shows** (`Browsers::page_of`). The browser is the started one
//! whose process is the window's app's pid, else an attached one. The tab is the page
//! target whose title the window's title starts with, the longest such (Chromium titles
//! a window after its front tab: `PAGE - Chromium`), else the browser's only tab. The
//! page's place is `page_document`: the first drawn `Document` of the window's tree,
//! since a window keeps its other tabs' documents in the tree, not drawn.
//!
//! # On screen
//!
//! **On screen** (`to_screen`). The page knows its boxes in CSS pixels of its
//! viewport, not where the window and the browser's toolbars put the viewport. The
//! page document's AT-SPI box does: its top-left corner is the origin, and a box is
//! origin + CSS pixels × `devicePixelRatio` (which carries the page zoom), its right
//! and bottom edges rounded the same way, at least 1 px wide and high.

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
