//! Screenshots a compositor hands over as PNG files (GNOME Shell's, the
//! Screenshot portal's): read, removed (they are ours alone), and decoded to
//! the RGB a [`Capture`] holds.

use std::path::Path;

use axsight_core::{Capture, Point};

use crate::{Error, Result};

/// The screenshot at `path`, its top-left pixel at `origin` on screen; the
/// file is removed whether or not it reads.
pub fn take(path: &Path, origin: Point) -> Result<Capture> {
    let read = std::fs::read(path);
    let _ = std::fs::remove_file(path);
    let png = read.map_err(|e| {
        Error::Wayland(format!(
            "cannot read the screenshot {}: {e}",
            path.display()
        ))
    })?;
    let (width, height, rgb) = decode(&png)?;
    Ok(Capture {
        origin,
        width,
        height,
        rgb,
    })
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
