//! Finding the X display, the session bus and the accessibility bus — from the
//! environment when it says, and the way apps do when it does not.
//!
//! MCP clients often start servers with a stripped environment (only HOME, PATH, USER
//! and a few more), so `DISPLAY`, `DBUS_SESSION_BUS_ADDRESS` and `AT_SPI_BUS_ADDRESS`
//! may all be missing. Then: the only X socket in `/tmp/.X11-unix` is the display, the
//! `AT_SPI_BUS` property on its root window is the accessibility bus, and
//! `$XDG_RUNTIME_DIR/bus` or `/run/user/UID/bus` is the session bus.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::x11::X11;
use axsight_atspi::bus::address_from_session;
pub use axsight_atspi::bus::{accessibility_enabled, connect_to};

/// The longest reading the X root window may take.
const X11_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);
use crate::{Error, Result};

/// Where the engine found what it needs, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// The X display, such as `:0`, if one was found.
    pub display: Option<String>,
    /// Why no display was found, when none was.
    pub display_problem: Option<String>,
    /// The session bus address, if one was found.
    pub session_bus: Option<String>,
    /// The accessibility bus address.
    pub a11y_bus: String,
    /// Where the accessibility bus address came from.
    pub a11y_bus_source: &'static str,
}

/// Reads an environment variable, treating empty as unset.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The X display: `DISPLAY`, else the only socket in `/tmp/.X11-unix`.
pub fn find_display() -> Result<String> {
    if let Some(display) = env("DISPLAY") {
        return Ok(display);
    }
    let sockets: Vec<String> = std::fs::read_dir("/tmp/.X11-unix")
        .map(|dir| {
            dir.filter_map(|entry| entry.ok())
                .filter_map(|entry| {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let number = name.strip_prefix('X')?;
                    number
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                        .then(|| format!(":{number}"))
                })
                .collect()
        })
        .unwrap_or_default();
    match sockets.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(Error::NoDisplay {
            detail: "DISPLAY is not set and /tmp/.X11-unix has no X socket".into(),
        }),
        many => Err(Error::SeveralDisplays {
            displays: many.join(", "),
        }),
    }
}

/// The session bus address: `DBUS_SESSION_BUS_ADDRESS`, else the standard socket.
pub fn find_session_bus() -> Option<String> {
    if let Some(address) = env("DBUS_SESSION_BUS_ADDRESS") {
        return Some(address);
    }
    let runtime_dir = env("XDG_RUNTIME_DIR").or_else(|| {
        let uid = std::fs::metadata("/proc/self").ok()?.uid();
        Some(format!("/run/user/{uid}"))
    })?;
    let socket = Path::new(&runtime_dir).join("bus");
    socket
        .exists()
        .then(|| format!("unix:path={}", socket.display()))
}

/// Finds the display and the buses, in the order apps themselves use.
pub async fn discover() -> Result<Discovery> {
    let (display, display_problem, several) = match find_display() {
        Ok(display) => (Some(display), None, None),
        Err(error @ Error::SeveralDisplays { .. }) => (None, Some(error.to_string()), Some(error)),
        Err(error) => (None, Some(error.to_string()), None),
    };
    let session_bus = find_session_bus();
    let mut tried = Vec::new();

    let mut found = env("AT_SPI_BUS_ADDRESS").map(|address| (address, "AT_SPI_BUS_ADDRESS"));
    if found.is_none() {
        tried.push("AT_SPI_BUS_ADDRESS (unset)".to_string());
        match &display {
            Some(display) => match crate::screen::off_thread(X11_DEADLINE, {
                let display = display.clone();
                move || X11::connect(&display).and_then(|mut x| x.at_spi_bus())
            })
            .await
            {
                Ok(Some(address)) => {
                    found = Some((address, "the AT_SPI_BUS property of the X root window"))
                }
                Ok(None) => tried.push(format!("AT_SPI_BUS on display {display} (not set)")),
                Err(error) => tried.push(format!("display {display} ({error})")),
            },
            None => tried.push("the X root window (no display)".into()),
        }
    }
    if found.is_none() {
        match &session_bus {
            Some(address) => match connect_to(address).await {
                Ok(session) => match address_from_session(&session).await {
                    Ok(a11y) => found = Some((a11y, "org.a11y.Bus on the session bus")),
                    Err(error) => tried.push(format!("org.a11y.Bus on {address} ({error})")),
                },
                Err(error) => tried.push(error.to_string()),
            },
            None => {
                tried.push("the session bus (DBUS_SESSION_BUS_ADDRESS unset, no bus socket)".into())
            }
        }
    }
    // With several displays and none named, that is what went wrong, not the bus.
    let (a11y_bus, a11y_bus_source) = match (found, several) {
        (Some(found), _) => found,
        (None, Some(several)) => return Err(several),
        (None, None) => {
            return Err(Error::NoBus {
                tried: tried.join("; "),
            })
        }
    };
    Ok(Discovery {
        display,
        display_problem,
        session_bus,
        a11y_bus,
        a11y_bus_source,
    })
}
