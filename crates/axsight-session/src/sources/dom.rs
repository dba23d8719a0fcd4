//! The browser DOM source (`#d`): the elements of the page a Chromium window
//! shows, read over the DevTools protocol, on screen through the page
//! document's box in the accessibility tree.
//!
//! `#d` numbers are stable like `#u`: the same element of the same tab keeps
//! its number in every read while it lives; an element that left the page is
//! refused as stale, never guessed.
//!
//! # `#d` handles
//!
//! **`#d` handles** (`axsight-session/src/sources/dom.rs`). `DomHandles` numbers each
//! (tab's target id, page number) once per session, and keeps the window it was shown
//! in, its role and name (for the answer's label). They are not in the
//! `SpottedRegistry`: no capture retires them, and no `Look` is compared, since the page
//! says whether the element lives. `= #uN` is `same_as_tree` with the element's name
//! as the text.

use std::collections::HashMap;

use axsight_browser::{to_screen, DomElement};
use axsight_core::{quote, Bounds, ElementId, Engine, Handle, Point, Source, WindowSnapshot};

use super::{same_as_tree, Found};
use crate::browsers::{browser_error, page_document};
use crate::session::Session;
use crate::ToolError;

/// Most elements one read lists.
const BUDGET: usize = 300;

/// What a `#d` number stands for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DomRecord {
    /// The tab's target id.
    pub target: String,
    /// The element's number in its page.
    pub element: u64,
    /// The window it was shown in, and the browser's process.
    pub window: ElementId,
    pub role: String,
    pub name: String,
}

/// `#d` numbers, stable per (tab, element).
#[derive(Debug, Default)]
pub(crate) struct DomHandles {
    numbers: HashMap<(String, u64), u32>,
    records: HashMap<u32, DomRecord>,
}

impl DomHandles {
    fn assign(&mut self, record: DomRecord) -> Handle {
        let next = self.numbers.len() as u32 + 1;
        let number = *self
            .numbers
            .entry((record.target.clone(), record.element))
            .or_insert(next);
        self.records.insert(number, record);
        Handle {
            source: Source::Dom,
            number,
        }
    }

    pub fn resolve(&self, handle: Handle) -> Option<&DomRecord> {
        self.records.get(&handle.number)
    }
}

impl<E: Engine> Session<E> {
    /// Reads the page the window shows and prints the `dom` section; one line
    /// saying why when axsight has no protocol connection to its browser.
    pub(crate) async fn dom_section(&self, snapshot: &WindowSnapshot) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let Some((_, page)) = self.browsers.page_of(snapshot, engine.as_ref()).await? else {
            return Ok(format!(
                "- dom: none ({})\n",
                self.why_no_page(snapshot).await?
            ));
        };
        let origin = document_origin(snapshot)?;
        let dom = page.read_dom(BUDGET).await.map_err(browser_error)?;
        let window = snapshot.window_id();
        let mut out = format!("- dom {} {}\n", quote(&dom.title), dom.url);
        if dom.elements.is_empty() {
            out.push_str("  (no elements to act on or read)\n");
        }
        let mut handles = self.dom_handles.lock().unwrap_or_else(|e| e.into_inner());
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        for element in &dom.elements {
            let bounds = to_screen(element.rect, origin, dom.device_pixel_ratio);
            let handle = handles.assign(DomRecord {
                target: page.target_id().to_string(),
                element: element.id,
                window: window.clone(),
                role: element.role.clone(),
                name: element.name.clone(),
            });
            let mut line = format!("  {handle} {}", describe(element));
            line.push_str(&format!(
                " [{},{},{},{}]",
                bounds.x, bounds.y, bounds.width, bounds.height
            ));
            let found = Found {
                bounds,
                text: element.name.clone(),
                kind: None,
                confidence: None,
            };
            if let Some(node) = same_as_tree(&snapshot.tree, &found) {
                let tree_element = snapshot.tree.element(node);
                let same = registry.assign(&tree_element.id, tree_element.role, &tree_element.name);
                line.push_str(&format!(" = {same}"));
            }
            out.push_str(&line);
            out.push('\n');
        }
        if dom.more > 0 {
            out.push_str(&format!(
                "  (+{} more outside the window's view or past {BUDGET}; scroll to see them)\n",
                dom.more
            ));
        }
        Ok(out)
    }

    /// Where `#dN` is now: the screen point of its middle in the window that
    /// shows its tab, read afresh.
    pub(crate) async fn locate_dom(
        &self,
        engine: &E,
        handle: Handle,
    ) -> Result<(WindowSnapshot, Point, String), ToolError> {
        let record = self
            .dom_handles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .resolve(handle)
            .cloned()
            .ok_or_else(|| ToolError::UnknownHandle {
                handle: handle.to_string(),
            })?;
        let shown = handle.to_string();
        let stale = |why: &str| ToolError::StaleHandle {
            handle: shown.clone(),
            why: why.to_string(),
        };
        let snapshot = self
            .read_for_acting(engine, &record.window, false, Some(&shown))
            .await?;
        let (_, page) = self
            .browsers
            .page_of(&snapshot, engine)
            .await?
            .filter(|(_, page)| page.target_id() == record.target)
            .ok_or_else(|| stale("its tab is no longer the one its window shows"))?;
        let (rect, ratio) = page
            .locate(record.element)
            .await
            .map_err(browser_error)?
            .ok_or_else(|| stale("its element left the page"))?;
        let origin = document_origin(&snapshot)?;
        let bounds = to_screen(rect, origin, ratio);
        let (x, y) = bounds.center();
        let label = format!("{shown} [{}] {}", record.role, quote(&record.name));
        Ok((snapshot, Point { x, y }, label))
    }
}

/// `[role] "name" value="…" placeholder="…" (password, checked, disabled)`.
fn describe(element: &DomElement) -> String {
    let mut text = format!("[{}]", element.role);
    if !element.name.is_empty() {
        text.push(' ');
        text.push_str(&quote(&element.name));
    }
    if let Some(value) = &element.value {
        text.push_str(&format!(" value={}", quote(value)));
    }
    if let Some(placeholder) = &element.placeholder {
        text.push_str(&format!(" placeholder={}", quote(placeholder)));
    }
    let mut states = Vec::new();
    if element.secret {
        states.push("password");
    }
    if element.checked == Some(true) {
        states.push("checked");
    }
    if element.disabled {
        states.push("disabled");
    }
    if element.clickable {
        states.push("clickable");
    }
    if element.frame > 0 {
        states.push("in a frame");
    }
    if !states.is_empty() {
        text.push_str(&format!(" ({})", states.join(", ")));
    }
    text
}

/// The screen point of the page viewport's top-left corner: its document's
/// box in the window's accessibility tree.
fn document_origin(snapshot: &WindowSnapshot) -> Result<Point, ToolError> {
    let document = page_document(&snapshot.tree).ok_or_else(|| {
        ToolError::CannotAct(format!(
            "'{}' shows no page document in its accessibility tree, so its page cannot be \
             placed on screen{}",
            snapshot.title,
            crate::browsers::hidden_page_note(snapshot)
                .map(|note| format!(" {}", note.trim()))
                .unwrap_or_default()
        ))
    })?;
    let b: Bounds = snapshot
        .tree
        .element(document)
        .bounds
        .ok_or_else(|| ToolError::CannotAct("the page document has no box".into()))?;
    Ok(Point { x: b.x, y: b.y })
}

impl<E: Engine> Session<E> {
    /// Why the window's page cannot be read over a protocol.
    async fn why_no_page(&self, snapshot: &WindowSnapshot) -> Result<String, ToolError> {
        let apps = self
            .engine()
            .await?
            .applications()
            .await
            .map_err(ToolError::engine)?;
        let kind = apps
            .iter()
            .find(|a| a.pid.is_some() && a.pid == snapshot.pid)
            .and_then(crate::browsing::Kind::of);
        Ok(match kind {
            Some(kind) => format!(
                "{}; pages of browsers axsight starts (navigate_browser, open_application) \
                 or attaches to (--browser-url) have one",
                kind.without_protocol()
            ),
            None => format!(
                "'{}' ({}) is not a browser window",
                snapshot.title, snapshot.app
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_browser::CssRect;

    fn element(role: &str, name: &str) -> DomElement {
        DomElement {
            id: 1,
            role: role.into(),
            name: name.into(),
            value: None,
            placeholder: None,
            secret: false,
            checked: None,
            disabled: false,
            clickable: false,
            rect: CssRect {
                x: 0.0,
                y: 0.0,
                width: 1.0,
                height: 1.0,
            },
            frame: 0,
        }
    }

    #[test]
    fn fields_say_their_value_and_passwords_only_that_they_are() {
        let mut name = element("textbox", "Name");
        name.value = Some("Ada".into());
        name.placeholder = Some("Your name".into());
        assert_eq!(
            describe(&name),
            r#"[textbox] "Name" value="Ada" placeholder="Your name""#
        );
        let mut password = element("textbox", "Password");
        password.secret = true;
        assert_eq!(describe(&password), r#"[textbox] "Password" (password)"#);
    }

    #[test]
    fn numbers_stay_with_their_tab_and_element() {
        let record = |target: &str, element: u64| DomRecord {
            target: target.into(),
            element,
            window: ElementId("w".into()),
            role: "button".into(),
            name: "Go".into(),
        };
        let mut handles = DomHandles::default();
        let first = handles.assign(record("t1", 7));
        let other = handles.assign(record("t1", 8));
        let again = handles.assign(record("t1", 7));
        let elsewhere = handles.assign(record("t2", 7));
        assert_eq!(
            (first.number, other.number, again.number, elsewhere.number),
            (1, 2, 1, 3)
        );
        assert_eq!(handles.resolve(first).unwrap().element, 7);
    }
}
