//! The pictures Tesseract reads: grey, inverted when dark, magnified with a
//! Catmull-Rom cubic.

use axsight_core::Capture;
use image::GrayImage;

use super::OcrOptions;
use crate::picture::VisionError;

/// The capture made grey, inverted if dark and asked to, and magnified.
pub(super) fn prepare(capture: &Capture, options: &OcrOptions) -> Result<GrayImage, VisionError> {
    let mut grey = grey(capture)?;
    if options.invert_dark {
        invert_if_dark(&mut grey);
    }
    Ok(upscale(&grey, options.upscale))
}

/// The capture in grey (Rec. 709 luma, as `image::imageops::grayscale`).
pub(super) fn grey(capture: &Capture) -> Result<GrayImage, VisionError> {
    let bad = || VisionError::BadCapture {
        width: capture.width,
        height: capture.height,
    };
    let pixels = (capture.width as usize)
        .checked_mul(capture.height as usize)
        .ok_or_else(bad)?;
    if capture.rgb.len() < pixels.saturating_mul(3) {
        return Err(bad());
    }
    let luma = capture.rgb[..pixels * 3]
        .chunks_exact(3)
        .map(|p| {
            let sum = 2126 * u32::from(p[0]) + 7152 * u32::from(p[1]) + 722 * u32::from(p[2]);
            ((sum + 5000) / 10000) as u8
        })
        .collect();
    GrayImage::from_raw(capture.width, capture.height, luma).ok_or_else(bad)
}

/// Turns `image` into its negative when its mean is below mid-grey, so text is
/// dark on light as Tesseract expects.
pub(super) fn invert_if_dark(image: &mut GrayImage) {
    if is_dark(image) {
        image::imageops::invert(image);
    }
}

/// Turns a line's crop into its negative when its text is lighter than its
/// background (white on a selected item's blue, light on a dark theme's
/// button), so text is dark on light as Tesseract expects. The background is
/// the grey most pixels have; the text, the pixels far from it. A crop with no
/// such pixels is judged by its mean, as a page is.
pub(super) fn invert_if_light_text(image: &mut GrayImage) {
    let background = most_common(image);
    if has_light_text(image, background) {
        // What lies outside a lighter text's own background (the white
        // around a selection's rounded box) would turn to ink: it becomes
        // background first.
        clear_from_edges(image, |p| p > background.saturating_add(FAR), background);
        image::imageops::invert(image);
    }
}

/// How far from the background a pixel must be to count as text.
const FAR: u8 = 48;

/// The grey most pixels have.
fn most_common(image: &GrayImage) -> u8 {
    let mut counts = [0u32; 256];
    for &p in image.as_raw() {
        counts[usize::from(p)] += 1;
    }
    (0..=255u8)
        .max_by_key(|&v| counts[usize::from(v)])
        .unwrap_or(255)
}

fn has_light_text(image: &GrayImage, background: u8) -> bool {
    let (mut lighter, mut darker) = (0u64, 0u64);
    for &p in image.as_raw() {
        if p.abs_diff(background) > FAR {
            match p > background {
                true => lighter += 1,
                false => darker += 1,
            }
        }
    }
    match lighter + darker {
        0 => is_dark(image),
        _ => lighter > darker,
    }
}

/// Sets to `fill` every pixel for which `outside` holds and that reaches the
/// picture's edge through such pixels.
fn clear_from_edges(image: &mut GrayImage, outside: impl Fn(u8) -> bool, fill: u8) {
    let (width, height) = image.dimensions();
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for x in 0..width {
        stack.extend([(x, 0), (x, height.saturating_sub(1))]);
    }
    for y in 0..height {
        stack.extend([(0, y), (width.saturating_sub(1), y)]);
    }
    while let Some((x, y)) = stack.pop() {
        if x >= width || y >= height || !outside(image.get_pixel(x, y).0[0]) {
            continue;
        }
        image.put_pixel(x, y, image::Luma([fill]));
        stack.extend([(x + 1, y), (x, y + 1)]);
        if x > 0 {
            stack.push((x - 1, y));
        }
        if y > 0 {
            stack.push((x, y - 1));
        }
    }
}

/// Magnifies `image` a whole number of times with the Catmull-Rom cubic (Pillow's
/// bicubic, which measured best), in fixed point: `image::imageops::resize` takes
/// 215 ms on a 1366×741 window at 2×, this a tenth of that.
pub(super) fn upscale(image: &GrayImage, factor: u32) -> GrayImage {
    let (width, height) = image.dimensions();
    if factor <= 1 || width == 0 || height == 0 {
        return image.clone();
    }
    const ONE: i32 = 1 << 12;
    // Output pixel `k * factor + phase` has its centre at source `k + offset`,
    // `offset = (phase + 0.5) / factor - 0.5`; it mixes source pixels
    // `k + base - 1 ..= k + base + 2`, `base = floor(offset)`.
    let phases: Vec<(i64, [i32; 4])> = (0..factor)
        .map(|phase| {
            let offset = (f64::from(phase) + 0.5) / f64::from(factor) - 0.5;
            let base = offset.floor();
            let t = offset - base;
            let weights = [1.0 + t, t, 1.0 - t, 2.0 - t].map(|d| {
                let d: f64 = d;
                let w = if d <= 1.0 {
                    1.5 * d * d * d - 2.5 * d * d + 1.0
                } else {
                    -0.5 * d * d * d + 2.5 * d * d - 4.0 * d + 2.0
                };
                (w * f64::from(ONE)).round() as i32
            });
            (base as i64, weights)
        })
        .collect();
    let mix = |taps: [i32; 4], weights: &[i32; 4]| -> i64 {
        taps.iter()
            .zip(weights)
            .map(|(&a, &b)| i64::from(a) * i64::from(b))
            .sum()
    };
    let (w, h, f) = (width as i64, height as i64, i64::from(factor));
    let clamp = |i: i64, n: i64| i.clamp(0, n - 1) as usize;
    let source = image.as_raw();
    // Across: values scaled by ONE, kept in i32.
    let wide_width = (w * f) as usize;
    let mut wide = vec![0i32; wide_width * height as usize];
    for y in 0..h as usize {
        let row = &source[y * width as usize..(y + 1) * width as usize];
        let out = &mut wide[y * wide_width..(y + 1) * wide_width];
        for k in 0..w {
            for (phase, (base, weights)) in phases.iter().enumerate() {
                let at = k + base;
                let taps = [-1, 0, 1, 2].map(|d| i32::from(row[clamp(at + d, w)]));
                // At most 255 * 1.3 * ONE: fits.
                out[(k * f) as usize + phase] = mix(taps, weights) as i32;
            }
        }
    }
    // Down, back to bytes.
    let tall_height = (h * f) as usize;
    let mut result = vec![0u8; wide_width * tall_height];
    for k in 0..h {
        for (phase, (base, weights)) in phases.iter().enumerate() {
            let at = k + base;
            let rows = [-1, 0, 1, 2].map(|d| clamp(at + d, h) * wide_width);
            let out_row = (k * f) as usize + phase;
            let out = &mut result[out_row * wide_width..(out_row + 1) * wide_width];
            for (x, value) in out.iter_mut().enumerate() {
                let taps = rows.map(|row| wide[row + x]);
                let sum = mix(taps, weights);
                *value = ((sum + (1 << 23)) >> 24).clamp(0, 255) as u8;
            }
        }
    }
    GrayImage::from_raw(wide_width as u32, tall_height as u32, result)
        .expect("the buffer fits the size")
}

/// Whether the picture's mean is below mid-grey.
fn is_dark(image: &GrayImage) -> bool {
    let pixels = image.as_raw();
    let sum: u64 = pixels.iter().map(|&p| u64::from(p)).sum();
    !pixels.is_empty() && sum < 128 * pixels.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Point;
    use image::imageops::FilterType;

    #[test]
    fn a_line_of_light_text_is_inverted_whatever_its_mean() {
        // White text on a mid blue-grey (a selected icon's label), on a crop
        // whose white margins and text make the mean light.
        let mut line = GrayImage::from_pixel(40, 20, image::Luma([255]));
        for x in 2..38 {
            for y in 2..18 {
                let text = (x % 4 == 0) && (6..14).contains(&y);
                line.put_pixel(x, y, image::Luma([if text { 255 } else { 122 }]));
            }
        }
        assert!(!is_dark(&line));
        let mut inverted = line.clone();
        invert_if_light_text(&mut inverted);
        assert_eq!(inverted.get_pixel(5, 5).0[0], 255 - 122);
        // The white around the blue box is background, not ink; the text
        // inside it is ink.
        assert_eq!(inverted.get_pixel(0, 0).0[0], 255 - 122);
        assert_eq!(inverted.get_pixel(8, 8).0[0], 0);
        // Dark text on white stays.
        let mut plain = GrayImage::from_pixel(40, 20, image::Luma([250]));
        for x in (5..35).step_by(3) {
            plain.put_pixel(x, 10, image::Luma([20]));
        }
        let before = plain.clone();
        invert_if_light_text(&mut plain);
        assert_eq!(plain, before);
    }

    #[test]
    fn pictures_are_grey_inverted_when_dark_and_magnified() {
        let capture = Capture {
            origin: Point { x: 0, y: 0 },
            width: 3,
            height: 2,
            rgb: vec![20; 18],
        };
        let options = OcrOptions {
            invert_dark: true,
            ..OcrOptions::default()
        };
        let image = prepare(&capture, &options).unwrap();
        assert_eq!(image.dimensions(), (6, 4));
        assert!(image.as_raw().iter().all(|&p| p > 200), "dark became light");
        let mut short = capture.clone();
        short.rgb.truncate(4);
        assert!(matches!(
            prepare(&short, &options),
            Err(VisionError::BadCapture { .. })
        ));
    }

    #[test]
    fn upscaling_matches_the_image_crates_catmull_rom() {
        // A busy picture: edges, a gradient, noise.
        let (width, height) = (37u32, 23u32);
        let mut seed = 7u32;
        let image = GrayImage::from_fn(width, height, |x, y| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            image::Luma([match (x / 8 + y / 6) % 3 {
                0 => (x * 7) as u8,
                1 => (seed >> 16) as u8,
                _ => {
                    if (x + y) % 2 == 0 {
                        0
                    } else {
                        255
                    }
                }
            }])
        });
        for factor in [2, 3] {
            let ours = upscale(&image, factor);
            let theirs = image::imageops::resize(
                &image,
                width * factor,
                height * factor,
                FilterType::CatmullRom,
            );
            assert_eq!(ours.dimensions(), theirs.dimensions());
            let worst = ours
                .as_raw()
                .iter()
                .zip(theirs.as_raw())
                .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
                .max()
                .unwrap();
            // Within rounding: the image crate rounds between its passes.
            assert!(worst <= 8, "{factor}x differs by {worst}");
        }
        // Flat stays flat, and 1x is a copy.
        let flat = GrayImage::from_pixel(3, 2, image::Luma([90]));
        assert!(upscale(&flat, 4).as_raw().iter().all(|&p| p == 90));
        assert_eq!(upscale(&image, 1), image);
        // An edge as Pillow's bicubic draws it, in both directions.
        let edge = GrayImage::from_fn(8, 1, |x, _| image::Luma([if x >= 4 { 255 } else { 0 }]));
        let row = [
            0, 0, 0, 0, 0, 0, 0, 52, 203, 255, 255, 255, 255, 255, 255, 255,
        ];
        assert_eq!(upscale(&edge, 2).as_raw()[..16], row);
        let tall = GrayImage::from_fn(1, 8, |_, y| image::Luma([if y >= 4 { 255 } else { 0 }]));
        let column: Vec<u8> = upscale(&tall, 2)
            .as_raw()
            .iter()
            .step_by(2)
            .copied()
            .collect();
        assert_eq!(column, row);
    }
}
