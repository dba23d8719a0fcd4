//! Whether a value fits a shape, put right where the caller meant the same
//! thing in another form: an alias renamed, a `null` for an optional argument
//! left out, a number where text is expected taken as its text (`"index": 14`),
//! a numeric text where a number is expected taken as the number, `"true"` as
//! true. What does not fit is a [`Misfit`], said in the schema's words.

use serde_json::{Map, Number, Value};

use super::shape::{Fields, Shape};
use super::words;

/// Why arguments do not fit their tool's schema; `at` is the path of the value
/// (`steps[2].tool`), empty for the arguments themselves.
#[derive(Debug, Clone, PartialEq)]
pub enum Misfit {
    Unknown {
        at: String,
        names: Vec<String>,
        known: Vec<String>,
    },
    Twice {
        at: String,
        name: String,
        alias: String,
    },
    Missing {
        at: String,
        name: String,
        about: Option<String>,
        expected: String,
    },
    Wrong {
        at: String,
        expected: String,
        got: String,
    },
    TooLong {
        at: String,
        chars: usize,
        max: usize,
    },
    Count {
        at: String,
        items: usize,
        min: usize,
        max: usize,
    },
}

impl Misfit {
    /// The error an agent reads for a call of `tool`.
    pub fn message(&self, tool: &str) -> String {
        let owner = |at: &str| {
            if at.is_empty() {
                tool.to_string()
            } else {
                format!("`{at}`")
            }
        };
        match self {
            Misfit::Unknown { at, names, known } => {
                let plural = if names.len() > 1 { "s" } else { "" };
                let names = ticked(names);
                let what = if at.is_empty() { "argument" } else { "field" };
                let takes = if known.is_empty() {
                    format!("it takes no {what}s")
                } else {
                    format!("it takes {}", known.join(", "))
                };
                format!("{} has no {what}{plural} {names}; {takes}", owner(at))
            }
            Misfit::Twice { at, name, alias } => format!(
                "{}: `{name}` and `{alias}` are the same argument: give one of them",
                owner(at)
            ),
            Misfit::Missing {
                at,
                name,
                about,
                expected,
            } => match about {
                Some(about) => format!("{} needs `{name}`: {about}", owner(at)),
                None => format!("{} needs `{name}` ({expected})", owner(at)),
            },
            Misfit::Wrong { at, expected, got } => format!("`{at}` must be {expected}, not {got}"),
            Misfit::TooLong { at, chars, max } => {
                format!("`{at}` is {chars} characters long; it takes at most {max}")
            }
            Misfit::Count {
                at,
                items,
                min,
                max,
            } => {
                let takes = if min == max {
                    format!("exactly {min}")
                } else if items > max {
                    format!("at most {max}")
                } else {
                    format!("at least {min}")
                };
                format!("`{at}` has {items} items; it takes {takes}")
            }
        }
    }
}

/// The unknown names a caller sent, as many as there are: a few shown.
fn ticked(names: &[String]) -> String {
    let ticked: Vec<String> = names
        .iter()
        .map(|name| format!("`{}`", words::name(name)))
        .collect();
    words::listed(&ticked)
}

/// Checks an object's fields, renaming aliases and dropping `null`s in place.
pub fn fields(fields: &Fields, object: &mut Map<String, Value>, at: &str) -> Result<(), Misfit> {
    for field in &fields.fields {
        for alias in &field.aliases {
            let Some(value) = object.remove(alias) else {
                continue;
            };
            if object.contains_key(&field.name) {
                return Err(Misfit::Twice {
                    at: at.into(),
                    name: field.name.clone(),
                    alias: alias.clone(),
                });
            }
            object.insert(field.name.clone(), value);
        }
    }
    if !fields.open {
        let unknown: Vec<String> = object
            .keys()
            .filter(|key| fields.field(key).is_none())
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(Misfit::Unknown {
                at: at.into(),
                names: unknown,
                known: fields.fields.iter().map(|f| f.name.clone()).collect(),
            });
        }
    }
    // Some clients send null for every argument they leave unset.
    object.retain(|name, value| !value.is_null() || fields.required.contains(name));
    for name in &fields.required {
        if object.get(name).is_none_or(Value::is_null) {
            let field = fields.field(name);
            return Err(Misfit::Missing {
                at: at.into(),
                name: name.clone(),
                about: field.and_then(|f| f.about.clone()),
                expected: field.map_or("a value".into(), |f| words::shape(&f.shape)),
            });
        }
    }
    for field in &fields.fields {
        if let Some(value) = object.get_mut(&field.name) {
            fit(&field.shape, value, &join(at, &field.name), true)?;
        }
    }
    Ok(())
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}

/// Checks one value; `lenient` allows the other forms of the same value.
fn fit(shape: &Shape, value: &mut Value, at: &str, lenient: bool) -> Result<(), Misfit> {
    let wrong = |value: &Value| Misfit::Wrong {
        at: at.into(),
        expected: words::shape(shape),
        got: words::value(value),
    };
    match shape {
        Shape::Anything => Ok(()),
        Shape::Null if value.is_null() => Ok(()),
        Shape::Null => Err(wrong(value)),
        Shape::Text { max_chars, choices } => {
            if lenient {
                if let Value::Number(number) = value {
                    *value = Value::String(number.to_string());
                }
            }
            let Value::String(text) = value else {
                return Err(wrong(value));
            };
            let chars = text.chars().count();
            if chars > *max_chars {
                return Err(Misfit::TooLong {
                    at: at.into(),
                    chars,
                    max: *max_chars,
                });
            }
            if choices.is_empty() || choices.contains(text) {
                return Ok(());
            }
            match choices
                .iter()
                .find(|c| lenient && c.eq_ignore_ascii_case(text))
            {
                Some(choice) => {
                    *text = choice.clone();
                    Ok(())
                }
                None => Err(wrong(value)),
            }
        }
        Shape::Integer { min, max } => match whole_number(value, lenient) {
            Some(n) if (*min..=*max).contains(&n) => {
                *value = integer_value(n);
                Ok(())
            }
            _ => Err(wrong(value)),
        },
        Shape::Number => {
            if value.is_number() {
                return Ok(());
            }
            let parsed = value
                .as_str()
                .filter(|_| lenient)
                .and_then(|text| text.trim().parse::<f64>().ok())
                .and_then(Number::from_f64);
            match parsed {
                Some(number) => {
                    *value = Value::Number(number);
                    Ok(())
                }
                None => Err(wrong(value)),
            }
        }
        Shape::Flag => {
            let flag = match &*value {
                Value::Bool(flag) => Some(*flag),
                Value::String(text) if lenient => match text.trim() {
                    t if t.eq_ignore_ascii_case("true") => Some(true),
                    t if t.eq_ignore_ascii_case("false") => Some(false),
                    _ => None,
                },
                _ => None,
            };
            match flag {
                Some(flag) => {
                    *value = Value::Bool(flag);
                    Ok(())
                }
                None => Err(wrong(value)),
            }
        }
        Shape::List { item, min, max } => {
            let Value::Array(items) = value else {
                return Err(wrong(value));
            };
            if items.len() < *min || items.len() > *max {
                return Err(Misfit::Count {
                    at: at.into(),
                    items: items.len(),
                    min: *min,
                    max: *max,
                });
            }
            for (index, element) in items.iter_mut().enumerate() {
                fit(item, element, &format!("{at}[{index}]"), lenient)?;
            }
            Ok(())
        }
        Shape::Object(shape) => match value {
            Value::Object(object) => fields(shape, object, at),
            other => Err(wrong(other)),
        },
        Shape::Either(arms) => either(shape, arms, value, at, lenient),
    }
}

/// The first arm the value fits as it is, else the first it fits in another
/// form. When none does and one arm is of the value's kind (an object for an
/// object), that arm's complaint is the useful one.
fn either(
    shape: &Shape,
    arms: &[Shape],
    value: &mut Value,
    at: &str,
    lenient: bool,
) -> Result<(), Misfit> {
    let passes: &[bool] = if lenient { &[false, true] } else { &[false] };
    for &pass in passes {
        for arm in arms {
            let mut tried = value.clone();
            if fit(arm, &mut tried, at, pass).is_ok() {
                *value = tried;
                return Ok(());
            }
        }
    }
    let same_kind: Vec<&Shape> = arms.iter().filter(|arm| same_kind(arm, value)).collect();
    if let [arm] = same_kind[..] {
        return fit(arm, value, at, lenient);
    }
    Err(Misfit::Wrong {
        at: at.into(),
        expected: words::shape(shape),
        got: words::value(value),
    })
}

fn same_kind(shape: &Shape, value: &Value) -> bool {
    matches!(
        (shape, value),
        (Shape::Text { .. }, Value::String(_))
            | (Shape::Integer { .. } | Shape::Number, Value::Number(_))
            | (Shape::Flag, Value::Bool(_))
            | (Shape::List { .. }, Value::Array(_))
            | (Shape::Object(_), Value::Object(_))
    )
}

/// A JSON value as a whole number: an integer, or (leniently) an integral float
/// or a text that reads as one.
fn whole_number(value: &Value, lenient: bool) -> Option<i128> {
    match value {
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                return Some(n.into());
            }
            if let Some(n) = number.as_u64() {
                return Some(n.into());
            }
            let float = number.as_f64()?;
            (lenient && float.fract() == 0.0 && float.abs() < 9.0e18).then_some(float as i128)
        }
        Value::String(text) if lenient => text.trim().parse().ok(),
        _ => None,
    }
}

fn integer_value(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(n), _) => Value::from(n),
        (_, Ok(n)) => Value::from(n),
        // Out of every JSON integer's range: the range check refused it already.
        _ => Value::Null,
    }
}
