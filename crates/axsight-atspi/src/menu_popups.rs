//! Menus' items where their popups show them: Java's moved into the popup
//! (below), and, on a screen where apps report boxes relative to their window
//! (Wayland), every open menu's items left without boxes
//! ([`leave_out_open_menus`]).
//!
//! Swing's ATK wrapper places a menu item from its accessible parent, the menu
//! (`File` in the menu bar), adding the item's position inside the popup that
//! really holds it: an open menu's items are reported on top of the menu bar,
//! one popup's offset away from where they are drawn, and a pointer click there
//! hits the menu bar. The popup itself (`popup menu`) is placed right, so each
//! open menu's items are moved by the offset between the menu and the popup
//! they fit in. Plain data only: this module reads and changes a [`Tree`].

use axsight_core::{Bounds, NodeId, Role, Tree};

/// Takes the boxes off what every open menu of `tree` holds, where boxes are
/// relative to a window: a menu's popup is a surface of its own, and a toolkit
/// reports its items relative to that surface (GTK 3 on GNOME: Thunar's `New
/// Tab` at (6, 5), drawn 26 pixels below its File menu), which no compositor
/// interface places. No box is better than one that passes for where the
/// item is not: a click takes the item's accessible action instead. The menus
/// themselves, in the menu bar, keep theirs.
pub fn leave_out_open_menus(tree: &mut Tree) {
    let inside: Vec<NodeId> = tree
        .ids()
        .filter(|&id| {
            tree.ancestors(id).any(|above| {
                tree.element(above).role == Role::Menu
                    && tree.node(above).parent.is_some_and(|parent| {
                        matches!(tree.element(parent).role, Role::MenuBar | Role::Menu)
                    })
            })
        })
        .collect();
    for id in inside {
        tree.element_mut(id).bounds = None;
    }
}

/// How far past a popup's edge a moved item may reach (Swing's borders round).
const SLACK: i32 = 2;

/// Moves the items of every open menu of `tree` into the popup that shows them.
/// Groups of items are taken in document order, so a submenu is placed (as an
/// item of its parent's popup) before its own items are.
///
/// The items of a menu may be read under the menu or under its popup (the
/// wrapper lists them under both, and the first read keeps them): under a menu,
/// that menu is where they were placed from; under a popup, the open menu whose
/// offset brings them inside that popup is.
pub fn place_menu_items(tree: &mut Tree) {
    let mut popups: Vec<Bounds> = tree
        .ids()
        .filter(|&id| is_open_popup(tree, id))
        .filter_map(|id| tree.element(id).bounds)
        .collect();
    let menus: Vec<NodeId> = tree
        .ids()
        .filter(|&id| tree.element(id).raw_role == "menu")
        .collect();
    let owners: Vec<NodeId> = tree
        .ids()
        .filter(|&id| matches!(tree.element(id).raw_role.as_str(), "menu" | "popup menu"))
        .collect();
    for owner in owners {
        let items: Vec<NodeId> = tree
            .node(owner)
            .children
            .iter()
            .copied()
            .filter(|&id| is_shown_item(tree, id))
            .collect();
        let Some(span) = items
            .iter()
            .filter_map(|&id| tree.element(id).bounds)
            .reduce(|a, b| a.union(&b))
        else {
            continue;
        };
        if popups.iter().any(|popup| popup.holds(&span, SLACK)) {
            continue;
        }
        // Placed from the owning menu, or from some open menu if a popup owns them.
        let anchors: Vec<Bounds> = match tree.element(owner).raw_role.as_str() {
            "menu" => tree.element(owner).bounds.into_iter().collect(),
            _ => menus
                .iter()
                .filter_map(|&m| tree.element(m).bounds)
                .collect(),
        };
        let Some((popup, menu)) = popup_for(&popups, &anchors, &span) else {
            continue;
        };
        let popup_box = popups.remove(popup);
        let (dx, dy) = (popup_box.x - menu.x, popup_box.y - menu.y);
        for item in items {
            for id in tree.descendants(item) {
                let element = tree.element_mut(id);
                element.bounds = element.bounds.map(|b| b.offset(dx, dy));
            }
        }
    }
}

fn is_open_popup(tree: &Tree, id: NodeId) -> bool {
    let element = tree.element(id);
    element.raw_role == "popup menu"
        && element.states.contains(axsight_core::State::Showing)
        && element.bounds.is_some_and(|b| b.has_area())
}

fn is_shown_item(tree: &Tree, id: NodeId) -> bool {
    let element = tree.element(id);
    matches!(
        element.role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem | Role::Menu
    ) && element.states.contains(axsight_core::State::Showing)
        && element.bounds.is_some_and(|b| b.has_area())
}

/// The popup among `popups` and the menu among `menus` such that the items
/// spanning `span`, placed from that menu, fit inside that popup once moved by
/// the offset between the two; of several, the pair where the popup sits
/// closest to where a menu's popup opens (below a menu-bar menu, beside a
/// submenu). Indexes into `popups`, and the menu's box.
fn popup_for(popups: &[Bounds], menus: &[Bounds], span: &Bounds) -> Option<(usize, Bounds)> {
    let distance = |popup: &Bounds, menu: &Bounds| {
        let to = |(x, y): (i32, i32)| (popup.x - x).abs() + (popup.y - y).abs();
        to((menu.x, menu.y + menu.height)).min(to((menu.x + menu.width, menu.y)))
    };
    popups
        .iter()
        .enumerate()
        .flat_map(|(index, popup)| menus.iter().map(move |menu| (index, popup, *menu)))
        .filter(|(_, popup, menu)| {
            popup.holds(&span.offset(popup.x - menu.x, popup.y - menu.y), SLACK)
        })
        .min_by_key(|(_, popup, menu)| distance(popup, menu))
        .map(|(index, _, menu)| (index, menu))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Element, State};

    fn element(role: Role, raw_role: &str, name: &str, b: (i32, i32, i32, i32)) -> Element {
        let mut element = Element::new(name, role, raw_role);
        element.name = name.to_string();
        element.bounds = Bounds::from_extents(b.0, b.1, b.2, b.3);
        element.states.insert(State::Showing);
        element
    }

    /// The Swing fixture with its File menu open, as the ATK wrapper reports it.
    fn open_file_menu() -> (Tree, NodeId, NodeId) {
        let window = element(Role::Window, "frame", "w", (1, 20, 518, 335));
        let mut tree = Tree::new(window);
        let root = tree.root();
        let panel = tree.push(root, element(Role::Group, "panel", "p", (1, 39, 103, 43)));
        tree.push(
            panel,
            element(Role::Menu, "popup menu", "popup", (1, 39, 103, 43)),
        );
        let bar = tree.push(
            root,
            element(Role::MenuBar, "menu bar", "bar", (1, 20, 518, 21)),
        );
        let file = tree.push(bar, element(Role::Menu, "menu", "File", (1, 20, 37, 19)));
        let ask = tree.push(
            file,
            element(Role::MenuItem, "menu item", "Ask", (2, 23, 101, 19)),
        );
        tree.push(
            file,
            element(Role::MenuItem, "menu item", "Quit", (2, 42, 101, 19)),
        );
        (tree, file, ask)
    }

    #[test]
    fn on_a_window_relative_screen_an_open_menus_items_have_no_boxes() {
        let (mut tree, file, ask) = open_file_menu();
        leave_out_open_menus(&mut tree);
        assert_eq!(tree.element(ask).bounds, None);
        assert_eq!(tree.element(tree.node(file).children[1]).bounds, None);
        // The menu in the menu bar, and everything outside menus, keep theirs.
        assert!(tree.element(file).bounds.is_some());
        assert!(tree.element(tree.root()).bounds.is_some());
    }

    #[test]
    fn an_open_menus_items_move_into_its_popup() {
        let (mut tree, file, ask) = open_file_menu();
        place_menu_items(&mut tree);
        assert_eq!(
            tree.element(ask).bounds,
            Bounds::from_extents(2, 42, 101, 19)
        );
        let quit = tree.node(file).children[1];
        assert_eq!(
            tree.element(quit).bounds,
            Bounds::from_extents(2, 61, 101, 19)
        );
        // The menu itself stays where it is.
        assert_eq!(
            tree.element(file).bounds,
            Bounds::from_extents(1, 20, 37, 19)
        );
    }

    #[test]
    fn items_read_under_their_popup_move_too() {
        let window = element(Role::Window, "frame", "w", (1, 20, 518, 335));
        let mut tree = Tree::new(window);
        let root = tree.root();
        let popup = tree.push(
            root,
            element(Role::Menu, "popup menu", "popup", (1, 39, 103, 43)),
        );
        let ask = tree.push(
            popup,
            element(Role::MenuItem, "menu item", "Ask", (2, 23, 101, 19)),
        );
        let bar = tree.push(
            root,
            element(Role::MenuBar, "menu bar", "bar", (1, 20, 518, 21)),
        );
        let mut file = element(Role::Menu, "menu", "File", (1, 20, 37, 19));
        file.states.insert(State::Selected);
        tree.push(bar, file);
        tree.push(bar, element(Role::Menu, "menu", "Edit", (38, 20, 37, 19)));
        place_menu_items(&mut tree);
        assert_eq!(
            tree.element(ask).bounds,
            Bounds::from_extents(2, 42, 101, 19)
        );
    }

    #[test]
    fn items_already_inside_a_popup_stay() {
        let (mut tree, _, ask) = open_file_menu();
        tree.element_mut(ask).bounds = Bounds::from_extents(2, 42, 101, 19);
        let quit = tree.node(tree.node(ask).parent.unwrap()).children[1];
        tree.element_mut(quit).bounds = Bounds::from_extents(2, 61, 101, 19);
        place_menu_items(&mut tree);
        assert_eq!(
            tree.element(ask).bounds,
            Bounds::from_extents(2, 42, 101, 19)
        );
    }

    #[test]
    fn without_an_open_popup_nothing_moves() {
        let (mut tree, _, ask) = open_file_menu();
        let popup = tree
            .ids()
            .find(|&id| tree.element(id).raw_role == "popup menu")
            .unwrap();
        tree.element_mut(popup).states.remove(State::Showing);
        place_menu_items(&mut tree);
        assert_eq!(
            tree.element(ask).bounds,
            Bounds::from_extents(2, 23, 101, 19)
        );
    }

    #[test]
    fn a_popup_too_small_for_the_items_is_not_theirs() {
        let (mut tree, _, ask) = open_file_menu();
        let popup = tree
            .ids()
            .find(|&id| tree.element(id).raw_role == "popup menu")
            .unwrap();
        tree.element_mut(popup).bounds = Bounds::from_extents(1, 39, 103, 20);
        place_menu_items(&mut tree);
        assert_eq!(
            tree.element(ask).bounds,
            Bounds::from_extents(2, 23, 101, 19)
        );
    }
}
