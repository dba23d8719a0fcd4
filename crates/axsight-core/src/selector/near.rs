//! Near misses: what a selector that found nothing would have found with one
//! of its tests left out (`role:MenuItem && name:File` finds nothing where File
//! is a `[Menu]`), for the error to name instead of leaving the agent to guess.

use super::ast::{Atom, Expr, Selector};
use super::matcher::MatchContext;
use super::suggest::close_matches;
use crate::{NodeId, Tree};

/// An element a selector missed by one test, and which one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    pub node: NodeId,
    /// What differs, in words, with the test that finds it where there is one:
    /// `its role differs`, `its name differs (text:"Save" finds it)`.
    pub differs: String,
}

impl Selector {
    /// Up to `max` elements of `tree` that pass every test of this selector
    /// but one, the likeliest first: the same name under another role, then
    /// names that hold or nearly spell the one asked for, then any other one
    /// test failed. Only a one-step selector of tests joined by `&&` (or a
    /// single test of a name) has them; a chain, `||` or `!` has none.
    ///
    /// ```
    /// use axsight_core::{Element, MatchContext, Role, Selector, Tree};
    /// let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
    /// let mut file = Element::new("f", Role::Menu, "menu");
    /// file.name = "File".into();
    /// let node = tree.push(tree.root(), file);
    /// let selector = Selector::parse("role:MenuItem && name:File").unwrap();
    /// let near = selector.near_misses(&tree, &MatchContext::default(), 3);
    /// assert_eq!((near[0].node, near[0].differs.as_str()), (node, "its role differs"));
    /// ```
    pub fn near_misses(
        &self,
        tree: &Tree,
        context: &MatchContext<'_>,
        max: usize,
    ) -> Vec<NearMiss> {
        let [step] = self.steps.as_slice() else {
            return Vec::new();
        };
        let atoms: Vec<&Atom> = match &step.filter {
            Expr::Atom(atom) => vec![atom],
            Expr::And(operands) => {
                let atoms: Option<Vec<&Atom>> = operands
                    .iter()
                    .map(|operand| match operand {
                        Expr::Atom(atom) => Some(atom),
                        _ => None,
                    })
                    .collect();
                match atoms {
                    Some(atoms) => atoms,
                    None => return Vec::new(),
                }
            }
            _ => return Vec::new(),
        };
        // (rank, document order, miss): a lower rank is likelier.
        let mut found: Vec<(u8, usize, NearMiss)> = Vec::new();
        let order = tree.descendants(tree.root());
        for (left_out, atom) in atoms.iter().enumerate() {
            let named = matches!(atom, Atom::Name(_) | Atom::Text(_));
            // Every element passes a selector with its only test left out.
            if atoms.len() == 1 && !named {
                continue;
            }
            for (position, &id) in order.iter().enumerate() {
                let element = tree.element(id);
                let passes_the_rest = atoms
                    .iter()
                    .enumerate()
                    .all(|(i, other)| i == left_out || other.matches(element, context));
                if !passes_the_rest {
                    continue;
                }
                let miss = |rank, differs: String| (rank, position, NearMiss { node: id, differs });
                match atom {
                    Atom::Role(_) => found.push(miss(0, "its role differs".into())),
                    Atom::Name(name) | Atom::Text(name) => {
                        let wanted = name.trim();
                        if wanted.is_empty() || element.name.trim().is_empty() {
                            continue;
                        }
                        if element.name.to_lowercase().contains(&wanted.to_lowercase()) {
                            let finds = format!("text:{}", crate::quote(wanted));
                            found.push(miss(1, format!("its name differs ({finds} finds it)")));
                        } else if !close_matches(wanted, [element.name.trim()]).is_empty() {
                            found.push(miss(2, "its name is spelt differently".into()));
                        }
                    }
                    _ => found.push(miss(3, "one of its other tests fails".into())),
                }
            }
        }
        found.sort_by_key(|(rank, position, _)| (*rank, *position));
        let mut seen = std::collections::HashSet::new();
        found.retain(|(_, _, miss)| seen.insert(miss.node));
        // The likeliest of each kind first, then the rest in order: menus named
        // `Slide` must not crowd out the `[Text] Slide 1 of 2` a role asked for.
        let mut kinds = std::collections::HashSet::new();
        let (firsts, rest): (Vec<_>, Vec<_>) = found
            .into_iter()
            .partition(|(rank, _, _)| kinds.insert(*rank));
        let mut chosen: Vec<_> = firsts.into_iter().chain(rest).take(max).collect();
        chosen.sort_by_key(|(rank, position, _)| (*rank, *position));
        chosen.into_iter().map(|(_, _, miss)| miss).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Element, Role};

    fn tree() -> (Tree, NodeId, NodeId) {
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        let mut save = Element::new("s", Role::Button, "push button");
        save.name = "Save Database".into();
        let save = tree.push(tree.root(), save);
        let mut cancel = Element::new("c", Role::Button, "push button");
        cancel.name = "Cancle".into();
        let cancel = tree.push(tree.root(), cancel);
        (tree, save, cancel)
    }

    fn near(selector: &str, tree: &Tree) -> Vec<(NodeId, String)> {
        Selector::parse(selector)
            .unwrap()
            .near_misses(tree, &MatchContext::default(), 3)
            .into_iter()
            .map(|miss| (miss.node, miss.differs))
            .collect()
    }

    #[test]
    fn a_name_held_in_a_longer_one_is_named_with_the_test_that_finds_it() {
        let (tree, save, _) = tree();
        assert_eq!(
            near("role:Button && name:Save", &tree),
            vec![(
                save,
                "its name differs (text:\"Save\" finds it)".to_string()
            )]
        );
        assert_eq!(near("name:save", &tree)[0].0, save);
    }

    #[test]
    fn each_kind_of_miss_has_a_place_before_more_of_one_kind() {
        // Three menus named Slide, and the text a role asked for, whose name
        // holds the word.
        let mut tree = Tree::new(Element::new("w", Role::Window, "frame"));
        for id in ["m1", "m2", "m3"] {
            let mut menu = Element::new(id, Role::Menu, "menu");
            menu.name = "Slide".into();
            tree.push(tree.root(), menu);
        }
        let mut status = Element::new("t", Role::Text, "label");
        status.name = "Slide 1 of 2".into();
        let status = tree.push(tree.root(), status);
        let found = near("role:Text && name:Slide", &tree);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].1, "its role differs");
        assert_eq!(
            found[2],
            (
                status,
                "its name differs (text:\"Slide\" finds it)".to_string()
            )
        );
    }

    #[test]
    fn a_misspelt_name_and_nothing_close() {
        let (tree, _, cancel) = tree();
        assert_eq!(near("role:Button && name:Cancel", &tree)[0].0, cancel);
        assert!(near("role:Button && name:Quit", &tree).is_empty());
        // A lone role, a chain and an alternative name no near misses.
        assert!(near("role:CheckBox", &tree).is_empty());
        assert!(near("role:Window >> name:Quit", &tree).is_empty());
        assert!(near("name:Quit || name:Exit", &tree).is_empty());
    }
}
