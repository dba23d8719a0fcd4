//! One page (tab) of a browser, through a flat DevTools session or a BiDi
//! browsing context: running scripts, navigating, and waiting until a new
//! document has loaded. What is asked of a page (marks, load checks, the DOM
//! scripts) is the same in both protocols; only how it is sent differs.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cdp::Connection;
use crate::{bidi, BrowserError};

/// How long one protocol call may take.
pub(crate) const CALL_DEADLINE: Duration = Duration::from_secs(10);

/// How often a page is asked whether it has loaded.
const LOAD_POLL: Duration = Duration::from_millis(50);

/// A page target the connection is attached to.
#[derive(Debug, Clone)]
pub struct Page {
    pub(crate) connection: Connection,
    /// The DevTools target id, or the BiDi browsing context id.
    pub(crate) target: String,
    pub(crate) protocol: PageTarget,
}

/// How a page is addressed in its browser's protocol.
#[derive(Debug, Clone)]
pub(crate) enum PageTarget {
    /// A flat DevTools session attached to the target.
    DevTools { session: String },
    /// A BiDi browsing context: the target id is the context.
    Bidi,
}

/// A move through the page's history, or a reload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryMove {
    Back,
    Forward,
    Reload,
}

impl Page {
    /// The target's id (stable for the tab's life).
    pub fn target_id(&self) -> &str {
        &self.target
    }

    /// Calls a DevTools method in the page's session.
    async fn call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        let session = match &self.protocol {
            PageTarget::DevTools { session } => Some(session.as_str()),
            PageTarget::Bidi => None,
        };
        self.connection
            .call(method, params, session, CALL_DEADLINE)
            .await
    }

    /// Runs `expression` in the page and returns its value (promises awaited).
    pub async fn evaluate(&self, expression: &str) -> Result<Value, BrowserError> {
        if let PageTarget::Bidi = self.protocol {
            return bidi::evaluate(&self.connection, &self.target, expression, CALL_DEADLINE).await;
        }
        let result = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await?;
        if let Some(details) = result.get("exceptionDetails") {
            let text = details["exception"]["description"]
                .as_str()
                .or_else(|| details["text"].as_str())
                .unwrap_or("an exception");
            return Err(BrowserError::Script(
                text.lines().next().unwrap_or(text).to_string(),
            ));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Calls the JavaScript function `source` with `arguments` (a JSON array).
    pub(crate) async fn call_function(
        &self,
        source: &str,
        arguments: Value,
    ) -> Result<Value, BrowserError> {
        let list = arguments
            .as_array()
            .map(|a| {
                a.iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        self.evaluate(&format!(
            "({})({list})",
            source.trim().trim_end_matches(';')
        ))
        .await
    }

    /// Opens `url` in this page and waits until the new document has loaded.
    pub async fn navigate(&self, url: &str, deadline: Duration) -> Result<(), BrowserError> {
        if let PageTarget::Bidi = self.protocol {
            // BiDi waits for the new document itself.
            return bidi::navigate(&self.connection, &self.target, url, deadline).await;
        }
        let mark = self.mark().await?;
        let result = self.call("Page.navigate", json!({ "url": url })).await?;
        if let Some(error) = result["errorText"].as_str().filter(|e| !e.is_empty()) {
            return Err(BrowserError::Navigation {
                url: url.to_string(),
                why: error.to_string(),
            });
        }
        // No loader: a move within the same document (a #fragment).
        if result.get("loaderId").is_none_or(Value::is_null) {
            return Ok(());
        }
        self.wait_for_new_document(&mark, deadline).await
    }

    /// Goes back or forward in the page's history, or reloads it, and waits
    /// for the document to load.
    pub async fn move_in_history(
        &self,
        to: HistoryMove,
        deadline: Duration,
    ) -> Result<(), BrowserError> {
        if let PageTarget::Bidi = self.protocol {
            return self.move_in_bidi_history(to, deadline).await;
        }
        let mark = self.mark().await?;
        if to == HistoryMove::Reload {
            self.call("Page.reload", json!({})).await?;
        } else {
            let history = self.call("Page.getNavigationHistory", json!({})).await?;
            let current = history["currentIndex"].as_i64().unwrap_or(0);
            let step = if to == HistoryMove::Back { -1 } else { 1 };
            let entries = history["entries"].as_array().cloned().unwrap_or_default();
            let entry = usize::try_from(current + step)
                .ok()
                .and_then(|i| entries.get(i))
                .ok_or(BrowserError::NoHistory(if step < 0 {
                    "back"
                } else {
                    "forward"
                }))?;
            self.call(
                "Page.navigateToHistoryEntry",
                json!({ "entryId": entry["id"] }),
            )
            .await?;
        }
        self.wait_for_new_document(&mark, deadline).await
    }

    /// [`Page::move_in_history`] over BiDi: a reload waits for its document;
    /// a traversal is waited for as the DevTools protocol's is.
    async fn move_in_bidi_history(
        &self,
        to: HistoryMove,
        deadline: Duration,
    ) -> Result<(), BrowserError> {
        let (delta, direction) = match to {
            HistoryMove::Reload => {
                return bidi::reload(&self.connection, &self.target, deadline).await
            }
            HistoryMove::Back => (-1, "back"),
            HistoryMove::Forward => (1, "forward"),
        };
        let mark = self.mark().await?;
        bidi::traverse(&self.connection, &self.target, delta, CALL_DEADLINE)
            .await?
            .ok_or(BrowserError::NoHistory(direction))?;
        self.wait_for_new_document(&mark, deadline).await
    }

    /// Waits until the page has loaded a document other than the first blank
    /// one (a tab just opened on an address).
    pub async fn wait_loaded(&self, deadline: Duration) -> Result<(), BrowserError> {
        self.poll_until(
            "document.readyState === 'complete' && location.href !== 'about:blank'",
            deadline,
        )
        .await
    }

    /// Leaves a random mark on the current document, to tell it from the next.
    async fn mark(&self) -> Result<String, BrowserError> {
        let mark = format!("{:016x}", random_bits());
        self.evaluate(&format!("window.__axsightMark = {}; true", json!(mark)))
            .await?;
        Ok(mark)
    }

    /// Waits until a document without `mark` has finished loading.
    async fn wait_for_new_document(
        &self,
        mark: &str,
        deadline: Duration,
    ) -> Result<(), BrowserError> {
        let probe = format!(
            "window.__axsightMark !== {} && document.readyState === 'complete'",
            json!(mark)
        );
        self.poll_until(&probe, deadline).await
    }

    /// Polls `probe` until the page answers `true`.
    async fn poll_until(&self, probe: &str, deadline: Duration) -> Result<(), BrowserError> {
        let start = Instant::now();
        loop {
            // A page between documents may not answer: that is not yet loaded.
            if let Ok(Value::Bool(true)) = self.evaluate(probe).await {
                return Ok(());
            }
            if start.elapsed() >= deadline {
                let url = self
                    .evaluate("location.href")
                    .await
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                return Err(BrowserError::Navigation {
                    url,
                    why: format!("not loaded within {} ms", deadline.as_millis()),
                });
            }
            tokio::time::sleep(LOAD_POLL).await;
        }
    }
}

/// Bits that differ from call to call (std's per-map random hash keys), so no
/// random-number crate is needed for a document mark.
fn random_bits() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    hasher.finish()
}
