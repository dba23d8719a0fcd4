//! Where input aims: the visible centre of an element, the element under a point,
//! and which of an element's actions is its "click".
//!
//! Pure geometry on a captured [`Tree`]; the engine supplies the capture.

use crate::{Bounds, Element, NodeId, Point, Role, Tree};

/// Roles whose box clips what is drawn inside them: scrolled panes and the views
/// that scroll their own rows. Not menus: a menu's items live in a popup far from
/// the menu's own box in the menu bar.
fn clips(role: Role) -> bool {
    matches!(
        role,
        Role::Window | Role::Dialog | Role::ScrollPane | Role::List | Role::Tree | Role::Table
    )
}

/// The part of an element that is drawn: its box cut by every clipping ancestor
/// (scrolled panes, lists, the window). `None` when nothing of it is visible or
/// it has no usable box.
pub fn visible_box(tree: &Tree, node: NodeId) -> Option<Bounds> {
    let element = tree.element(node);
    if !element.is_shown() {
        return None;
    }
    let mut visible = element.bounds.filter(Bounds::has_area)?;
    for ancestor in tree.ancestors(node) {
        let ancestor = tree.element(ancestor);
        if !clips(ancestor.role) {
            continue;
        }
        // A container that reports no box clips nothing we can know of.
        if let Some(clip) = ancestor.bounds.filter(Bounds::has_area) {
            visible = visible.intersection(&clip)?;
        }
    }
    Some(visible)
}

/// Where a click on the element lands: the centre of its visible part.
///
/// ```
/// use axsight_core::{clickable_point, Bounds, Element, Point, Role, State, StateSet, Tree};
/// let shown = |id: &str, role, b: Bounds| {
///     let mut e = Element::new(id, role, "raw");
///     e.states = StateSet::from_iter([State::Showing, State::Visible]);
///     e.bounds = Some(b);
///     e
/// };
/// let mut tree = Tree::new(shown("w", Role::Window, Bounds { x: 0, y: 0, width: 100, height: 100 }));
/// // Half of the button hangs off the window's right edge.
/// let button = tree.push(tree.root(), shown("b", Role::Button, Bounds { x: 80, y: 10, width: 40, height: 20 }));
/// assert_eq!(clickable_point(&tree, button), Some(Point { x: 90, y: 20 }));
/// ```
pub fn clickable_point(tree: &Tree, node: NodeId) -> Option<Point> {
    let (x, y) = visible_box(tree, node)?.center();
    Some(Point { x, y })
}

/// The deepest drawn element whose visible part contains `point`: from the root
/// down, at each level the last child there (drawn above its earlier siblings).
/// A child without a box of its own is looked through, not hit.
pub fn element_at(tree: &Tree, point: Point) -> Option<NodeId> {
    if tree.is_empty() {
        return None;
    }
    let root = tree.root();
    let hit = |node: NodeId| visible_box(tree, node).is_some_and(|b| b.contains(point.x, point.y));
    if !hit(root) {
        return None;
    }
    let mut best = root;
    let mut level = vec![root];
    while !level.is_empty() {
        let mut next = Vec::new();
        for &node in &level {
            for &child in &tree.node(node).children {
                if hit(child) {
                    next.push(child);
                } else if tree.element(child).is_shown() && tree.element(child).bounds.is_none() {
                    // A boxless container: its children may still be hit.
                    next.push(child);
                }
            }
        }
        if let Some(&top) = next.iter().rev().find(|&&n| hit(n)) {
            best = top;
            level = vec![top];
        } else {
            // Only boxless containers here: look inside them.
            level = next;
        }
    }
    Some(best)
}

/// Action names that mean "click", best first. Toolkits differ: GTK says `click`,
/// Qt `Press`, menus `activate`/`click`, check boxes `toggle`, links `jump`.
const CLICK_ACTIONS: &[&str] = &[
    "click", "press", "activate", "toggle", "jump", "open", "select",
];

/// The action of `element` that a click stands for, if it has one.
///
/// ```
/// use axsight_core::{click_action, Element, Role};
/// let mut e = Element::new("x", Role::Button, "push button");
/// e.actions = vec!["showmenu".into(), "Press".into()];
/// assert_eq!(click_action(&e), Some("Press"));
/// e.actions = vec!["showmenu".into()];
/// assert_eq!(click_action(&e), Some("showmenu"), "the only action will do");
/// ```
pub fn click_action(element: &Element) -> Option<&str> {
    CLICK_ACTIONS
        .iter()
        .find_map(|want| {
            element
                .actions
                .iter()
                .find(|a| a.eq_ignore_ascii_case(want))
        })
        .or(match element.actions.as_slice() {
            [only] => Some(only),
            _ => None,
        })
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{State, StateSet};

    fn shown(id: &str, role: Role, x: i32, y: i32, w: i32, h: i32) -> Element {
        let mut e = Element::new(id, role, "raw");
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e.bounds = Some(Bounds {
            x,
            y,
            width: w,
            height: h,
        });
        e
    }

    /// Window 200×200 > ScrollPane [0,50,200,100] > List rows at y = 60, 140, 300.
    fn scrolled() -> (Tree, Vec<NodeId>) {
        let mut tree = Tree::new(shown("w", Role::Window, 0, 0, 200, 200));
        let pane = tree.push(tree.root(), shown("p", Role::ScrollPane, 0, 50, 200, 100));
        let rows = [60, 140, 300]
            .iter()
            .map(|&y| tree.push(pane, shown(&format!("r{y}"), Role::ListItem, 0, y, 200, 20)))
            .collect();
        (tree, rows)
    }

    #[test]
    fn scrolled_out_rows_have_no_point_and_cut_rows_aim_at_their_visible_part() {
        let (tree, rows) = scrolled();
        assert_eq!(
            clickable_point(&tree, rows[0]),
            Some(Point { x: 100, y: 70 })
        );
        // Row at y 140..160 shows only 140..150 inside the pane.
        assert_eq!(
            clickable_point(&tree, rows[1]),
            Some(Point { x: 100, y: 145 })
        );
        assert_eq!(clickable_point(&tree, rows[2]), None);
    }

    #[test]
    fn hidden_or_boxless_elements_have_no_point() {
        let (mut tree, rows) = scrolled();
        tree.element_mut(rows[0]).states.remove(State::Showing);
        assert_eq!(clickable_point(&tree, rows[0]), None);
        tree.element_mut(rows[1]).bounds = None;
        assert_eq!(clickable_point(&tree, rows[1]), None);
    }

    #[test]
    fn the_deepest_visible_element_under_a_point_is_found() {
        let (tree, rows) = scrolled();
        assert_eq!(element_at(&tree, Point { x: 10, y: 65 }), Some(rows[0]));
        assert_eq!(element_at(&tree, Point { x: 10, y: 10 }), Some(tree.root()));
        // Row 3 lies under the pane's clip: the point hits nothing inside.
        assert_eq!(element_at(&tree, Point { x: 10, y: 305 }), None);
    }

    #[test]
    fn the_topmost_of_overlapping_siblings_and_its_children_win() {
        let mut tree = Tree::new(shown("w", Role::Window, 0, 0, 200, 200));
        let under = tree.push(tree.root(), shown("under", Role::Pane, 0, 0, 100, 100));
        tree.push(under, shown("deep", Role::Button, 10, 10, 20, 20));
        let over = tree.push(tree.root(), shown("over", Role::Pane, 0, 0, 100, 100));
        let button = tree.push(over, shown("b", Role::Button, 10, 10, 20, 20));
        assert_eq!(element_at(&tree, Point { x: 15, y: 15 }), Some(button));
        // A container that reports no box is looked through.
        let mut boxless = Element::new("g", Role::Group, "raw");
        boxless.states = StateSet::from_iter([State::Showing, State::Visible]);
        let group = tree.push(tree.root(), boxless);
        let inner = tree.push(group, shown("i", Role::Button, 150, 150, 20, 20));
        assert_eq!(element_at(&tree, Point { x: 155, y: 155 }), Some(inner));
    }

    #[test]
    fn click_actions_prefer_the_usual_names_in_any_case() {
        let mut e = Element::new("x", Role::CheckBox, "check box");
        e.actions = vec!["toggle".into(), "Click".into()];
        assert_eq!(click_action(&e), Some("Click"));
        e.actions = vec!["expand".into(), "collapse".into()];
        assert_eq!(click_action(&e), None);
    }
}
