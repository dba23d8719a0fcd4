//! Reading a vision model's answer into [`SeenElement`]s in the pixels of the
//! picture that was sent, whatever the answer's dialect. Nothing a model says can
//! make it panic; what it cannot place is dropped.

mod boxes;

use axsight_core::Bounds;
use serde_json::{Map, Value};

use super::excerpt;
use boxes::{item_box, to_pixels, units, RawBox};

/// One element a vision model saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenElement {
    /// The model's kind for it (`button`, `text`, …), `element` when it gave none.
    pub role: String,
    /// Its visible text or what its icon shows; may be empty.
    pub label: String,
    /// Where it is, in pixels of the picture that was sent, inside that picture.
    pub bounds: Bounds,
}

/// An answer from which no element list could be read. Each message quotes the
/// start of the answer (at most 120 characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    #[error("the vision model's reply is empty")]
    Empty,
    #[error("the vision model's reply holds no JSON: \"{0}\"")]
    NoJson(String),
    #[error("the vision model's reply lists no element with a usable box: \"{0}\"")]
    NoElements(String),
}

/// How long a quoted reply may be.
const EXCERPT: usize = 120;

/// Reads the elements a model listed for a `width`×`height` picture, in its order,
/// exact duplicates dropped.
///
/// The first JSON in the reply that lists elements is used: code fences and prose
/// around it are skipped. A list is a top-level array, or an object's `elements`
/// (or its only array). Each item needs a box (`box`, `bbox`, `bounds`, `box_2d`
/// with y first in 0–1000, corner keys or `x`/`y`/`width`/`height`); its label is
/// `label`, `name`, `text` or `content`, its role `role`, `type` or `kind`.
/// Numbers may be pixels, 0–1 fractions or 0–1000, judged over the whole reply;
/// boxes are cut to the picture and those left with no area are dropped. When a
/// reply was cut short, the complete items before the cut are still read.
///
/// ```
/// use axsight_core::Bounds;
/// let reply = "Sure!\n```json\n{\"elements\":[{\"role\":\"button\",\"label\":\"Save\",\"box\":[0.5,0.5,0.75,1.0]}]}\n```";
/// let seen = axsight_vision::parse_reply(reply, 400, 200).unwrap();
/// assert_eq!(seen[0].label, "Save");
/// assert_eq!(seen[0].bounds, Bounds { x: 200, y: 100, width: 100, height: 100 });
/// assert!(axsight_vision::parse_reply("I see a window.", 400, 200).is_err());
/// ```
pub fn parse_reply(reply: &str, width: u32, height: u32) -> Result<Vec<SeenElement>, ReplyError> {
    if reply.trim().is_empty() {
        return Err(ReplyError::Empty);
    }
    let (mut any_json, mut empty_list) = (false, false);
    // Items found one by one outside any list: JSON lines, or what precedes the
    // cut of a reply that hit the token limit.
    let mut loose = Vec::new();
    let mut position = 0;
    // Each `{` or `[` may start the JSON. One that parses is skipped whole, so the
    // scan reads a reply about once (serde_json's depth limit bounds the rest).
    while let Some(offset) = reply[position..].find(['{', '[']) {
        let start = position + offset;
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
        let Some(Ok(value)) = values.next() else {
            position = start + 1;
            continue;
        };
        any_json = true;
        position = start + values.byte_offset();
        match found(&value) {
            Found::List([]) => empty_list = true,
            Found::List(items) => {
                let seen = place(&items_of(items), width, height);
                if !seen.is_empty() {
                    return Ok(seen);
                }
            }
            Found::Item(item) => loose.extend(read_item(item)),
            Found::Nothing => {}
        }
    }
    let seen = place(&loose, width, height);
    if !seen.is_empty() || empty_list {
        return Ok(seen);
    }
    let quoted = excerpt(reply, EXCERPT);
    Err(if any_json {
        ReplyError::NoElements(quoted)
    } else {
        ReplyError::NoJson(quoted)
    })
}

/// What a JSON value of a reply is.
enum Found<'a> {
    /// A list of items, usable or not.
    List(&'a [Value]),
    /// One item outside a list.
    Item(&'a Map<String, Value>),
    Nothing,
}

fn found(value: &Value) -> Found<'_> {
    match value {
        Value::Array(items) => Found::List(items),
        Value::Object(keys) => {
            if let Some(Value::Array(items)) = keys.get("elements") {
                return Found::List(items);
            }
            // Before looking for a lone array: an item's own box is one.
            if item_box(keys).is_some() {
                return Found::Item(keys);
            }
            let mut arrays = keys.values().filter_map(Value::as_array);
            match (arrays.next(), arrays.next()) {
                (Some(items), None) => Found::List(items),
                _ => Found::Nothing,
            }
        }
        _ => Found::Nothing,
    }
}

/// An item with its box still in the model's units.
struct Item {
    role: String,
    label: String,
    raw: RawBox,
}

fn items_of(values: &[Value]) -> Vec<Item> {
    values
        .iter()
        .filter_map(Value::as_object)
        .filter_map(read_item)
        .collect()
}

/// The item's role, label and box; `None` without a box.
fn read_item(item: &Map<String, Value>) -> Option<Item> {
    let text = |keys: &[&str]| {
        keys.iter().find_map(|key| match item.get(*key)? {
            Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_string()),
            Value::Number(number) => Some(number.to_string()),
            _ => None,
        })
    };
    Some(Item {
        raw: item_box(item)?,
        role: text(&["role", "type", "kind"]).unwrap_or_else(|| "element".to_string()),
        label: text(&["label", "name", "text", "content"]).unwrap_or_default(),
    })
}

/// The items in the picture's pixels, in order, without those left with no area
/// and without exact repeats.
fn place(items: &[Item], width: u32, height: u32) -> Vec<SeenElement> {
    let units = units(items.iter().map(|item| &item.raw), width, height);
    let mut seen: Vec<SeenElement> = Vec::with_capacity(items.len());
    for item in items {
        let Some(bounds) = to_pixels(&item.raw, units, width, height) else {
            continue;
        };
        let element = SeenElement {
            role: item.role.clone(),
            label: item.label.clone(),
            bounds,
        };
        if !seen.contains(&element) {
            seen.push(element);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(x: i32, y: i32, width: i32, height: i32) -> Bounds {
        Bounds {
            x,
            y,
            width,
            height,
        }
    }

    fn seen(role: &str, label: &str, bounds: Bounds) -> SeenElement {
        SeenElement {
            role: role.to_string(),
            label: label.to_string(),
            bounds,
        }
    }

    /// The boxes of a parsed reply for a 400×200 picture.
    fn boxes(reply: &str) -> Vec<Bounds> {
        parse_reply(reply, 400, 200)
            .unwrap_or_else(|error| panic!("{error}"))
            .into_iter()
            .map(|element| element.bounds)
            .collect()
    }

    #[test]
    fn fenced_json_is_read() {
        let reply = "```json\n{\"elements\":[{\"role\":\"button\",\"label\":\"Save\",\"box\":[10,20,110,60]},{\"role\":\"text\",\"label\":\"Name:\",\"box\":[10,80,60,96]}]}\n```";
        assert_eq!(
            parse_reply(reply, 400, 200),
            Ok(vec![
                seen("button", "Save", bounds(10, 20, 100, 40)),
                seen("text", "Name:", bounds(10, 80, 50, 16)),
            ])
        );
        let bare_fence = "```\n[{\"role\":\"tab\",\"label\":\"General\",\"box\":[0,0,80,30]}]\n```";
        assert_eq!(boxes(bare_fence), [bounds(0, 0, 80, 30)]);
    }

    #[test]
    fn prose_around_the_json_is_skipped() {
        let reply = "Here are the elements [as requested]:\n{\"elements\": [{\"label\": \"OK\", \"box\": [300, 150, 380, 190]}]}\nLet me know if you need {more}.";
        assert_eq!(boxes(reply), [bounds(300, 150, 80, 40)]);
    }

    #[test]
    fn fractions_of_the_picture() {
        let reply = r#"[{"label":"a","box":[0.25,0.5,0.5,1.0]},{"label":"b","bbox":[0,0,1,0.1]}]"#;
        assert_eq!(
            boxes(reply),
            [bounds(100, 100, 100, 100), bounds(0, 0, 400, 20)]
        );
    }

    #[test]
    fn thousandths_when_a_number_is_past_the_edge() {
        // 900 is past the 200-pixel height, and nothing exceeds 1000.
        let reply = r#"{"elements":[{"label":"a","box":[250,500,500,900]},{"label":"b","box":[0,0,100,100]}]}"#;
        assert_eq!(
            boxes(reply),
            [bounds(100, 100, 100, 80), bounds(0, 0, 40, 20)]
        );
    }

    #[test]
    fn box_2d_is_y_first_in_thousandths() {
        // Gemini: [ymin, xmin, ymax, xmax] in 0–1000, beside a pixel box.
        let reply =
            r#"[{"label":"Save","box_2d":[500,250,1000,500]},{"label":"px","box":[10,10,30,20]}]"#;
        assert_eq!(
            boxes(reply),
            [bounds(100, 100, 100, 100), bounds(10, 10, 20, 10)]
        );
    }

    #[test]
    fn pixel_boxes_are_kept_and_cut_to_the_picture() {
        // 405 overshoots the 400-pixel width by less than 2 %: still pixels.
        let reply = r#"[{"label":"wide","box":[350,10,405,30]},{"label":"gone","box":[400,10,405,30]},{"label":"b","box":[0,150,10,160]}]"#;
        assert_eq!(
            boxes(reply),
            [bounds(350, 10, 50, 20), bounds(0, 150, 10, 10)]
        );
        // Past 1000, nothing can be 0–1000.
        let reply = r#"[{"label":"wide","box":[350,10,1400,30]}]"#;
        assert_eq!(boxes(reply), [bounds(350, 10, 50, 20)]);
    }

    #[test]
    fn numbers_given_as_strings() {
        let reply = r#"{"elements":[{"label":"a","box":["10","20","30","40"]},{"label":"b","bounds":"[50, 60, 70, 80]"},{"label":"c","box":{"x":"5","y":"6","w":"7","h":"8"}}]}"#;
        assert_eq!(
            boxes(reply),
            [
                bounds(10, 20, 20, 20),
                bounds(50, 60, 20, 20),
                bounds(5, 6, 7, 8)
            ]
        );
    }

    #[test]
    fn other_key_names_and_object_boxes() {
        let reply = r#"{"items":[
            {"type":"link","name":"Help","bbox":{"x1":1,"y1":2,"x2":11,"y2":12}},
            {"kind":"icon","text":"Trash","bounds":{"left":20,"top":20,"right":40,"bottom":40}},
            {"role":"field","content":"","x":50,"y":50,"width":100,"height":20}
        ]}"#;
        assert_eq!(
            parse_reply(reply, 400, 200),
            Ok(vec![
                seen("link", "Help", bounds(1, 2, 10, 10)),
                seen("icon", "Trash", bounds(20, 20, 20, 20)),
                seen("field", "", bounds(50, 50, 100, 20)),
            ])
        );
    }

    #[test]
    fn missing_label_and_role_have_defaults() {
        let reply = r#"[{"box":[1,1,5,5]},{"role":"  ","label":7,"box":[6,6,9,9]}]"#;
        assert_eq!(
            parse_reply(reply, 400, 200),
            Ok(vec![
                seen("element", "", bounds(1, 1, 4, 4)),
                seen("element", "7", bounds(6, 6, 3, 3)),
            ])
        );
    }

    #[test]
    fn items_without_a_usable_box_are_skipped_and_repeats_dropped() {
        let reply = r#"{"elements":[
            {"label":"no box"},
            {"label":"short","box":[1,2,3]},
            "just text",
            {"label":"flat","box":[10,10,10,50]},
            {"label":"ok","box":[10,10,20,20]},
            {"label":"ok","box":[10,10,20,20]},
            {"label":"ok","box":[30,10,40,20]}
        ]}"#;
        assert_eq!(
            boxes(reply),
            [bounds(10, 10, 10, 10), bounds(30, 10, 10, 10)]
        );
    }

    #[test]
    fn a_reply_cut_short_keeps_its_complete_items() {
        let reply = r#"{"elements":[{"label":"a","box":[1,1,9,9]},{"label":"b","box":[10,10,20,20]},{"label":"c","box":[30,"#;
        assert_eq!(boxes(reply), [bounds(1, 1, 8, 8), bounds(10, 10, 10, 10)]);
    }

    #[test]
    fn an_empty_list_is_no_error() {
        assert_eq!(parse_reply(r#"{"elements":[]}"#, 400, 200), Ok(vec![]));
        assert_eq!(parse_reply("```json\n[]\n```", 400, 200), Ok(vec![]));
    }

    #[test]
    fn garbage_is_an_error_quoting_the_reply() {
        let long = format!("I cannot help with that. {}", "blah ".repeat(100));
        let Err(ReplyError::NoJson(quoted)) = parse_reply(&long, 400, 200) else {
            panic!("not NoJson");
        };
        assert!(quoted.starts_with("I cannot help with that. blah"));
        assert!(quoted.chars().count() <= 120);
        let message = ReplyError::NoJson(quoted).to_string();
        assert!(message.contains("I cannot help"), "{message}");

        assert_eq!(parse_reply(" \n ", 400, 200), Err(ReplyError::Empty));
        assert!(matches!(
            parse_reply("{broken [json", 400, 200),
            Err(ReplyError::NoJson(_))
        ));
        for useless in [
            r#"{"error":"no screenshot"}"#,
            "[1, 2, 3]",
            r#"{"elements":[{"label":"Save"}]}"#,
        ] {
            assert_eq!(
                parse_reply(useless, 400, 200),
                Err(ReplyError::NoElements(useless.to_string())),
            );
        }
    }
}
