//! Screenshots on GNOME through GNOME Shell's own `org.gnome.Shell.Screenshot`,
//! which answers only callers that own one of a few names; axsight's connection
//! owns `org.gnome.Screenshot` (the name of GNOME's screenshot app, free unless
//! that app runs). The shell writes a PNG, read back here and removed.

use std::path::PathBuf;

use axsight_core::{Bounds, Capture, Point};
use zbus::blocking::Connection;

use super::display_config::Layout;
use crate::screen::session_bus::call;
use crate::{Error, Result};

/// The name the shell's screenshot check lets through.
pub const ALLOWED_NAME: &str = "org.gnome.Screenshot";

/// The pixels of `area` (already cut to the screen), one per screen pixel:
/// the shell hands over a scaled monitor's pixels, sampled down here (see
/// [`Layout::screenshot_request`]).
pub fn capture(bus: &Connection, layout: &Layout, area: Bounds) -> Result<Capture> {
    let asked = layout.screenshot_request(area);
    let covers = layout.screenshot_covers(asked);
    let file = scratch_file();
    let path = file.to_string_lossy().into_owned();
    let (done, written): (bool, String) = call(
        bus,
        "org.gnome.Shell.Screenshot",
        "/org/gnome/Shell/Screenshot",
        "org.gnome.Shell.Screenshot",
        "ScreenshotArea",
        &(
            asked.x,
            asked.y,
            asked.width,
            asked.height,
            false,
            path.as_str(),
        ),
    )
    .map_err(|e| {
        Error::Wayland(format!(
            "{e} (GNOME Shell takes screenshots only for a caller that owns {ALLOWED_NAME}: \
             close GNOME's screenshot app if it runs, and connect again)"
        ))
    })?;
    if !done {
        return Err(Error::Wayland("GNOME Shell took no screenshot".into()));
    }
    let origin = Point {
        x: covers.x,
        y: covers.y,
    };
    let shot = crate::screen::png_file::take(std::path::Path::new(&written), origin)?;
    let shot = shot.sampled(covers.width as u32, covers.height as u32);
    shot.cropped(area).ok_or_else(|| {
        Error::Wayland(format!(
            "GNOME Shell's screenshot of [{},{},{},{}] misses [{},{},{},{}]",
            covers.x,
            covers.y,
            covers.width,
            covers.height,
            area.x,
            area.y,
            area.width,
            area.height
        ))
    })
}

/// A file of our own for the shell to write to.
fn scratch_file() -> PathBuf {
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!("axsight-shot-{}-{n}.png", std::process::id()))
}
