//! Screenshots through the Screenshot portal, not interactive: the desktop
//! asks the user once whether apps may take screenshots (xdg-desktop-portal
//! 1.15 and later keep the answer in its permission store), then writes each
//! one as a PNG file and names it by URI; it is read, cut to the area asked
//! for, and removed.

use std::path::PathBuf;
use std::time::Duration;

use axsight_core::{Bounds, Capture, Point};
use zbus::blocking::Connection;
use zbus::zvariant::Value;

use super::request::{self, Options};
use crate::{Error, Result};

pub const INTERFACE: &str = "org.freedesktop.portal.Screenshot";

/// The whole screen, its top-left pixel at `origin`, wait `deadline` for it
/// (the first may wait for the user).
pub fn capture(bus: &Connection, origin: Point, deadline: Duration) -> Result<Capture> {
    let mut options = Options::new();
    options.insert("interactive", Value::from(false));
    options.insert("modal", Value::from(false));
    let results = request::request(bus, INTERFACE, "Screenshot", options, |o| ("", o), deadline)?;
    let uri = results
        .get("uri")
        .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
        .ok_or_else(|| Error::Wayland("the Screenshot portal named no file".into()))?;
    let file = file_of_uri(&uri)
        .ok_or_else(|| Error::Wayland(format!("the Screenshot portal's {uri} is no local file")))?;
    crate::screen::png_file::take(&file, origin)
}

/// The part of the screen `area` covers, from a capture of all of it.
pub fn capture_area(
    bus: &Connection,
    layout: Bounds,
    area: Bounds,
    deadline: Duration,
) -> Result<Capture> {
    let whole = capture(
        bus,
        Point {
            x: layout.x,
            y: layout.y,
        },
        deadline,
    )?;
    // A scaled monitor's screenshot has more pixels than the screen has.
    let whole = whole.sampled(layout.width as u32, layout.height as u32);
    whole.cropped(area).ok_or_else(|| {
        Error::Wayland(format!(
            "the screenshot ({}x{}) does not reach [{},{},{},{}]",
            whole.width, whole.height, area.x, area.y, area.width, area.height
        ))
    })
}

/// The path a `file://` URI names, its `%XX` escapes undone.
fn file_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // A host part, if any, ends at the path's first slash.
    let path = &rest[rest.find('/')?..];
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_uri_becomes_its_path() {
        assert_eq!(
            file_of_uri("file:///home/ada/Pictures/Screenshot%20from%202026.png"),
            Some(PathBuf::from("/home/ada/Pictures/Screenshot from 2026.png"))
        );
        assert_eq!(
            file_of_uri("file://localhost/tmp/a%C3%A9.png"),
            Some(PathBuf::from("/tmp/aé.png"))
        );
        assert_eq!(file_of_uri("https://example.com/a.png"), None);
        assert_eq!(file_of_uri("file:///tmp/bad%2"), None);
    }
}
