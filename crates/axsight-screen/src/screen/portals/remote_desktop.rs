//! Input through the RemoteDesktop portal: a session with the keyboard and the
//! pointer, started once the user allowed it in the desktop's dialog, or at
//! once with a restore token from an earlier run (portals of version 2 and
//! later). The portal ends the session when the connection that made it
//! closes.
//!
//! The pointer is placed one of two ways ([`Pointing`]): by absolute motion
//! relative to a ScreenCast stream per monitor (the portal's own way; the
//! streams run through PipeWire while the session lasts), or by relative
//! motion from where the compositor says the pointer is (KDE, whose portal
//! passes relative motion to KWin as given and needs no screen cast then).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use axsight_core::{Bounds, Point};
use zbus::blocking::Connection;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use super::request::{self, Options, Results, DESKTOP, DESKTOP_PATH};
use super::restore_token;
use crate::screen::remote_input::RemoteDesktopSession;
use crate::{Error, Result};

pub const INTERFACE: &str = "org.freedesktop.portal.RemoteDesktop";
const SCREEN_CAST: &str = "org.freedesktop.portal.ScreenCast";

/// How long a step the user plays no part in may take.
const STEP_DEADLINE: Duration = Duration::from_secs(5);

/// A monitor's stream and its place in the layout.
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    pub bounds: Bounds,
    node: u32,
}

/// How a session places the pointer.
pub enum Pointing {
    /// Absolute motion relative to each monitor's ScreenCast stream.
    Streams,
    /// Relative motion from where `cursor` says the pointer is, on `layout`.
    FromCursor {
        cursor: Box<dyn Cursor>,
        layout: Bounds,
    },
}

/// Where the compositor's pointer is now.
pub trait Cursor: Send {
    fn position(&self) -> Result<Point>;
}

/// A started RemoteDesktop portal session.
pub struct PortalRemoteDesktop {
    bus: Connection,
    session: OwnedObjectPath,
    pub streams: Vec<Stream>,
    /// Set when the pointer moves by relative motion.
    relative: Option<RelativePointer>,
}

/// The pointer moved by relative motion.
struct RelativePointer {
    cursor: Box<dyn Cursor>,
    layout: Bounds,
}

/// How long the compositor gets to show a relative motion.
const MOTION_DEADLINE: Duration = Duration::from_secs(1);

/// Devices asked for: keyboard (1) and pointer (2).
const KEYBOARD_AND_POINTER: u32 = 3;
/// `persist_mode` 2: until the user revokes it.
const PERSIST_UNTIL_REVOKED: u32 = 2;
/// ScreenCast source type: monitors.
const MONITORS: u32 = 1;

impl PortalRemoteDesktop {
    /// Makes and starts a session, waiting `approval` for the user to allow
    /// it; with a kept restore token (`token_file`) the portal lets it in
    /// without asking.
    pub fn start(
        bus: &Connection,
        token_file: Option<PathBuf>,
        approval: Duration,
        pointing: Pointing,
    ) -> Result<PortalRemoteDesktop> {
        let version: u32 = request::property(bus, INTERFACE, "version")
            .ok_or_else(|| Error::Wayland("the desktop's portal offers no RemoteDesktop".into()))?;
        // Version 2 keeps sessions: a restore token lets the next one in.
        let persists = version >= 2;
        if !persists {
            tracing::info!("the RemoteDesktop portal (version 1) asks the user at every start");
        }
        let mut options = Options::new();
        options.insert("session_handle_token", Value::from(request::next_token()));
        let created = request::request(
            bus,
            INTERFACE,
            "CreateSession",
            options,
            |o| (o,),
            STEP_DEADLINE,
        )?;
        let session = session_handle(&created)?;
        let kept = token_file.as_deref().and_then(restore_token::load);
        let devices = device_options(persists, kept);
        request::request(
            bus,
            INTERFACE,
            "SelectDevices",
            devices,
            |o| (&session, o),
            STEP_DEADLINE,
        )?;
        if let Pointing::Streams = pointing {
            let mut sources = Options::new();
            sources.insert("types", Value::from(MONITORS));
            sources.insert("multiple", Value::from(true));
            request::request(
                bus,
                SCREEN_CAST,
                "SelectSources",
                sources,
                |o| (&session, o),
                STEP_DEADLINE,
            )?;
        }
        let started = request::request(
            bus,
            INTERFACE,
            "Start",
            Options::new(),
            |o| (&session, "", o),
            approval,
        )?;
        let (streams, relative) = match pointing {
            Pointing::Streams => (streams(&started)?, None),
            Pointing::FromCursor { cursor, layout } => {
                (Vec::new(), Some(RelativePointer { cursor, layout }))
            }
        };
        let devices = started
            .get("devices")
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0);
        if devices & KEYBOARD_AND_POINTER != KEYBOARD_AND_POINTER {
            return Err(Error::Wayland(format!(
                "the desktop allowed the remote desktop without its keyboard and pointer \
                 (devices {devices}): allow remote interaction in its dialog"
            )));
        }
        if let (true, Some(file)) = (persists, &token_file) {
            let token = text(&started, "restore_token");
            if let Err(error) = restore_token::store(file, token.as_deref()) {
                tracing::warn!(%error, file = %file.display(), "cannot keep the portal's restore token");
            }
        }
        Ok(PortalRemoteDesktop {
            bus: bus.clone(),
            session,
            streams,
            relative,
        })
    }

    /// Moves the pointer to `target` by relative motion from where the
    /// compositor shows it, asked each time (a person may have moved the
    /// mouse, or another program), until it shows it there.
    fn move_relative(&self, cursor: &dyn Cursor, target: Point) -> Result<()> {
        let deadline = Instant::now() + MOTION_DEADLINE;
        let mut from = cursor.position()?;
        while from != target {
            let (dx, dy) = (f64::from(target.x - from.x), f64::from(target.y - from.y));
            self.notify("NotifyPointerMotion", |s, o| (s, o, dx, dy))?;
            self.sync()?;
            // The compositor shows the motion a moment after the portal
            // passed it on: until the pointer leaves `from`, it has not.
            let at = loop {
                let at = cursor.position()?;
                if at != from || Instant::now() >= deadline {
                    break at;
                }
                std::thread::sleep(Duration::from_millis(2));
            };
            if at != target && Instant::now() >= deadline {
                return Err(Error::Wayland(format!(
                    "the pointer is at ({}, {}), moved to ({}, {})",
                    at.x, at.y, target.x, target.y
                )));
            }
            from = at;
        }
        Ok(())
    }

    /// The stream of the monitor holding (`x`, `y`).
    fn stream_at(&self, x: i32, y: i32) -> Result<&Stream> {
        self.streams
            .iter()
            .find(|s| s.bounds.contains(x, y))
            .ok_or_else(|| Error::Wayland(format!("point ({x}, {y}) is on no shared monitor")))
    }

    fn notify<'s, B>(
        &'s self,
        method: &str,
        body: impl FnOnce(&'s OwnedObjectPath, HashMap<&'static str, Value<'s>>) -> B,
    ) -> Result<()>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        crate::screen::session_bus::call(
            &self.bus,
            DESKTOP,
            DESKTOP_PATH,
            INTERFACE,
            method,
            &body(&self.session, HashMap::new()),
        )
    }
}

/// The portal passes each event on without waiting for the compositor.
impl RemoteDesktopSession for PortalRemoteDesktop {
    fn check_point(&self, x: i32, y: i32) -> Result<()> {
        match &self.relative {
            Some(pointer) if pointer.layout.contains(x, y) => Ok(()),
            Some(_) => Err(Error::Wayland(format!(
                "point ({x}, {y}) is off the screen"
            ))),
            None => self.stream_at(x, y).map(drop),
        }
    }

    fn wake(&self) -> Result<()> {
        self.notify("NotifyPointerMotion", |s, o| (s, o, 0.0f64, 0.0f64))
    }

    fn move_to(&self, x: i32, y: i32) -> Result<()> {
        if let Some(pointer) = &self.relative {
            return self.move_relative(pointer.cursor.as_ref(), Point { x, y });
        }
        let stream = self.stream_at(x, y)?;
        let (dx, dy) = (
            f64::from(x - stream.bounds.x),
            f64::from(y - stream.bounds.y),
        );
        let node = stream.node;
        self.notify("NotifyPointerMotionAbsolute", |s, o| (s, o, node, dx, dy))
    }

    fn button(&self, code: i32, down: bool) -> Result<()> {
        self.notify("NotifyPointerButton", |s, o| (s, o, code, u32::from(down)))
    }

    fn wheel(&self, axis: u32, steps: i32) -> Result<()> {
        self.notify("NotifyPointerAxisDiscrete", |s, o| (s, o, axis, steps))
    }

    fn keysym(&self, keysym: u32, down: bool) -> Result<()> {
        let keysym = keysym as i32;
        self.notify("NotifyKeyboardKeysym", |s, o| {
            (s, o, keysym, u32::from(down))
        })
    }

    /// A property read of the portal, answered after every event before it.
    fn sync(&self) -> Result<()> {
        request::property::<u32>(&self.bus, INTERFACE, "AvailableDeviceTypes")
            .map(drop)
            .ok_or_else(|| Error::DisplayLost("the desktop's portal stopped answering".into()))
    }

    fn layout(&self) -> Option<Bounds> {
        if let Some(pointer) = &self.relative {
            return Some(pointer.layout);
        }
        self.streams
            .iter()
            .map(|s| s.bounds)
            .reduce(|a, b| a.union(&b))
    }
}

/// `SelectDevices`' options: the keyboard and pointer, and on a portal that
/// keeps sessions (`persists`: version 2), kept until revoked and restored
/// from the `kept` token.
fn device_options(persists: bool, kept: Option<String>) -> Options<'static> {
    let mut devices = Options::new();
    devices.insert("types", Value::from(KEYBOARD_AND_POINTER));
    if persists {
        devices.insert("persist_mode", Value::from(PERSIST_UNTIL_REVOKED));
        if let Some(token) = kept {
            devices.insert("restore_token", Value::from(token));
        }
    }
    devices
}

/// A text a response carries under `name`.
fn text(results: &Results, name: &str) -> Option<String> {
    String::try_from(results.get(name)?.try_clone().ok()?).ok()
}

/// The session a `CreateSession` response names.
fn session_handle(results: &Results) -> Result<OwnedObjectPath> {
    let handle = text(results, "session_handle")
        .ok_or_else(|| Error::Wayland("the portal named no session".into()))?;
    OwnedObjectPath::try_from(handle)
        .map_err(|e| Error::Wayland(format!("the portal's session is no object path: {e}")))
}

/// The streams a `Start` response lists, each with its place and size.
fn streams(results: &Results) -> Result<Vec<Stream>> {
    let listed = results
        .get("streams")
        .and_then(|v| <Vec<(u32, HashMap<String, OwnedValue>)>>::try_from(v.try_clone().ok()?).ok())
        .unwrap_or_default();
    let streams: Vec<Stream> = listed
        .iter()
        .filter_map(|(node, properties)| {
            let pair = |name: &str| {
                properties
                    .get(name)
                    .and_then(|v| <(i32, i32)>::try_from(v.try_clone().ok()?).ok())
            };
            let (width, height) = pair("size")?;
            let (x, y) = pair("position").unwrap_or((0, 0));
            Some(Stream {
                bounds: Bounds {
                    x,
                    y,
                    width,
                    height,
                },
                node: *node,
            })
        })
        .collect();
    if streams.is_empty() {
        return Err(Error::Wayland(
            "the desktop shared no monitor with a size: the pointer cannot be placed".into(),
        ));
    }
    Ok(streams)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(value: Value<'_>) -> OwnedValue {
        OwnedValue::try_from(value).unwrap()
    }

    #[test]
    fn a_portal_that_keeps_sessions_is_asked_to_keep_this_one_and_given_the_token() {
        let first = device_options(false, Some("ignored".into()));
        assert_eq!(first.len(), 1, "version 1 knows no persistence: {first:?}");
        assert_eq!(first["types"], Value::from(3u32));
        let kept = device_options(true, Some("4c1e".into()));
        assert_eq!(kept["persist_mode"], Value::from(2u32));
        assert_eq!(kept["restore_token"], Value::from("4c1e"));
        assert!(!device_options(true, None).contains_key("restore_token"));
    }

    #[test]
    fn the_start_response_gives_each_monitor_its_place() {
        let stream = |position: Option<(i32, i32)>, size: Option<(i32, i32)>| {
            let mut properties: HashMap<String, OwnedValue> = HashMap::new();
            if let Some(p) = position {
                properties.insert("position".into(), owned(Value::from(p)));
            }
            if let Some(s) = size {
                properties.insert("size".into(), owned(Value::from(s)));
            }
            properties
        };
        let listed = vec![
            (44u32, stream(Some((1920, 0)), Some((1280, 1024)))),
            (45u32, stream(None, Some((1920, 1080)))),
            (46u32, stream(Some((0, 0)), None)),
        ];
        let mut results = Results::new();
        results.insert("streams".into(), owned(Value::from(listed)));
        results.insert("restore_token".into(), owned(Value::from("next")));
        let shared = streams(&results).unwrap();
        let places: Vec<(u32, Bounds)> = shared.iter().map(|s| (s.node, s.bounds)).collect();
        assert_eq!(
            places,
            vec![
                (
                    44,
                    Bounds {
                        x: 1920,
                        y: 0,
                        width: 1280,
                        height: 1024
                    }
                ),
                (
                    45,
                    Bounds {
                        x: 0,
                        y: 0,
                        width: 1920,
                        height: 1080
                    }
                ),
            ],
            "a stream without a size cannot be pointed at"
        );
        assert_eq!(text(&results, "restore_token").as_deref(), Some("next"));
        assert!(streams(&Results::new()).is_err());
    }
}
