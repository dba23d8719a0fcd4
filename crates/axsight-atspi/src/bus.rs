//! Reaching the accessibility bus: its address from the session bus's
//! `org.a11y.Bus` launcher, a connection to it, and the `IsEnabled` switch that
//! Chromium, Firefox and Qt wait for. Finding the session bus and the display
//! is the Linux engine's (`axsight-linux`'s `discover`).

use crate::dbus;
use crate::{Error, Result};

/// The session bus's `org.a11y.Bus` object: the launcher that owns the
/// accessibility bus and its `IsEnabled` switch.
fn a11y_bus_object() -> dbus::ObjRef {
    dbus::ObjRef::new("org.a11y.Bus", "/org/a11y/bus")
}

/// Asks the session bus's `org.a11y.Bus` for the accessibility bus address.
pub async fn address_from_session(session: &zbus::Connection) -> zbus::Result<String> {
    dbus::call(
        session,
        &a11y_bus_object(),
        "org.a11y.Bus",
        "GetAddress",
        (),
    )
    .await
}

/// Opens a connection to the bus at `address`.
pub async fn connect_to(address: &str) -> Result<zbus::Connection> {
    let connect = |source| Error::Connect {
        address: address.to_string(),
        source: Box::new(source),
    };
    zbus::connection::Builder::address(address)
        .map_err(connect)?
        .method_timeout(dbus::CALL_TIMEOUT)
        .build()
        .await
        .map_err(connect)
}

/// Reads, and when `enable` is set turns on, `org.a11y.Status.IsEnabled` on the
/// session bus: Chromium, Firefox and Qt only expose their trees when it is true.
pub async fn accessibility_enabled(session_bus: &str, enable: bool) -> Result<bool> {
    let session = connect_to(session_bus).await?;
    let bus = a11y_bus_object();
    let get = |source| Error::Call {
        method: "org.a11y.Status.IsEnabled",
        source: Box::new(source),
    };
    let enabled: bool = dbus::property(&session, &bus, "org.a11y.Status", "IsEnabled")
        .await
        .map_err(get)?;
    if enabled || !enable {
        return Ok(enabled);
    }
    let value = zbus::zvariant::Value::from(true);
    dbus::call::<_, ()>(
        &session,
        &bus,
        dbus::PROPERTIES,
        "Set",
        &("org.a11y.Status", "IsEnabled", value),
    )
    .await
    .map_err(get)?;
    Ok(true)
}
