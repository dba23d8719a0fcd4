//! Shapes and values in words an agent reads: "text", "a whole number", "a list
//! of 4 whole numbers", never a Rust type. A value is quoted by a short prefix at
//! most, so an error about a megabyte of text stays a line.

use serde_json::Value;

use super::shape::Shape;

/// Characters of a bad value an error quotes at most.
pub const QUOTE_CHARS: usize = 40;
/// Names a caller sent that an error lists at most: the rest are counted.
pub const LIST_NAMES: usize = 5;

/// A name a caller sent, as an error shows it: escaped (a line break stays on
/// the line) and cut after [`QUOTE_CHARS`] characters.
pub fn name(name: &str) -> String {
    axsight_core::bare_at_most(name, QUOTE_CHARS)
}

/// `names` joined by commas, the first [`LIST_NAMES`] of them and then how
/// many more: a caller may send any number.
pub fn listed(names: &[String]) -> String {
    let shown = names[..names.len().min(LIST_NAMES)].join(", ");
    match names.len().saturating_sub(LIST_NAMES) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// A text quoted as every answer quotes, cut after its first [`QUOTE_CHARS`]
/// characters, with its whole length said when cut.
pub fn quote(text: &str) -> String {
    let quoted = axsight_core::quote_at_most(text, QUOTE_CHARS);
    match text.chars().count() {
        total if total > QUOTE_CHARS => format!("{quoted} ({total} characters)"),
        _ => quoted,
    }
}

/// A value as an error names it.
pub fn value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => {
            let text = number.to_string();
            if text.len() > QUOTE_CHARS {
                format!("a number of {} digits", text.len())
            } else {
                text
            }
        }
        Value::String(text) => quote(text),
        Value::Array(items) => match items.len() {
            0 => "an empty list".into(),
            1 => "a list of 1 item".into(),
            n => format!("a list of {n} items"),
        },
        Value::Object(_) => "an object".into(),
    }
}

/// What a shape takes, as in "must be …".
pub fn shape(shape: &Shape) -> String {
    match shape {
        Shape::Anything => "anything".into(),
        Shape::Null => "null".into(),
        Shape::Text { choices, .. } if choices.is_empty() => "text".into(),
        Shape::Text { choices, .. } => format!("one of {}", choices.join(", ")),
        Shape::Integer { min, max } => format!("a whole number{}", range(*min, *max)),
        Shape::Number => "a number".into(),
        Shape::Flag => "true or false".into(),
        Shape::List { item, min, max } => {
            let count = if min == max {
                format!("{min} ")
            } else {
                String::new()
            };
            format!("a list of {count}{}", plural(item))
        }
        Shape::Object(fields) if fields.required.is_empty() => "an object".into(),
        Shape::Object(fields) => format!(
            "an object with {}",
            fields
                .required
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Shape::Either(arms) => {
            // Text first: it is the type the published schema gives.
            let mut arms: Vec<&Shape> = arms.iter().collect();
            arms.sort_by_key(|arm| !matches!(arm, Shape::Text { .. }));
            arms.into_iter()
                .map(self::shape)
                .collect::<Vec<_>>()
                .join(" or ")
        }
    }
}

/// " from 0 to 255", " (0 or more)", or nothing for a type's whole range.
fn range(min: i128, max: i128) -> String {
    let whole = min <= i128::from(i32::MIN) && max >= i128::from(i32::MAX);
    let unsigned = min == 0 && max >= i128::from(u32::MAX);
    if whole {
        String::new()
    } else if unsigned {
        ", 0 or more".into()
    } else {
        format!(" from {min} to {max}")
    }
}

fn plural(shape: &Shape) -> String {
    match shape {
        Shape::Text { choices, .. } if choices.is_empty() => "texts".into(),
        Shape::Integer { .. } => "whole numbers".into(),
        Shape::Number => "numbers".into(),
        Shape::Flag => "true/false values".into(),
        Shape::Object(_) => "objects".into(),
        Shape::List { .. } => "lists".into(),
        other => format!("values ({})", self::shape(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::shape::Fields;
    use serde_json::json;

    #[test]
    fn long_values_are_quoted_by_a_prefix() {
        let long = "x".repeat(1_000_000);
        let quoted = value(&Value::from(long));
        assert!(quoted.len() < 80, "{quoted}");
        assert!(quoted.ends_with("…\" (1000000 characters)"), "{quoted}");
        assert_eq!(value(&json!("ok \"yes\"")), r#""ok \"yes\"""#);
        assert_eq!(value(&json!([1, 2])), "a list of 2 items");
        assert_eq!(value(&json!(-1)), "-1");
    }

    #[test]
    fn shapes_are_named_without_rust_types() {
        let index = Shape::Either(vec![
            Shape::Integer {
                min: 0,
                max: u32::MAX.into(),
            },
            Shape::Text {
                max_chars: 10,
                choices: vec![],
            },
        ]);
        assert_eq!(shape(&index), "text or a whole number, 0 or more");
        let region = Shape::List {
            item: Box::new(Shape::Integer {
                min: i32::MIN.into(),
                max: i32::MAX.into(),
            }),
            min: 4,
            max: 4,
        };
        assert_eq!(shape(&region), "a list of 4 whole numbers");
        let point = Shape::Object(Fields {
            required: vec!["x".into(), "y".into()],
            ..Fields::default()
        });
        assert_eq!(shape(&point), "an object with `x`, `y`");
        assert_eq!(
            shape(&Shape::Integer { min: 1, max: 8 }),
            "a whole number from 1 to 8"
        );
    }
}
