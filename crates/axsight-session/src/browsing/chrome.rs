//! A browser's own UI (its chrome) as a window's accessibility tree shows it:
//! which browser it is, its address bar, its history buttons, and the page its
//! window shows. This is what `navigate_browser` needs to drive a browser that
//! axsight has no protocol connection to. Plain data only: nothing here reads
//! the desktop or acts.

use axsight_browser::HistoryMove;
use axsight_core::{visible_box, Application, ElementId, NodeId, Role, State, Tree};

use crate::browsers::{is_chromium_app, page_document};

/// A browser whose UI axsight knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Gecko: Firefox and its rebuilds.
    Firefox,
    /// Chromium and the browsers built on it.
    Chromium,
}

impl Kind {
    /// The kind of browser `app` is, by its toolkit or its name.
    pub fn of(app: &Application) -> Option<Kind> {
        if app.toolkit.to_ascii_lowercase().starts_with("gecko") {
            Some(Kind::Firefox)
        } else if is_chromium_app(&app.name) {
            Some(Kind::Chromium)
        } else {
            None
        }
    }

    /// The kind of browser a `browser` argument names (a name or a path), if
    /// it names one.
    pub fn named(program: &str) -> Option<Kind> {
        if axsight_browser::is_firefox(program) {
            Some(Kind::Firefox)
        } else if axsight_browser::is_chromium(program) {
            Some(Kind::Chromium)
        } else {
            None
        }
    }

    /// Why axsight reaches a browser of this kind that it did not start only
    /// through its UI.
    pub fn without_protocol(self) -> &'static str {
        match self {
            Kind::Firefox => {
                "axsight did not start this Firefox, so it has no WebDriver BiDi connection to it"
            }
            Kind::Chromium => {
                "axsight did not start this browser and no --browser-url reaches it, so it has \
                 no DevTools connection to it"
            }
        }
    }
}

/// The element id Firefox gives its address bar.
const FIREFOX_ADDRESS_BAR: &str = "urlbar-input";

/// The browser's address bar: Firefox's by its id, else the first editable
/// field drawn in a tool bar outside any page (Chromium's omnibox, and
/// Firefox's in any locale).
pub(crate) fn address_bar(tree: &Tree) -> Option<NodeId> {
    let drawn = |n: NodeId| visible_box(tree, n).is_some_and(|b| b.has_area());
    let by_id = tree
        .ids()
        .find(|&n| tree.element(n).accessible_id == FIREFOX_ADDRESS_BAR && drawn(n));
    by_id.or_else(|| {
        tree.ids().find(|&n| {
            let element = tree.element(n);
            matches!(element.role, Role::Edit | Role::ComboBox)
                && element.states.contains(State::Editable)
                && !element.secret
                && drawn(n)
                && in_chrome_toolbar(tree, n)
        })
    })
}

/// The button that moves through the history the way `to` does, if the
/// browser shows one (there is none for a reload: a reload is always allowed).
pub(crate) fn history_button(tree: &Tree, to: HistoryMove) -> Option<NodeId> {
    let (id, name) = match to {
        HistoryMove::Back => ("back-button", "back"),
        HistoryMove::Forward => ("forward-button", "forward"),
        HistoryMove::Reload => return None,
    };
    let by_id = tree.ids().find(|&n| tree.element(n).accessible_id == id);
    by_id.or_else(|| {
        tree.ids().find(|&n| {
            let element = tree.element(n);
            element.role == Role::Button
                && element.name.eq_ignore_ascii_case(name)
                && in_chrome_toolbar(tree, n)
        })
    })
}

/// The keys that move through a tab's history in every browser.
pub(crate) fn history_keys(to: HistoryMove) -> &'static str {
    match to {
        HistoryMove::Back => "alt+Left",
        HistoryMove::Forward => "alt+Right",
        HistoryMove::Reload => "F5",
    }
}

/// Whether `node` lies in a tool bar and not inside a page.
fn in_chrome_toolbar(tree: &Tree, node: NodeId) -> bool {
    let mut in_toolbar = false;
    for ancestor in tree.ancestors(node) {
        match tree.element(ancestor).role {
            Role::Document => return false,
            Role::ToolBar => in_toolbar = true,
            _ => {}
        }
    }
    in_toolbar
}

/// The page a browser window shows, as its tree says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageState {
    /// The page document's identity: a new document is a new object.
    pub document: ElementId,
    /// Its address (the document's value), where the browser gives it.
    pub url: Option<String>,
    pub title: String,
    /// Still loading.
    pub busy: bool,
    /// Its content is in the tree.
    pub has_content: bool,
}

impl PageState {
    /// The page the window `tree` shows: its first drawn page document.
    pub fn of(tree: &Tree) -> Option<PageState> {
        let node = page_document(tree)?;
        let document = tree.element(node);
        Some(PageState {
            document: document.id.clone(),
            url: document.value.clone(),
            title: document.name.clone(),
            busy: document.states.contains(State::Busy),
            has_content: !tree.node(node).children.is_empty(),
        })
    }

    /// Whether this is a page other than `before` (another document, or the
    /// same one at another address), loaded and in the tree.
    pub fn is_new_since(&self, before: Option<&PageState>) -> bool {
        let other = before.is_none_or(|b| b.document != self.document || b.url != self.url);
        other && !self.busy && self.has_content
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Bounds, Element, StateSet};

    fn shown(id: &str, role: Role, name: &str) -> Element {
        let mut e = Element::new(id, role, "raw");
        e.name = name.into();
        e.states = StateSet::from_iter([
            State::Showing,
            State::Visible,
            State::Enabled,
            State::Sensitive,
        ]);
        e.bounds = Some(Bounds {
            x: 0,
            y: 0,
            width: 100,
            height: 20,
        });
        e
    }

    fn editable(mut e: Element) -> Element {
        e.states.insert(State::Editable);
        e
    }

    /// A Firefox-like window: tabs, a navigation tool bar with the address bar,
    /// and a page with a form field of its own.
    fn firefox(address_id: &str) -> Tree {
        let mut tree = Tree::new(shown("w", Role::Window, "Page — Mozilla Firefox"));
        let root = tree.root();
        let toolbar = tree.push(root, shown("nav", Role::ToolBar, "Navigation"));
        let mut back = shown("back", Role::Button, "Back");
        back.accessible_id = "back-button".into();
        back.states.remove(State::Enabled);
        back.states.remove(State::Sensitive);
        tree.push(toolbar, back);
        let group = tree.push(toolbar, shown("g", Role::Group, ""));
        let mut bar = editable(shown("url", Role::ComboBox, "Search or enter address"));
        bar.accessible_id = address_id.into();
        tree.push(group, bar);
        let mut document = shown("doc", Role::Document, "Page");
        document.value = Some("http://127.0.0.1/page.html".into());
        let document = tree.push(root, document);
        tree.push(document, editable(shown("name", Role::Edit, "Name")));
        tree
    }

    #[test]
    fn the_address_bar_is_found_by_id_or_by_place_never_in_the_page() {
        let tree = firefox("urlbar-input");
        let bar = address_bar(&tree).unwrap();
        assert_eq!(tree.element(bar).id, ElementId("url".into()));
        // A localised or id-less browser: the editable field in the tool bar.
        let tree = firefox("");
        assert_eq!(
            tree.element(address_bar(&tree).unwrap()).id,
            ElementId("url".into())
        );
        // A page field is never the address bar, nor is a field not drawn.
        let mut tree = Tree::new(shown("w", Role::Window, "Editor"));
        let document = tree.push(tree.root(), shown("doc", Role::Document, "Page"));
        let toolbar = tree.push(document, shown("t", Role::ToolBar, ""));
        tree.push(toolbar, editable(shown("search", Role::Edit, "Search")));
        let outside = tree.push(tree.root(), shown("t2", Role::ToolBar, ""));
        let mut hidden = editable(shown("hidden", Role::Edit, "Find"));
        hidden.states = StateSet::from_iter([State::Editable]);
        tree.push(outside, hidden);
        assert_eq!(address_bar(&tree), None);
    }

    #[test]
    fn history_buttons_are_found_by_id_or_name() {
        let tree = firefox("urlbar-input");
        let back = history_button(&tree, HistoryMove::Back).unwrap();
        assert!(!tree.element(back).states.is_enabled());
        assert_eq!(history_button(&tree, HistoryMove::Forward), None);
        assert_eq!(history_button(&tree, HistoryMove::Reload), None);
        assert_eq!(history_keys(HistoryMove::Back), "alt+Left");
    }

    #[test]
    fn a_new_page_is_another_document_or_address_loaded_with_content() {
        let tree = firefox("urlbar-input");
        let before = PageState::of(&tree).unwrap();
        assert_eq!(before.url.as_deref(), Some("http://127.0.0.1/page.html"));
        assert!(before.has_content && !before.busy);
        assert!(!before.is_new_since(Some(&before)));
        assert!(before.is_new_since(None));
        let reloaded = PageState {
            document: ElementId("doc2".into()),
            ..before.clone()
        };
        assert!(reloaded.is_new_since(Some(&before)));
        let loading = PageState {
            busy: true,
            ..reloaded.clone()
        };
        assert!(!loading.is_new_since(Some(&before)));
        let empty = PageState {
            has_content: false,
            ..reloaded
        };
        assert!(!empty.is_new_since(Some(&before)));
        let moved = PageState {
            url: Some("http://127.0.0.1/other.html".into()),
            ..before.clone()
        };
        assert!(moved.is_new_since(Some(&before)));
    }

    #[test]
    fn browsers_are_known_by_toolkit_or_name() {
        let app = |name: &str, toolkit: &str| Application {
            name: name.into(),
            pid: Some(1),
            toolkit: toolkit.into(),
            windows: Vec::new(),
            accessible: true,
        };
        assert_eq!(
            Kind::of(&app("Firefox", "Gecko 153.8.0")),
            Some(Kind::Firefox)
        );
        assert_eq!(
            Kind::of(&app("LibreWolf", "Gecko 140")),
            Some(Kind::Firefox)
        );
        assert_eq!(
            Kind::of(&app("Chromium", "Chromium 156")),
            Some(Kind::Chromium)
        );
        assert_eq!(Kind::of(&app("gedit", "GTK 3.24.38")), None);
        assert_eq!(Kind::named("/usr/bin/firefox-esr"), Some(Kind::Firefox));
        assert_eq!(Kind::named("chromium"), Some(Kind::Chromium));
        assert_eq!(Kind::named("/opt/browser/run"), None);
        assert!(Kind::Firefox.without_protocol().contains("WebDriver BiDi"));
    }
}
