//! Bringing a cached window read up to date from the events logged since, instead
//! of walking the whole window again: a bounds change costs one call, a state or
//! name change re-reads one object, a children change re-reads one subtree.

use std::collections::HashMap;

use futures_util::future::join_all;

use crate::dbus::{self, ObjRef};
use crate::events::{Change, Event};
use crate::walk::{Abort, Cut, RawNode, Walker};

/// Past this many changed objects of a kept read (after [`widen`]) a full
/// walk is cheaper than patching.
pub const MAX_PATCHES: usize = 64;

/// AT-SPI role number of `scroll bar`.
const SCROLL_BAR: u32 = 48;

/// How much of one object to read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reread {
    Bounds,
    Node,
    /// A container that says its box changed: read again, and its whole
    /// subtree where the box did change (its children moved with it, often
    /// without a word). LibreOffice announces unchanged boxes of the pane that
    /// holds a whole window on every edit.
    Moved,
    Subtree,
}

impl Reread {
    /// What two changes of one object ask for together: the deeper, but a box
    /// and a state both changed is a possible move ([`Reread::Moved`]), which a
    /// plain re-read of the object would not follow into its children.
    fn with(self, other: Reread) -> Reread {
        match (self, other) {
            (Reread::Bounds, Reread::Node) | (Reread::Node, Reread::Bounds) => Reread::Moved,
            _ => self.max(other),
        }
    }
}

/// The objects to read again and how deeply; `None` when the events call for a full
/// read (window events). How many is too many is judged after [`widen`] drops
/// the objects the kept read does not hold: reading a Swing list makes its
/// transient cell renderers send dozens of events, about objects no tree holds.
pub fn plan(events: &[Event]) -> Option<HashMap<String, Reread>> {
    let mut plan: HashMap<String, Reread> = HashMap::new();
    for event in events {
        let reread = match event.change {
            Change::Windows => return None,
            Change::Bounds => Reread::Bounds,
            Change::Node => Reread::Node,
            Change::Subtree => Reread::Subtree,
        };
        let entry = plan.entry(event.path.clone()).or_insert(reread);
        *entry = entry.with(reread);
    }
    Some(plan)
}

/// Widens a plan by what the cached tree knows, and drops objects not in it (a
/// change there cannot show) and the window's own bounds (checked apart):
/// - a container that moved or resized moved its descendants too, and they may
///   send nothing: its whole subtree is read again once its box is seen to
///   differ ([`Reread::Moved`]);
/// - a scroll bar whose value changed scrolled its siblings' content, which sends
///   no event in GTK3 (rows come into view without a state event): the scroll
///   bar's parent is read again.
pub fn widen(cached: &RawNode, plan: HashMap<String, Reread>) -> HashMap<String, Reread> {
    let mut widened: HashMap<String, Reread> = HashMap::new();
    for (path, reread) in plan {
        let Some((node, parent)) = locate(cached, &path, None) else {
            continue;
        };
        // The window's own box is asked before any patch, and a window that
        // moved is read whole: a bounds event on it (LibreOffice sends some on
        // every edit) moves nothing.
        let reread = match (parent, reread) {
            (None, Reread::Bounds) => continue,
            (None, Reread::Moved) => Reread::Node,
            _ => reread,
        };
        let (path, reread) = match (node.role, parent) {
            (SCROLL_BAR, Some(parent)) if reread >= Reread::Node => {
                (path_of(parent), Reread::Subtree)
            }
            // A container's box moves its children's: seen in the patch.
            _ if reread == Reread::Bounds && !node.children.is_empty() => (path, Reread::Moved),
            // A leaf's box is read with the rest of it.
            _ if reread == Reread::Moved && node.children.is_empty() => (path, Reread::Node),
            _ => (path, reread),
        };
        let entry = widened.entry(path).or_insert(reread);
        *entry = entry.with(reread);
    }
    without_covered(cached, widened)
}

/// `plan` without the objects a re-read subtree of it covers: reading parts
/// of a subtree as well would race with it (one walk's objects are met once,
/// so the subtree read could come back without them) and waste calls.
fn without_covered(cached: &RawNode, mut plan: HashMap<String, Reread>) -> HashMap<String, Reread> {
    let subtrees: Vec<String> = plan
        .iter()
        .filter(|(_, reread)| **reread == Reread::Subtree)
        .map(|(path, _)| path.clone())
        .collect();
    plan.retain(|path, _| {
        !subtrees
            .iter()
            .any(|top| top != path && is_below(cached, top, path))
    });
    plan
}

/// The plan with each [`Reread::Moved`] container decided: its subtree where
/// its box differs from the kept read's (or the kept read has none), itself
/// alone where not. Asks each such box once, concurrently.
pub async fn decide_moves(
    conn: &zbus::Connection,
    cached: &RawNode,
    bus: &str,
    mut plan: HashMap<String, Reread>,
    extent_coords: u32,
) -> HashMap<String, Reread> {
    let moved: Vec<String> = plan
        .iter()
        .filter(|(_, reread)| **reread == Reread::Moved)
        .map(|(path, _)| path.clone())
        .collect();
    let checks = moved.into_iter().map(|path| async move {
        let kept = locate(cached, &path, None).and_then(|(node, _)| node.extents);
        let Ok(object) = zbus::zvariant::ObjectPath::try_from(path.as_str()) else {
            return (path, true);
        };
        let obj = ObjRef {
            bus: bus.to_string(),
            path: object.into(),
        };
        let now = dbus::extents(conn, &obj, extent_coords).await.ok();
        (path, kept.is_none() || now != kept)
    });
    for (path, moved) in join_all(checks).await {
        let reread = match moved {
            true => Reread::Subtree,
            false => Reread::Node,
        };
        plan.insert(path, reread);
    }
    without_covered(cached, plan)
}

/// `plan` with every part of a LibreOffice window read by its drawn part (a
/// sheet: its `cuts`) read again when the app `changed` anything at all.
/// Calc changes cells without a word about them: an undo sends nothing on the
/// sheet, a paste only moves its selection (measured), so no event names the
/// cells to read.
pub fn with_drawn_parts(
    cached: &RawNode,
    mut plan: HashMap<String, Reread>,
    cuts: &[Cut],
    changed: bool,
) -> HashMap<String, Reread> {
    if !changed {
        return plan;
    }
    for cut in cuts {
        if locate(cached, &cut.path, None).is_some() {
            plan.insert(cut.path.clone(), Reread::Subtree);
        }
    }
    without_covered(cached, plan)
}

/// Whether the object at `path` lies below the object at `top` in `tree`.
fn is_below(tree: &RawNode, top: &str, path: &str) -> bool {
    locate(tree, top, None).is_some_and(|(node, _)| {
        node.children
            .iter()
            .any(|child| locate(child, path, None).is_some())
    })
}

/// The cuts of a kept read that still hold after `plan` is patched in: those
/// of elements no re-read subtree covers (a re-read subtree says its own).
pub fn cuts_kept(cached: &RawNode, plan: &HashMap<String, Reread>, cuts: &[Cut]) -> Vec<Cut> {
    cuts.iter()
        .filter(|cut| {
            !plan.iter().any(|(path, reread)| {
                *reread == Reread::Subtree
                    && (*path == cut.path || is_below(cached, path, &cut.path))
            })
        })
        .cloned()
        .collect()
}

/// The most subtrees a flood is folded into before the window is read whole.
pub const MOST_SUBTREES: usize = 8;

/// A plan too big to patch object by object, folded into the subtrees that
/// hold its objects: each object's ancestor at the deepest level below the
/// window that leaves at most [`MOST_SUBTREES`] of them, read again whole.
/// LibreOffice rebuilds its sidebar on every action, hundreds of objects in
/// one panel; reading that panel beats reading the window. `None` when only
/// the window itself would hold them.
pub fn coalesce(
    cached: &RawNode,
    plan: &HashMap<String, Reread>,
) -> Option<HashMap<String, Reread>> {
    // Each planned object's ancestors, the window first, itself last, from
    // one map of every object's parent.
    let mut parents: HashMap<String, String> = HashMap::new();
    let mut stack = vec![cached];
    while let Some(node) = stack.pop() {
        for child in &node.children {
            parents.insert(path_of(child), path_of(node));
            stack.push(child);
        }
    }
    let root = path_of(cached);
    if plan.contains_key(&root) {
        return None;
    }
    // Objects the kept read does not hold are none of its subtrees.
    let chains: Vec<Vec<&String>> = plan
        .keys()
        .map(|path| {
            let mut chain = vec![path];
            let mut at = path;
            while let Some(parent) = parents.get(at) {
                chain.push(parent);
                at = parent;
            }
            chain.reverse();
            chain
        })
        .filter(|chain| chain[0] == &root)
        .collect();
    let deepest = chains.iter().map(Vec::len).max()?;
    for level in (1..deepest).rev() {
        let folded: std::collections::HashSet<&String> = chains
            .iter()
            .map(|chain| chain[level.min(chain.len() - 1)])
            .collect();
        if folded.len() <= MOST_SUBTREES {
            // A shorter chain folds to its own object, which may lie above
            // another chain's fold.
            let folded = folded
                .into_iter()
                .map(|path| (path.clone(), Reread::Subtree))
                .collect();
            return Some(without_covered(cached, folded));
        }
    }
    None
}

fn path_of(node: &RawNode) -> String {
    node.obj
        .as_ref()
        .map(|o| o.path.to_string())
        .unwrap_or_default()
}

/// The node with object path `path` and its parent.
fn locate<'t>(
    tree: &'t RawNode,
    path: &str,
    parent: Option<&'t RawNode>,
) -> Option<(&'t RawNode, Option<&'t RawNode>)> {
    if tree
        .obj
        .as_ref()
        .is_some_and(|obj| obj.path.as_str() == path)
    {
        return Some((tree, parent));
    }
    tree.children
        .iter()
        .find_map(|child| locate(child, path, Some(tree)))
}

/// The node with object path `path` in `tree`.
fn find_mut<'t>(tree: &'t mut RawNode, path: &str) -> Option<&'t mut RawNode> {
    if tree
        .obj
        .as_ref()
        .is_some_and(|obj| obj.path.as_str() == path)
    {
        return Some(tree);
    }
    tree.children
        .iter_mut()
        .find_map(|child| find_mut(child, path))
}

/// A fresh reading of one changed object.
enum Fresh {
    Extents(Option<(i32, i32, i32, i32)>),
    Node(RawNode),
    Subtree(RawNode),
}

/// Applies `plan` (already [`widen`]ed against `cached`, its moves decided)
/// to a copy of `cached`,
/// reading each changed object of app `bus` again. An error means the patch failed
/// and the caller should walk the window afresh.
pub async fn patch(
    walker: &Walker<'_>,
    conn: &zbus::Connection,
    cached: &RawNode,
    bus: &str,
    plan: HashMap<String, Reread>,
    extent_coords: u32,
) -> Result<RawNode, Abort> {
    let root_path = path_of(cached);
    let root_path = root_path.as_str();
    let reads = plan.into_iter().map(|(path, reread)| async move {
        let obj = ObjRef {
            bus: bus.to_string(),
            path: zbus::zvariant::ObjectPath::try_from(path.as_str())
                .map_err(|e| Abort::other("path", e.into()))?
                .into(),
        };
        let is_root = path == root_path;
        let fresh = match reread {
            Reread::Bounds => Fresh::Extents(dbus::extents(conn, &obj, extent_coords).await.ok()),
            Reread::Node => Fresh::Node(walker.read_node(obj, is_root).await?),
            // Undecided moves are read whole ([`decide_moves`] decides them).
            Reread::Moved | Reread::Subtree => Fresh::Subtree(walker.read(obj, is_root).await?),
        };
        Ok::<_, Abort>((path, fresh))
    });
    let mut tree = cached.clone();
    let mut results = join_all(reads).await;
    // Whole subtrees first, so that smaller patches land on the fresh copies.
    results.sort_by_key(|r| !matches!(r, Ok((_, Fresh::Subtree(_)))));
    for result in results {
        let (path, fresh) = result?;
        let Some(node) = find_mut(&mut tree, &path) else {
            continue;
        };
        match fresh {
            Fresh::Extents(extents) => node.extents = extents,
            Fresh::Subtree(fresh) => *node = fresh,
            Fresh::Node(mut fresh) => {
                if walker.is_drawn_node(&fresh) != walker.is_drawn_node(node) && path != root_path {
                    // It appeared or vanished: its children must be read (or dropped).
                    let obj = fresh.obj.clone().ok_or_else(|| {
                        Abort::other("read", zbus::Error::Failure("no object".into()))
                    })?;
                    *node = walker.read(obj, false).await?;
                } else {
                    fresh.children = std::mem::take(&mut node.children);
                    *node = fresh;
                }
            }
        }
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(path: &str, change: Change) -> Event {
        Event {
            sequence: 0,
            sender: ":1.2".into(),
            path: path.into(),
            change,
            incidental: false,
            focus: false,
            at: std::time::Instant::now(),
        }
    }

    #[test]
    fn the_plan_keeps_the_deepest_change_per_object() {
        let plan = plan(&[
            event("/a", Change::Bounds),
            event("/a", Change::Node),
            event("/b", Change::Bounds),
        ])
        .unwrap();
        assert_eq!(plan["/a"], Reread::Moved, "a box and a state: maybe moved");
        assert_eq!(plan["/b"], Reread::Bounds);
        let plan = super::plan(&[
            event("/a", Change::Bounds),
            event("/a", Change::Subtree),
            event("/b", Change::Node),
            event("/b", Change::Node),
        ])
        .unwrap();
        assert_eq!(plan["/a"], Reread::Subtree);
        assert_eq!(plan["/b"], Reread::Node);
    }

    fn node(path: &'static str, role: u32, children: Vec<RawNode>) -> RawNode {
        RawNode {
            obj: Some(ObjRef::new(":1.2", path)),
            role,
            children,
            ..RawNode::default()
        }
    }

    #[test]
    fn the_tree_widens_the_plan() {
        // window > (pane > (scroll bar, list > row), leaf)
        let tree = node(
            "/w",
            23,
            vec![
                node(
                    "/pane",
                    49,
                    vec![
                        node("/bar", SCROLL_BAR, vec![]),
                        node("/list", 31, vec![node("/row", 32, vec![])]),
                    ],
                ),
                node("/leaf", 43, vec![]),
            ],
        );
        let plan = HashMap::from([
            ("/bar".to_string(), Reread::Node),
            ("/leaf".to_string(), Reread::Bounds),
            ("/elsewhere".to_string(), Reread::Subtree),
        ]);
        let widened = widen(&tree, plan);
        assert_eq!(
            widened.get("/pane"),
            Some(&Reread::Subtree),
            "a scroll re-reads the scrolled pane"
        );
        assert_eq!(
            widened.get("/leaf"),
            Some(&Reread::Bounds),
            "a moved leaf is one call"
        );
        assert!(!widened.contains_key("/bar") && !widened.contains_key("/elsewhere"));
        assert!(
            widen(&tree, HashMap::from([("/w".to_string(), Reread::Bounds)])).is_empty(),
            "the window's own box is checked apart"
        );
        assert_eq!(
            widen(&tree, HashMap::from([("/w".to_string(), Reread::Moved)])),
            HashMap::from([("/w".to_string(), Reread::Node)]),
            "the window's own box is checked apart, its state is read"
        );
        let widened = widen(
            &tree,
            HashMap::from([
                ("/list".to_string(), Reread::Bounds),
                ("/leaf".to_string(), Reread::Moved),
            ]),
        );
        assert_eq!(
            widened.get("/list"),
            Some(&Reread::Moved),
            "a container that says it moved is checked, its children read if it did"
        );
        assert_eq!(
            widened.get("/leaf"),
            Some(&Reread::Node),
            "a leaf's box is read with it"
        );

        // Below a re-read subtree nothing else is read.
        let plan = HashMap::from([
            ("/pane".to_string(), Reread::Subtree),
            ("/row".to_string(), Reread::Node),
        ]);
        assert_eq!(
            widen(&tree, plan),
            HashMap::from([("/pane".to_string(), Reread::Subtree)])
        );
    }

    #[test]
    fn window_events_ask_for_a_full_read_and_objects_not_kept_are_dropped() {
        assert!(plan(&[event("/a", Change::Windows)]).is_none());
        assert_eq!(plan(&[]).map(|p| p.len()), Some(0));
        // A flood about objects the kept read does not hold (a Swing list's
        // transient renderers, made by reading it) leaves nothing to patch.
        let flood: Vec<_> = (0..=MAX_PATCHES)
            .map(|i| event(&format!("/renderer{i}"), Change::Node))
            .collect();
        let planned = plan(&flood).unwrap();
        assert_eq!(planned.len(), MAX_PATCHES + 1);
        let kept = RawNode {
            obj: Some(ObjRef {
                bus: ":1.1".into(),
                path: zbus::zvariant::OwnedObjectPath::try_from("/frame").unwrap(),
            }),
            ..RawNode::default()
        };
        assert!(widen(&kept, planned).is_empty());
    }

    #[test]
    fn a_flood_is_folded_into_the_subtrees_that_hold_it() {
        // A sidebar of 100 rebuilt panels and one cell of a sheet.
        let owned = |p: String| -> &'static str { Box::leak(p.into_boxed_str()) };
        let panels: Vec<RawNode> = (0..100)
            .map(|i| node(owned(format!("/panel{i}")), 39, vec![]))
            .collect();
        let sidebar = node("/sidebar", 39, panels);
        let sheet = node("/sheet", 85, vec![node("/cell", 29, vec![])]);
        let window = node("/window", 23, vec![sidebar, sheet]);
        let mut plan: HashMap<String, Reread> = (0..100)
            .map(|i| (format!("/panel{i}"), Reread::Node))
            .collect();
        plan.insert("/cell".into(), Reread::Node);
        let folded = coalesce(&window, &plan).unwrap();
        assert_eq!(
            folded,
            HashMap::from([
                ("/sidebar".to_string(), Reread::Subtree),
                ("/sheet".to_string(), Reread::Subtree),
            ])
        );
        // The window itself changed: nothing smaller holds it.
        plan.insert("/window".into(), Reread::Node);
        assert!(coalesce(&window, &plan).is_none());
    }

    #[test]
    fn any_change_reads_a_drawn_part_again() {
        // window > (sheet > cell, label): the sheet was read by its drawn cells.
        let window = node(
            "/window",
            23,
            vec![
                node("/sheet", 85, vec![node("/cell", 29, vec![])]),
                node("/label", 29, vec![]),
            ],
        );
        let cuts = vec![Cut {
            path: "/sheet".into(),
            said: "only the cells on screen were read".into(),
        }];
        assert!(with_drawn_parts(&window, HashMap::new(), &cuts, false).is_empty());
        assert_eq!(
            with_drawn_parts(&window, HashMap::new(), &cuts, true),
            HashMap::from([("/sheet".to_string(), Reread::Subtree)]),
            "read while the app was busy"
        );
        let plan = HashMap::from([
            ("/label".to_string(), Reread::Node),
            ("/cell".to_string(), Reread::Node),
        ]);
        assert_eq!(
            with_drawn_parts(&window, plan, &cuts, true),
            HashMap::from([
                ("/label".to_string(), Reread::Node),
                ("/sheet".to_string(), Reread::Subtree),
            ])
        );
    }

    #[test]
    fn a_fold_never_holds_a_subtree_inside_another() {
        // window > (pane > (box > nine labels)); the pane changed and the labels.
        let owned = |p: String| -> &'static str { Box::leak(p.into_boxed_str()) };
        let labels: Vec<RawNode> = (0..9)
            .map(|i| node(owned(format!("/label{i}")), 29, vec![]))
            .collect();
        let pane = node("/pane", 39, vec![node("/box", 39, labels)]);
        let window = node("/window", 23, vec![pane]);
        let mut plan: HashMap<String, Reread> = (0..9)
            .map(|i| (format!("/label{i}"), Reread::Node))
            .collect();
        plan.insert("/pane".into(), Reread::Node);
        // Folded at the box's level, the pane's chain ends in the pane itself.
        assert_eq!(
            coalesce(&window, &plan).unwrap(),
            HashMap::from([("/pane".to_string(), Reread::Subtree)])
        );
    }
}
