//! Blocking method calls on the session bus to a compositor's own services
//! (mutter's RemoteDesktop, GNOME Shell, KWin), made on the blocking threads
//! the screen runs on. The AT-SPI bus has its own, pipelined calls
//! (the engine's `dbus` module).

use zbus::blocking::Connection;

use crate::{Error, Result};

/// Calls `interface.method` of `path` at `destination` and reads the reply's
/// body; an error names the method.
pub fn call<B, R>(
    bus: &Connection,
    destination: &str,
    path: &str,
    interface: &str,
    method: &str,
    body: &B,
) -> Result<R>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
{
    let reply = bus
        .call_method(Some(destination), path, Some(interface), method, body)
        .map_err(|e| Error::Wayland(format!("{interface}.{method} failed: {e}")))?;
    reply
        .body()
        .deserialize::<R>()
        .map_err(|e| Error::Wayland(format!("{interface}.{method} answered oddly: {e}")))
}

/// Connects to the session bus at `address`.
pub fn connect(address: &str) -> Result<Connection> {
    zbus::blocking::connection::Builder::address(address)
        .and_then(|builder| builder.build())
        .map_err(|e| Error::Wayland(format!("cannot reach the session bus: {e}")))
}

/// One call the bus daemon answers: whether the session bus still serves us.
pub fn ping(bus: &Connection) -> Result<()> {
    call::<_, String>(
        bus,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetId",
        &(),
    )
    .map(drop)
    .map_err(|e| Error::DisplayLost(e.to_string()))
}
