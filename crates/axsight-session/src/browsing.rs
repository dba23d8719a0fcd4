//! `navigate_browser` and `execute_browser_script`: a page opened, moved
//! through its history or reloaded, then answered with the window's tree once
//! the new page shows in it; and scripts run in a page, when allowed.
//!
//! A browser axsight reaches over a protocol is driven through it; one it
//! cannot reach (started by the user) through its own UI ([`through_chrome`]).
//!
//! # Navigation
//!
//! **Navigation** (`page.rs`; `axsight-session/src/browsing.rs`).
//!
//! - `Page::navigate` first leaves a random mark on the current document
//!   (`window.__axsightMark`; 64 bits from std's `RandomState`, so no random-number
//!   crate), then calls `Page.navigate`. An `errorText` in the answer is the error
//!   (`net::ERR_CONNECTION_REFUSED`; an empty 404 page gives
//!   `net::ERR_HTTP_RESPONSE_CODE_FAILURE`). No `loaderId` means a move within the same
//!   document, done at once. Otherwise the page is asked every 50 ms until a document
//!   without the mark has `readyState` complete. The mark is needed because the old
//!   document is still there, and complete, right after the call; a page between
//!   documents that does not answer counts as not loaded yet.
//! - `move_in_history` reads `Page.getNavigationHistory` and goes to the entry before
//!   or after the current one with `Page.navigateToHistoryEntry`, or calls
//!   `Page.reload`, then waits the same way. With no such entry: `there is no page to
//!   go back to in this tab`.
//! - A browser just started on an address waits until its first tab is complete and
//!   not on `about:blank` (`wait_loaded`).
//! - `navigate_browser` drives the tab of the window `app` and `window` name, else the
//!   tab the first live browser's window shows (its active window first), else the
//!   first Firefox or Chromium window on screen through its UI (below), else starts the
//!   browser `browser` names (Chromium by default) on `url`. A new tab is
//!   `Target.createTarget` on `about:blank`, navigated, then `Target.activateTarget`.
//!   Then `window_showing` reads the desktop every 100 ms until a window of that
//!   browser whose title starts with the page's title has a first drawn `Document`
//!   named like the title and with children. `timeout_ms` (20 s by default) bounds the
//!   load, and what is left of it bounds the wait for the tree.
//! - `open_application` with a Chromium program (`what_to_launch`, `launch_browser`) starts it through
//!   `Browsers::launch` and waits, on events with a 250 ms floor and up to
//!   `timeout_ms`, until its window's tree no longer needs the hidden-page note.
//!
//! **Through the browser's own UI** (`browsing/chrome.rs`, `browsing/through_chrome.rs`).
//! A window whose app is a browser (`Kind`: toolkit Gecko, or a name like Chromium)
//! that axsight reaches over no protocol is driven as a person would, with the
//! session's own `type_into` and `press_key`, so focusing, clearing, typing, reading
//! back and key delivery are the ones every typing call uses. `address_bar` finds
//! Firefox's by its id (`urlbar-input`), else the first drawn editable `Edit` or
//! `ComboBox` with a `ToolBar` ancestor and no `Document` one (Chromium's omnibox,
//! Firefox in any locale); it is given a handle and typed `URL{Delete}{Enter}`
//! (Delete drops an autocompleted tail). History is `alt+Left`, `alt+Right` and `F5`
//! pressed in the page document; a disabled Back or Forward button (`history_button`:
//! by id, else by name in a tool bar) is `there is no page to go … to` before any key.
//! `new_tab` is `ctrl+t`, then a wait for the new tab's document. Then the window is
//! read every 100 ms until `PageState::is_new_since`: its first drawn document is
//! another object or at another address, not `busy`, with children. The answer names
//! the way and the reason (`Kind::without_protocol`); `include_dom` there gives one line
//! saying why there is no section, as for any window without a protocol page.
//! `execute_browser_script` refuses such a window with the same reason.
//!
//! # Scripts
//!
//! **Scripts** (`execute_browser_script`). `Runtime.evaluate` with `returnByValue` and
//! `awaitPromise`; an exception fails with its first line. Off unless the server was
//! started with `--allow-browser-script` (`BrowserSetup::allow_scripts`): a script can
//! read anything on the page, passwords included.

mod chrome;
mod through_chrome;

pub(crate) use chrome::Kind;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axsight_browser::{find_chromium, find_firefox, is_firefox, Browser, HistoryMove, Page};
use axsight_core::{Engine, WindowQuery, WindowSnapshot};

use crate::browsers::{browser_error, page_document};
use crate::session::Session;
use crate::ToolError;
use through_chrome::ChromeWindow;

/// How often the desktop is read while a new page settles into the tree.
const TREE_POLL: Duration = Duration::from_millis(100);

/// What a call drives.
enum Driven {
    /// A tab of a browser axsight speaks a protocol to.
    Protocol(Arc<Browser>, Page),
    /// A browser window reached only through its own UI.
    Chrome(ChromeWindow),
    /// No browser at all.
    Nothing,
}

/// What `navigate_browser` asks for.
#[derive(Debug, Clone, Default)]
pub struct NavigateRequest {
    /// The address to open (needed unless moving through history).
    pub url: Option<String>,
    /// Open it in a new tab.
    pub new_tab: bool,
    /// Go back, forward or reload instead.
    pub history: Option<HistoryMove>,
    /// The browser program to start when none runs (default: Chromium).
    pub browser: Option<String>,
    /// Which browser window (default: the first browser axsight can drive).
    pub app: Option<String>,
    pub window: Option<String>,
    /// Add the page's `dom` section to the answer.
    pub include_dom: bool,
    pub timeout: Duration,
}

/// The names browsers go by on the accessibility bus.
const BROWSER_APPS: &[&str] = &["Chromium", "Google Chrome", "Firefox", "Firefox ESR"];

impl<E: Engine> Session<E> {
    /// Refuses the browser tools under a scope that names no browser: they
    /// reach pages over DevTools or BiDi, not through the desktop's windows
    /// the scope keeps to.
    fn browsers_in_scope(&self) -> Result<(), ToolError> {
        match &self.policy.scope {
            Some(scope) if !BROWSER_APPS.iter().any(|browser| scope.holds(browser)) => {
                Err(ToolError::NotAllowed(format!(
                    "this server shows only {} (serve --scope), no browser",
                    scope.listed()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Opens a page (or moves through history) and answers with the window's
    /// tree once the page shows in it.
    pub async fn navigate(&self, request: &NavigateRequest) -> Result<String, ToolError> {
        let navigated = self.do_navigate(request).await;
        if navigated.is_ok() {
            // A browser it started is the agent's doing, not news for later.
            self.note_desktop().await;
        }
        self.recover(navigated).await
    }

    async fn do_navigate(&self, request: &NavigateRequest) -> Result<String, ToolError> {
        self.browsers_in_scope()?;
        let start = Instant::now();
        let url = request
            .url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty());
        match (url, request.history) {
            (None, None) => {
                return Err(ToolError::BadArguments(
                    "give `url`, or `action`: \"back\", \"forward\" or \"reload\"".into(),
                ))
            }
            (Some(_), Some(_)) => {
                return Err(ToolError::BadArguments(
                    "give `url` or `action`, not both".into(),
                ))
            }
            _ => {}
        }
        let engine = self.engine().await?;
        let (browser, page, opened) = match self.driven(&engine, request).await? {
            Driven::Protocol(browser, page) => (browser, page, false),
            Driven::Chrome(window) => {
                return self
                    .navigate_through_chrome(&engine, window, request, url, start)
                    .await
            }
            Driven::Nothing => {
                let Some(url) = url else {
                    return Err(ToolError::CannotAct(
                        "no browser to move through the history of: open a page first".into(),
                    ));
                };
                let browser = self
                    .start_browser(&engine, request.browser.as_deref(), url)
                    .await?;
                let target = browser.pages().await.map_err(browser_error)?;
                let target = target.first().ok_or_else(|| {
                    ToolError::CannotAct("the browser started without a page".into())
                })?;
                let page = browser.page(&target.target).await.map_err(browser_error)?;
                page.wait_loaded(request.timeout)
                    .await
                    .map_err(browser_error)?;
                (browser, page, true)
            }
        };
        let page = if opened {
            page
        } else if request.new_tab {
            let url = url.unwrap_or("about:blank");
            let target = browser
                .open_tab("about:blank")
                .await
                .map_err(browser_error)?;
            let page = browser.page(&target).await.map_err(browser_error)?;
            page.navigate(url, request.timeout)
                .await
                .map_err(browser_error)?;
            browser.activate(&target).await.map_err(browser_error)?;
            page
        } else {
            match (url, request.history) {
                (Some(url), _) => page.navigate(url, request.timeout).await,
                (None, Some(to)) => page.move_in_history(to, request.timeout).await,
                (None, None) => unreachable!("checked above"),
            }
            .map_err(browser_error)?;
            page
        };
        let title = page
            .evaluate("document.title")
            .await
            .map_err(browser_error)?
            .as_str()
            .unwrap_or_default()
            .to_string();
        let remaining = request.timeout.saturating_sub(start.elapsed());
        let snapshot = self
            .window_showing(&engine, &browser, &title, remaining)
            .await?;
        let href = page
            .evaluate("location.href")
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mut out = format!(
            "{} {href} ({:?}) in '{}' after {} ms\n",
            match (opened, request.new_tab, request.history) {
                (true, _, _) => "started the browser on",
                (_, true, _) => "opened a new tab on",
                (_, _, Some(HistoryMove::Back)) => "went back to",
                (_, _, Some(HistoryMove::Forward)) => "went forward to",
                (_, _, Some(HistoryMove::Reload)) => "reloaded",
                _ => "opened",
            },
            title,
            snapshot.title,
            start.elapsed().as_millis()
        );
        out.push_str(&self.tree_text(&snapshot, snapshot.tree.root(), None));
        if request.include_dom {
            out.push_str(&self.dom_section(&snapshot).await?);
        }
        Ok(out)
    }

    /// What a call drives: the window named by `app`/`window` (over a
    /// protocol where axsight has one to its browser, else through its UI);
    /// else the first tab of a browser axsight speaks a protocol to; else a
    /// browser window on screen (of the kind `browser` names), through its UI.
    async fn driven(&self, engine: &E, request: &NavigateRequest) -> Result<Driven, ToolError> {
        if request.app.is_some() || request.window.is_some() {
            let snapshot = self
                .named_window(engine, request.app.as_deref(), request.window.as_deref())
                .await?;
            if let Some((browser, page)) = self.browsers.page_of(&snapshot, engine).await? {
                return Ok(Driven::Protocol(browser, page));
            }
            let (title, app) = (snapshot.title.clone(), snapshot.app.clone());
            return match self.chrome_window(engine, snapshot).await? {
                Some(window) => Ok(Driven::Chrome(window)),
                None => Err(ToolError::CannotAct(format!(
                    "'{title}' ({app}) is not a browser window axsight can drive: name a \
                     Firefox or Chromium window, or open pages with navigate_browser"
                ))),
            };
        }
        for browser in self.browsers.live(engine).await? {
            if let Some(shown) = self.front_page(engine, &browser).await? {
                return Ok(Driven::Protocol(browser, shown));
            }
            let pages = browser.pages().await.map_err(browser_error)?;
            if let Some(first) = pages.first() {
                let page = browser.page(&first.target).await.map_err(browser_error)?;
                return Ok(Driven::Protocol(browser, page));
            }
        }
        // A browser on screen of the kind `browser` names, if it names one.
        let wanted = request.browser.as_deref().and_then(Kind::named);
        Ok(match self.chrome_on_screen(engine, wanted).await? {
            Some(window) => Driven::Chrome(window),
            None => Driven::Nothing,
        })
    }

    /// The tab a started browser's window shows (its active window first),
    /// if one of its windows is on screen.
    async fn front_page(&self, engine: &E, browser: &Browser) -> Result<Option<Page>, ToolError> {
        let Some(pid) = browser.pid() else {
            return Ok(None);
        };
        let apps = engine.applications().await.map_err(ToolError::engine)?;
        let mut windows: Vec<_> = apps
            .iter()
            .filter(|a| a.pid == Some(pid))
            .flat_map(|a| a.windows.iter())
            .collect();
        windows.sort_by_key(|w| !w.is_active());
        for window in windows {
            let query = WindowQuery {
                window_id: Some(window.id.clone()),
                ..WindowQuery::default()
            };
            let Ok(snapshot) = engine
                .window_tree(&query, self.read_options(false, false))
                .await
            else {
                continue;
            };
            if let Some((_, page)) = self.browsers.page_of(&snapshot, engine).await? {
                return Ok(Some(page));
            }
        }
        Ok(None)
    }

    async fn start_browser(
        &self,
        engine: &E,
        program: Option<&str>,
        url: &str,
    ) -> Result<Arc<Browser>, ToolError> {
        let path = match program {
            Some(program) if program.contains('/') => std::path::PathBuf::from(program),
            Some(program) if is_firefox(program) => find_firefox().ok_or_else(|| {
                ToolError::CannotAct(
                    "no Firefox found (firefox-esr or firefox on PATH): install it, or give \
                     `browser` a path"
                        .into(),
                )
            })?,
            Some(program) if !axsight_browser::is_chromium(program) => {
                return Err(ToolError::BadArguments(format!(
                    "`browser` {program:?} is neither Chromium nor Firefox; give chromium, \
                     firefox or a path"
                )))
            }
            _ => find_chromium().ok_or_else(|| {
                ToolError::CannotAct(
                    "no Chromium found (/usr/lib/chromium/chromium, or chromium or google-chrome \
                     on PATH): install it, or give `browser` a path"
                        .into(),
                )
            })?,
        };
        self.browsers.launch(&path, &[], Some(url), engine).await
    }

    /// Waits until a window of `browser` shows the page titled `title` in
    /// its tree, and reads it.
    async fn window_showing(
        &self,
        engine: &E,
        browser: &Browser,
        title: &str,
        within: Duration,
    ) -> Result<WindowSnapshot, ToolError> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(snapshot) = self.browser_window(engine, browser, title).await? {
                return Ok(snapshot);
            }
            if Instant::now() >= deadline {
                return Err(ToolError::TimedOut(format!(
                    "the page {title:?} loaded, but no browser window showed it in the \
                     accessibility tree within {} ms (is IsEnabled on? `axsight doctor`)",
                    within.as_millis()
                )));
            }
            tokio::time::sleep(TREE_POLL).await;
        }
    }

    /// The window of `browser` whose page document is named `title`, read.
    async fn browser_window(
        &self,
        engine: &E,
        browser: &Browser,
        title: &str,
    ) -> Result<Option<WindowSnapshot>, ToolError> {
        let apps = engine.applications().await.map_err(ToolError::engine)?;
        let windows: Vec<_> = apps
            .iter()
            .filter(|a| browser.pid().is_none() || a.pid == browser.pid())
            .flat_map(|a| a.windows.iter())
            .filter(|w| title.is_empty() || w.title.starts_with(title))
            .collect();
        for window in windows {
            let query = WindowQuery {
                window_id: Some(window.id.clone()),
                ..WindowQuery::default()
            };
            let Ok(snapshot) = engine
                .window_tree(&query, self.read_options(false, false))
                .await
            else {
                continue;
            };
            let shows = page_document(&snapshot.tree).is_some_and(|d| {
                let document = snapshot.tree.element(d);
                document.name == title && !snapshot.tree.node(d).children.is_empty()
            });
            if shows {
                self.remember(&snapshot);
                return Ok(Some(snapshot));
            }
        }
        Ok(None)
    }

    /// `execute_browser_script`: runs `script` in the page the window shows
    /// and answers with its value as JSON — only when the server was started
    /// with `--allow-browser-script`.
    pub async fn run_browser_script(
        &self,
        script: &str,
        app: Option<&str>,
        window: Option<&str>,
    ) -> Result<String, ToolError> {
        if !self.browsers.setup.allow_scripts {
            return Err(ToolError::CannotAct(
                "execute_browser_script is off: a script can read anything on the page, \
                 passwords included, so the server runs scripts only when started with \
                 --allow-browser-script"
                    .into(),
            ));
        }
        self.browsers_in_scope()?;
        let engine = self.engine().await?;
        let request = NavigateRequest {
            app: app.map(str::to_string),
            window: window.map(str::to_string),
            ..NavigateRequest::default()
        };
        let page = match self.driven(&engine, &request).await? {
            Driven::Protocol(_, page) => page,
            Driven::Chrome(window) => {
                return Err(ToolError::CannotAct(format!(
                    "scripts run only in browsers axsight reaches over a protocol: {}",
                    window.kind.without_protocol()
                )))
            }
            Driven::Nothing => {
                return Err(ToolError::CannotAct(
                    "no browser axsight can drive runs".into(),
                ))
            }
        };
        let value = page.evaluate(script).await.map_err(browser_error)?;
        Ok(format!("{value}\n"))
    }
}
