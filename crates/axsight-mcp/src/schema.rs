//! Tool input schemas, made small. Every client sends every tool's schema to its
//! model on every turn, so what schemars writes for completeness (`"default":
//! null`, `["string", "null"]` types, integer formats, `$defs`) costs
//! tokens without telling the model anything. The meaning stays: a property that
//! is not `required` is optional.
//!
//! They are made portable too: some clients' function calling takes one type
//! per argument, so a union (`["integer", "string"]`, an `anyOf` of shapes) is
//! published as its text arm, or else its first. The server still takes every
//! arm: the arguments are checked against the schema as schemars wrote it
//! (`crate::arguments`), and only that check reads the aliases (`x-aliases`).

use serde_json::{Map, Value};

/// Rewrites a schemars input schema into the smallest portable one.
pub fn compact(schema: &mut Map<String, Value>) {
    let defs = schema.remove("$defs").unwrap_or(Value::Null);
    schema.remove("$schema");
    let mut value = Value::Object(std::mem::take(schema));
    tidy(&mut value, &defs);
    if let Value::Object(object) = value {
        *schema = object;
    }
}

fn tidy(value: &mut Value, defs: &Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| tidy(v, defs)),
        Value::Object(object) => {
            inline_ref(object, defs);
            for child in object.values_mut() {
                tidy(child, defs);
            }
            object.remove("format");
            object.remove(crate::arguments::ALIASES_KEY);
            // Absent means null, and an absent flag is off.
            if matches!(
                object.get("default"),
                Some(Value::Null | Value::Bool(false))
            ) {
                object.remove("default");
            }
            if object.get("minimum") == Some(&Value::from(0)) {
                object.remove("minimum");
            }
            // Any property is allowed unless said otherwise.
            if object.get("additionalProperties") == Some(&Value::Bool(true)) {
                object.remove("additionalProperties");
            }
            one_type(object);
            one_arm(object);
        }
        _ => {}
    }
}

/// `{"$ref": "#/$defs/X", "description": d}` becomes X's body with description d.
fn inline_ref(object: &mut Map<String, Value>, defs: &Value) {
    let Some(Value::String(reference)) = object.get("$ref") else {
        return;
    };
    let Some(name) = reference.strip_prefix("#/$defs/") else {
        return;
    };
    let Some(Value::Object(body)) = defs.get(name) else {
        return;
    };
    object.remove("$ref");
    for (key, value) in body {
        // The referring property's own description wins: it says what this use means.
        object.entry(key.clone()).or_insert_with(|| value.clone());
    }
}

/// `"type": ["string", "null"]` becomes `"type": "string"`, and
/// `["integer", "string"]` becomes `"string"`.
fn one_type(object: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        let text = Value::from("string");
        let only = if types.contains(&text) {
            Some(text)
        } else {
            types.first().cloned()
        };
        if let Some(only) = only {
            object.insert("type".into(), only);
        }
    }
}

/// `anyOf` becomes its one arm that is not `{"type": "null"}`, or its text arm,
/// or its first, merged in.
fn one_arm(object: &mut Map<String, Value>) {
    let Some(Value::Array(arms)) = object.remove("anyOf") else {
        return;
    };
    let mut arms: Vec<Value> = arms
        .into_iter()
        .filter(|arm| arm.get("type") != Some(&Value::from("null")))
        .collect();
    let text = arms
        .iter()
        .position(|arm| arm.get("type") == Some(&Value::from("string")))
        .unwrap_or(0);
    if text >= arms.len() {
        return;
    }
    if let Value::Object(arm) = arms.swap_remove(text) {
        for (key, value) in arm {
            object.entry(key).or_insert(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_lose_their_noise_and_keep_their_meaning() {
        let mut schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"IndexArg": {"anyOf": [{"type": "integer", "format": "uint32", "minimum": 0}, {"type": "string"}], "description": "generic"}},
            "type": "object",
            "properties": {
                "index": {"anyOf": [{"$ref": "#/$defs/IndexArg"}, {"type": "null"}], "description": "Handle."},
                "app": {"type": ["string", "null"], "default": null, "description": "App.", "x-aliases": ["process"]},
                "x": {"type": ["integer", "null"], "format": "int32", "default": null},
                "background": {"type": "boolean", "default": false},
                "arguments": {"type": "object", "additionalProperties": true}
            },
            "required": ["text"]
        });
        compact(schema.as_object_mut().unwrap());
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "index": {"type": "string", "description": "Handle."},
                    "app": {"type": "string", "description": "App."},
                    "x": {"type": "integer"},
                    "background": {"type": "boolean"},
                    "arguments": {"type": "object"}
                },
                "required": ["text"]
            })
        );
    }

    #[test]
    fn unions_of_shapes_become_their_text_arm_or_their_first() {
        let mut schema = json!({
            "properties": {
                "from": {"anyOf": [
                    {"type": "object", "properties": {"x": {"type": "integer"}}},
                    {"type": "string"}
                ], "description": "A handle or \"x,y\"."},
                "region": {"anyOf": [
                    {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
                    {"type": "object", "properties": {"x": {"type": "integer"}}}
                ]},
                "value": {"type": ["number", "string"]}
            }
        });
        compact(schema.as_object_mut().unwrap());
        assert_eq!(
            schema,
            json!({"properties": {
                "from": {"type": "string", "description": "A handle or \"x,y\"."},
                "region": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
                "value": {"type": "string"}
            }})
        );
    }
}
