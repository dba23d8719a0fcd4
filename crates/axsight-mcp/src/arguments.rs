//! Every tool call's arguments, checked against that tool's input schema before
//! the tool runs (for a client's call and for each step of a sequence alike):
//! aliases put under their argument's name, unknown names refused with the list
//! of known ones, each value's type and size checked, and the other forms of a
//! value a client may send taken leniently (see [`fit`]). Errors say what is
//! wrong in the schema's words and quote at most a short prefix of a bad value.
//!
//! It reads the schemas schemars writes (with their unions, before the published
//! ones are made portable) and knows nothing of what an argument means.

mod fit;
mod shape;
mod words;

use std::collections::HashMap;

use serde_json::{Map, Value};

use shape::{Fields, Shape};

pub use shape::{names_at, ALIASES_KEY};
#[cfg(test)]
pub use shape::{DEFAULT_MAX_CHARS, DEFAULT_MAX_ITEMS};
#[cfg(test)]
pub use words::QUOTE_CHARS;
pub use words::{listed, name, quote};

/// The argument rules of every tool, by tool name.
#[derive(Debug, Clone, Default)]
pub struct ToolArguments {
    tools: HashMap<String, Fields>,
}

impl ToolArguments {
    /// Rules from each tool's input schema as schemars wrote it.
    pub fn new<'a>(schemas: impl IntoIterator<Item = (&'a str, &'a Map<String, Value>)>) -> Self {
        let tools = schemas
            .into_iter()
            .map(|(name, schema)| {
                let fields = match shape::compile(schema) {
                    Shape::Object(fields) => fields,
                    // Not an object schema: nothing to check names against.
                    _ => Fields {
                        open: true,
                        ..Fields::default()
                    },
                };
                (name.to_string(), fields)
            })
            .collect();
        ToolArguments { tools }
    }

    /// Checks `arguments` for `tool` and puts them in the form its handler takes.
    /// An unknown tool passes: the router refuses it.
    pub fn check(&self, tool: &str, arguments: &mut Map<String, Value>) -> Result<(), String> {
        match self.tools.get(tool) {
            Some(fields) => fit::fields(fields, arguments, "").map_err(|m| m.message(tool)),
            None => Ok(()),
        }
    }
}

/// Arguments for `schema` that its check takes: for every field, each form its
/// shape allows (every arm of a union, and the other forms the check puts right),
/// beside the required fields. Tests parse each with the argument struct, so the
/// check never lets through what the struct refuses.
#[cfg(test)]
pub fn every_form(schema: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let Shape::Object(fields) = shape::compile(schema) else {
        return vec![Map::new()];
    };
    let base: Map<String, Value> = fields
        .required
        .iter()
        .filter_map(|name| Some((name.clone(), forms(&fields.field(name)?.shape).remove(0))))
        .collect();
    let mut all = vec![base.clone()];
    for field in &fields.fields {
        let mut names = vec![field.name.clone()];
        names.extend(field.aliases.iter().cloned());
        for name in names {
            for form in forms(&field.shape) {
                let mut arguments = base.clone();
                arguments.remove(&field.name);
                arguments.insert(name.clone(), form);
                all.push(arguments);
            }
        }
    }
    all
}

#[cfg(test)]
fn forms(shape: &Shape) -> Vec<Value> {
    use serde_json::json;
    match shape {
        Shape::Anything | Shape::Null => vec![json!({})],
        Shape::Text { choices, .. } if choices.is_empty() => vec![json!("x"), json!(7)],
        Shape::Text { choices, .. } => vec![json!(choices[0]), json!(choices[0].to_uppercase())],
        Shape::Integer { min, max } => {
            let n = 1.clamp(*min, *max) as i64;
            vec![json!(n), json!(n.to_string()), json!(n as f64)]
        }
        Shape::Number => vec![json!(1.5), json!("2")],
        Shape::Flag => vec![json!(true), json!("false")],
        Shape::List { item, min, .. } => {
            let item = forms(item).remove(0);
            vec![Value::Array(vec![item; (*min).max(1)])]
        }
        Shape::Object(fields) => {
            let object: Map<String, Value> = fields
                .required
                .iter()
                .filter_map(|name| {
                    Some((name.clone(), forms(&fields.field(name)?.shape).remove(0)))
                })
                .collect();
            vec![Value::Object(object)]
        }
        Shape::Either(arms) => arms.iter().flat_map(forms).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rules of one tool `t` with this schema.
    fn rules(schema: Value) -> ToolArguments {
        let schema = schema.as_object().unwrap().clone();
        ToolArguments::new([("t", &schema)])
    }

    fn check(rules: &ToolArguments, arguments: Value) -> Result<Value, String> {
        let mut arguments = arguments.as_object().unwrap().clone();
        rules.check("t", &mut arguments)?;
        Ok(Value::Object(arguments))
    }

    fn key_tool() -> ToolArguments {
        rules(json!({
            "$defs": {"IndexArg": {"anyOf": [{"type": "integer", "format": "uint32", "minimum": 0}, {"type": "string"}]}},
            "type": "object",
            "properties": {
                "key": {"type": "string", "description": "Keys: \"ctrl+s\"."},
                "index": {"anyOf": [{"$ref": "#/$defs/IndexArg"}, {"type": "null"}]},
                "app": {"type": ["string", "null"], "x-aliases": ["process"]},
                "timeout_ms": {"type": ["integer", "null"], "format": "uint64", "minimum": 0},
                "background": {"type": "boolean", "default": false},
                "region": {"anyOf": [
                    {"type": "array", "items": {"type": "integer", "format": "int32"}, "minItems": 4, "maxItems": 4},
                    {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]}
                ]}
            },
            "required": ["key"]
        }))
    }

    #[test]
    fn unknown_arguments_are_refused_with_the_known_ones() {
        let error = check(&key_tool(), json!({"key": "a", "keys": "b"})).unwrap_err();
        assert_eq!(
            error,
            "t has no argument `keys`; it takes app, background, index, key, region, timeout_ms"
        );
        let none = rules(json!({"type": "object", "properties": {}}));
        assert_eq!(
            check(&none, json!({"x": 1})).unwrap_err(),
            "t has no argument `x`; it takes no arguments"
        );
    }

    #[test]
    fn aliases_are_renamed_and_not_given_twice() {
        let tool = key_tool();
        let fixed = check(&tool, json!({"key": "a", "process": "gedit"})).unwrap();
        assert_eq!(fixed, json!({"key": "a", "app": "gedit"}));
        let error = check(&tool, json!({"key": "a", "process": "x", "app": "y"})).unwrap_err();
        assert!(
            error.contains("`app` and `process` are the same argument"),
            "{error}"
        );
    }

    #[test]
    fn missing_arguments_are_explained_by_their_description() {
        let error = check(&key_tool(), json!({"index": "#u3"})).unwrap_err();
        assert_eq!(error, "t needs `key`: Keys: \"ctrl+s\".");
        let error = check(&key_tool(), json!({"key": null})).unwrap_err();
        assert!(error.starts_with("t needs `key`"), "{error}");
    }

    #[test]
    fn other_forms_of_a_value_are_taken() {
        let tool = key_tool();
        let fixed = check(
            &tool,
            json!({"key": 5, "index": 14, "timeout_ms": "300", "background": "true", "app": null}),
        )
        .unwrap();
        assert_eq!(
            fixed,
            json!({"key": "5", "index": 14, "timeout_ms": 300, "background": true})
        );
        let fixed = check(&tool, json!({"key": "a", "index": "u3", "timeout_ms": 2.0})).unwrap();
        assert_eq!(fixed["index"], "u3");
        assert_eq!(fixed["timeout_ms"], 2);
    }

    #[test]
    fn wrong_values_are_named_in_words_not_rust_types() {
        let tool = key_tool();
        let error = check(&tool, json!({"key": "a", "timeout_ms": -1})).unwrap_err();
        assert_eq!(
            error,
            "`timeout_ms` must be a whole number, 0 or more, not -1"
        );
        let error = check(&tool, json!({"key": "a", "index": [1]})).unwrap_err();
        assert_eq!(
            error,
            "`index` must be text or a whole number, 0 or more, not a list of 1 item"
        );
        let error = check(&tool, json!({"key": "a", "background": "maybe"})).unwrap_err();
        assert_eq!(error, "`background` must be true or false, not \"maybe\"");
        assert!(
            !error.contains("usize") && !error.contains("enum"),
            "{error}"
        );
    }

    #[test]
    fn a_union_names_the_arm_of_the_values_kind() {
        let tool = key_tool();
        let error = check(&tool, json!({"key": "a", "region": {"x": 1}})).unwrap_err();
        assert_eq!(error, "`region` needs `y` (a whole number)");
        let error = check(&tool, json!({"key": "a", "region": [1, 2, 3]})).unwrap_err();
        assert_eq!(error, "`region` has 3 items; it takes exactly 4");
        let error = check(&tool, json!({"key": "a", "region": "big"})).unwrap_err();
        assert!(
            error.starts_with(
                "`region` must be a list of 4 whole numbers or an object with `x`, `y`"
            ),
            "{error}"
        );
        assert!(check(&tool, json!({"key": "a", "region": [1, 2, 3, 4]})).is_ok());
    }

    #[test]
    fn big_values_are_refused_and_quoted_short() {
        let tool = key_tool();
        let huge = "k".repeat(1 << 20);
        let error = check(&tool, json!({"key": huge})).unwrap_err();
        assert_eq!(
            error,
            "`key` is 1048576 characters long; it takes at most 1024"
        );
        let error = check(&tool, json!({"key": "a", "background": huge})).unwrap_err();
        assert!(error.len() < 120, "{error}");
        let key = format!("{huge}x");
        let error = check(&tool, json!({"key": "a", key: 1})).unwrap_err();
        assert!(error.len() < 200, "{error}");
    }

    /// Found by the argument fuzz test: a hundred unknown names made an error of
    /// kilobytes, and a name with a line break broke the error's line.
    #[test]
    fn unknown_names_are_listed_few_escaped_and_counted() {
        let mut arguments = json!({"key": "a"});
        for n in 0..100 {
            arguments[format!("{n}{}", "x".repeat(60))] = json!(1);
        }
        let error = check(&key_tool(), arguments).unwrap_err();
        assert!(error.len() < 600, "{error}");
        assert!(
            error.starts_with("t has no arguments `0xxx") && error.contains(" and 95 more; "),
            "{error}"
        );
        let error = check(&key_tool(), json!({"key": "a", "line\nbreak\u{0}": 1})).unwrap_err();
        assert_eq!(
            error,
            r"t has no argument `line\nbreak\u{0}`; it takes app, background, index, key, region, timeout_ms"
        );
        let error = check(&key_tool(), json!({"key": "a", "a,b": 1})).unwrap_err();
        assert!(error.starts_with("t has no argument `a,b`"), "{error}");
    }

    #[test]
    fn free_form_objects_take_any_field() {
        let tool = rules(json!({
            "type": "object",
            "properties": {"steps": {"type": "array", "maxItems": 2, "items": {
                "type": "object",
                "properties": {"tool": {"type": "string"}, "arguments": {"type": "object", "additionalProperties": true}}
            }}}
        }));
        assert!(check(
            &tool,
            json!({"steps": [{"tool": "x", "arguments": {"anything": [1]}}]})
        )
        .is_ok());
        let error = check(&tool, json!({"steps": [{"tool": "x"}, {"tol": "y"}]})).unwrap_err();
        assert_eq!(
            error,
            "`steps[1]` has no field `tol`; it takes arguments, tool"
        );
        let error = check(&tool, json!({"steps": [{}, {}, {}]})).unwrap_err();
        assert_eq!(error, "`steps` has 3 items; it takes at most 2");
    }
}
