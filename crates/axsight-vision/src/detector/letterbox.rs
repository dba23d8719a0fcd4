//! The detector's input picture: the capture scaled to fit the model's input
//! with plain bilinear interpolation and padded with grey, as ultralytics'
//! `LetterBox` does — the boxes a YOLO model gives depend on these pixels, and
//! a smoothing (antialiasing) resize measurably changes them.

use axsight_core::Capture;

/// The grey the padding is filled with (ultralytics' value).
const PAD: f32 = 114.0;

/// Where the capture sits in the model's input: scaled by `scale`, then shifted
/// by `left`, `top`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placement {
    pub scale: f32,
    pub left: u32,
    pub top: u32,
    /// The scaled capture's size inside the input.
    pub width: u32,
    pub height: u32,
}

impl Placement {
    /// How a `width`×`height` picture fits an input of `input_width`×`input_height`:
    /// as large as fits, centred (the odd pixel of padding goes right and below).
    ///
    /// ```ignore
    /// let p = Placement::fit(1920, 1080, 640, 640);
    /// assert_eq!((p.width, p.height, p.left, p.top), (640, 360, 0, 140));
    /// ```
    pub fn fit(width: u32, height: u32, input_width: u32, input_height: u32) -> Placement {
        let scale = (input_width as f32 / width as f32).min(input_height as f32 / height as f32);
        let scaled_width = ((width as f32 * scale).round() as u32).clamp(1, input_width);
        let scaled_height = ((height as f32 * scale).round() as u32).clamp(1, input_height);
        // ultralytics rounds (pad/2 - 0.1) for the left and top sides.
        let left = ((input_width - scaled_width) as f32 / 2.0 - 0.1)
            .round()
            .max(0.0) as u32;
        let top = ((input_height - scaled_height) as f32 / 2.0 - 0.1)
            .round()
            .max(0.0) as u32;
        Placement {
            scale,
            left,
            top,
            width: scaled_width,
            height: scaled_height,
        }
    }

    /// A point of the model's input, in pixels of the original picture.
    pub fn picture_point(self, x: f32, y: f32) -> (f32, f32) {
        (
            (x - self.left as f32) / self.scale,
            (y - self.top as f32) / self.scale,
        )
    }
}

/// The model's input tensor for `capture`: `[1, 3, input_height, input_width]`
/// RGB planes with values 0–1, and where the capture was put in it.
///
/// The caller has checked that the capture holds `width * height * 3` bytes.
pub(crate) fn letterbox(
    capture: &Capture,
    input_width: u32,
    input_height: u32,
) -> (Vec<f32>, Placement) {
    let placement = Placement::fit(capture.width, capture.height, input_width, input_height);
    let plane = (input_width * input_height) as usize;
    let mut tensor = vec![PAD / 255.0; plane * 3];
    let columns = sample_positions(capture.width, placement.width);
    let rows = sample_positions(capture.height, placement.height);
    let stride = capture.width as usize * 3;
    for (y, &(y0, y1, fy)) in rows.iter().enumerate() {
        let row0 = &capture.rgb[y0 * stride..(y0 + 1) * stride];
        let row1 = &capture.rgb[y1 * stride..(y1 + 1) * stride];
        let out_y = placement.top as usize + y;
        for (x, &(x0, x1, fx)) in columns.iter().enumerate() {
            let out = out_y * input_width as usize + placement.left as usize + x;
            for channel in 0..3 {
                let top = lerp(row0[x0 * 3 + channel], row0[x1 * 3 + channel], fx);
                let bottom = lerp(row1[x0 * 3 + channel], row1[x1 * 3 + channel], fx);
                // Rounded to a byte, as the reference resizes 8-bit pictures.
                let value = (top + (bottom - top) * fy).round().clamp(0.0, 255.0);
                tensor[channel * plane + out] = value / 255.0;
            }
        }
    }
    (tensor, placement)
}

fn lerp(a: u8, b: u8, t: f32) -> f32 {
    f32::from(a) + (f32::from(b) - f32::from(a)) * t
}

/// For each of `scaled` output pixels along one side: the two source pixels
/// it mixes and the second one's weight, with pixel centres aligned (OpenCV's
/// `INTER_LINEAR` convention).
fn sample_positions(source: u32, scaled: u32) -> Vec<(usize, usize, f32)> {
    let ratio = source as f32 / scaled as f32;
    let last = source.saturating_sub(1) as usize;
    (0..scaled)
        .map(|i| {
            let at = ((i as f32 + 0.5) * ratio - 0.5).max(0.0);
            let first = (at.floor() as usize).min(last);
            let weight = if first >= last {
                0.0
            } else {
                at - first as f32
            };
            (first, (first + 1).min(last), weight)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Point;

    fn capture(width: u32, height: u32, rgb: Vec<u8>) -> Capture {
        Capture {
            origin: Point { x: 0, y: 0 },
            width,
            height,
            rgb,
        }
    }

    #[test]
    fn a_wide_picture_is_centred_vertically() {
        let p = Placement::fit(1920, 1080, 640, 640);
        assert_eq!((p.width, p.height, p.left, p.top), (640, 360, 0, 140));
        assert_eq!(p.picture_point(320.0, 140.0), (960.0, 0.0));
    }

    #[test]
    fn an_odd_padding_puts_the_extra_pixel_right() {
        // 640 - 639 = 1 px to pad: round(0.5 - 0.1) = 0 on the left.
        let p = Placement::fit(639, 640, 640, 640);
        assert_eq!((p.left, p.width), (0, 639));
    }

    #[test]
    fn a_small_picture_is_scaled_up() {
        let p = Placement::fit(320, 160, 640, 640);
        assert_eq!((p.scale, p.width, p.height, p.top), (2.0, 640, 320, 160));
    }

    #[test]
    fn padding_is_grey_and_pixels_keep_their_colour() {
        // A 2×1 picture, red then blue, into a 4×4 input: scaled ×2 to 4×2,
        // one row of padding above and below.
        let (tensor, p) = letterbox(&capture(2, 1, vec![255, 0, 0, 0, 0, 255]), 4, 4);
        assert_eq!((p.top, p.height, p.left), (1, 2, 0));
        let red = |x: usize, y: usize| tensor[y * 4 + x];
        let blue = |x: usize, y: usize| tensor[2 * 16 + y * 4 + x];
        assert!((red(0, 0) - 114.0 / 255.0).abs() < 1e-6, "padding");
        assert_eq!(red(0, 1), 1.0);
        assert_eq!(blue(3, 2), 1.0);
        // Between the two, bilinear mixing: 0.25 of the way across at x = 1.
        assert!((red(1, 1) - 191.0 / 255.0).abs() < 1e-6);
    }
}
