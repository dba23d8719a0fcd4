//! The browsers a session can see into through a protocol: those it started
//! (Chromium, or an Electron app, with the page tree and a loopback DevTools
//! endpoint on; Firefox with its WebDriver BiDi endpoint) and one it attaches
//! to (`--browser-url`). It finds which browser and which tab a window of the
//! accessibility tree shows.
//!
//! # A window without its page
//!
//! **A window without its page** (`hidden_page_note`). A titled window of an app named
//! like Chromium or Electron (`chrom`, `electron`) whose tree has no drawn `Document`
//! with children gets a line saying to relaunch with `--force-renderer-accessibility`
//! or to use `open_application` or `navigate_browser`. Untitled windows are Chromium's
//! popups and never hold a page. Measured here with Chromium 156: while `IsEnabled` is
//! true, the page's content is in the tree even without
//! `--force-renderer-accessibility`, and even with `--disable-renderer-accessibility`.
//! The note could not be produced with Chromium, so it is tested on plain data.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use axsight_browser::{is_chromium, Browser, BrowserError, Page};
use axsight_core::{visible_box, ChangeWitness, Engine, Role, Tree, WindowSnapshot};

use crate::ToolError;

/// How a session reaches browsers.
#[derive(Debug, Clone, Default)]
pub struct BrowserSetup {
    /// A running browser's DevTools endpoint to attach to
    /// (`http://127.0.0.1:9222`, or its `ws://` address).
    pub attach_url: Option<String>,
    /// Whether `execute_browser_script` may run scripts in pages.
    pub allow_scripts: bool,
}

/// The session's browsers.
#[derive(Debug, Default)]
pub(crate) struct Browsers {
    pub setup: BrowserSetup,
    open: tokio::sync::Mutex<Vec<Arc<Browser>>>,
    read_attach: std::sync::Mutex<ReadAttach>,
}

/// Tree reads' attaching to the configured browser.
#[derive(Debug, Default)]
struct ReadAttach {
    /// When a read last started an attach.
    started: Option<std::time::Instant>,
    /// An attach a read stopped waiting for: it goes on, and the next read or
    /// browser tool takes it up, so that a browser slow to answer (a loaded
    /// machine) is still attached to rather than asked again from the start.
    pending: Option<tokio::task::JoinHandle<Result<Browser, BrowserError>>>,
}

/// How often tree reads start an attach to a configured browser that is not
/// attached yet (each try costs a connection attempt).
const READ_ATTACH_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How long a tree read waits for such an attach (which goes on after).
pub const READ_ATTACH_DEADLINE: std::time::Duration = std::time::Duration::from_millis(300);

impl Browsers {
    pub fn new(setup: BrowserSetup) -> Browsers {
        Browsers {
            setup,
            open: tokio::sync::Mutex::default(),
            read_attach: std::sync::Mutex::default(),
        }
    }

    /// Attaches to the configured browser for a tree read, so that its windows
    /// are vouched for (and read from memory while nothing changed) without a
    /// browser tool having been called first. An attach is started at most
    /// every [`READ_ATTACH_EVERY`] while none is attached, and a read waits for
    /// it only [`READ_ATTACH_DEADLINE`]: an endpoint slow to answer must not
    /// hold up the tree, and its attach goes on for the next read to take up.
    /// Failing is not an error: the window is then read whole.
    pub async fn attach_for_reads<E: Engine>(&self, engine: &E) {
        let Some(url) = &self.setup.attach_url else {
            return;
        };
        if holds_attached(&self.open.lock().await) {
            return;
        }
        let mut attach = {
            let mut state = self.read_attach_state();
            match state.pending.take() {
                Some(pending) => pending,
                None => {
                    if state
                        .started
                        .is_some_and(|at| at.elapsed() < READ_ATTACH_EVERY)
                    {
                        return;
                    }
                    state.started = Some(std::time::Instant::now());
                    let url = url.clone();
                    tokio::spawn(async move { Browser::attach(&url).await })
                }
            }
        };
        match tokio::time::timeout(READ_ATTACH_DEADLINE, &mut attach).await {
            Ok(Ok(Ok(browser))) => self.adopt(&mut *self.open.lock().await, browser, engine),
            Ok(Ok(Err(error))) => {
                tracing::debug!(%error, "the configured browser could not be attached to for a read")
            }
            Ok(Err(error)) => tracing::debug!(%error, "attaching for a read ended abnormally"),
            Err(_) => {
                tracing::debug!("the configured browser did not answer in time for a read");
                self.read_attach_state().pending = Some(attach);
            }
        }
    }

    fn read_attach_state(&self) -> std::sync::MutexGuard<'_, ReadAttach> {
        self.read_attach.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `attached` among `open` (unless another attach got there first),
    /// vouching to `engine` for its windows when it runs on this machine.
    fn adopt<E: Engine>(&self, open: &mut Vec<Arc<Browser>>, attached: Browser, engine: &E) {
        if holds_attached(open) {
            return;
        }
        let attached = Arc::new(attached);
        if let Some(pid) = attached.process_id() {
            engine.add_witness(pid, Arc::new(PageWitness(Arc::downgrade(&attached))));
        }
        open.push(attached);
    }

    /// Starts `program` (a Chromium, an Electron app or Firefox) with `args` in
    /// `engine`'s desktop, seeing into its pages from now on; the browser vouches
    /// to the engine for its windows (see [`PageWitness`]).
    pub async fn launch<E: Engine>(
        &self,
        program: &std::path::Path,
        args: &[String],
        url: Option<&str>,
        engine: &E,
    ) -> Result<Arc<Browser>, ToolError> {
        let browser = Browser::launch(program, args, url, &engine.app_environment())
            .await
            .map_err(browser_error)?;
        let browser = Arc::new(browser);
        if let Some(pid) = browser.pid() {
            engine.add_witness(pid, Arc::new(PageWitness(Arc::downgrade(&browser))));
        }
        self.open.lock().await.push(browser.clone());
        Ok(browser)
    }

    /// The browsers that still answer, attaching to the configured endpoint
    /// on first use (a failed attach is tried again next time). A browser
    /// attached to on this machine vouches to `engine` for its windows, as one
    /// axsight started does.
    pub async fn live<E: Engine>(&self, engine: &E) -> Result<Vec<Arc<Browser>>, ToolError> {
        let mut open = self.open.lock().await;
        let mut alive = Vec::with_capacity(open.len());
        for browser in open.drain(..) {
            if browser.alive().await {
                alive.push(browser);
            }
        }
        *open = alive;
        if let Some(url) = &self.setup.attach_url {
            if !holds_attached(&open) {
                let pending = self.read_attach_state().pending.take();
                let attached = match pending {
                    Some(pending) => pending.await.map_err(|error| {
                        ToolError::CannotAct(format!(
                            "attaching to the browser at {url} ended abnormally: {error}"
                        ))
                    })?,
                    None => Browser::attach(url).await,
                };
                self.adopt(&mut open, attached.map_err(browser_error)?, engine);
            }
        }
        Ok(open.clone())
    }

    /// The browser and tab the window `snapshot` shows: a browser axsight
    /// started by its process, else an attached one; the tab whose title the
    /// window's title starts with (windows are titled "PAGE - Chromium",
    /// "PAGE — Mozilla Firefox").
    pub async fn page_of<E: Engine>(
        &self,
        snapshot: &WindowSnapshot,
        engine: &E,
    ) -> Result<Option<(Arc<Browser>, Page)>, ToolError> {
        let browsers = self.live(engine).await?;
        let mut candidates: Vec<&Arc<Browser>> = browsers
            .iter()
            .filter(|b| b.pid().is_some() && b.pid() == snapshot.pid)
            .collect();
        if candidates.is_empty() {
            candidates = browsers.iter().filter(|b| b.pid().is_none()).collect();
        }
        for browser in candidates {
            let pages = browser.pages().await.map_err(browser_error)?;
            let shown = pages
                .iter()
                .filter(|p| !p.title.is_empty() && snapshot.title.starts_with(&p.title))
                .max_by_key(|p| p.title.len())
                .or_else(|| (pages.len() == 1).then(|| &pages[0]));
            if let Some(info) = shown {
                let page = browser.page(&info.target).await.map_err(browser_error)?;
                return Ok(Some((browser.clone(), page)));
            }
        }
        Ok(None)
    }
}

/// Whether `open` holds a browser attached to (one axsight did not start).
fn holds_attached(open: &[Arc<Browser>]) -> bool {
    open.iter().any(|b| b.pid().is_none())
}

/// A browser's pages, witnessing what its accessibility tree does not announce
/// (zoom, tab swaps, layout moves): see [`Browser::change_mark`]. Weak, so that a
/// browser the session let go still ends.
struct PageWitness(Weak<Browser>);

impl ChangeWitness for PageWitness {
    fn mark(&self) -> Pin<Box<dyn Future<Output = Option<String>> + Send + '_>> {
        Box::pin(async move { self.0.upgrade()?.change_mark().await })
    }
}

/// A browser's failure, worded for the agent.
pub(crate) fn browser_error(error: BrowserError) -> ToolError {
    ToolError::CannotAct(error.to_string())
}

/// Whether an app of this name is a Chromium-based browser or an Electron app
/// (whose windows hide their page until accessibility is forced on).
pub(crate) fn is_chromium_app(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    is_chromium(&name) || name.contains("chrom") || name.contains("electron")
}

/// The top page document of a Chromium window's tree, if the page is shown:
/// the first drawn one (a window keeps its other tabs' documents, hidden).
pub(crate) fn page_document(tree: &Tree) -> Option<axsight_core::NodeId> {
    tree.ids().find(|&n| {
        tree.element(n).role == Role::Document && visible_box(tree, n).is_some_and(|b| b.has_area())
    })
}

/// What to tell the agent about a Chromium or Electron window whose page is
/// not in the tree, or `None` when the page is there (or it is another app).
pub(crate) fn hidden_page_note(snapshot: &WindowSnapshot) -> Option<String> {
    // Chromium's popups (menus, bubbles) are untitled and never hold a page.
    if !is_chromium_app(&snapshot.app) || snapshot.title.trim().is_empty() {
        return None;
    }
    let tree = &snapshot.tree;
    let has_page = page_document(tree).is_some_and(|d| !tree.node(d).children.is_empty());
    if has_page {
        return None;
    }
    Some(format!(
        "[no page content: {} shows its web page in the accessibility tree only with renderer \
         accessibility on; relaunch it with --force-renderer-accessibility (and without \
         --disable-renderer-accessibility), or open it with open_application or \
         navigate_browser, which add the flag]\n",
        snapshot.app
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Bounds, Element, State};

    fn snapshot(app: &str, page: Option<bool>) -> WindowSnapshot {
        let shown = |mut e: Element, b: Bounds| {
            e.bounds = Some(b);
            e.states = [State::Showing, State::Visible].into_iter().collect();
            e
        };
        let frame = Bounds {
            x: 0,
            y: 0,
            width: 800,
            height: 600,
        };
        let mut tree = Tree::new(shown(Element::new("w", Role::Window, "frame"), frame));
        let toolbar = tree.push(
            tree.root(),
            shown(Element::new("t", Role::ToolBar, "tool bar"), frame),
        );
        tree.push(
            toolbar,
            shown(Element::new("b", Role::Button, "push button"), frame),
        );
        if let Some(content) = page {
            let document = tree.push(
                tree.root(),
                shown(Element::new("d", Role::Document, "document web"), frame),
            );
            if content {
                tree.push(
                    document,
                    shown(Element::new("go", Role::Button, "push button"), frame),
                );
            }
        }
        WindowSnapshot {
            app: app.into(),
            pid: Some(1),
            title: "Page - Chromium".into(),
            tree,
            gaps: Vec::new(),
            read: None,
            accessible: true,
            unplaced: false,
        }
    }

    #[test]
    fn a_browser_window_without_its_page_says_how_to_show_it() {
        let note = hidden_page_note(&snapshot("Chromium", None)).unwrap();
        assert!(note.contains("--force-renderer-accessibility"), "{note}");
        assert!(hidden_page_note(&snapshot("Chromium", Some(false))).is_some());
        assert!(hidden_page_note(&snapshot("Chromium", Some(true))).is_none());
        // Other apps, and Chromium's untitled popups, get no note.
        assert!(hidden_page_note(&snapshot("gedit", None)).is_none());
        let mut popup = snapshot("Chromium", None);
        popup.title = String::new();
        assert!(hidden_page_note(&popup).is_none());
    }
}
