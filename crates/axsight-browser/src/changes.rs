//! Whether anything changed in a Chromium's pages: a mark of every page's state
//! (its address, document, visibility, viewport, zoom, scroll, and a count of the
//! DOM mutations and layout-moving events since the page was first asked), for
//! the engine to reuse an accessibility read while the mark holds. Chromium sends
//! no accessibility event for a zoom or a tab swap; the pages see both.
//!
//! It reads; it never changes what a page shows. DevTools only: a BiDi browser
//! gives no mark, and its windows stay read whole.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::json;

use crate::browser::{Browser, Protocol};
use crate::page::CALL_DEADLINE;

/// Installs the change counter in a page and reads its mark (see the script).
const CHANGES: &str = include_str!("dom/changes.js");

/// How long a page must have been still before its mark vouches for a read:
/// Chromium hands a page's accessibility tree to its browser process after the
/// page lays out, so a read just after a change may still show the boxes from
/// before it.
pub const QUIET: Duration = Duration::from_millis(500);

impl Browser {
    /// One mark of all the browser's pages, or `None` when it cannot vouch for
    /// them: a BiDi browser, a page that does not answer, changed within
    /// [`QUIET`], is animating or holds frames.
    pub async fn change_mark(&self) -> Option<String> {
        if self.protocol() != Protocol::DevTools {
            return None;
        }
        let targets = self
            .connection()
            .call("Target.getTargets", json!({}), None, CALL_DEADLINE)
            .await
            .ok()?;
        let pages: Vec<(String, String)> = targets["targetInfos"]
            .as_array()?
            .iter()
            .filter(|t| t["type"] == "page")
            .map(|t| {
                let id = t["targetId"].as_str().unwrap_or_default().to_string();
                (id, format!("{}|{}", t["title"], t["url"]))
            })
            .collect();
        let marks = pages.iter().map(|(target, _)| async move {
            let page = self.page(target).await.ok()?;
            let answer = page.evaluate(CHANGES).await.ok()?;
            let quiet = answer["quiet"].as_f64()?;
            (quiet >= QUIET.as_millis() as f64)
                .then(|| answer["mark"].as_str().map(str::to_string))?
        });
        let mut mark = String::new();
        for ((target, info), page_mark) in pages.iter().zip(join_all(marks).await) {
            mark.push_str(&format!("{target}|{info}|{}\n", page_mark?));
        }
        Some(mark)
    }
}
