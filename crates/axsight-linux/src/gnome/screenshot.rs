//! Screenshots on GNOME through GNOME Shell's own `org.gnome.Shell.Screenshot`,
//! which answers only callers that own one of a few names; axsight's connection
//! owns `org.gnome.Screenshot` (the name of GNOME's screenshot app, free unless
//! that app runs). The shell writes a PNG, read back here and removed.

use std::path::PathBuf;

use axsight_core::{Bounds, Capture, Point};
use zbus::blocking::Connection;

use crate::compositor_bus::call;
use crate::{Error, Result};

/// The name the shell's screenshot check lets through.
pub const ALLOWED_NAME: &str = "org.gnome.Screenshot";

/// The pixels of `area` (already cut to the screen).
pub fn capture(bus: &Connection, area: Bounds) -> Result<Capture> {
    let file = scratch_file();
    let path = file.to_string_lossy().into_owned();
    let (done, written): (bool, String) = call(
        bus,
        "org.gnome.Shell.Screenshot",
        "/org/gnome/Shell/Screenshot",
        "org.gnome.Shell.Screenshot",
        "ScreenshotArea",
        &(
            area.x,
            area.y,
            area.width,
            area.height,
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
    let read = std::fs::read(&written);
    let _ = std::fs::remove_file(&written);
    let png =
        read.map_err(|e| Error::Wayland(format!("cannot read the screenshot {written}: {e}")))?;
    let (width, height, rgb) = decode(&png)?;
    Ok(Capture {
        origin: Point {
            x: area.x,
            y: area.y,
        },
        width,
        height,
        rgb,
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

/// A PNG's width, height and RGB pixels.
fn decode(png_bytes: &[u8]) -> Result<(u32, u32, Vec<u8>)> {
    let bad = |e: png::DecodingError| Error::Wayland(format!("the screenshot is no PNG: {e}"));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(bad)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| Error::Wayland("the screenshot is too large".into()))?;
    let mut buffer = vec![0; size];
    let frame = reader.next_frame(&mut buffer).map_err(bad)?;
    let pixels = &buffer[..frame.buffer_size()];
    let channels = frame.color_type.samples();
    let rgb = match channels {
        3 => pixels.to_vec(),
        4 => pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        1 => pixels.iter().flat_map(|&g| [g, g, g]).collect(),
        2 => pixels
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0]])
            .collect(),
        _ => {
            return Err(Error::Wayland(
                "the screenshot has an odd colour type".into(),
            ))
        }
    };
    Ok((frame.width, frame.height, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rgba_png_becomes_rgb() {
        let mut png_bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut png_bytes, 2, 1);
            encoder.set_color(png::ColorType::Rgba);
            let mut writer = encoder.write_header().unwrap();
            writer
                .write_image_data(&[1, 2, 3, 255, 4, 5, 6, 0])
                .unwrap();
        }
        assert_eq!(decode(&png_bytes).unwrap(), (2, 1, vec![1, 2, 3, 4, 5, 6]));
        assert!(decode(b"not a png").is_err());
    }
}
