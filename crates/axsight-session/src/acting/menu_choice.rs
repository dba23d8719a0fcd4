//! A menu item chosen: its menu closes once the app has taken the choice.
//!
//! A slow app (a cold JVM loading a dialog's classes) takes a click on an
//! item well after the hover's feedback (the item armed and focused) has gone
//! quiet, so the usual settle ends before the app has acted, and the answer
//! shows neither the menu closing nor the dialog the item opened. While the
//! chosen item still shows, the answer waits on. This module decides which
//! items close their menu and waits; it reads nothing else.

use axsight_core::{
    ElementId, Engine, NodeId, Role, SettleEnd, SettlePolicy, Settled, State, Tree, WindowQuery,
    WindowSnapshot,
};

use super::{ActOptions, Before};
use crate::session::Session;

/// Whether `node` is an item of a menu that closes once it is chosen: not an
/// item that opens a menu of its own (a menu bar's, Qt's, or one with a
/// popup or items below it).
pub(super) fn chooses_from_a_menu(tree: &Tree, node: NodeId) -> bool {
    let element = tree.element(node);
    let in_bar = tree
        .ancestors(node)
        .next()
        .is_some_and(|parent| tree.element(parent).role == Role::MenuBar);
    matches!(
        element.role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    ) && !in_bar
        && !element.states.contains(State::HasPopup)
        && tree.node(node).children.is_empty()
}

impl<E: Engine> Session<E> {
    /// Settles again while the menu item chosen (`item`) still shows: a slow
    /// app (a cold JVM loading a dialog's classes) takes the click well after
    /// the hover's feedback has gone quiet, and a diff read then would show
    /// neither the menu closing nor what the item opened. Gives up when
    /// nothing more happens within the policy's wait for a first event (a
    /// menu that stays open on purpose), after three rounds, or when the
    /// action's timeout is spent.
    pub(super) async fn until_menu_closes(
        &self,
        engine: &E,
        before: &Before,
        item: &ElementId,
        mut settled: Settled,
        options: &ActOptions,
    ) -> Settled {
        let Some(window) = before
            .trees
            .iter()
            .find(|t| t.tree.find(item).is_some())
            .map(WindowSnapshot::window_id)
        else {
            return settled;
        };
        let query = WindowQuery {
            window_id: Some(window.clone()),
            ..WindowQuery::default()
        };
        // A few rounds at most: an app that keeps changing with its menu
        // open must not hold the answer to its timeout.
        for _ in 0..3 {
            let left = options.timeout.saturating_sub(settled.waited);
            if left.is_zero() {
                return settled;
            }
            let mark = engine.mark().await;
            let shows = match engine
                .window_tree(&query, self.read_options(false, false))
                .await
            {
                Ok(now) => now
                    .tree
                    .find(item)
                    .is_some_and(|node| now.tree.element(node).is_shown()),
                Err(_) => false,
            };
            if !shows {
                return settled;
            }
            let again = engine
                .settle(Some(&window), mark, SettlePolicy::default().within(left))
                .await;
            tracing::debug!(%again, "the chosen menu item still showed");
            let nothing = again.end == SettleEnd::NoChange;
            settled = Settled {
                waited: settled.waited + again.waited,
                events: settled.events + again.events,
                end: match nothing {
                    true => settled.end,
                    false => again.end,
                },
            };
            if nothing {
                return settled;
            }
        }
        settled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Element, StateSet};

    fn element(role: Role, name: &str) -> Element {
        let mut e = Element::new(format!("/{name}"), role, "");
        e.name = name.to_string();
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e
    }

    #[test]
    fn an_item_of_a_menu_closes_it_but_not_one_that_opens_a_menu() {
        let mut tree = Tree::new(element(Role::Window, "window"));
        let bar = tree.push(tree.root(), element(Role::MenuBar, "bar"));
        // Qt's menu bar holds items, each opening a menu.
        let file = tree.push(bar, element(Role::MenuItem, "File"));
        let menu = tree.push(file, element(Role::Menu, "menu"));
        let open = tree.push(menu, element(Role::MenuItem, "Open"));
        let toggle = tree.push(menu, element(Role::CheckMenuItem, "Wrap"));
        let mut more = element(Role::MenuItem, "More");
        more.states.insert(State::HasPopup);
        let more = tree.push(menu, more);
        let recent = tree.push(menu, element(Role::MenuItem, "Recent"));
        tree.push(recent, element(Role::MenuItem, "a.txt"));
        let button = tree.push(tree.root(), element(Role::Button, "Save"));
        assert!(chooses_from_a_menu(&tree, open));
        assert!(chooses_from_a_menu(&tree, toggle));
        assert!(
            !chooses_from_a_menu(&tree, file),
            "a menu bar's item opens a menu"
        );
        assert!(
            !chooses_from_a_menu(&tree, more),
            "an item with a popup opens one"
        );
        assert!(
            !chooses_from_a_menu(&tree, recent),
            "an item with items opens them"
        );
        assert!(!chooses_from_a_menu(&tree, button));
    }
}
