//! A tool's input schema compiled to the shapes a check needs. It reads JSON
//! Schema only as far as schemars writes it for our argument structs: `$defs` and
//! `$ref`, type lists, `anyOf`/`oneOf`, `enum`, integer formats, lengths, and our
//! own `x-aliases`. Anything else becomes [`Shape::Anything`], so a schema this
//! cannot read never refuses a call.

use serde_json::{Map, Value};

/// The schema keyword that lists an argument's other names (Windows-era tools
/// call `app` `process`). Only the check reads it; published schemas drop it.
pub const ALIASES_KEY: &str = "x-aliases";

/// The strings of the array at `key` in a schema node (`required`, an
/// argument's aliases); none when it is missing or not an array.
pub fn names_at(node: &Value, key: &str) -> Vec<String> {
    strings_of(node.get(key))
}

/// The strings of a JSON array; none when it is missing or not an array.
fn strings_of(array: Option<&Value>) -> Vec<String> {
    array
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Text an argument takes at most, unless its schema's `maxLength` says: enough
/// for any selector, key list, title or handle, and small enough that an error
/// quoting one stays short.
pub const DEFAULT_MAX_CHARS: usize = 1024;
/// Items a list takes at most, unless its schema's `maxItems` says.
pub const DEFAULT_MAX_ITEMS: usize = 64;
/// `$ref`s followed inside one another at most: a schema that refers to itself
/// stops here.
const MAX_DEPTH: usize = 16;

/// What an argument's value may be.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Whatever it is (a schema without a type, or one this does not read).
    Anything,
    /// `null`: only ever an arm of an optional value, and dropped from unions.
    Null,
    Text {
        max_chars: usize,
        /// The only texts allowed (an `enum`); empty: any text.
        choices: Vec<String>,
    },
    Integer {
        min: i128,
        max: i128,
    },
    Number,
    Flag,
    List {
        item: Box<Shape>,
        min: usize,
        max: usize,
    },
    Object(Fields),
    /// Any one of these.
    Either(Vec<Shape>),
}

/// An object's named fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields {
    pub fields: Vec<Field>,
    pub required: Vec<String>,
    /// Takes names it does not list: a free-form object.
    pub open: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub aliases: Vec<String>,
    /// The schema's description of it: the tool's own words.
    pub about: Option<String>,
    pub shape: Shape,
}

impl Fields {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|field| field.name == name)
    }
}

/// The shape of a whole input schema (its `$defs` are its own).
pub fn compile(schema: &Map<String, Value>) -> Shape {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    shape_of(&Value::Object(schema.clone()), &defs, 0)
}

fn shape_of(node: &Value, defs: &Value, depth: usize) -> Shape {
    let Value::Object(node) = node else {
        return Shape::Anything;
    };
    if depth > MAX_DEPTH {
        return Shape::Anything;
    }
    if let Some(Value::String(reference)) = node.get("$ref") {
        return match reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
        {
            Some(body) => shape_of(body, defs, depth + 1),
            None => Shape::Anything,
        };
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(arms)) = node.get(union) {
            let arms = arms.iter().map(|arm| shape_of(arm, defs, depth + 1));
            // A length given beside the union (on the field) is its text's.
            return match count(node, "maxLength") {
                Some(max) => either(arms.map(|arm| with_max_chars(arm, max))),
                None => either(arms),
            };
        }
    }
    if let Some(Value::Array(choices)) = node.get("enum") {
        return text_choices(node, choices);
    }
    if let Some(choice) = node.get("const") {
        return text_choices(node, std::slice::from_ref(choice));
    }
    match node.get("type") {
        Some(Value::String(kind)) => typed(kind, node, defs, depth),
        Some(Value::Array(kinds)) => either(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| typed(kind, node, defs, depth)),
        ),
        _ => Shape::Anything,
    }
}

/// One arm left is that arm; `null` arms say "optional", which a field's
/// absence from `required` says already.
fn either(arms: impl Iterator<Item = Shape>) -> Shape {
    let mut arms: Vec<Shape> = arms.filter(|arm| *arm != Shape::Null).collect();
    match arms.len() {
        0 => Shape::Null,
        1 => arms.remove(0),
        _ if arms.contains(&Shape::Anything) => Shape::Anything,
        _ => Shape::Either(arms),
    }
}

fn with_max_chars(shape: Shape, max: usize) -> Shape {
    match shape {
        Shape::Text { choices, .. } => Shape::Text {
            max_chars: max,
            choices,
        },
        other => other,
    }
}

fn text_choices(node: &Map<String, Value>, choices: &[Value]) -> Shape {
    let texts: Option<Vec<String>> = choices
        .iter()
        .filter(|choice| !choice.is_null())
        .map(|choice| choice.as_str().map(str::to_string))
        .collect();
    match texts {
        Some(choices) if !choices.is_empty() => Shape::Text {
            max_chars: max_chars(node),
            choices,
        },
        _ => Shape::Anything,
    }
}

fn typed(kind: &str, node: &Map<String, Value>, defs: &Value, depth: usize) -> Shape {
    match kind {
        "null" => Shape::Null,
        "string" => Shape::Text {
            max_chars: max_chars(node),
            choices: Vec::new(),
        },
        "integer" => {
            let (mut min, mut max) = integer_range(node.get("format").and_then(Value::as_str));
            if let Some(low) = node.get("minimum").and_then(Value::as_f64) {
                min = min.max(low.ceil() as i128);
            }
            if let Some(high) = node.get("maximum").and_then(Value::as_f64) {
                max = max.min(high.floor() as i128);
            }
            Shape::Integer { min, max }
        }
        "number" => Shape::Number,
        "boolean" => Shape::Flag,
        "array" => Shape::List {
            item: Box::new(
                node.get("items")
                    .map_or(Shape::Anything, |items| shape_of(items, defs, depth + 1)),
            ),
            min: count(node, "minItems").unwrap_or(0),
            max: count(node, "maxItems").unwrap_or(DEFAULT_MAX_ITEMS),
        },
        "object" => Shape::Object(fields(node, defs, depth)),
        _ => Shape::Anything,
    }
}

fn fields(node: &Map<String, Value>, defs: &Value, depth: usize) -> Fields {
    let Some(Value::Object(properties)) = node.get("properties") else {
        // No names given: whatever object the caller sends.
        return Fields {
            open: true,
            ..Fields::default()
        };
    };
    let fields = properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            aliases: names_at(property, ALIASES_KEY),
            about: description(property, defs),
            shape: shape_of(property, defs, depth + 1),
        })
        .collect();
    Fields {
        fields,
        required: strings_of(node.get("required")),
        open: node.get("additionalProperties") == Some(&Value::Bool(true)),
    }
}

/// A property's description, else that of the type it refers to.
fn description(property: &Value, defs: &Value) -> Option<String> {
    if let Some(text) = property.get("description").and_then(Value::as_str) {
        return Some(text.to_string());
    }
    let referred = |node: &Value| {
        node.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| defs.get(name))
            .and_then(|body| body.get("description"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    referred(property).or_else(|| {
        property
            .get("anyOf")
            .and_then(Value::as_array)
            .and_then(|arms| arms.iter().find_map(referred))
    })
}

fn max_chars(node: &Map<String, Value>) -> usize {
    count(node, "maxLength").unwrap_or(DEFAULT_MAX_CHARS)
}

fn count(node: &Map<String, Value>, key: &str) -> Option<usize> {
    node.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// The numbers a schemars integer format holds (`uint32` is a Rust `u32`).
fn integer_range(format: Option<&str>) -> (i128, i128) {
    match format {
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        Some("uint8") => (0, u8::MAX.into()),
        Some("uint16") => (0, u16::MAX.into()),
        Some("uint32") => (0, u32::MAX.into()),
        Some("uint64" | "uint") => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compiled(schema: Value) -> Shape {
        compile(schema.as_object().unwrap())
    }

    #[test]
    fn schemars_shapes_compile() {
        let shape = compiled(json!({
            "$defs": {"IndexArg": {"anyOf": [{"type": "integer", "format": "uint32", "minimum": 0}, {"type": "string"}]}},
            "type": "object",
            "properties": {
                "index": {"anyOf": [{"$ref": "#/$defs/IndexArg"}, {"type": "null"}]},
                "app": {"type": ["string", "null"], "x-aliases": ["process"], "description": "App."},
                "text": {"type": "string", "maxLength": 65536},
                "format": {"type": "string", "enum": ["text", "json"]},
                "region": {"type": "array", "items": {"type": "integer", "format": "int32"}, "minItems": 4, "maxItems": 4},
                "arguments": {"type": "object", "additionalProperties": true}
            },
            "required": ["text"]
        }));
        let Shape::Object(fields) = shape else {
            panic!("{shape:?}")
        };
        assert_eq!(fields.required, ["text"]);
        assert!(!fields.open);
        assert_eq!(
            fields.field("index").unwrap().shape,
            Shape::Either(vec![
                Shape::Integer {
                    min: 0,
                    max: u32::MAX.into()
                },
                Shape::Text {
                    max_chars: DEFAULT_MAX_CHARS,
                    choices: vec![]
                }
            ])
        );
        let app = fields.field("app").unwrap();
        assert_eq!(app.aliases, ["process"]);
        assert_eq!(app.about.as_deref(), Some("App."));
        assert_eq!(
            fields.field("text").unwrap().shape,
            Shape::Text {
                max_chars: 65536,
                choices: vec![]
            }
        );
        assert_eq!(
            fields.field("format").unwrap().shape,
            Shape::Text {
                max_chars: DEFAULT_MAX_CHARS,
                choices: vec!["text".into(), "json".into()]
            }
        );
        let Shape::List { min, max, .. } = fields.field("region").unwrap().shape else {
            panic!()
        };
        assert_eq!((min, max), (4, 4));
        let Shape::Object(free) = &fields.field("arguments").unwrap().shape else {
            panic!()
        };
        assert!(free.open);
    }

    #[test]
    fn what_it_cannot_read_takes_anything() {
        assert_eq!(compiled(json!({})), Shape::Anything);
        assert_eq!(
            compiled(json!({"$ref": "#/$defs/Missing"})),
            Shape::Anything
        );
        assert_eq!(
            compiled(json!({"$defs": {"Me": {"$ref": "#/$defs/Me"}}, "$ref": "#/$defs/Me"})),
            Shape::Anything
        );
    }
}
