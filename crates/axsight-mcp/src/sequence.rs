//! `execute_sequence`'s plan, on plain data: the steps checked before any runs,
//! `$name` references put in place, and the handle a step's answer names. The
//! server runs the steps through its own tool router (`server/sequence.rs`), so
//! each step is checked and answered exactly as the same call made alone.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::params::{SequenceArgs, StepArgs};

/// Most steps in one sequence.
pub const MAX_STEPS: usize = 50;
/// Most retries of one step, and the longest wait before each.
pub const MAX_RETRIES: u32 = 10;
pub const MAX_DELAY_MS: u64 = 10_000;

/// What one step does.
#[derive(Debug, Clone, PartialEq)]
pub enum StepKind {
    /// A tool call, as it would be made alone.
    Call {
        tool: String,
        arguments: Map<String, Value>,
    },
    /// Finding the first element a selector matches.
    Find {
        selector: String,
        app: Option<String>,
        window: Option<String>,
    },
}

/// A step, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub kind: StepKind,
    /// The name its handle is kept under, for `$name` later.
    pub name: Option<String>,
    pub optional: bool,
    pub retries: u32,
    pub delay_ms: u64,
}

/// A sequence, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub stop_on_error: bool,
    pub include_tree: bool,
}

impl Plan {
    /// Checks every step before any runs; `known_tools` are the server's tools.
    pub fn new(args: SequenceArgs, known_tools: &[String]) -> Result<Plan, String> {
        if args.steps.is_empty() {
            return Err(
                "give `steps`: a list of {\"tool\", \"arguments\"} or {\"find\", \"as\"}".into(),
            );
        }
        if args.steps.len() > MAX_STEPS {
            return Err(format!(
                "`steps` has {} items; a sequence takes at most {MAX_STEPS}",
                args.steps.len()
            ));
        }
        let mut named: Vec<String> = Vec::new();
        let mut steps = Vec::with_capacity(args.steps.len());
        for (index, step) in args.steps.into_iter().enumerate() {
            let number = index + 1;
            let step =
                Step::new(step, known_tools).map_err(|why| format!("step {number}: {why}"))?;
            if let StepKind::Call { arguments, .. } = &step.kind {
                for reference in references(arguments) {
                    if !named.contains(&reference) {
                        return Err(format!(
                            "step {number}: {} is not named by an earlier step's `as`{}",
                            short(&format!("${reference}")),
                            listing(&named)
                        ));
                    }
                }
            }
            if let Some(name) = &step.name {
                named.push(name.clone());
            }
            steps.push(step);
        }
        Ok(Plan {
            steps,
            stop_on_error: args.stop_on_error.unwrap_or(true),
            include_tree: args.include_tree.unwrap_or(false),
        })
    }
}

/// How a step names a tool the server's policy leaves out.
pub const NOT_OFFERED: &str = "is not offered by this server (its tool policy leaves it out)";

impl Step {
    fn new(step: StepArgs, known_tools: &[String]) -> Result<Step, String> {
        let kind = match (step.tool, step.find) {
            (Some(_), Some(_)) => return Err("give `tool` or `find`, not both".into()),
            (None, None) => return Err("give `tool` (with `arguments`) or `find`".into()),
            (Some(tool), None) => {
                if tool == "execute_sequence" {
                    return Err("a sequence cannot run a sequence".into());
                }
                if !known_tools.contains(&tool) && crate::tool_policy::is_tool(&tool) {
                    return Err(format!("{tool} {NOT_OFFERED}; nothing ran"));
                }
                if !known_tools.contains(&tool) {
                    return Err(format!("no tool is called `{}`", short(&tool)));
                }
                StepKind::Call {
                    tool,
                    arguments: step.arguments.unwrap_or_default(),
                }
            }
            (None, Some(selector)) => {
                if step.arguments.is_some() {
                    return Err("a `find` step takes `app` and `window`, not `arguments`".into());
                }
                StepKind::Find {
                    selector,
                    app: step.app,
                    window: step.window,
                }
            }
        };
        if let Some(name) = &step.name {
            let valid = !name.is_empty()
                && name.len() <= 40
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(format!(
                    "`as` is a name of letters, digits and _ (at most 40), not `{}`",
                    short(name)
                ));
            }
        }
        let retries = step.retries.unwrap_or(0);
        if retries > MAX_RETRIES {
            return Err(format!("`retries` is at most {MAX_RETRIES}"));
        }
        let delay_ms = step.delay_ms.unwrap_or(0);
        if delay_ms > MAX_DELAY_MS {
            return Err(format!("`delay_ms` is at most {MAX_DELAY_MS}"));
        }
        Ok(Step {
            kind,
            name: step.name,
            optional: step.optional.unwrap_or(false),
            retries,
            delay_ms,
        })
    }
}

/// The names `arguments` refers to: string values that are exactly `$name`.
pub fn references(arguments: &Map<String, Value>) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack: Vec<&Value> = arguments.values().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => {
                if let Some((name, _)) = reference(text) {
                    found.push(name.to_string());
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    found
}

/// `arguments` with every `$name` replaced by the handle `names` keeps for it.
pub fn substitute(
    arguments: &Map<String, Value>,
    names: &HashMap<String, String>,
) -> Map<String, Value> {
    fn put(value: &Value, names: &HashMap<String, String>) -> Value {
        match value {
            Value::String(text) => {
                match reference(text).and_then(|(name, point)| Some((names.get(name)?, point))) {
                    Some((handle, point)) => Value::String(format!("{handle}{point}")),
                    None => value.clone(),
                }
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| put(v, names)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, v)| (key.clone(), put(v, names)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    arguments
        .iter()
        .map(|(key, value)| (key.clone(), put(value, names)))
        .collect()
}

/// The name a `$name` stands for, and what follows it: nothing, or a point
/// inside the named element (`$canvas@120,45`).
fn reference(text: &str) -> Option<(&str, &str)> {
    let named = text.strip_prefix('$')?;
    let (name, point) = match named.find('@') {
        Some(at) => named.split_at(at),
        None => (named, ""),
    };
    let is_point = |point: &str| {
        let Some((x, y)) = point.strip_prefix('@').and_then(|p| p.split_once(',')) else {
            return false;
        };
        let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        number(x) && number(y)
    };
    let named = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (named && (point.is_empty() || is_point(point))).then_some((name, point))
}

/// The first handle (`#u14`, `#d3`) on the first line of an answer: the element
/// a step acted on or found.
pub fn first_handle(answer: &str) -> Option<String> {
    let line = answer.lines().next()?;
    line.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .find(|word| {
            let mut chars = word.chars();
            chars.next() == Some('#')
                && matches!(chars.next(), Some('u' | 'd' | 'm' | 'v' | 'o'))
                && !chars.as_str().is_empty()
                && chars.as_str().bytes().all(|b| b.is_ascii_digit())
        })
        .map(str::to_string)
}

fn listing(named: &[String]) -> String {
    match named.is_empty() {
        true => " (no step has named one yet)".into(),
        false => format!(
            " (named so far: {})",
            crate::arguments::listed(&named.iter().map(|n| format!("${n}")).collect::<Vec<_>>())
        ),
    }
}

/// At most 40 characters of what the agent sent, escaped, for an error.
fn short(text: &str) -> String {
    crate::arguments::name(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<String> {
        ["click_element", "type_into_element", "find_elements"]
            .map(String::from)
            .to_vec()
    }

    fn plan(value: Value) -> Result<Plan, String> {
        Plan::new(serde_json::from_value(value).unwrap(), &tools())
    }

    #[test]
    fn steps_are_calls_or_finds_and_names_come_before_use() {
        let plan = plan(json!({"steps": [
            {"find": "role:Button && name:Save", "as": "save"},
            {"tool": "type_into_element", "arguments": {"selector": "name:Name", "text_to_type": "Ada"}},
            {"tool": "click_element", "arguments": {"index": "$save"}, "optional": true, "retries": 2},
        ]}))
        .unwrap();
        assert_eq!(plan.steps.len(), 3);
        assert!(plan.stop_on_error && !plan.include_tree);
        assert_eq!(plan.steps[0].name.as_deref(), Some("save"));
        assert!(plan.steps[2].optional && plan.steps[2].retries == 2);
    }

    #[test]
    fn bad_steps_are_refused_before_anything_runs() {
        let cases = [
            (json!({"steps": []}), "give `steps`"),
            (
                json!({"steps": [{"tool": "click_element", "find": "x"}]}),
                "step 1: give `tool` or `find`, not both",
            ),
            (json!({"steps": [{}]}), "step 1: give `tool`"),
            (
                json!({"steps": [{"tool": "rm_rf"}]}),
                "step 1: no tool is called `rm_rf`",
            ),
            (
                json!({"steps": [{"tool": "execute_sequence"}]}),
                "cannot run a sequence",
            ),
            (
                json!({"steps": [{"tool": "click_element", "arguments": {"index": "$later"}}, {"find": "x", "as": "later"}]}),
                "step 1: $later is not named by an earlier step's `as` (no step has named one yet)",
            ),
            (
                json!({"steps": [{"find": "x", "as": "a b"}]}),
                "`as` is a name",
            ),
            (
                json!({"steps": [{"find": "x", "retries": 11}]}),
                "`retries` is at most 10",
            ),
            (
                json!({"steps": [{"find": "x", "delay_ms": 10001}]}),
                "`delay_ms` is at most",
            ),
            (
                json!({"steps": [{"find": "x", "arguments": {}}]}),
                "not `arguments`",
            ),
        ];
        for (value, expected) in cases {
            let error = plan(value.clone()).unwrap_err();
            assert!(error.contains(expected), "{value}: {error}");
        }
        let many: Vec<Value> = (0..51).map(|_| json!({"find": "x"})).collect();
        assert!(plan(json!({"steps": many}))
            .unwrap_err()
            .contains("at most 50"));
    }

    /// Found by the argument fuzz test: a long `$name`, and many names given,
    /// made errors of kilobytes.
    #[test]
    fn an_unknown_reference_is_quoted_short_and_the_names_listed_few() {
        let long = format!("${}", "r".repeat(5000));
        let error =
            plan(json!({"steps": [{"tool": "click_element", "arguments": {"index": long}}]}))
                .unwrap_err();
        assert!(error.len() < 200, "{error}");
        assert!(
            error.starts_with(&format!("step 1: ${}…", "r".repeat(39))),
            "{error}"
        );
        let mut steps: Vec<Value> = (0..40)
            .map(|n| json!({"find": "x", "as": format!("{n}{}", "n".repeat(38))}))
            .collect();
        steps.push(json!({"tool": "click_element", "arguments": {"index": "$nobody"}}));
        let error = plan(json!({"steps": steps})).unwrap_err();
        assert!(error.len() < 400, "{error}");
        assert!(error.ends_with(" and 35 more)"), "{error}");
    }

    #[test]
    fn references_are_replaced_wherever_they_stand() {
        let arguments =
            json!({"index": "$save", "keys": ["$save", "$other", "$"], "n": 3, "text": "costs $5"});
        let arguments = arguments.as_object().unwrap();
        let mut found = references(arguments);
        found.sort();
        assert_eq!(found, ["other", "save", "save"]);
        let names = HashMap::from([("save".to_string(), "#u14".to_string())]);
        let put = substitute(arguments, &names);
        assert_eq!(
            Value::Object(put),
            json!({"index": "#u14", "keys": ["#u14", "$other", "$"], "n": 3, "text": "costs $5"})
        );
    }

    #[test]
    fn a_reference_may_name_a_point_inside_its_element() {
        let arguments = json!({"index": "$canvas@120,45", "text": "$canvas@home"});
        let arguments = arguments.as_object().unwrap();
        assert_eq!(references(arguments), ["canvas"]);
        let names = HashMap::from([("canvas".to_string(), "#u3".to_string())]);
        assert_eq!(
            Value::Object(substitute(arguments, &names)),
            json!({"index": "#u3@120,45", "text": "$canvas@home"})
        );
    }

    #[test]
    fn an_answers_first_handle_is_its_element() {
        assert_eq!(
            first_handle(
                "clicked #u14 [Button] Save with the pointer at (1, 2)\nchanged:\n  #u3 x"
            )
            .as_deref(),
            Some("#u14")
        );
        assert_eq!(
            first_handle("#d3 [button] \"Go\" [1,2,3,4]").as_deref(),
            Some("#d3")
        );
        assert_eq!(
            first_handle("pressed Return in the active window 'x #1'"),
            None
        );
        assert_eq!(first_handle(""), None);
    }
}
