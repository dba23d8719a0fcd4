//! The structured (JSON) form of a tree, for programs. Same elements and handles as
//! the compact text; no folding and no character budget, but the same depth limit,
//! visibility rule and redaction.

use serde::Serialize;

use crate::{Bounds, HandleRegistry, NodeId, StateSet, Tree};

/// One element and its children, ready to serialise.
#[derive(Debug, Clone, Serialize)]
pub struct JsonElement {
    pub handle: String,
    pub role: &'static str,
    pub raw_role: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A field's placeholder, while it is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub states: StateSet,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<JsonElement>,
    /// Elements below this one that `max_depth` left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden_below: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Builds the JSON form of the subtree under `top`. Secret values are never copied.
pub fn to_json(
    tree: &Tree,
    top: NodeId,
    registry: &mut HandleRegistry,
    max_depth: Option<usize>,
    include_invisible: bool,
) -> JsonElement {
    build(tree, top, 0, registry, max_depth, include_invisible)
}

fn build(
    tree: &Tree,
    id: NodeId,
    depth: usize,
    registry: &mut HandleRegistry,
    max_depth: Option<usize>,
    include_invisible: bool,
) -> JsonElement {
    let element = tree.element(id);
    let handle = registry.assign(&element.id, element.role, &element.name);
    let children: Vec<NodeId> = tree
        .node(id)
        .children
        .iter()
        .copied()
        .filter(|&c| include_invisible || tree.element(c).is_shown())
        .collect();
    let at_limit = max_depth.is_some_and(|max| depth >= max);
    let (children, hidden_below) = if at_limit {
        let hidden = children
            .iter()
            .map(|&c| {
                tree.descendants(c)
                    .into_iter()
                    .filter(|&d| include_invisible || tree.element(d).is_shown())
                    .count()
            })
            .sum();
        (Vec::new(), hidden)
    } else {
        let built = children
            .into_iter()
            .map(|c| build(tree, c, depth + 1, registry, max_depth, include_invisible))
            .collect();
        (built, 0)
    };
    JsonElement {
        handle: handle.to_string(),
        role: element.role.as_str(),
        raw_role: element.raw_role.clone(),
        name: element.name.clone(),
        description: element.description.clone(),
        value: if element.is_secret() {
            None
        } else {
            element.value.clone()
        },
        hint: element.hint.clone(),
        states: element.states,
        bounds: element.bounds,
        actions: element.actions.clone(),
        children,
        hidden_below,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Element, Role, State};

    #[test]
    fn json_redacts_and_limits_depth() {
        let mut root = Element::new("w", Role::Window, "frame");
        root.states.insert(State::Showing);
        let mut tree = Tree::new(root);
        let mut secret = Element::new("p", Role::Edit, "password text");
        secret.states.insert(State::Showing);
        secret.value = Some("hunter2".into());
        let pw = tree.push(tree.root(), secret);
        let mut child = Element::new("c", Role::Text, "label");
        child.states.insert(State::Showing);
        tree.push(pw, child);
        let mut registry = HandleRegistry::new();
        let json = to_json(&tree, tree.root(), &mut registry, Some(1), false);
        let text = serde_json::to_string(&json).unwrap();
        assert!(!text.contains("hunter2"));
        assert_eq!(json.children[0].hidden_below, 1);
        assert_eq!(json.children[0].handle, "#u2");
    }
}
