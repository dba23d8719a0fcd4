//! One keyboard focus per window. Qt reports `focused` on a control and on the
//! parts inside it (FeatherPad's editor and its viewport), on a tab list and
//! its current tab, and on the current tab of a tab bar whose page has the
//! focus (Qt 5). Only one element has the keyboard focus; this module keeps
//! the flag on it alone. Plain data only: it reads and changes a [`Tree`].

use axsight_core::{NodeId, Role, State, Tree};

/// Keeps `focused` on one element of `tree` where a toolkit set it on several:
///
/// - of a focused element and a focused ancestor, the element keeps it when it
///   is a control of its own (a list's row, a tab) and the ancestor when the
///   element is only an unnamed part of it (an editor's viewport);
/// - a focused tab while the focus is elsewhere is the current tab: it is
///   `selected` instead.
pub fn keep_one_focus(tree: &mut Tree) {
    let focused = |tree: &Tree| -> Vec<NodeId> {
        tree.ids()
            .filter(|&id| tree.element(id).states.contains(State::Focused))
            .collect()
    };
    let all = focused(tree);
    if all.len() < 2 {
        return;
    }
    for &id in &all {
        let focused_above: Vec<NodeId> = tree
            .ancestors(id)
            .filter(|&a| tree.element(a).states.contains(State::Focused))
            .collect();
        if focused_above.is_empty() {
            continue;
        }
        // A part gives the focus up; a control takes it from every focused
        // ancestor, not only the nearest.
        let losers = match is_mere_part(tree, id) {
            true => vec![id],
            false => focused_above,
        };
        for loser in losers {
            tree.element_mut(loser).states.remove(State::Focused);
        }
    }
    let left = focused(tree);
    if left.len() > 1 {
        for &id in &left {
            let element = tree.element_mut(id);
            if element.role == Role::TabItem {
                element.states.remove(State::Focused);
                element.states.insert(State::Selected);
            }
        }
    }
    // Qt 5 flags the current item of every item view focused, whichever
    // widget has the focus (KeePassXC: its entry list's row, its group
    // tree's row and its search field at once): where something other than
    // an item has it, the items give it up.
    let left = focused(tree);
    let is_item = |tree: &Tree, id: NodeId| {
        matches!(
            tree.element(id).role,
            Role::ListItem | Role::TreeItem | Role::Row | Role::Cell
        )
    };
    if left.len() > 1 && left.iter().any(|&id| !is_item(tree, id)) {
        for id in left {
            if is_item(tree, id) {
                tree.element_mut(id).states.remove(State::Focused);
            }
        }
    }
}

/// Whether an element is only a part of the control around it: an unnamed
/// container nobody acts on.
fn is_mere_part(tree: &Tree, id: NodeId) -> bool {
    let element = tree.element(id);
    element.name.trim().is_empty()
        && !element.actionable
        && matches!(
            element.role,
            Role::Group | Role::Pane | Role::ScrollPane | Role::Unknown
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Element;

    fn focused(id: &str, role: Role, name: &str) -> Element {
        let mut element = Element::new(id, role, "raw");
        element.name = name.into();
        element.states.insert(State::Focused);
        element
    }

    fn is_focused(tree: &Tree, id: NodeId) -> bool {
        tree.element(id).states.contains(State::Focused)
    }

    #[test]
    fn featherpads_editor_keeps_the_focus_its_viewport_and_tab_do_not() {
        // FeatherPad (Qt 5.15), as read: the editor, its viewport and the
        // current tab all focused.
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let editor = tree.push(tree.root(), focused("e", Role::Edit, ""));
        let viewport = tree.push(editor, focused("v", Role::Group, ""));
        let tabs = tree.push(tree.root(), Element::new("t", Role::Tab, "page tab list"));
        let tab = tree.push(tabs, focused("u", Role::TabItem, "Untitled"));
        keep_one_focus(&mut tree);
        assert!(is_focused(&tree, editor));
        assert!(!is_focused(&tree, viewport));
        assert!(!is_focused(&tree, tab));
        assert!(tree.element(tab).states.contains(State::Selected));
    }

    #[test]
    fn a_lists_row_keeps_the_focus_over_its_list_and_one_focus_stays() {
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let list = tree.push(tree.root(), focused("l", Role::List, "Files"));
        let row = tree.push(list, focused("r", Role::ListItem, "notes.txt"));
        keep_one_focus(&mut tree);
        assert!(is_focused(&tree, row) && !is_focused(&tree, list));
        // One focused element is left as it is.
        let mut one = Tree::new(Element::new("w", Role::Window, "frame"));
        let tab = one.push(one.root(), focused("u", Role::TabItem, "General"));
        keep_one_focus(&mut one);
        assert!(is_focused(&one, tab));
    }

    #[test]
    fn the_current_items_of_views_give_the_focus_to_the_field_that_has_it() {
        // KeePassXC (Qt 5.15), as read: its search field, its entry list's
        // row and its group tree's row all focused.
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let search = tree.push(tree.root(), focused("s", Role::Edit, "Search"));
        let entries = tree.push(tree.root(), Element::new("t", Role::Table, "table"));
        let entry = tree.push(entries, focused("c", Role::Cell, "Mail"));
        let groups = tree.push(tree.root(), Element::new("g", Role::Tree, "tree"));
        let root = tree.push(groups, focused("r", Role::TreeItem, "Root"));
        keep_one_focus(&mut tree);
        assert!(is_focused(&tree, search));
        assert!(!is_focused(&tree, entry) && !is_focused(&tree, root));
    }
}
