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
    Subtree,
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
        *entry = (*entry).max(reread);
    }
    Some(plan)
}

/// Widens a plan by what the cached tree knows, and drops objects not in it (a
/// change there cannot show):
/// - a container that moved or resized moved its descendants too, and they may
///   send nothing: its whole subtree is read again;
/// - a scroll bar whose value changed scrolled its siblings' content, which sends
///   no event in GTK3 (rows come into view without a state event): the scroll
///   bar's parent is read again.
pub fn widen(cached: &RawNode, plan: HashMap<String, Reread>) -> HashMap<String, Reread> {
    let mut widened: HashMap<String, Reread> = HashMap::new();
    for (path, reread) in plan {
        let Some((node, parent)) = locate(cached, &path, None) else {
            continue;
        };
        let (path, reread) = match (node.role, parent) {
            (SCROLL_BAR, Some(parent)) if reread >= Reread::Node => {
                (path_of(parent), Reread::Subtree)
            }
            _ if reread == Reread::Bounds && !node.children.is_empty() => (path, Reread::Subtree),
            _ => (path, reread),
        };
        let entry = widened.entry(path).or_insert(reread);
        *entry = (*entry).max(reread);
    }
    // A re-read subtree covers everything below it; reading parts of it as well
    // would race with it (one walk's objects are met once) and waste calls.
    let subtrees: Vec<String> = widened
        .iter()
        .filter(|(_, reread)| **reread == Reread::Subtree)
        .map(|(path, _)| path.clone())
        .collect();
    widened.retain(|path, _| {
        !subtrees
            .iter()
            .any(|top| top != path && is_below(cached, top, path))
    });
    widened
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
            return Some(
                folded
                    .into_iter()
                    .map(|path| (path.clone(), Reread::Subtree))
                    .collect(),
            );
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

/// Applies `plan` (already [`widen`]ed against `cached`) to a copy of `cached`,
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
            Reread::Bounds => Fresh::Extents(
                dbus::call::<_, (i32, i32, i32, i32)>(
                    conn,
                    &obj,
                    dbus::COMPONENT,
                    "GetExtents",
                    (extent_coords,),
                )
                .await
                .ok(),
            ),
            Reread::Node => Fresh::Node(walker.read_node(obj, is_root).await?),
            Reread::Subtree => Fresh::Subtree(walker.read(obj, is_root).await?),
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
        assert_eq!(plan["/a"], Reread::Node);
        assert_eq!(plan["/b"], Reread::Bounds);
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
        let widened = widen(
            &tree,
            HashMap::from([("/list".to_string(), Reread::Bounds)]),
        );
        assert_eq!(
            widened.get("/list"),
            Some(&Reread::Subtree),
            "a moved container moves its children"
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
}
