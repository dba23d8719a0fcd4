//! Input on GNOME through mutter's own RemoteDesktop D-Bus interface: a session
//! with a ScreenCast stream per monitor (absolute pointer motion is given
//! relative to a stream), held for the life of the connection that made it:
//! mutter ends it when that connection closes, which is how it ends here (a
//! blocking `Stop` could be called from inside the runtime when the engine goes).
//!
//! mutter 43 lets any session-bus client make one, with no dialog; it needs
//! PipeWire running. Its events are sent by [`RemoteInput`](crate::screen::remote_input::RemoteInput).

use std::collections::HashMap;

use axsight_core::Bounds;
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::screen::remote_input::RemoteDesktopSession;
use crate::screen::session_bus::call;
use crate::{Error, Result};

const REMOTE_DESKTOP: &str = "org.gnome.Mutter.RemoteDesktop";
const SCREEN_CAST: &str = "org.gnome.Mutter.ScreenCast";
const DISPLAY_CONFIG: &str = "org.gnome.Mutter.DisplayConfig";

/// A monitor's place in the layout, and the stream input to it is relative to.
#[derive(Debug, Clone)]
pub struct Monitor {
    pub bounds: Bounds,
    stream: OwnedObjectPath,
}

/// A started RemoteDesktop session.
pub struct RemoteDesktop {
    bus: Connection,
    session: OwnedObjectPath,
    pub monitors: Vec<Monitor>,
}

/// `DisplayConfig.GetCurrentState`'s monitors: connector names and modes.
type Monitors = Vec<(
    (String, String, String, String),
    Vec<(
        String,
        i32,
        i32,
        f64,
        f64,
        Vec<f64>,
        HashMap<String, OwnedValue>,
    )>,
    HashMap<String, OwnedValue>,
)>;
/// Its logical monitors: place, scale, and the monitors they show.
type LogicalMonitors = Vec<(
    i32,
    i32,
    f64,
    u32,
    bool,
    Vec<(String, String, String, String)>,
    HashMap<String, OwnedValue>,
)>;

impl RemoteDesktop {
    /// Makes and starts a session on `bus`, with a stream for each monitor.
    pub fn start(bus: &Connection) -> Result<RemoteDesktop> {
        let monitors = layout(bus)?;
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
        let mut streams = Vec::new();
        for (connector, bounds) in monitors {
            let none: HashMap<&str, Value> = HashMap::new();
            let stream: OwnedObjectPath = call(
                bus,
                SCREEN_CAST,
                &cast,
                "org.gnome.Mutter.ScreenCast.Session",
                "RecordMonitor",
                &(connector.as_str(), none),
            )?;
            streams.push(Monitor { bounds, stream });
        }
        let () = call(bus, REMOTE_DESKTOP, &session, SESSION, "Start", &())?;
        Ok(RemoteDesktop {
            bus: bus.clone(),
            session,
            monitors: streams,
        })
    }

    /// The monitor holding (`x`, `y`) of the layout.
    pub fn monitor_of(&self, x: i32, y: i32) -> Result<&Monitor> {
        self.monitors
            .iter()
            .find(|m| m.bounds.contains(x, y))
            .ok_or_else(|| Error::Wayland(format!("point ({x}, {y}) is on no monitor")))
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
        self.monitor_of(x, y).map(drop)
    }

    fn wake(&self) -> Result<()> {
        self.notify("NotifyPointerMotionRelative", &(0.0f64, 0.0f64))
    }

    fn move_to(&self, x: i32, y: i32) -> Result<()> {
        let monitor = self.monitor_of(x, y)?;
        let (dx, dy) = (
            f64::from(x - monitor.bounds.x),
            f64::from(y - monitor.bounds.y),
        );
        self.notify(
            "NotifyPointerMotionAbsolute",
            &(monitor.stream.as_str(), dx, dy),
        )
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
        self.monitors
            .iter()
            .map(|m| m.bounds)
            .reduce(|a, b| a.union(&b))
    }
}

const SESSION: &str = "org.gnome.Mutter.RemoteDesktop.Session";

/// Each logical monitor's first connector and its place in the layout.
fn layout(bus: &Connection) -> Result<Vec<(String, Bounds)>> {
    let (_serial, monitors, logical, properties): (
        u32,
        Monitors,
        LogicalMonitors,
        HashMap<String, OwnedValue>,
    ) = call(
        bus,
        DISPLAY_CONFIG,
        "/org/gnome/Mutter/DisplayConfig",
        DISPLAY_CONFIG,
        "GetCurrentState",
        &(),
    )?;
    // Layout mode 2 is physical pixels; 1 (logical) divides modes by the scale.
    let physical = properties
        .get("layout-mode")
        .and_then(|v| u32::try_from(v).ok())
        == Some(2);
    let mut places = Vec::new();
    for (x, y, scale, _transform, _primary, shown, _) in logical {
        let Some(first) = shown.first() else { continue };
        let Some((_, modes, _)) = monitors.iter().find(|(spec, _, _)| spec == first) else {
            continue;
        };
        let current = modes.iter().find(|mode| {
            mode.6
                .get("is-current")
                .and_then(|v| bool::try_from(v).ok())
                .unwrap_or(false)
        });
        let Some((_, width, height, ..)) = current else {
            continue;
        };
        let scale = if physical || scale <= 0.0 { 1.0 } else { scale };
        places.push((
            first.0.clone(),
            Bounds {
                x,
                y,
                width: (f64::from(*width) / scale).round() as i32,
                height: (f64::from(*height) / scale).round() as i32,
            },
        ));
    }
    if places.is_empty() {
        return Err(Error::Wayland("mutter reports no monitor".into()));
    }
    Ok(places)
}

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
