//! `navigate_browser` for a browser axsight has no protocol connection to (a
//! Firefox or Chromium the user started): the address bar is filled and Enter
//! pressed, or the history keys pressed, with the session's own typing and key
//! tools, then the window is read until it shows a new page.

use std::time::{Duration, Instant};

use axsight_browser::HistoryMove;
use axsight_core::{Engine, NodeId, WindowQuery, WindowSnapshot};

use super::chrome::{address_bar, history_button, history_keys, Kind, PageState};
use super::{NavigateRequest, TREE_POLL};
use crate::acting::ActOptions;
use crate::session::Session;
use crate::target::Target;
use crate::ToolError;

/// A browser window driven through its own UI.
pub(crate) struct ChromeWindow {
    pub snapshot: WindowSnapshot,
    pub kind: Kind,
}

impl<E: Engine> Session<E> {
    /// The window's browser, when it is one whose UI axsight can drive.
    pub(super) async fn chrome_window(
        &self,
        engine: &E,
        snapshot: WindowSnapshot,
    ) -> Result<Option<ChromeWindow>, ToolError> {
        let apps = engine.applications().await.map_err(ToolError::engine)?;
        let kind = apps
            .iter()
            .find(|a| a.pid.is_some() && a.pid == snapshot.pid)
            .and_then(Kind::of);
        Ok(kind
            .filter(|_| address_bar(&snapshot.tree).is_some())
            .map(|kind| ChromeWindow { snapshot, kind }))
    }

    /// The first browser window on screen whose UI axsight can drive, of
    /// kind `wanted` when given: the active one first.
    pub(super) async fn chrome_on_screen(
        &self,
        engine: &E,
        wanted: Option<Kind>,
    ) -> Result<Option<ChromeWindow>, ToolError> {
        let apps = engine.applications().await.map_err(ToolError::engine)?;
        let mut windows: Vec<_> = apps
            .iter()
            .filter_map(|a| Some((a, Kind::of(a)?)))
            .filter(|(_, kind)| wanted.is_none_or(|w| w == *kind))
            .flat_map(|(a, kind)| a.windows.iter().map(move |w| (w, kind)))
            .collect();
        windows.sort_by_key(|(w, _)| !w.is_active());
        for (window, kind) in windows {
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
            if address_bar(&snapshot.tree).is_some() {
                return Ok(Some(ChromeWindow { snapshot, kind }));
            }
        }
        Ok(None)
    }

    /// Opens `request`'s address, or moves through the history, in the tab
    /// the window shows, through the browser's own UI; answers once the new
    /// page is in the window's tree.
    pub(super) async fn navigate_through_chrome(
        &self,
        engine: &E,
        shown: ChromeWindow,
        request: &NavigateRequest,
        url: Option<&str>,
        start: Instant,
    ) -> Result<String, ToolError> {
        let deadline = start + request.timeout;
        let ChromeWindow { mut snapshot, kind } = shown;
        self.remember(&snapshot);
        let quiet = ActOptions {
            diff: false,
            timeout: request.timeout.min(ActOptions::default().timeout),
            ..ActOptions::default()
        };
        let (verb, how) = match (url, request.history) {
            (Some(url), _) => {
                if request.new_tab {
                    let before = PageState::of(&snapshot.tree);
                    let page = self.focus_target(&snapshot, address_bar(&snapshot.tree));
                    self.press_key("ctrl+t", Some(&page), &quiet).await?;
                    snapshot = self
                        .wait_for_page(engine, &snapshot, deadline, |tree| {
                            let now = PageState::of(tree);
                            now.is_some() && now != before && address_bar(tree).is_some()
                        })
                        .await?;
                }
                let bar = address_bar(&snapshot.tree).ok_or_else(|| {
                    ToolError::CannotAct(format!(
                        "'{}' shows no address bar to type into",
                        snapshot.title
                    ))
                })?;
                let before = PageState::of(&snapshot.tree);
                // Delete drops what the bar may have completed after the address.
                let typed = format!("{url}{{Delete}}{{Enter}}");
                self.type_into(Some(&self.target_of(&snapshot, bar)), &typed, true, &quiet)
                    .await?;
                snapshot = self
                    .wait_for_page(engine, &snapshot, deadline, |tree| {
                        PageState::of(tree).is_some_and(|now| now.is_new_since(before.as_ref()))
                    })
                    .await?;
                let verb = if request.new_tab {
                    "opened a new tab on"
                } else {
                    "opened"
                };
                (verb, "through the browser's address bar".to_string())
            }
            (None, Some(to)) => {
                let button = history_button(&snapshot.tree, to)
                    .map(|n| snapshot.tree.element(n).states.is_enabled());
                if button == Some(false) {
                    return Err(ToolError::CannotAct(match to {
                        HistoryMove::Back => "there is no page to go back to in this tab".into(),
                        _ => "there is no page to go forward to in this tab".into(),
                    }));
                }
                let before = PageState::of(&snapshot.tree);
                let document = crate::browsers::page_document(&snapshot.tree);
                let page = self.focus_target(&snapshot, document.or(address_bar(&snapshot.tree)));
                let keys = history_keys(to);
                self.press_key(keys, Some(&page), &quiet).await?;
                snapshot = self
                    .wait_for_page(engine, &snapshot, deadline, |tree| {
                        PageState::of(tree).is_some_and(|now| now.is_new_since(before.as_ref()))
                    })
                    .await?;
                let verb = match to {
                    HistoryMove::Back => "went back to",
                    HistoryMove::Forward => "went forward to",
                    HistoryMove::Reload => "reloaded",
                };
                (verb, format!("with {keys}"))
            }
            (None, None) => {
                return Err(ToolError::BadArguments(
                    "give `url`, or `action`: \"back\", \"forward\" or \"reload\"".into(),
                ))
            }
        };
        let page = PageState::of(&snapshot.tree);
        // Chromium gives its document no address: its address bar shows it.
        let url = page
            .as_ref()
            .and_then(|p| p.url.clone())
            .or_else(|| {
                address_bar(&snapshot.tree).and_then(|n| snapshot.tree.element(n).value.clone())
            })
            .unwrap_or_default();
        let mut out = format!(
            "{verb} {url} ({:?}) in '{}' {how} after {} ms: {}\n",
            page.as_ref().map(|p| p.title.as_str()).unwrap_or(""),
            snapshot.title,
            start.elapsed().as_millis(),
            kind.without_protocol(),
        );
        out.push_str(&self.tree_text(&snapshot, snapshot.tree.root(), None));
        if request.include_dom {
            out.push_str(&self.dom_section(&snapshot).await?);
        }
        Ok(out)
    }

    /// A target for the element `node` of `snapshot` (a handle, as if printed).
    fn target_of(&self, snapshot: &WindowSnapshot, node: NodeId) -> Target {
        let element = snapshot.tree.element(node);
        let handle = self
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .assign(&element.id, element.role, &element.name);
        Target::Handle(handle.to_string())
    }

    /// Where keys for the whole tab go: `node` when there is one, else the
    /// window itself.
    fn focus_target(&self, snapshot: &WindowSnapshot, node: Option<NodeId>) -> Target {
        self.target_of(snapshot, node.unwrap_or(snapshot.tree.root()))
    }

    /// Reads the window every [`TREE_POLL`] until `shows` holds for its tree,
    /// or fails at `deadline`.
    async fn wait_for_page(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
        deadline: Instant,
        shows: impl Fn(&axsight_core::Tree) -> bool,
    ) -> Result<WindowSnapshot, ToolError> {
        let query = WindowQuery {
            window_id: Some(snapshot.window_id()),
            ..WindowQuery::default()
        };
        loop {
            let now = engine
                .window_tree(&query, self.read_options(false, false))
                .await
                .map_err(ToolError::engine)?;
            if shows(&now.tree) {
                self.remember(&now);
                return Ok(now);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ToolError::TimedOut(format!(
                    "the keys went to '{}', but no new page showed in its accessibility tree \
                     in time (raise timeout_ms if the page is slow)",
                    snapshot.title
                )));
            }
            tokio::time::sleep(TREE_POLL.min(left).max(Duration::from_millis(1))).await;
        }
    }
}
