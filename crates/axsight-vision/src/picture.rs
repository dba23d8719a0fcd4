//! A capture made into a picture: cut, scaled to a largest side or zoomed, marked,
//! and encoded as PNG or JPEG, with the numbers that map its pixels back to the
//! screen.

use axsight_core::{Capture, Point};
use image::{imageops::FilterType, ImageEncoder, RgbImage};

use crate::marks::{draw_marks, Drawn, Mark};

/// The encoding of a picture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Png,
    /// JPEG at quality 85: a third of PNG's size on photos, blurrier text.
    Jpeg,
}

impl Format {
    pub fn mime(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "png" | "" => Ok(Format::Png),
            "jpeg" | "jpg" => Ok(Format::Jpeg),
            other => Err(format!("unknown format '{other}'; use png or jpeg")),
        }
    }
}

/// How to make the picture.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PictureOptions {
    pub format: Format,
    /// Scale down so neither side exceeds this many pixels.
    pub max_dimension: Option<u32>,
    /// Magnify this many times (for small text); overrides `max_dimension`.
    pub zoom: Option<f64>,
    /// Boxes and labels to draw.
    pub marks: Vec<Mark>,
}

/// An encoded picture and how its pixels map to the screen:
/// `screen = origin + image / scale`.
#[derive(Clone, PartialEq)]
pub struct Picture {
    pub bytes: Vec<u8>,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// Image pixels per screen pixel.
    pub scale: f64,
    /// The screen point of the top-left pixel.
    pub origin: Point,
    /// The marks drawn, and where their labels went (image pixels).
    pub drawn: Drawn,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Picture {{ {:?} {}x{}, scale {}, origin ({}, {}), {} bytes }}",
            self.format,
            self.width,
            self.height,
            self.scale,
            self.origin.x,
            self.origin.y,
            self.bytes.len()
        )
    }
}

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("the capture's pixels do not fill {width}x{height}")]
    BadCapture { width: u32, height: u32 },
    #[error("zoom must be between 1 and 8, not {0}")]
    BadZoom(f64),
    #[error("cannot encode the picture: {0}")]
    Encode(String),
    /// No Tesseract library to load; says how to install it.
    #[error("OCR needs Tesseract, which is not installed: {0}")]
    OcrMissing(&'static str),
    #[error("OCR failed: {0}")]
    Ocr(String),
}

/// Largest zoom: beyond it a window's picture would be hundreds of megabytes.
const MAX_ZOOM: f64 = 8.0;

/// Makes the picture of `capture` that `options` describe.
pub fn encode(capture: &Capture, options: &PictureOptions) -> Result<Picture, VisionError> {
    let image = RgbImage::from_raw(capture.width, capture.height, capture.rgb.clone()).ok_or(
        VisionError::BadCapture {
            width: capture.width,
            height: capture.height,
        },
    )?;
    let scale = match (options.zoom, options.max_dimension) {
        (Some(zoom), _) if !(1.0..=MAX_ZOOM).contains(&zoom) => {
            return Err(VisionError::BadZoom(zoom))
        }
        (Some(zoom), _) => zoom,
        (None, Some(max)) => {
            let largest = capture.width.max(capture.height).max(1);
            (f64::from(max.max(16)) / f64::from(largest)).min(1.0)
        }
        (None, None) => 1.0,
    };
    let mut image = if (scale - 1.0).abs() < f64::EPSILON {
        image
    } else {
        let width = ((f64::from(capture.width) * scale).round() as u32).max(1);
        let height = ((f64::from(capture.height) * scale).round() as u32).max(1);
        // Magnified pixels stay sharp; shrunk ones are averaged.
        let filter = if scale > 1.0 {
            FilterType::Nearest
        } else {
            FilterType::Triangle
        };
        image::imageops::resize(&image, width, height, filter)
    };
    // Exact ratio after rounding, so marks and mapped coordinates agree.
    let scale = f64::from(image.width()) / f64::from(capture.width.max(1));
    let drawn = draw_marks(&mut image, capture.origin, scale, &options.marks);
    let (width, height) = image.dimensions();
    let mut bytes = Vec::new();
    let result = match options.format {
        Format::Png => image::codecs::png::PngEncoder::new(&mut bytes).write_image(
            image.as_raw(),
            width,
            height,
            image::ExtendedColorType::Rgb8,
        ),
        Format::Jpeg => image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 85)
            .write_image(
                image.as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgb8,
            ),
    };
    result.map_err(|error| VisionError::Encode(error.to_string()))?;
    Ok(Picture {
        bytes,
        format: options.format,
        width,
        height,
        scale,
        origin: capture.origin,
        drawn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(width: u32, height: u32) -> Capture {
        Capture {
            origin: Point { x: 10, y: 20 },
            width,
            height,
            rgb: vec![200; (width * height * 3) as usize],
        }
    }

    #[test]
    fn max_dimension_scales_down_and_says_by_how_much() {
        let options = PictureOptions {
            max_dimension: Some(100),
            ..PictureOptions::default()
        };
        let picture = encode(&capture(400, 200), &options).unwrap();
        assert_eq!((picture.width, picture.height), (100, 50));
        assert!((picture.scale - 0.25).abs() < 1e-9);
        assert_eq!(&picture.bytes[1..4], b"PNG");
        // Never scaled up.
        let small = encode(&capture(40, 20), &options).unwrap();
        assert_eq!((small.width, small.scale), (40, 1.0));
    }

    #[test]
    fn zoom_magnifies_and_jpeg_encodes() {
        let options = PictureOptions {
            zoom: Some(2.0),
            format: Format::Jpeg,
            ..PictureOptions::default()
        };
        let picture = encode(&capture(30, 10), &options).unwrap();
        assert_eq!(
            (picture.width, picture.height, picture.scale),
            (60, 20, 2.0)
        );
        assert_eq!(&picture.bytes[..2], &[0xff, 0xd8], "a JPEG starts with SOI");
        let error = encode(
            &capture(3, 3),
            &PictureOptions {
                zoom: Some(50.0),
                ..PictureOptions::default()
            },
        )
        .unwrap_err();
        assert!(error.to_string().contains("between 1 and 8"));
    }

    #[test]
    fn a_short_capture_is_an_error_not_a_panic() {
        let mut bad = capture(4, 4);
        bad.rgb.truncate(5);
        assert!(matches!(
            encode(&bad, &PictureOptions::default()),
            Err(VisionError::BadCapture { .. })
        ));
    }
}
