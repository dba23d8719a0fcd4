//! Silent surfaces: elements that show content on screen but say nothing of it
//! in the tree, so that what they show is read from their pixels instead.
//!
//! Measured on real apps (Debian 12): Thunar's icon view is one `[Group] Icon
//! view` with no children while it shows files; Gnumeric's sheet is one
//! focused `[Group]` without cells; a window whose app is not on the bus at
//! all (xcalc) is a tree of the window alone; an empty document frame (an
//! Electron app without accessibility) has nothing below it. What they share:
//! a container-like role, a drawn box big enough to hold a word, nothing drawn
//! below it but empty containers (Thunar's view holds one nameless panel), no
//! value and no text of its own. A button, a label or a
//! field says what it shows; an image names itself; so do they not count.
//! Nor does an empty box with a sibling drawn over it that has something to
//! say (Firefox's address bar is an empty `[Group]` under a `[Group]` of the
//! same box holding the field): what shows there is in the tree.

use crate::{visible_box, Element, NodeId, Role, State, Tree};

/// The smallest box a surface must have to be read: narrower or lower boxes
/// hold no word worth reading (a toolbar's spacer, an empty status slot).
pub const MIN_SURFACE: (i32, i32) = (40, 20);

/// The silent surfaces at or below `top`, in document order (see the
/// module's doc): the outermost of nested empty containers.
///
/// ```
/// use axsight_core::{silent_surfaces, Bounds, Element, Role, State, StateSet, Tree};
/// let shown = |id: &str, role, b: Bounds| {
///     let mut e = Element::new(id, role, "raw");
///     e.states = StateSet::from_iter([State::Showing, State::Visible]);
///     e.bounds = Some(b);
///     e
/// };
/// let window = shown("w", Role::Window, Bounds { x: 0, y: 0, width: 600, height: 400 });
/// let mut tree = Tree::new(window);
/// let view = tree.push(tree.root(), shown("v", Role::Group, Bounds { x: 0, y: 40, width: 600, height: 360 }));
/// let mut open = shown("b", Role::Button, Bounds { x: 0, y: 0, width: 60, height: 30 });
/// open.name = "Open".into();
/// tree.push(tree.root(), open);
/// assert_eq!(silent_surfaces(&tree, tree.root()), vec![view]);
/// ```
pub fn silent_surfaces(tree: &Tree, top: NodeId) -> Vec<NodeId> {
    let mut found = Vec::new();
    let mut stack = vec![top];
    while let Some(node) = stack.pop() {
        if !tree.element(node).is_shown() {
            continue;
        }
        if is_silent_surface(tree, node) {
            found.push(node);
            continue;
        }
        stack.extend(tree.node(node).children.iter().rev().copied());
    }
    found
}

/// Whether `node` is a silent surface (see the module's doc).
pub fn is_silent_surface(tree: &Tree, node: NodeId) -> bool {
    let element = tree.element(node);
    let (min_width, min_height) = MIN_SURFACE;
    // A terminal whose screen the toolkit does not give (Konsole) is silent
    // whatever it holds: its children are its own (a scroll bar, a size
    // overlay), never its screen.
    let terminal = element.role == Role::Terminal;
    surface_role(element)
        && says_nothing(element)
        && visible_box(tree, node).is_some_and(|b| b.width >= min_width && b.height >= min_height)
        && (terminal || (only_quiet_below(tree, node) && !covered_by_a_sibling(tree, node)))
}

/// Whether a shown sibling that says something (it has a name, a value or
/// shown children) covers at least nine tenths of `node`'s box.
fn covered_by_a_sibling(tree: &Tree, node: NodeId) -> bool {
    let Some(own) = tree.element(node).bounds.filter(|b| b.has_area()) else {
        return false;
    };
    let Some(parent) = tree.node(node).parent else {
        return false;
    };
    tree.node(parent).children.iter().any(|&sibling| {
        let element = tree.element(sibling);
        let says_something = !element.name.is_empty()
            || !says_nothing(element)
            || tree
                .node(sibling)
                .children
                .iter()
                .any(|&c| tree.element(c).is_shown());
        sibling != node
            && element.is_shown()
            && says_something
            && element
                .bounds
                .and_then(|b| b.intersection(&own))
                .is_some_and(|shared| shared.area() * 10 >= own.area() * 9)
    })
}

/// Whether everything drawn below `node` is an empty container: nameless,
/// with nothing to say (Thunar's icon view holds one such panel, drawn over
/// the same box).
fn only_quiet_below(tree: &Tree, node: NodeId) -> bool {
    tree.node(node).children.iter().all(|&child| {
        let element = tree.element(child);
        // A scroll bar moves what the surface shows, it shows none of it
        // (QTerminal's screen holds nothing else).
        !element.is_shown()
            || element.role == Role::ScrollBar
            || (surface_role(element)
                && element.name.is_empty()
                && says_nothing(element)
                && !element.actionable
                && only_quiet_below(tree, child))
    })
}

/// Roles whose elements hold other elements, or content of their own that
/// a toolkit may leave unexposed.
fn surface_role(element: &Element) -> bool {
    matches!(
        element.role,
        Role::Window
            | Role::Dialog
            | Role::Group
            | Role::Pane
            | Role::ScrollPane
            | Role::Canvas
            | Role::Document
            | Role::Table
            | Role::List
            | Role::Tree
            | Role::Terminal
            | Role::Unknown
    )
}

/// Whether the element says nothing of what it shows: no value, not a field.
fn says_nothing(element: &Element) -> bool {
    element.value.as_deref().is_none_or(str::is_empty)
        && !element.states.contains(State::Editable)
        && !element.is_secret()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bounds, StateSet};

    fn shown(id: &str, role: Role, b: (i32, i32, i32, i32)) -> Element {
        let mut e = Element::new(id, role, "raw");
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e.bounds = Some(Bounds {
            x: b.0,
            y: b.1,
            width: b.2,
            height: b.3,
        });
        e
    }

    #[test]
    fn a_terminal_without_its_screen_is_silent_whatever_it_holds() {
        let mut tree = Tree::new(shown("w", Role::Window, (0, 0, 900, 500)));
        let terminal = tree.push(tree.root(), shown("t", Role::Terminal, (0, 50, 900, 450)));
        tree.push(terminal, shown("s", Role::ScrollBar, (886, 50, 14, 450)));
        let mut overlay = shown("o", Role::Text, (380, 250, 120, 30));
        overlay.name = "Size: 110 x 28".into();
        tree.push(terminal, overlay);
        assert_eq!(silent_surfaces(&tree, tree.root()), vec![terminal]);
        // A terminal that gives its screen (VTE) says what it shows.
        tree.element_mut(terminal).value = Some("$ ls".into());
        assert!(silent_surfaces(&tree, tree.root()).is_empty());
    }

    #[test]
    fn a_window_alone_is_one_surface() {
        let tree = Tree::new(shown("w", Role::Window, (0, 0, 245, 410)));
        assert_eq!(silent_surfaces(&tree, tree.root()), vec![tree.root()]);
    }

    #[test]
    fn surfaces_are_containers_with_nothing_drawn_below_and_room_for_a_word() {
        let mut tree = Tree::new(shown("w", Role::Window, (0, 0, 800, 600)));
        let root = tree.root();
        // Thunar: a named icon view with no children.
        let mut icons = shown("icons", Role::Group, (270, 408, 469, 354));
        icons.name = "Icon view".into();
        let icons = tree.push(root, icons);
        // Gnumeric: the sheet's group, focused, and a canvas corner too small.
        let mut sheet = shown("sheet", Role::Group, (534, 211, 200, 100));
        sheet.states.insert(State::Focused);
        let sheet = tree.push(root, sheet);
        tree.push(root, shown("corner", Role::Canvas, (479, 190, 55, 19)));
        // A field, a list with items, a button: they say what they show.
        let mut field = shown("f", Role::Edit, (0, 0, 200, 30));
        field.states.insert(State::Editable);
        tree.push(root, field);
        let list = tree.push(root, shown("l", Role::List, (0, 40, 200, 200)));
        tree.push(list, shown("i", Role::ListItem, (0, 40, 200, 20)));
        tree.push(root, shown("b", Role::Button, (0, 300, 200, 40)));
        // A pane whose only child is hidden shows nothing the tree would; so
        // does one that holds only an empty panel (Thunar's icon view).
        let pane = tree.push(root, shown("p", Role::Pane, (300, 300, 100, 100)));
        let mut hidden = shown("h", Role::Button, (300, 300, 50, 20));
        hidden.states = StateSet::EMPTY;
        tree.push(pane, hidden);
        tree.push(pane, shown("panel", Role::Group, (300, 300, 100, 100)));
        // Off screen: nothing to read.
        let mut gone = shown("g", Role::Group, (0, 0, 100, 100));
        gone.states = StateSet::EMPTY;
        tree.push(root, gone);
        assert_eq!(silent_surfaces(&tree, root), vec![icons, sheet, pane]);
        assert_eq!(silent_surfaces(&tree, icons), vec![icons]);
        assert_eq!(silent_surfaces(&tree, list), Vec::<NodeId>::new());
    }

    #[test]
    fn an_empty_box_under_one_that_holds_controls_is_not_a_surface() {
        // Firefox's address bar: an empty group, and over the same box a
        // group holding the field.
        let mut tree = Tree::new(shown("w", Role::Window, (0, 0, 1280, 900)));
        let root = tree.root();
        let bar = tree.push(root, shown("bar", Role::ToolBar, (0, 40, 1280, 40)));
        tree.push(bar, shown("under", Role::Group, (200, 44, 834, 32)));
        let over = tree.push(bar, shown("over", Role::Group, (200, 44, 834, 32)));
        let mut field = shown("url", Role::ComboBox, (230, 50, 700, 20));
        field.value = Some("http://127.0.0.1/".into());
        tree.push(over, field);
        // An empty box beside it, not under it, is still read.
        let side = tree.push(bar, shown("side", Role::Group, (1040, 44, 200, 32)));
        assert_eq!(silent_surfaces(&tree, root), vec![side]);
    }
}
