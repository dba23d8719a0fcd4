//! An element's box in whatever form a model wrote it, and the one reading of its
//! numbers (pixels, fractions or thousandths) that fits a whole answer.

use axsight_core::Bounds;
use serde_json::{Map, Value};

/// Corners as the model wrote them, in its units: `[x1, y1, x2, y2]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct RawBox {
    pub corners: [f64; 4],
    /// Gemini's `box_2d`: always 0–1000 whatever the other boxes look like.
    pub thousandths: bool,
}

/// The keys whose value is a box, x first. `bbox_2d` is Qwen2.5-VL's.
const BOX_KEYS: [&str; 7] = [
    "box",
    "bbox",
    "bounds",
    "bbox_2d",
    "bounding_box",
    "rect",
    "coordinates",
];

/// The item's box: under one of [`BOX_KEYS`], under `box_2d` (`[ymin, xmin, ymax,
/// xmax]` in 0–1000), or as corner or size keys of the item itself.
pub(super) fn item_box(item: &Map<String, Value>) -> Option<RawBox> {
    let plain = |corners| RawBox {
        corners,
        thousandths: false,
    };
    for key in BOX_KEYS {
        if let Some(corners) = item.get(key).and_then(corners) {
            return Some(plain(corners));
        }
    }
    if let Some([y1, x1, y2, x2]) = item.get("box_2d").and_then(four_numbers) {
        return Some(RawBox {
            corners: [x1, y1, x2, y2],
            thousandths: true,
        });
    }
    object_corners(item).map(plain)
}

/// Corners from a box value: four numbers (`[x1,y1,x2,y2]`, or a string of
/// them), two points (`[[x1,y1],[x2,y2]]`) or an object of corner or size keys.
fn corners(value: &Value) -> Option<[f64; 4]> {
    match value {
        Value::Object(keys) => object_corners(keys),
        Value::Array(points) if points.len() == 2 => {
            let point = |value: &Value| match value.as_array()?.as_slice() {
                [x, y] => Some((number(x)?, number(y)?)),
                _ => None,
            };
            let ((x1, y1), (x2, y2)) = (point(&points[0])?, point(&points[1])?);
            Some([x1, y1, x2, y2])
        }
        _ => four_numbers(value),
    }
}

/// `[a, b, c, d]`, or a string such as `"10, 20, 30, 40"` or `"[10 20 30 40]"`.
fn four_numbers(value: &Value) -> Option<[f64; 4]> {
    let numbers: Vec<f64> = match value {
        Value::Array(items) => items.iter().map(number).collect::<Option<_>>()?,
        Value::String(text) => text
            .split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
            .filter(|part| !part.is_empty())
            .map(|part| part.parse::<f64>().ok().filter(|n| n.is_finite()))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    numbers.try_into().ok()
}

/// Corners from `x1,y1,x2,y2`, `left,top,right,bottom`, `xmin,ymin,xmax,ymax` or
/// `x,y,width,height` (`w,h`) keys.
fn object_corners(keys: &Map<String, Value>) -> Option<[f64; 4]> {
    let get = |key: &str| keys.get(key).and_then(number);
    let named = |names: [&str; 4]| -> Option<[f64; 4]> {
        Some([
            get(names[0])?,
            get(names[1])?,
            get(names[2])?,
            get(names[3])?,
        ])
    };
    named(["x1", "y1", "x2", "y2"])
        .or_else(|| named(["left", "top", "right", "bottom"]))
        .or_else(|| named(["xmin", "ymin", "xmax", "ymax"]))
        .or_else(|| {
            let (x, y) = (get("x")?, get("y")?);
            let width = get("width").or_else(|| get("w"))?;
            let height = get("height").or_else(|| get("h"))?;
            Some([x, y, x + width, y + height])
        })
}

/// A finite number, or a string that is one (`"12"`, `" 0.5 "`).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|number| number.is_finite())
}

/// What the numbers of an answer's boxes (other than `box_2d`) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Units {
    Pixels,
    /// 0 to 1 of the picture's width or height.
    Fractions,
    /// 0 to 1000 of the picture's width or height.
    Thousandths,
}

/// Judged over the whole answer, not box by box, as one model uses one unit:
/// every number at most 1 means fractions; a number past the picture's edge with
/// none past 1000 means 0–1000; anything else is pixels. "Past the edge" means by
/// more than 2 %: models answering in pixels often overshoot the edge by a few,
/// which must not turn the whole answer into thousandths.
pub(super) fn units<'a>(boxes: impl Iterator<Item = &'a RawBox>, width: u32, height: u32) -> Units {
    let (right, bottom) = (f64::from(width) * 1.02, f64::from(height) * 1.02);
    let (mut all_fractions, mut all_thousandths, mut past_edge) = (true, true, false);
    for raw in boxes.filter(|raw| !raw.thousandths) {
        let [x1, y1, x2, y2] = raw.corners;
        all_fractions &= raw.corners.iter().all(|&n| n <= 1.0);
        all_thousandths &= raw.corners.iter().all(|&n| n <= 1000.0);
        past_edge |= x1.max(x2) > right || y1.max(y2) > bottom;
    }
    if all_fractions {
        Units::Fractions
    } else if past_edge && all_thousandths {
        Units::Thousandths
    } else {
        Units::Pixels
    }
}

/// The box in the picture's pixels, cut to the picture; `None` when nothing of it
/// is left. Corners given the wrong way round are put right.
pub(super) fn to_pixels(raw: &RawBox, units: Units, width: u32, height: u32) -> Option<Bounds> {
    let (w, h) = (f64::from(width), f64::from(height));
    let units = if raw.thousandths {
        Units::Thousandths
    } else {
        units
    };
    let (sx, sy) = match units {
        Units::Pixels => (1.0, 1.0),
        Units::Fractions => (w, h),
        Units::Thousandths => (w / 1000.0, h / 1000.0),
    };
    let [x1, y1, x2, y2] = raw.corners;
    // `as` saturates, and every value is already inside the picture.
    let edge = |n: f64, scale: f64, limit: f64| (n * scale).clamp(0.0, limit).round() as i32;
    let (left, right) = (edge(x1.min(x2), sx, w), edge(x1.max(x2), sx, w));
    let (top, bottom) = (edge(y1.min(y2), sy, h), edge(y1.max(y2), sy, h));
    let bounds = Bounds {
        x: left,
        y: top,
        width: right - left,
        height: bottom - top,
    };
    bounds.has_area().then_some(bounds)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn boxed(item: Value) -> Option<RawBox> {
        item_box(item.as_object().expect("an object"))
    }

    #[test]
    fn every_box_form_gives_the_same_corners() {
        let want = Some([10.0, 20.0, 30.0, 60.0]);
        for item in [
            json!({"box": [10, 20, 30, 60]}),
            json!({"bbox": ["10", "20", "30", "60"]}),
            json!({"bounds": "10, 20, 30, 60"}),
            json!({"box": [[10, 20], [30, 60]]}),
            json!({"box": {"x": 10, "y": 20, "width": 20, "height": 40}}),
            json!({"rect": {"x": 10, "y": 20, "w": 20, "h": 40}}),
            json!({"x1": 10, "y1": 20, "x2": 30, "y2": 60}),
            json!({"left": 10.0, "top": 20, "right": 30, "bottom": "60"}),
            json!({"box_2d": [20, 10, 60, 30]}),
        ] {
            assert_eq!(boxed(item.clone()).map(|raw| raw.corners), want, "{item}");
        }
        assert!(boxed(json!({"box_2d": [20, 10, 60, 30]})).is_some_and(|raw| raw.thousandths));
    }

    #[test]
    fn boxes_that_are_not_four_numbers_are_none() {
        for item in [
            json!({"box": [10, 20, 30]}),
            json!({"box": [10, 20, 30, "x"]}),
            json!({"box": null}),
            json!({"box": "somewhere"}),
            json!({"x": 1, "y": 2}),
            json!({"label": "Save"}),
        ] {
            assert_eq!(boxed(item.clone()), None, "{item}");
        }
    }

    #[test]
    fn units_follow_the_whole_answer() {
        let raw = |corners| RawBox {
            corners,
            thousandths: false,
        };
        let fractions = [raw([0.1, 0.1, 0.5, 0.2]), raw([0.0, 0.9, 1.0, 1.0])];
        assert_eq!(units(fractions.iter(), 400, 300), Units::Fractions);
        let thousandths = [
            raw([10.0, 10.0, 50.0, 20.0]),
            raw([100.0, 500.0, 900.0, 990.0]),
        ];
        assert_eq!(units(thousandths.iter(), 400, 300), Units::Thousandths);
        // Inside the picture: pixels, even though every number is under 1000.
        assert_eq!(units(thousandths.iter(), 1000, 1000), Units::Pixels);
        let pixels = [raw([10.0, 10.0, 1200.0, 20.0])];
        assert_eq!(units(pixels.iter(), 1366, 768), Units::Pixels);
        let overshoot = [raw([300.0, 10.0, 405.0, 20.0])];
        assert_eq!(units(overshoot.iter(), 400, 300), Units::Pixels);
    }

    #[test]
    fn pixels_are_clamped_rounded_and_need_an_area() {
        let raw = |corners| RawBox {
            corners,
            thousandths: false,
        };
        let bounds = |x, y, width, height| Bounds {
            x,
            y,
            width,
            height,
        };
        let fit = |corners, units| to_pixels(&raw(corners), units, 200, 100);
        assert_eq!(
            fit([-5.0, 10.4, 250.0, 20.6], Units::Pixels),
            Some(bounds(0, 10, 200, 11))
        );
        assert_eq!(
            fit([30.0, 40.0, 10.0, 20.0], Units::Pixels),
            Some(bounds(10, 20, 20, 20))
        );
        assert_eq!(
            fit([0.25, 0.5, 0.5, 1.0], Units::Fractions),
            Some(bounds(50, 50, 50, 50))
        );
        assert_eq!(
            fit([500.0, 0.0, 1000.0, 500.0], Units::Thousandths),
            Some(bounds(100, 0, 100, 50))
        );
        assert_eq!(fit([10.0, 10.0, 10.0, 50.0], Units::Pixels), None);
        assert_eq!(fit([300.0, 10.0, 400.0, 50.0], Units::Pixels), None);
    }
}
