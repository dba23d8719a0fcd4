//! Finding an element again after its handle went stale: what identified it when
//! the agent saw it (role, name, the roles and names on the way down from its
//! window, its neighbours, its box), and the one element of a fresh tree that
//! matches that with high confidence — or none, when two are alike or the clues
//! are weak. Acting on a wrong element is worse than refusing, so the bar is high
//! and the caller always says which element it found and why. Plain data only.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::{Bounds, ElementId, NodeId, Role, Tree};

/// What identified an element when it was last seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub role: Role,
    pub name: String,
    /// The roles and names of its ancestors, from the window down (hashed).
    path: u64,
    /// Its parent's role and name (hashed).
    parent: u64,
    /// Its previous and next siblings' roles and names (hashed; 0 when none).
    before: u64,
    after: u64,
    pub bounds: Option<Bounds>,
    /// Whether it was disabled when read: a control an app disables between
    /// two calls is told as such (KeePassXC's Save, once it saved by itself).
    pub disabled: bool,
}

/// How sure a re-found element is, from its clues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refound {
    pub node: NodeId,
    /// What matched, for the answer: `name`, `place`, `neighbours`, `box`.
    pub clues: Vec<&'static str>,
}

/// The lowest score a match must reach, and how far ahead of the next best.
const CONFIDENT: u32 = 7;
const AHEAD: u32 = 3;

/// Every element's fingerprint, in one pass over `tree` (parents come first).
pub fn fingerprints(tree: &Tree) -> Vec<(ElementId, Fingerprint)> {
    let ids: Vec<NodeId> = tree.ids().collect();
    let mut paths = vec![0u64; ids.len()];
    let mut out = Vec::with_capacity(ids.len());
    for &id in &ids {
        let node = tree.node(id);
        let element = &node.element;
        let (path, parent) = match node.parent {
            Some(parent) => (paths[parent.0], own_hash(tree, parent)),
            None => (0, 0),
        };
        paths[id.0] = combine(path, own_hash(tree, id));
        let siblings = node
            .parent
            .map(|p| tree.node(p).children.as_slice())
            .unwrap_or_default();
        let at = siblings.iter().position(|&s| s == id);
        let before = at
            .and_then(|i| i.checked_sub(1))
            .map_or(0, |i| own_hash(tree, siblings[i]));
        let after = at
            .and_then(|i| siblings.get(i + 1))
            .map_or(0, |&s| own_hash(tree, s));
        out.push((
            element.id.clone(),
            Fingerprint {
                role: element.role,
                name: element.name.clone(),
                path,
                parent,
                before,
                after,
                bounds: element.bounds,
                disabled: element.is_disabled(),
            },
        ));
    }
    out
}

/// The element of `tree` that is `seen` again, when exactly one matches it with
/// high confidence. `same_id` is the node that kept the seen element's identity,
/// if one did (a renamed element): identity counts as a strong clue.
pub fn refind(seen: &Fingerprint, tree: &Tree, same_id: Option<NodeId>) -> Option<Refound> {
    let mut scored: Vec<(u32, Refound)> = fingerprints(tree)
        .into_iter()
        .zip(tree.ids())
        .filter(|((_, candidate), _)| candidate.role == seen.role)
        .map(|((_, candidate), node)| {
            let (mut score, clues) = resemblance(seen, &candidate);
            if Some(node) == same_id {
                score += 3;
            }
            (score, Refound { node, clues })
        })
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let mut ranked = scored.into_iter();
    let (best, found) = ranked.next()?;
    let runner_up = ranked.next().map_or(0, |(score, _)| score);
    (best >= CONFIDENT && best >= runner_up + AHEAD).then_some(found)
}

/// How much `candidate` looks like `seen`, and by which clues.
fn resemblance(seen: &Fingerprint, candidate: &Fingerprint) -> (u32, Vec<&'static str>) {
    let mut score = 0;
    let mut clues = Vec::new();
    if candidate.name == seen.name {
        score += if seen.name.is_empty() { 1 } else { 4 };
        if !seen.name.is_empty() {
            clues.push("name");
        }
    }
    if candidate.parent == seen.parent {
        score += 2;
        if candidate.path == seen.path {
            score += 1;
        }
        clues.push("place");
    }
    let neighbours = [
        (seen.before, candidate.before),
        (seen.after, candidate.after),
    ]
    .iter()
    .filter(|(a, b)| *a != 0 && a == b)
    .count() as u32;
    if neighbours > 0 {
        score += neighbours;
        clues.push("neighbours");
    }
    match (seen.bounds, candidate.bounds) {
        (Some(a), Some(b)) if a == b => {
            score += 2;
            clues.push("box");
        }
        (Some(a), Some(b)) if overlap(&a, &b) >= 0.5 => {
            score += 1;
            clues.push("box");
        }
        _ => {}
    }
    (score, clues)
}

/// Intersection over union of two boxes.
fn overlap(a: &Bounds, b: &Bounds) -> f32 {
    let Some(common) = a.intersection(b) else {
        return 0.0;
    };
    let area = |b: &Bounds| b.width as f32 * b.height as f32;
    let union = area(a) + area(b) - area(&common);
    if union <= 0.0 {
        0.0
    } else {
        area(&common) / union
    }
}

fn own_hash(tree: &Tree, id: NodeId) -> u64 {
    let element = tree.element(id);
    let mut hasher = DefaultHasher::new();
    element.role.hash(&mut hasher);
    element.name.hash(&mut hasher);
    hasher.finish()
}

fn combine(path: u64, own: u64) -> u64 {
    let mut hasher = DefaultHasher::new();
    path.hash(&mut hasher);
    own.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Element;

    fn button(id: &str, name: &str, b: (i32, i32, i32, i32)) -> Element {
        let mut element = Element::new(id, Role::Button, "push button");
        element.name = name.to_string();
        element.bounds = Bounds::from_extents(b.0, b.1, b.2, b.3);
        element
    }

    /// A window with a form: Open, Save, Cancel in a row.
    fn form(save_id: &str, save_name: &str, save_width: i32) -> Tree {
        let mut window = Element::new("w", Role::Window, "frame");
        window.name = "Editor".into();
        let mut tree = Tree::new(window);
        let root = tree.root();
        let mut group = Element::new("g", Role::Group, "panel");
        group.name = "Actions".into();
        let group = tree.push(root, group);
        tree.push(group, button("open", "Open", (0, 0, 60, 30)));
        tree.push(group, button(save_id, save_name, (70, 0, save_width, 30)));
        tree.push(group, button("cancel", "Cancel", (140, 0, 60, 30)));
        tree
    }

    fn seen(tree: &Tree, id: &str) -> Fingerprint {
        fingerprints(tree)
            .into_iter()
            .find(|(element, _)| element.0 == id)
            .map(|(_, fingerprint)| fingerprint)
            .unwrap()
    }

    #[test]
    fn a_recreated_element_is_found_by_its_name_place_neighbours_and_box() {
        let before = form("save-1", "Save", 60);
        let after = form("save-2", "Save", 60);
        let found = refind(&seen(&before, "save-1"), &after, None).unwrap();
        assert_eq!(after.element(found.node).id.0, "save-2");
        assert_eq!(found.clues, ["name", "place", "neighbours", "box"]);
    }

    #[test]
    fn a_renamed_element_is_found_through_its_identity() {
        let before = form("save", "Save", 60);
        let after = form("save", "Saved 1", 72);
        let same = after.find(&ElementId("save".into()));
        let found = refind(&seen(&before, "save"), &after, same).unwrap();
        assert_eq!(after.element(found.node).id.0, "save");
        // Without the identity the clues are too weak.
        assert!(refind(&seen(&before, "save"), &after, None).is_none());
    }

    #[test]
    fn two_look_alikes_are_no_match() {
        let before = form("save-1", "Save", 60);
        let mut after = form("save-2", "Save", 60);
        // A second Save with the same neighbours and box, elsewhere in the tree.
        let root = after.root();
        let mut group = Element::new("g2", Role::Group, "panel");
        group.name = "Actions".into();
        let group = after.push(root, group);
        after.push(group, button("open-2", "Open", (0, 0, 60, 30)));
        after.push(group, button("save-3", "Save", (70, 0, 60, 30)));
        after.push(group, button("cancel-2", "Cancel", (140, 0, 60, 30)));
        assert!(refind(&seen(&before, "save-1"), &after, None).is_none());
    }

    #[test]
    fn another_role_is_never_the_same_element() {
        let before = form("save-1", "Save", 60);
        let mut after = form("x", "Other", 60);
        let save = after.find(&ElementId("x".into())).unwrap();
        after.element_mut(save).role = Role::Link;
        after.element_mut(save).name = "Save".into();
        assert!(refind(&seen(&before, "save-1"), &after, None).is_none());
    }

    #[test]
    fn a_name_alone_somewhere_else_is_not_enough() {
        let before = form("save-1", "Save", 60);
        let mut window = Element::new("w", Role::Window, "frame");
        window.name = "Other window".into();
        let mut after = Tree::new(window);
        let root = after.root();
        after.push(root, button("save-9", "Save", (500, 400, 80, 30)));
        assert!(refind(&seen(&before, "save-1"), &after, None).is_none());
    }
}
