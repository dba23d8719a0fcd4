//! Input on GNOME through mutter's own RemoteDesktop D-Bus interface: a session
//! with a ScreenCast stream per monitor (absolute pointer motion is given
//! relative to a stream), held for the life of the connection that made it:
//! mutter ends it when that connection closes, which is how it ends here (a
//! blocking `Stop` could be called from inside the runtime when the engine goes).
//!
//! mutter 43 lets any session-bus client make one, with no dialog; it needs
//! PipeWire running. A point goes into its monitor's stream through
//! [`Layout::stream_point`](super::display_config::Layout::stream_point). Its events are sent by [`RemoteInput`](crate::screen::remote_input::RemoteInput).

use std::collections::HashMap;
use std::sync::Arc;

use axsight_core::Bounds;
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use super::display_config::WatchedLayout;
use crate::screen::remote_input::RemoteDesktopSession;
use crate::screen::session_bus::call;
use crate::{Error, Result};

const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
const SCREEN_CAST: &str = "org.gnome.Mutter.ScreenCast";

/// A started RemoteDesktop session, with a stream for each monitor it began
/// with (by connector).
pub struct RemoteDesktop {
    bus: Connection,
    session: OwnedObjectPath,
    layout: Arc<WatchedLayout>,
    streams: HashMap<String, OwnedObjectPath>,
}

impl RemoteDesktop {
    /// Makes and starts a session on `bus`, with a stream for each monitor of
    /// `layout`.
    pub fn start(bus: &Connection, layout: Arc<WatchedLayout>) -> Result<RemoteDesktop> {
        let monitors = layout.get()?.monitors;
        let session: OwnedObjectPath = call(
            bus,
            REMOTE_DESKTOP,
            "/org/gnome/Mutter/RemoteDesktop",
            REMOTE_DESKTOP,
            "CreateSession",
            &(),
        )?;
        let id: String = property(bus, REMOTE_DESKTOP, &session, "SessionId")?;
        let mut options: HashMap<&str, Value> = HashMap::new();
        options.insert("remote-desktop-session-id", Value::from(id.as_str()));
        let cast: OwnedObjectPath = call(
            bus,
            SCREEN_CAST,
            "/org/gnome/Mutter/ScreenCast",
            SCREEN_CAST,
            "CreateSession",
            &(options,),
        )?;
        let mut streams = HashMap::new();
        for monitor in monitors {
            let none: HashMap<&str, Value> = HashMap::new();
            let stream: OwnedObjectPath = call(
                bus,
                SCREEN_CAST,
                &cast,
                "org.gnome.Mutter.ScreenCast.Session",
                "RecordMonitor",
                &(monitor.connector.as_str(), none),
            )?;
            streams.insert(monitor.connector, stream);
        }
        let () = call(bus, REMOTE_DESKTOP, &session, SESSION, "Start", &())?;
        Ok(RemoteDesktop {
            bus: bus.clone(),
            session,
            layout,
            streams,
        })
    }

    /// The stream of the monitor holding (`x`, `y`) of the layout, and where
    /// the point is in it.
    fn stream_point(&self, x: i32, y: i32) -> Result<(&OwnedObjectPath, (f64, f64))> {
        let layout = self.layout.get()?;
        let monitor = layout
            .monitor_at(x, y)
            .ok_or_else(|| Error::Wayland(format!("point ({x}, {y}) is on no monitor")))?;
        let stream = self.streams.get(&monitor.connector).ok_or_else(|| {
            Error::Wayland(format!(
                "monitor {} came after axsight connected: connect again to point at it",
                monitor.connector
            ))
        })?;
        Ok((stream, layout.stream_point(monitor, x, y)))
    }

    fn notify<B>(&self, method: &str, body: &B) -> Result<()>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        call(
            &self.bus,
            REMOTE_DESKTOP,
            &self.session,
            SESSION,
            method,
            body,
        )
    }
}

/// Each event is a method call mutter has handled when it answers.
impl RemoteDesktopSession for RemoteDesktop {
    fn check_point(&self, x: i32, y: i32) -> Result<()> {
        self.stream_point(x, y).map(drop)
    }

    fn wake(&self) -> Result<()> {
        self.notify("NotifyPointerMotionRelative", &(0.0f64, 0.0f64))
    }

    fn move_to(&self, x: i32, y: i32) -> Result<()> {
        let (stream, (dx, dy)) = self.stream_point(x, y)?;
        self.notify("NotifyPointerMotionAbsolute", &(stream.as_str(), dx, dy))
    }

    fn button(&self, code: i32, down: bool) -> Result<()> {
        self.notify("NotifyPointerButton", &(code, down))
    }

    fn wheel(&self, axis: u32, steps: i32) -> Result<()> {
        self.notify("NotifyPointerAxisDiscrete", &(axis, steps))
    }

    fn keysym(&self, keysym: u32, down: bool) -> Result<()> {
        self.notify("NotifyKeyboardKeysym", &(keysym, down))
    }

    fn sync(&self) -> Result<()> {
        Ok(())
    }

    fn layout(&self) -> Option<Bounds> {
        self.layout.get().ok()?.screen()
    }
}

const SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";

/// A property's value.
fn property<T>(bus: &Connection, destination: &str, path: &str, name: &str) -> Result<T>
where
    T: TryFrom<OwnedValue>,
    T::Error: std::fmt::Display,
{
    let value: OwnedValue = call(
        bus,
        destination,
        path,
        "org.freedesktop.DBus.Properties",
        "Get",
        &(SESSION, name),
    )?;
    T::try_from(value).map_err(|e| Error::Wayland(format!("{name} is not what was expected: {e}")))
}
