//! Matching: whether one element satisfies an expression, and which nodes of a tree a
//! whole selector picks (chains and `nth:` included). The matching rules live here.

use super::ast::{Atom, Expr, RoleMatch, Selector, Step};
use crate::{Element, NodeId, State, Tree};

/// What the tree itself does not say: the application and window it was read from,
/// which `app:` and `window:` compare against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchContext<'a> {
    /// The application's name, such as `gedit`.
    pub app: &'a str,
    /// The window's title.
    pub window: &'a str,
}

impl Selector {
    /// The nodes of `tree` the selector picks, in document order.
    ///
    /// The first step is tried on every node (root included); each later step on the
    /// strict descendants of the previous step's matches. A step's `nth:` keeps one of
    /// that step's matches in document order; an index out of range gives no match.
    pub fn find(&self, tree: &Tree, context: &MatchContext<'_>) -> Vec<NodeId> {
        if tree.is_empty() {
            return Vec::new();
        }
        let order = tree.descendants(tree.root());
        let mut in_scope = vec![true; tree.len()];
        let mut matches = Vec::new();
        for step in &self.steps {
            matches =
                step.pick(order.iter().copied().filter(|&id| {
                    in_scope[id.0] && step.filter.matches(tree.element(id), context)
                }));
            in_scope = strictly_below(tree, &order, &matches);
        }
        matches
    }

    /// Whether node `id` satisfies the last step and has ancestors satisfying the
    /// earlier steps, outermost first. `nth:` is ignored: it needs the whole match list.
    pub fn matches_element(&self, tree: &Tree, id: NodeId, context: &MatchContext<'_>) -> bool {
        let Some((last, earlier)) = self.steps.split_last() else {
            return false;
        };
        if !last.filter.matches(tree.element(id), context) {
            return false;
        }
        // Nearest ancestors first: greedily satisfying the innermost pending step is
        // enough to decide whether some ancestor sequence exists.
        let mut pending = earlier.iter().rev().peekable();
        for ancestor in tree.ancestors(id) {
            match pending.peek() {
                None => break,
                Some(step) if step.filter.matches(tree.element(ancestor), context) => {
                    pending.next();
                }
                Some(_) => {}
            }
        }
        pending.peek().is_none()
    }
}

impl Step {
    /// Applies `nth:` to the step's matches, which come in document order.
    fn pick(&self, matches: impl Iterator<Item = NodeId>) -> Vec<NodeId> {
        let mut matches: Vec<NodeId> = matches.collect();
        let Some(nth) = self.nth else {
            return matches;
        };
        let index = if nth < 0 {
            usize::try_from(nth.unsigned_abs())
                .ok()
                .and_then(|back| matches.len().checked_sub(back))
        } else {
            usize::try_from(nth).ok()
        };
        match index.filter(|&i| i < matches.len()) {
            Some(i) => vec![matches.swap_remove(i)],
            None => Vec::new(),
        }
    }
}

/// Marks the nodes strictly below any of `tops`. `order` lists every node with each
/// parent before its children, so one pass over it suffices.
fn strictly_below(tree: &Tree, order: &[NodeId], tops: &[NodeId]) -> Vec<bool> {
    let mut is_top = vec![false; tree.len()];
    for top in tops {
        is_top[top.0] = true;
    }
    let mut below = vec![false; tree.len()];
    for &id in order {
        if let Some(parent) = tree.node(id).parent {
            below[id.0] = below[parent.0] || is_top[parent.0];
        }
    }
    below
}

impl Expr {
    /// Whether `element` satisfies the expression. Each key's rule is listed with the
    /// grammar, in the documentation of the `selector` module (and the book's docs/selectors.md).
    pub fn matches(&self, element: &Element, context: &MatchContext<'_>) -> bool {
        match self {
            Expr::Atom(atom) => atom.matches(element, context),
            Expr::Not(inner) => !inner.matches(element, context),
            Expr::And(operands) => operands.iter().all(|e| e.matches(element, context)),
            Expr::Or(operands) => operands.iter().any(|e| e.matches(element, context)),
        }
    }
}

impl Atom {
    /// Whether `element` satisfies this one test.
    pub fn matches(&self, element: &Element, context: &MatchContext<'_>) -> bool {
        // A secret's value is never compared, so no selector can probe a password.
        let value = element.value.as_deref().filter(|_| !element.is_secret());
        match self {
            Atom::Role(RoleMatch::Normalised(role)) => element.role == *role,
            Atom::Role(RoleMatch::Raw(raw)) => element.raw_role.eq_ignore_ascii_case(raw),
            Atom::Name(name) => element.name.trim().to_lowercase() == name.trim().to_lowercase(),
            Atom::Text(text) => [
                Some(element.name.as_str()),
                value,
                Some(&element.description),
            ]
            .into_iter()
            .flatten()
            .any(|field| contains_ignoring_case(field, text)),
            Atom::Id(id) => element.accessible_id == *id,
            Atom::Desc(text) => contains_ignoring_case(&element.description, text),
            Atom::Value(text) => value.is_some_and(|v| contains_ignoring_case(v, text)),
            Atom::State(state) => element.states.contains(*state),
            Atom::App(text) => contains_ignoring_case(context.app, text),
            Atom::Window(text) => contains_ignoring_case(context.window, text),
            Atom::Visible(flag) => element.is_shown() == *flag,
            Atom::Enabled(flag) => element.states.is_enabled() == *flag,
            Atom::Focused(flag) => element.states.contains(State::Focused) == *flag,
            Atom::Checked(flag) => element.states.contains(State::Checked) == *flag,
        }
    }
}

fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}
