//! Thin, typed wrappers over the raw D-Bus calls the engine makes on the AT-SPI bus.
//!
//! Calls go straight through [`zbus::Connection::call_method`] rather than generated
//! proxies: a tree read makes hundreds of calls, and building a proxy per object (with
//! its property cache and match rules) would cost more than the calls themselves.
//! Replies are read into plain integers and strings, so a toolkit that sends an
//! unknown role or state bit cannot fail a whole read.

use std::collections::HashMap;
use std::time::Duration;

use serde::de::DeserializeOwned;
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue, Type};
use zbus::Connection;

/// How long one call may wait for its reply before the app counts as hung.
pub const CALL_TIMEOUT: Duration = Duration::from_millis(1500);

pub const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
pub const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub const COMPONENT: &str = "org.a11y.atspi.Component";
pub const ACTION: &str = "org.a11y.atspi.Action";
pub const VALUE: &str = "org.a11y.atspi.Value";
pub const TEXT: &str = "org.a11y.atspi.Text";
pub const DOCUMENT: &str = "org.a11y.atspi.Document";
pub const APPLICATION: &str = "org.a11y.atspi.Application";
pub const TABLE: &str = "org.a11y.atspi.Table";
pub const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// A reference to an accessible object: its bus name and object path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Deserialize, Type)]
pub struct ObjRef {
    pub bus: String,
    pub path: OwnedObjectPath,
}

impl ObjRef {
    /// The null reference AT-SPI uses for "no object".
    pub fn is_null(&self) -> bool {
        self.bus.is_empty() || self.path.as_str() == "/org/a11y/atspi/null"
    }

    /// The element identity axsight keeps for this object.
    pub fn element_id(&self) -> axsight_core::ElementId {
        axsight_core::ElementId(format!("{}{}", self.bus, self.path.as_str()))
    }

    /// The identity of the cell at `row` and `column` of this table. LibreOffice
    /// makes a new object for a cell each time one is asked for (but the cursor's),
    /// so a big table's cells are known by their place: `…/accessible/7#3,2`
    /// (`#` never occurs in an object path).
    pub fn cell_id(&self, row: usize, column: usize) -> axsight_core::ElementId {
        axsight_core::ElementId(format!("{}#{row},{column}", self.element_id().0))
    }
}

/// The table and place a [`ObjRef::cell_id`] names, if `id` is one.
pub fn cell_place(id: &axsight_core::ElementId) -> Option<(axsight_core::ElementId, i32, i32)> {
    let (table, place) = id.0.split_once('#')?;
    let (row, column) = place.split_once(',')?;
    Some((
        axsight_core::ElementId(table.to_string()),
        row.parse().ok()?,
        column.parse().ok()?,
    ))
}

/// Calls `iface.method(body)` on `obj` and reads the reply body as `R`.
pub async fn call<B, R>(
    conn: &Connection,
    obj: &ObjRef,
    iface: &str,
    method: &str,
    body: B,
) -> zbus::Result<R>
where
    B: serde::Serialize + DynamicType,
    R: DeserializeOwned + Type,
{
    let reply = conn
        .call_method(
            Some(obj.bus.as_str()),
            obj.path.as_str(),
            Some(iface),
            method,
            &body,
        )
        .await?;
    reply.body().deserialize::<R>()
}

/// Pings the peer that owns `obj`; the answer matters less than its place in the
/// message order. Errors are ignored: a gone app shows up elsewhere. A peer that
/// does not answer within [`PING_TIMEOUT`] sends no events either, so there is
/// nothing to order: waiting longer for a stopped app would only slow every
/// caller.
pub async fn ping(conn: &Connection, obj: &ObjRef) {
    answers_ping(conn, obj, PING_TIMEOUT).await;
}

/// Whether the peer of `obj` answers `Peer.Ping` within `within` (a bus
/// daemon's or an app's main loop answers it alone, before any accessibility
/// call).
pub async fn answers_ping(conn: &Connection, obj: &ObjRef, within: Duration) -> bool {
    ping_within(conn, obj, within).await.is_ok()
}

/// The peer of `obj`'s answer to `Peer.Ping` within `within`: the call's
/// error if it failed (a bus gone), `None` if no answer came in time.
pub async fn ping_within(
    conn: &Connection,
    obj: &ObjRef,
    within: Duration,
) -> std::result::Result<(), Option<zbus::Error>> {
    let ping = call::<_, ()>(conn, obj, "org.freedesktop.DBus.Peer", "Ping", ());
    match tokio::time::timeout(within, ping).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(Some(error)),
        Err(_) => Err(None),
    }
}

/// How long [`ping`] waits for its answer.
pub const PING_TIMEOUT: Duration = Duration::from_millis(250);

/// Reads every property of `iface` on `obj` in one round trip.
pub async fn all_properties(
    conn: &Connection,
    obj: &ObjRef,
    iface: &str,
) -> zbus::Result<HashMap<String, OwnedValue>> {
    call(conn, obj, PROPERTIES, "GetAll", (iface,)).await
}

/// The properties of `org.a11y.atspi.Accessible` a tree read needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessibleProperties {
    pub name: String,
    pub description: String,
    /// `None` when the bridge does not say (GTK3 says -1 for tables).
    pub child_count: Option<usize>,
}

/// Reads an object's name, description and child count: in one `GetAll` where the
/// bridge answers it (`bulk`), else one `Get` each — Qt's bridge crashes on a
/// `GetAll`. The error names the call that failed.
pub async fn accessible_properties(
    conn: &Connection,
    obj: &ObjRef,
    bulk: bool,
) -> Result<AccessibleProperties, (&'static str, zbus::Error)> {
    if bulk {
        let props = all_properties(conn, obj, ACCESSIBLE)
            .await
            .map_err(|e| ("GetAll", e))?;
        return Ok(AccessibleProperties {
            name: string_of(&props, "Name"),
            description: string_of(&props, "Description"),
            child_count: i32_of(&props, "ChildCount").and_then(|n| usize::try_from(n).ok()),
        });
    }
    let (name, description, child_count) = futures_util::join!(
        property::<String>(conn, obj, ACCESSIBLE, "Name"),
        property::<String>(conn, obj, ACCESSIBLE, "Description"),
        property::<i32>(conn, obj, ACCESSIBLE, "ChildCount"),
    );
    Ok(AccessibleProperties {
        name: name.map_err(|e| ("Get Name", e))?,
        description: description.unwrap_or_default(),
        child_count: child_count.ok().and_then(|n| usize::try_from(n).ok()),
    })
}

/// The most actions whose names are asked one by one (a bridge that claims
/// more is broken).
const MAX_ACTIONS: i32 = 32;

/// The names of `obj`'s actions, lower-cased, in index order: all in one
/// `GetActions`, or (`one_by_one`) from `NActions` and a `GetName` for each,
/// sent together. Gecko's bridge answers `GetActions` with its key bindings
/// (`;;`) in every field, while `GetName` gives the real names.
pub async fn action_names(
    conn: &Connection,
    obj: &ObjRef,
    one_by_one: bool,
) -> zbus::Result<Vec<String>> {
    if !one_by_one {
        let actions: Vec<(String, String, String)> =
            call(conn, obj, ACTION, "GetActions", ()).await?;
        return Ok(actions
            .into_iter()
            .map(|(name, _, _)| name.to_lowercase())
            .collect());
    }
    let count: i32 = property(conn, obj, ACTION, "NActions").await?;
    let names = (0..count.clamp(0, MAX_ACTIONS))
        .map(|index| call::<_, String>(conn, obj, ACTION, "GetName", (index,)));
    futures_util::future::join_all(names)
        .await
        .into_iter()
        .map(|name| name.map(|n| n.to_lowercase()))
        .collect()
}

/// The address of the web page `obj` (a `document web`), through its
/// Document interface ("" where it has none yet).
pub async fn document_url(conn: &Connection, obj: &ObjRef) -> zbus::Result<String> {
    call(conn, obj, DOCUMENT, "GetAttributeValue", ("DocURL",)).await
}

/// `obj`'s box, `(x, y, width, height)` in the coordinate type `coords`.
pub async fn extents(
    conn: &Connection,
    obj: &ObjRef,
    coords: u32,
) -> zbus::Result<(i32, i32, i32, i32)> {
    call(conn, obj, COMPONENT, "GetExtents", (coords,)).await
}

/// Reads one property of `iface` on `obj`.
pub async fn property<R>(
    conn: &Connection,
    obj: &ObjRef,
    iface: &str,
    name: &str,
) -> zbus::Result<R>
where
    R: TryFrom<OwnedValue>,
    R::Error: Into<zbus::Error>,
{
    let value: OwnedValue = call(conn, obj, PROPERTIES, "Get", (iface, name)).await?;
    R::try_from(value).map_err(Into::into)
}

/// Takes a string property out of a `GetAll` answer; missing or mistyped is empty.
pub fn string_of(props: &HashMap<String, OwnedValue>, name: &str) -> String {
    props
        .get(name)
        .and_then(|value| <&str>::try_from(value).ok())
        .map(str::to_string)
        .unwrap_or_default()
}

/// Takes an integer property out of a `GetAll` answer.
pub fn i32_of(props: &HashMap<String, OwnedValue>, name: &str) -> Option<i32> {
    props.get(name).and_then(|value| i32::try_from(value).ok())
}

/// What a failed call says about its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The whole peer left the bus.
    PeerGone,
    /// The object is gone but its app is still there.
    ObjectGone,
    /// No reply in time: the app is hung, stopped or overloaded.
    NoReply,
    Other,
}

/// Classifies a call error by the D-Bus error name it carries.
pub fn failure_kind(error: &zbus::Error) -> Failure {
    match error {
        zbus::Error::MethodError(name, _, _) => match name.as_str() {
            "org.freedesktop.DBus.Error.ServiceUnknown"
            | "org.freedesktop.DBus.Error.NameHasNoOwner"
            | "org.freedesktop.DBus.Error.Disconnected" => Failure::PeerGone,
            "org.freedesktop.DBus.Error.NoReply" | "org.freedesktop.DBus.Error.Timeout" => {
                Failure::NoReply
            }
            "org.freedesktop.DBus.Error.UnknownObject"
            | "org.freedesktop.DBus.Error.UnknownMethod"
            | "org.freedesktop.DBus.Error.UnknownInterface" => Failure::ObjectGone,
            _ => Failure::Other,
        },
        zbus::Error::InputOutput(_) => Failure::NoReply,
        _ => Failure::Other,
    }
}

impl ObjRef {
    /// A reference from a bus name and a path known to be valid.
    pub fn new(bus: &str, path: &'static str) -> ObjRef {
        ObjRef {
            bus: bus.to_string(),
            path: zbus::zvariant::ObjectPath::from_static_str_unchecked(path).into(),
        }
    }
}
