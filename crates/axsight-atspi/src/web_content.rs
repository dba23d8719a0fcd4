//! A web page's elements as what they are to a person, where the page is made of
//! plain `div`s ("div soup") and the browser's tree calls them all sections.
//!
//! Measured in Firefox ESR 153 and Chromium 156 started without DevTools (the
//! user's own browser: no DOM source), on tests/fixtures/web/div_soup.html:
//!
//! - an element with a click listener of its own (`addEventListener`, an
//!   `onclick` attribute, a `mousedown` listener) offers the action `click`;
//!   its descendants offer `clickAncestor`, as does everything under a listener
//!   on a whole app or document. So a section whose first action is `click`,
//!   with nothing clickable of its own below it and at most one line of words
//!   (its label), is a button;
//! - a `contenteditable` element is a section with the `editable` and
//!   `focusable` states, and no name even where a label sits beside it: it is a
//!   field, named by the words just left of it or right above it;
//! - Gecko keeps a section's words in the section itself (the walker names it
//!   by them), with no child; Chromium in one `static` child. Such a section
//!   with no action of its own is words, `Text` (a `tabindex` alone makes it
//!   focusable, not a control);
//! - an `<input>` or a `role="textbox"` labelled only by a `span` beside it
//!   has no name: it is named by those words, as a `contenteditable` is.
//!
//! Only what lies inside a page (`document web`) is reshaped: a browser's own
//! window is made of real controls. Action names are known only where the read
//! asked for them (a watching session, JSON): without them a page reads as the
//! browser gave it.

use axsight_core::{Bounds, Element, NodeId, Role, State, Tree};

use crate::normalize::labels_by_place;

/// The raw role of a page.
const PAGE: &str = "document web";

/// Roles a `div` or `span` comes as.
const PLAIN: [Role; 5] = [
    Role::Group,
    Role::Pane,
    Role::Paragraph,
    Role::Text,
    Role::Unknown,
];

/// Reshapes the pages in `tree` (see the module's doc).
pub fn reshape_pages(tree: &mut Tree) {
    let pages: Vec<NodeId> = tree
        .ids()
        .filter(|&n| tree.element(n).raw_role == PAGE)
        .collect();
    for page in pages {
        for node in tree.descendants(page).into_iter().skip(1) {
            reshape(tree, node);
        }
    }
}

/// Whether a page element of `role` is one [`reshape_pages`] may call a
/// button, a field or words by what it offers (its actions, its states): a
/// `div` or `span` as the browser gives it.
pub(crate) fn may_be_reshaped(role: Role) -> bool {
    PLAIN.contains(&role)
}

fn reshape(tree: &mut Tree, node: NodeId) {
    let element = tree.element(node);
    let editable =
        element.states.contains(State::Editable) && element.states.contains(State::Focusable);
    if element.role == Role::Edit && element.name.is_empty() {
        // An `<input>` or a `role="textbox"` labelled only by a sibling's words.
        if let Some(label) = label_before(tree, node) {
            tree.element_mut(node).name = label;
        }
        return;
    }
    if !may_be_reshaped(element.role) {
        return;
    }
    if editable {
        let label = match element.name.is_empty() {
            true => label_before(tree, node),
            false => None,
        };
        let element = tree.element_mut(node);
        element.role = Role::Edit;
        if let Some(label) = label {
            element.name = label;
        }
        return;
    }
    if clicks_itself(element) && is_one_control(tree, node) {
        // Named by its words, as a `<button>` is (Chromium keeps them below).
        let words = match element.name.is_empty() {
            true => tree
                .descendants(node)
                .into_iter()
                .map(|n| tree.element(n).name.trim())
                .find(|name| !name.is_empty())
                .map(str::to_string),
            false => None,
        };
        let element = tree.element_mut(node);
        element.role = Role::Button;
        if let Some(words) = words {
            element.name = words;
        }
        return;
    }
    // Action names unknown (not asked for): whether it listens cannot be told.
    let unknown = element.actions.is_empty() && element.actionable;
    if unknown || element.actions.iter().any(|a| is_its_own(a)) {
        return;
    }
    if let Some(words) = words_alone(tree, node) {
        let element = tree.element_mut(node);
        element.role = Role::Text;
        element.name = words;
    }
}

/// The words a section is made of, where it holds nothing else: its own name
/// and no children (Gecko), or no name and one child of plain words
/// (Chromium's `static`).
fn words_alone(tree: &Tree, node: NodeId) -> Option<String> {
    let element = tree.element(node);
    let children = &tree.node(node).children;
    if element.role == Role::Text && !element.name.is_empty() {
        return None;
    }
    match children.as_slice() {
        [] => Some(element.name.clone()).filter(|n| !n.is_empty()),
        [only] if element.name.is_empty() => {
            let child = tree.element(*only);
            let words = child.role == Role::Text
                && tree.node(*only).children.is_empty()
                && !child.states.contains(State::Editable)
                && !child.name.trim().is_empty();
            words.then(|| child.name.clone())
        }
        _ => None,
    }
}

/// Actions that say nothing of an element's own listeners: an ancestor's click
/// (`clickAncestor`; Gecko spells it `clickancestor`), Chromium's context menu
/// and its default on any `div`.
const NOT_ITS_OWN: [&str; 3] = ["clickAncestor", "showContextMenu", "doDefault"];

fn is_its_own(action: &str) -> bool {
    !NOT_ITS_OWN.iter().any(|a| a.eq_ignore_ascii_case(action))
}

/// Whether the element's page code listens to its clicks (not only an
/// ancestor's).
fn clicks_itself(element: &Element) -> bool {
    element.actions.first().is_some_and(|a| a == "click")
}

/// Whether nothing below `node` is a control or listens to clicks of its own,
/// and at most one element below it has words: a button and its label, not a
/// panel of several things an ancestor listens for.
fn is_one_control(tree: &Tree, node: NodeId) -> bool {
    let below: Vec<&Element> = tree
        .descendants(node)
        .into_iter()
        .skip(1)
        .map(|n| tree.element(n))
        .collect();
    let controls = below.iter().any(|e| {
        clicks_itself(e)
            || matches!(
                e.role,
                Role::Button
                    | Role::Link
                    | Role::Edit
                    | Role::CheckBox
                    | Role::RadioButton
                    | Role::ComboBox
                    | Role::ToggleButton
            )
            || e.states.contains(State::Editable)
    });
    let worded = below.iter().filter(|e| !e.name.trim().is_empty()).count();
    !controls && worded <= 1
}

/// The words of the sibling just before `node` (in document order among its
/// parent's children) when they sit left of it on its row or right above it,
/// and are not a control themselves.
fn label_before(tree: &Tree, node: NodeId) -> Option<String> {
    let parent = tree.node(node).parent?;
    let siblings = &tree.node(parent).children;
    let at = siblings.iter().position(|&s| s == node)?;
    let before = tree.element(*siblings.get(at.checked_sub(1)?)?);
    let extents = |b: Bounds| Some((b.x, b.y, b.width, b.height));
    let field = tree.element(node).bounds?;
    let label = before.bounds?;
    let words = before.name.trim();
    let plain = PLAIN.contains(&before.role) || before.raw_role == "label";
    if words.is_empty() || !plain || before.states.contains(State::Editable) {
        return None;
    }
    labels_by_place(extents(label), extents(field)).then(|| words.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Bounds, StateSet};

    fn at(x: i32, y: i32, width: i32, height: i32) -> Option<Bounds> {
        Some(Bounds {
            x,
            y,
            width,
            height,
        })
    }

    fn section(name: &str, actions: &[&str], bounds: Option<Bounds>) -> Element {
        let mut e = Element::new(name, Role::Group, "section");
        e.name = name.into();
        e.actions = actions.iter().map(|a| a.to_string()).collect();
        e.actionable = !actions.is_empty();
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e.bounds = bounds;
        e
    }

    /// A page as Gecko gives div_soup.html's parts, under a window.
    fn page() -> (Tree, NodeId) {
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let doc = tree.push(tree.root(), Element::new("d", Role::Document, PAGE));
        (tree, doc)
    }

    fn roles(tree: &Tree) -> Vec<(Role, String)> {
        tree.ids()
            .skip(2)
            .map(|n| (tree.element(n).role, tree.element(n).name.clone()))
            .collect()
    }

    #[test]
    fn a_div_with_its_own_click_listener_is_a_button_and_words_are_text() {
        let (mut tree, doc) = page();
        tree.push(doc, section("Save draft", &["click"], at(10, 50, 120, 32)));
        tree.push(doc, section("Book a trip", &[], at(10, 10, 400, 28)));
        // An app root listening for its children: a panel, not a button.
        let root = tree.push(doc, section("", &["click"], at(500, 360, 480, 60)));
        tree.push(
            root,
            section("Apply coupon", &["clickAncestor"], at(510, 370, 140, 32)),
        );
        tree.push(
            root,
            section("No coupon", &["clickancestor"], at(820, 372, 150, 28)),
        );
        // A tabindex alone: focusable words.
        let mut focusable = section("Save draft", &[], at(850, 50, 120, 32));
        focusable.states.insert(State::Focusable);
        tree.push(doc, focusable);
        // Chromium: a button's words in a static child.
        let chromium = tree.push(
            doc,
            section("", &["click", "showContextMenu"], at(10, 480, 100, 32)),
        );
        let mut words = Element::new("s", Role::Text, "static");
        words.name = "Book".into();
        words.actions = vec!["clickAncestor".into()];
        tree.push(chromium, words);
        reshape_pages(&mut tree);
        assert_eq!(
            roles(&tree),
            [
                (Role::Button, "Save draft".into()),
                (Role::Text, "Book a trip".into()),
                (Role::Group, "".into()),
                (Role::Text, "Apply coupon".into()),
                (Role::Text, "No coupon".into()),
                (Role::Text, "Save draft".into()),
                (Role::Button, "Book".into()),
                (Role::Text, "Book".into()),
            ]
        );
    }

    #[test]
    fn a_contenteditable_div_is_a_field_named_by_the_words_left_of_it() {
        let (mut tree, doc) = page();
        tree.push(doc, section("Traveller", &[], at(10, 190, 100, 28)));
        let mut field = section("", &[], at(120, 190, 300, 28));
        field.states.insert(State::Editable);
        field.states.insert(State::Focusable);
        tree.push(doc, field.clone());
        // Far below, the same field has no label near it.
        tree.push(doc, section("Notes", &[], at(10, 230, 100, 28)));
        field.bounds = at(520, 400, 300, 28);
        tree.push(doc, field);
        // Chromium: the label's words in a static child, the field an Edit.
        let label = tree.push(
            doc,
            section("", &["doDefault", "showContextMenu"], at(10, 470, 100, 28)),
        );
        let mut words = Element::new("s", Role::Text, "static");
        words.name = "Promo code".into();
        tree.push(label, words);
        let mut code = Element::new("c", Role::Edit, "section");
        code.states = StateSet::from_iter([State::Showing, State::Editable, State::Focusable]);
        code.bounds = at(120, 470, 300, 28);
        tree.push(doc, code);
        // An <input> labelled by a span just left of it.
        tree.push(doc, section("Phone", &[], at(10, 430, 100, 28)));
        let mut input = Element::new("i", Role::Edit, "entry");
        input.states = StateSet::from_iter([State::Showing, State::Editable, State::Focusable]);
        input.bounds = at(120, 430, 300, 28);
        tree.push(doc, input);
        reshape_pages(&mut tree);
        assert_eq!(
            roles(&tree),
            [
                (Role::Text, "Traveller".into()),
                (Role::Edit, "Traveller".into()),
                (Role::Text, "Notes".into()),
                (Role::Edit, "".into()),
                (Role::Text, "Promo code".into()),
                (Role::Text, "Promo code".into()),
                (Role::Edit, "Promo code".into()),
                (Role::Text, "Phone".into()),
                (Role::Edit, "Phone".into()),
            ]
        );
    }

    #[test]
    fn the_browsers_own_window_is_left_as_it_is() {
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        tree.push(tree.root(), section("Reload", &["click"], at(0, 0, 30, 30)));
        reshape_pages(&mut tree);
        assert_eq!(tree.element(NodeId(1)).role, Role::Group);
    }
}
