//! Bringing a cached window read up to date from the events logged since, instead
//! of walking the whole window again: a bounds change costs one call, a state or
//! name change re-reads one object, a children change re-reads one subtree.

use std::collections::HashMap;

use futures_util::future::join_all;

use crate::dbus::{self, ObjRef};
use crate::events::{Change, Event};
use crate::walk::{Abort, RawNode, Walker};

/// Past this many changed objects a full walk is cheaper than patching.
const MAX_PATCHES: usize = 64;

/// The objects to read again and how deeply; `None` when the events call for a full
/// read (window events, or too many changes).
pub fn plan(events: &[Event]) -> Option<HashMap<String, Change>> {
    let mut plan: HashMap<String, Change> = HashMap::new();
    for event in events {
        if event.change == Change::Windows {
            return None;
        }
        let change = plan.entry(event.path.clone()).or_insert(event.change);
        *change = (*change).max(event.change);
    }
    (plan.len() <= MAX_PATCHES).then_some(plan)
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

fn contains(tree: &RawNode, path: &str) -> bool {
    tree.obj
        .as_ref()
        .is_some_and(|obj| obj.path.as_str() == path)
        || tree.children.iter().any(|c| contains(c, path))
}

/// A fresh reading of one changed object.
enum Fresh {
    Extents(Option<(i32, i32, i32, i32)>),
    Node(RawNode),
    Subtree(RawNode),
}

/// Applies `plan` to a copy of `cached`, reading each changed object of app `bus`
/// again. Objects not in the tree are ignored: a change there cannot show. An
/// error means the patch failed and the caller should walk the window afresh.
pub async fn patch(
    walker: &Walker<'_>,
    conn: &zbus::Connection,
    cached: &RawNode,
    bus: &str,
    plan: HashMap<String, Change>,
    extent_coords: u32,
) -> Result<RawNode, Abort> {
    let root_path = cached
        .obj
        .as_ref()
        .map(|o| o.path.to_string())
        .unwrap_or_default();
    let root_path = root_path.as_str();
    let reads = plan
        .into_iter()
        .filter(|(path, _)| contains(cached, path))
        .map(|(path, change)| async move {
            let obj = ObjRef {
                bus: bus.to_string(),
                path: zbus::zvariant::ObjectPath::try_from(path.as_str())
                    .map_err(|e| Abort::other("path", e.into()))?
                    .into(),
            };
            let is_root = path == root_path;
            let fresh = match change {
                Change::Bounds => Fresh::Extents(
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
                Change::Node if !is_root => Fresh::Node(walker.read_node(obj).await?),
                Change::Node | Change::Subtree | Change::Windows => {
                    Fresh::Subtree(walker.read(obj, is_root).await?)
                }
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
                if walker.is_drawn_node(&fresh) != walker.is_drawn_node(node) {
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
        assert_eq!(plan["/a"], Change::Node);
        assert_eq!(plan["/b"], Change::Bounds);
    }

    #[test]
    fn window_events_and_floods_ask_for_a_full_read() {
        assert!(plan(&[event("/a", Change::Windows)]).is_none());
        let flood: Vec<_> = (0..=MAX_PATCHES)
            .map(|i| event(&format!("/{i}"), Change::Node))
            .collect();
        assert!(plan(&flood).is_none());
        assert_eq!(plan(&[]).map(|p| p.len()), Some(0));
    }
}
