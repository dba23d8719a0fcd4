//! The shortest selector that finds one element again: its role and name (or
//! accessible id), then the named ancestors that set it apart, and its place
//! among its look-alikes only when nothing else does. Each candidate is checked
//! against the tree it was made from, so the chosen one picks that element and
//! no other there.

use crate::{quote_whole, MatchContext, NodeId, Role, Selector, Tree};

/// Most named ancestors tried, nearest first, to set an element apart.
const MOST_ANCESTORS: usize = 6;

/// A selector for one element, and how firmly it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub selector: String,
    /// `true` when only its place among look-alikes (`nth:`) sets it apart: a
    /// list that changes order finds another element.
    pub by_place: bool,
}

/// The selector that finds `node` in `tree` and nothing else there.
///
/// ```
/// use axsight_core::{selector_for, Element, MatchContext, Role, Tree};
/// let named = |role, name: &str| {
///     let mut e = Element::new(name, role, "raw");
///     e.name = name.into();
///     e
/// };
/// let mut tree = Tree::new(named(Role::Window, "Form"));
/// let first = tree.push(tree.root(), named(Role::Group, "Billing"));
/// let second = tree.push(tree.root(), named(Role::Group, "Shipping"));
/// tree.push(first, named(Role::Edit, "Street"));
/// let street = tree.push(second, named(Role::Edit, "Street"));
/// let context = MatchContext { app: "shop", window: "Form" };
/// let chosen = selector_for(&tree, street, &context).unwrap();
/// assert_eq!(chosen.selector, r#"role:Group && name:"Shipping" >> role:Edit && name:"Street""#);
/// assert!(!chosen.by_place);
/// ```
pub fn selector_for(tree: &Tree, node: NodeId, context: &MatchContext<'_>) -> Option<Chosen> {
    let own = own_tests(tree, node);
    let finds_it = |selector: &str| {
        Selector::parse(selector).is_ok_and(|parsed| parsed.find(tree, context) == [node])
    };
    let firm = |selector: String| {
        Some(Chosen {
            selector,
            by_place: false,
        })
    };
    if finds_it(&own) {
        return firm(own);
    }
    // A look-alike hidden elsewhere (GTK 3 keeps closed menus' items).
    let shown = format!("{own} && visible:true");
    if tree.element(node).is_shown() && finds_it(&shown) {
        return firm(shown);
    }
    let ancestors: Vec<NodeId> = tree
        .ancestors(node)
        .filter(|&a| !tree.element(a).name.trim().is_empty())
        .take(MOST_ANCESTORS)
        .collect();
    for &ancestor in &ancestors {
        let chained = format!("{} >> {own}", own_tests(tree, ancestor));
        if finds_it(&chained) {
            return firm(chained);
        }
    }
    for (index, &outer) in ancestors.iter().enumerate() {
        for &inner in &ancestors[..index] {
            let chained = format!(
                "{} >> {} >> {own}",
                own_tests(tree, outer),
                own_tests(tree, inner)
            );
            if finds_it(&chained) {
                return firm(chained);
            }
        }
    }
    // A state that sets it apart (a text area among one-line fields).
    for state in [crate::State::MultiLine, crate::State::Editable] {
        if tree.element(node).states.contains(state) {
            let stated = format!("{own} && state:{}", state.as_str());
            if finds_it(&stated) {
                return firm(stated);
            }
        }
    }
    // Only its place among the elements that look like it is left.
    let parsed = Selector::parse(&own).ok()?;
    let place = parsed.find(tree, context).iter().position(|&n| n == node)?;
    let placed = format!("{own} && nth:{place}");
    finds_it(&placed).then_some(Chosen {
        selector: placed,
        by_place: true,
    })
}

/// What one element is, as selector tests: its role, and its name, else its
/// accessible id.
fn own_tests(tree: &Tree, node: NodeId) -> String {
    let element = tree.element(node);
    let role = match element.role {
        Role::Unknown => format!("role:{}", quote_whole(&element.raw_role)),
        known => format!("role:{known}"),
    };
    let name = element.name.trim();
    if !name.is_empty() {
        return format!("{role} && name:{}", quote_whole(name));
    }
    if !element.accessible_id.is_empty() {
        return format!("{role} && id:{}", quote_whole(&element.accessible_id));
    }
    role
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bounds, Element, State, StateSet};

    fn element(role: Role, name: &str) -> Element {
        let mut e = Element::new(format!("{role}:{name}"), role, "raw");
        e.name = name.into();
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e.bounds = Some(Bounds {
            x: 0,
            y: 0,
            width: 10,
            height: 10,
        });
        e
    }

    const CONTEXT: MatchContext<'static> = MatchContext {
        app: "app",
        window: "Main",
    };

    fn chosen(tree: &Tree, node: NodeId) -> (String, bool) {
        let chosen = selector_for(tree, node, &CONTEXT).unwrap();
        // Whatever was chosen finds exactly that element.
        let found = Selector::parse(&chosen.selector)
            .unwrap()
            .find(tree, &CONTEXT);
        assert_eq!(found, vec![node], "{}", chosen.selector);
        (chosen.selector, chosen.by_place)
    }

    #[test]
    fn a_unique_name_is_enough_and_quotes_survive() {
        let mut tree = Tree::new(element(Role::Window, "Main"));
        let save = tree.push(tree.root(), element(Role::Button, r#"Save "draft""#));
        assert_eq!(
            chosen(&tree, save),
            (r#"role:Button && name:"Save \"draft\"""#.into(), false)
        );
    }

    #[test]
    fn a_hidden_look_alike_is_set_apart_by_visibility() {
        let mut tree = Tree::new(element(Role::Window, "Main"));
        let mut hidden = element(Role::MenuItem, "Open");
        hidden.states = StateSet::default();
        tree.push(tree.root(), hidden);
        let open = tree.push(tree.root(), element(Role::MenuItem, "Open"));
        assert_eq!(
            chosen(&tree, open),
            (
                "role:MenuItem && name:\"Open\" && visible:true".into(),
                false
            )
        );
    }

    #[test]
    fn an_unnamed_element_goes_by_its_id_else_its_ancestors_else_its_place() {
        let mut tree = Tree::new(element(Role::Window, "Main"));
        let mut with_id = element(Role::Edit, "");
        with_id.accessible_id = "street_entry".into();
        let street = tree.push(tree.root(), with_id);
        assert_eq!(chosen(&tree, street).0, "role:Edit && id:\"street_entry\"");
        let panel = tree.push(tree.root(), element(Role::Group, "Notes"));
        let notes = tree.push(panel, element(Role::Edit, ""));
        assert_eq!(
            chosen(&tree, notes).0,
            "role:Group && name:\"Notes\" >> role:Edit"
        );
        let second = tree.push(panel, element(Role::Edit, ""));
        assert_eq!(chosen(&tree, second), ("role:Edit && nth:2".into(), true));
        let mut area = element(Role::Edit, "");
        area.states.insert(crate::State::MultiLine);
        let area = tree.push(panel, area);
        assert_eq!(
            chosen(&tree, area),
            ("role:Edit && state:multiline".into(), false)
        );
    }

    #[test]
    fn two_ancestors_when_one_is_not_enough() {
        let mut tree = Tree::new(element(Role::Window, "Main"));
        for outer in ["Left", "Right"] {
            let side = tree.push(tree.root(), element(Role::Pane, outer));
            for inner in ["Top", "Bottom"] {
                let group = tree.push(side, element(Role::Group, inner));
                tree.push(group, element(Role::Button, "Go"));
            }
        }
        let last = *tree.descendants(tree.root()).last().unwrap();
        assert_eq!(
            chosen(&tree, last).0,
            "role:Pane && name:\"Right\" >> role:Group && name:\"Bottom\" >> role:Button && name:\"Go\""
        );
    }
}
