//! A window's element tree, stored as an arena so that walks, diffs and handle
//! look-ups index into one vector.

use crate::{Element, ElementId};

/// Index of a node in its [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

/// One node: an element and its links.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub element: Element,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
}

/// An element tree in document order: the root is node 0 and every parent comes
/// before its children.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// A tree holding only `root`.
    pub fn new(root: Element) -> Tree {
        Tree {
            nodes: vec![Node {
                element: root,
                parent: None,
                children: Vec::new(),
            }],
        }
    }

    /// Appends `element` as the last child of `parent` and returns its id.
    ///
    /// # Panics
    /// When `parent` is not a node of this tree: that is a bug in the caller.
    pub fn push(&mut self, parent: NodeId, element: Element) -> NodeId {
        let id = NodeId(self.nodes.len());
        self.nodes.push(Node {
            element,
            parent: Some(parent),
            children: Vec::new(),
        });
        self.nodes[parent.0].children.push(id);
        id
    }

    /// The root node's id.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// The node with `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0]
    }

    /// The element of node `id`.
    pub fn element(&self, id: NodeId) -> &Element {
        &self.nodes[id.0].element
    }

    /// Mutable access to the element of node `id`.
    pub fn element_mut(&mut self, id: NodeId) -> &mut Element {
        &mut self.nodes[id.0].element
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no nodes (only a `Default` tree).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node id, in insertion order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len()).map(NodeId)
    }

    /// The node whose element has identity `id`.
    pub fn find(&self, id: &ElementId) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|node| &node.element.id == id)
            .map(NodeId)
    }

    /// Node ids of the subtree under `top`, `top` first, in depth-first document order.
    pub fn descendants(&self, top: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![top];
        while let Some(id) = stack.pop() {
            out.push(id);
            stack.extend(self.nodes[id.0].children.iter().rev().copied());
        }
        out
    }

    /// Ancestors of `id`, nearest first.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.nodes[id.0].parent, |p| self.nodes[p.0].parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;

    #[test]
    fn descendants_are_in_document_order() {
        let mut tree = Tree::new(Element::new("r", Role::Window, "frame"));
        let a = tree.push(tree.root(), Element::new("a", Role::Group, "panel"));
        let a1 = tree.push(a, Element::new("a1", Role::Button, "push button"));
        let b = tree.push(tree.root(), Element::new("b", Role::Button, "push button"));
        assert_eq!(tree.descendants(tree.root()), vec![tree.root(), a, a1, b]);
        assert_eq!(tree.ancestors(a1).collect::<Vec<_>>(), vec![a, tree.root()]);
        assert_eq!(tree.find(&ElementId("b".into())), Some(b));
    }
}
