//! `org.a11y.atspi.Cache.GetItems`: an application's whole tree in one call, used as
//! an accelerator, never as the truth.
//!
//! GTK3 leaves out the children of containers that manage their descendants (tables)
//! and GTK4 fills its cache lazily, so an element's cached children are used only
//! when their count matches the element's own child count; otherwise the walker asks
//! the element itself.

use std::collections::HashMap;

use zbus::zvariant::OwnedObjectPath;
use zbus::Connection;

use crate::dbus::{self, ObjRef};

/// Asks GTK3 apps to turn their caches on. at-spi2-atk answers `GetItems` only
/// once some client has registered for an event, and keeps its cache from then on;
/// registering one (dropped with our connection) is enough. Failure is harmless:
/// the walker then asks every object itself.
pub async fn wake_app_caches(conn: &Connection) {
    if let Err(error) = crate::events::register_event(conn, "object:children-changed").await {
        tracing::debug!(%error, "could not register an event listener");
    }
}

/// What the cache knows of one object.
#[derive(Debug, Clone)]
pub struct CachedItem {
    pub role: u32,
    pub name: String,
    pub description: String,
    pub state_mask: u64,
    pub interfaces: Vec<String>,
    /// `None` when the cache does not know (GTK3 says -1 for tables).
    pub child_count: Option<usize>,
}

/// One application's cache, indexed for the walker.
#[derive(Debug, Default)]
pub struct AppCache {
    /// The app's bus name: objects of other buses (embedded plugs) share paths
    /// with the app's own and must not be taken for them.
    bus: String,
    items: HashMap<OwnedObjectPath, CachedItem>,
    children: HashMap<OwnedObjectPath, Vec<(i32, ObjRef)>>,
}

/// The wire form of one item: self, app, parent, index in parent, child count,
/// interfaces, name, role, description, states. Read as plain numbers so one odd
/// value cannot fail the whole reply.
type WireItem = (
    ObjRef,
    ObjRef,
    ObjRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

impl AppCache {
    /// Fetches the cache of the application whose root is `app`; an app without a
    /// usable cache gives an empty one.
    pub async fn fetch(conn: &Connection, app: &ObjRef) -> AppCache {
        let cache = ObjRef::new(&app.bus, "/org/a11y/atspi/cache");
        match dbus::call::<_, Vec<WireItem>>(conn, &cache, "org.a11y.atspi.Cache", "GetItems", ())
            .await
        {
            Ok(items) => AppCache::from_items(&app.bus, items),
            Err(error) => {
                tracing::debug!(%error, bus = %app.bus, "no usable Cache.GetItems");
                AppCache::default()
            }
        }
    }

    fn from_items(bus: &str, items: Vec<WireItem>) -> AppCache {
        let mut cache = AppCache {
            bus: bus.to_string(),
            ..AppCache::default()
        };
        for (
            object,
            _app,
            parent,
            index,
            child_count,
            interfaces,
            name,
            role,
            description,
            states,
        ) in items
        {
            if !parent.is_null() {
                cache
                    .children
                    .entry(parent.path.clone())
                    .or_default()
                    .push((index, object.clone()));
            }
            cache.items.insert(
                object.path,
                CachedItem {
                    role,
                    name,
                    description,
                    state_mask: crate::states::mask_of(&states),
                    interfaces,
                    child_count: usize::try_from(child_count).ok(),
                },
            );
        }
        for children in cache.children.values_mut() {
            children.sort_by_key(|(index, _)| *index);
        }
        cache
    }

    /// How many objects the cache holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the cache holds nothing (the bridge answered none).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// What the cache holds for `obj`.
    pub fn item(&self, obj: &ObjRef) -> Option<&CachedItem> {
        if obj.bus != self.bus {
            return None;
        }
        self.items.get(&obj.path)
    }

    /// `obj`'s children, when the cache surely holds all of them in order: as many
    /// as the object counts, indexed 0, 1, 2…, and the object does not manage its
    /// descendants (GTK3 caches no children of those, and may count none).
    pub fn complete_children(&self, obj: &ObjRef) -> Option<Vec<ObjRef>> {
        let item = self.item(obj)?;
        if crate::states::has_bit(item.state_mask, crate::states::MANAGES_DESCENDANTS) {
            return None;
        }
        let found = self.children.get(&obj.path).map_or(&[][..], Vec::as_slice);
        let in_order = found
            .iter()
            .enumerate()
            .all(|(i, (index, _))| *index == i as i32);
        (Some(found.len()) == item.child_count && in_order)
            .then(|| found.iter().map(|(_, child)| child.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(path: &'static str) -> ObjRef {
        ObjRef::new(":1.5", path)
    }

    fn item(path: &'static str, parent: &'static str, index: i32, children: i32) -> WireItem {
        (
            obj(path),
            obj("/a"),
            obj(parent),
            index,
            children,
            vec![],
            path.into(),
            43,
            String::new(),
            vec![1 << 25, 0],
        )
    }

    #[test]
    fn children_are_trusted_only_when_complete() {
        let cache = AppCache::from_items(
            ":1.5",
            vec![
                item("/w", "/a", 0, 2),
                item("/b", "/w", 1, 0),
                item("/a1", "/w", 0, 0),
                item("/t", "/b", 0, 0),
                item("/table", "/w", 2, 3),
            ],
        );
        // /w claims 2 children but the cache has 3 with it as parent: not trusted.
        assert_eq!(cache.complete_children(&obj("/w")), None);
        assert_eq!(cache.complete_children(&obj("/a1")), Some(vec![]));
        assert_eq!(cache.complete_children(&obj("/table")), None);
        assert_eq!(cache.complete_children(&obj("/nope")), None);
        assert_eq!(cache.item(&obj("/b")).unwrap().state_mask, 1 << 25);
        // A table that manages its descendants is never trusted, even at zero.
        let mut table = item("/t2", "/w", 3, 0);
        table.9 = vec![1 << 31, 0];
        let cache = AppCache::from_items(":1.5", vec![table]);
        assert_eq!(cache.complete_children(&obj("/t2")), None);
        // Indices that skip or repeat are not trusted either.
        let cache = AppCache::from_items(
            ":1.5",
            vec![
                item("/p", "/a", 0, 2),
                item("/x", "/p", 0, 0),
                item("/y", "/p", 0, 0),
            ],
        );
        assert_eq!(cache.complete_children(&obj("/p")), None);
        // GTK3 counts -1 children for tables: unknown, to be asked.
        let cache = AppCache::from_items(":1.5", vec![item("/t3", "/a", 0, -1)]);
        // An object of another bus with the same path is not this app's.
        assert!(cache.item(&ObjRef::new(":1.9", "/t3")).is_none());
        assert_eq!(cache.item(&obj("/t3")).unwrap().child_count, None);
        assert_eq!(cache.complete_children(&obj("/t3")), None);
    }

    #[test]
    fn children_come_in_index_order() {
        let cache = AppCache::from_items(
            ":1.5",
            vec![
                item("/w", "/a", 0, 2),
                item("/second", "/w", 1, 0),
                item("/first", "/w", 0, 0),
            ],
        );
        let children = cache.complete_children(&obj("/w")).unwrap();
        assert_eq!(children, vec![obj("/first"), obj("/second")]);
    }
}
