//! Tool input schemas, made small. Every client sends every tool's schema to its
//! model on every turn, so what schemars writes for completeness (`"default":
//! null`, `["string", "null"]` types, integer formats, `$defs`) costs
//! tokens without telling the model anything. The meaning stays: a property that
//! is not `required` is optional.

use serde_json::{Map, Value};

/// Rewrites a schemars input schema into the smallest equivalent one.
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
            drop_null_type(object);
            flatten_any_of(object);
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

/// `"type": ["string", "null"]` becomes `"type": "string"`.
fn drop_null_type(object: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
}

/// `anyOf` without its `{"type": "null"}` arm; one arm left is merged in; arms
/// that only name a type become a list of types.
fn flatten_any_of(object: &mut Map<String, Value>) {
    let Some(Value::Array(arms)) = object.get_mut("anyOf") else {
        return;
    };
    arms.retain(|arm| arm.get("type") != Some(&Value::from("null")));
    let arms = std::mem::take(arms);
    object.remove("anyOf");
    let only_types = arms.iter().all(|arm| {
        arm.as_object()
            .is_some_and(|a| a.len() == 1 && a.contains_key("type"))
    });
    if arms.len() == 1 {
        if let Value::Object(arm) = &arms[0] {
            for (key, value) in arm {
                object.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    } else if only_types && !arms.is_empty() {
        let types: Vec<Value> = arms.iter().filter_map(|a| a.get("type").cloned()).collect();
        object.insert("type".into(), Value::Array(types));
    } else {
        object.insert("anyOf".into(), Value::Array(arms));
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
                "app": {"type": ["string", "null"], "default": null, "description": "App."},
                "x": {"type": ["integer", "null"], "format": "int32", "default": null},
                "background": {"type": "boolean", "default": false}
            },
            "required": ["text"]
        });
        compact(schema.as_object_mut().unwrap());
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "index": {"type": ["integer", "string"], "description": "Handle."},
                    "app": {"type": "string", "description": "App."},
                    "x": {"type": "integer"},
                    "background": {"type": "boolean"}
                },
                "required": ["text"]
            })
        );
    }

    #[test]
    fn unions_of_shapes_stay_unions() {
        let mut schema = json!({
            "properties": {"from": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "integer"}}}]}}
        });
        let before = schema.clone();
        compact(schema.as_object_mut().unwrap());
        assert_eq!(schema, before);
    }
}
