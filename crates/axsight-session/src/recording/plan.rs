//! A recording's plan as JSON: `execute_sequence`'s steps (`{"tool",
//! "arguments"}`, and `{"find", "as"}` where a step needs two elements), with a
//! header that says what was watched, which apps the steps act in, the
//! parameters a replay must be given, which steps may miss, and each step in
//! words. Reading a plan back checks its version and puts the parameters in.

use std::collections::HashMap;

use axsight_core::{
    quote, Modifier, MouseButton, Parameter, RecordedStep, StepTarget, Typed, Within,
};
use serde_json::{json, Map, Value};

/// The plan format's version, in its `axsight_plan` field.
pub const PLAN_VERSION: u64 = 1;

/// A plan: steps to run and what a replay needs to know.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// `execute_sequence`'s steps.
    pub steps: Vec<Value>,
    /// Each step in words, one per step.
    pub described: Vec<String>,
    pub parameters: Vec<Parameter>,
    /// Steps that may find another element on replay, and why.
    pub fragile: Vec<String>,
    /// The apps the steps act in.
    pub apps: Vec<String>,
    /// How the input was watched.
    pub watched: String,
}

impl Plan {
    /// The plan of recorded `steps`.
    pub fn new(steps: &[RecordedStep], parameters: &[Parameter], watched: String) -> Plan {
        let mut plan = Plan {
            steps: Vec::new(),
            described: Vec::new(),
            parameters: parameters.to_vec(),
            fragile: Vec::new(),
            apps: Vec::new(),
            watched,
        };
        for (index, step) in steps.iter().enumerate() {
            let said = step.described();
            for target in step.targets() {
                if !plan.apps.contains(&target.app) {
                    plan.apps.push(target.app.clone());
                }
                if let Some(why) = &target.fragile {
                    plan.fragile.push(format!("{said}: {why}"));
                }
            }
            match step {
                RecordedStep::ClickAt { within: None, .. } => plan.fragile.push(format!(
                    "{said}: a point on the screen, which finds nothing if the window moved"
                )),
                RecordedStep::ClickAt {
                    within: Some(_), ..
                } => plan.fragile.push(format!(
                    "{said}: a point in a box, which finds another thing if what is drawn there moved"
                )),
                RecordedStep::ClickText { .. } => plan.fragile.push(format!(
                    "{said}: found by the text OCR read there, where the tree names nothing"
                )),
                _ => {}
            }
            for (call, words) in calls(step, index + 1, &said) {
                plan.steps.push(call);
                plan.described.push(words);
            }
        }
        plan
    }

    /// The plan as JSON, with the time it was recorded (RFC 3339).
    pub fn to_json(&self, recorded: &str) -> Value {
        let parameters: Vec<Value> = self
            .parameters
            .iter()
            .map(|p| {
                let mut entry = json!({"name": p.name, "secret": p.secret, "field": p.field});
                if let Some(recorded) = &p.recorded {
                    entry["recorded"] = json!(recorded);
                }
                entry
            })
            .collect();
        json!({
            "axsight_plan": PLAN_VERSION,
            "recorded": recorded,
            "watched": self.watched,
            "apps": self.apps,
            "parameters": parameters,
            "fragile": self.fragile,
            "described": self.described,
            "steps": self.steps,
        })
    }

    /// A plan read back from its JSON.
    pub fn from_json(value: &Value) -> Result<Plan, String> {
        let version = value.get("axsight_plan").and_then(Value::as_u64);
        match version {
            Some(PLAN_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "this plan is of version {other}; this axsight reads version {PLAN_VERSION}"
                ))
            }
            None => return Err("not an axsight plan: it has no `axsight_plan` version".into()),
        }
        let steps = value
            .get("steps")
            .and_then(Value::as_array)
            .cloned()
            .ok_or("the plan has no `steps` list")?;
        let strings = |key: &str| -> Vec<String> {
            value
                .get(key)
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|item| item.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let parameters = value
            .get("parameters")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| {
                        Some(Parameter {
                            name: item.get("name")?.as_str()?.to_string(),
                            secret: item.get("secret").and_then(Value::as_bool).unwrap_or(false),
                            field: item
                                .get("field")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            recorded: item
                                .get("recorded")
                                .and_then(Value::as_str)
                                .map(str::to_string),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Plan {
            steps,
            described: strings("described"),
            parameters,
            fragile: strings("fragile"),
            apps: strings("apps"),
            watched: value
                .get("watched")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })
    }

    /// The steps with each parameter's value put in place of its `$name`.
    /// A parameter without a value takes its recorded text; a secret without
    /// one is an error naming it.
    pub fn steps_with(&self, values: &HashMap<String, String>) -> Result<Vec<Value>, String> {
        if let Some(unknown) = values
            .keys()
            .find(|name| !self.parameters.iter().any(|p| &&p.name == name))
        {
            let known: Vec<&str> = self.parameters.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "the plan has no parameter `{unknown}`; its parameters: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
        let mut given = HashMap::new();
        for parameter in &self.parameters {
            let value = match (values.get(&parameter.name), &parameter.recorded) {
                (Some(value), _) => value.clone(),
                (None, Some(recorded)) => recorded.clone(),
                (None, None) => {
                    return Err(format!(
                        "the plan needs `{}` (typed into {}): give it with --param {}=…",
                        parameter.name, parameter.field, parameter.name
                    ))
                }
            };
            given.insert(format!("${}", parameter.name), value);
        }
        Ok(self
            .steps
            .iter()
            .map(|step| put_values(step, &given))
            .collect())
    }
}

fn put_values(value: &Value, given: &HashMap<String, String>) -> Value {
    match value {
        Value::String(text) => match given.get(text) {
            Some(value) => Value::String(value.clone()),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| put_values(v, given)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| (key.clone(), put_values(v, given)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The tool calls that do `step` (number `number` of the recording), each
/// with its words.
fn calls(step: &RecordedStep, number: usize, said: &str) -> Vec<(Value, String)> {
    let call =
        |tool: &str, arguments: Map<String, Value>| json!({"tool": tool, "arguments": arguments});
    let one = |value: Value| vec![(value, said.to_string())];
    match step {
        RecordedStep::Click {
            target,
            button,
            double,
            modifiers,
        } => {
            let mut arguments = aim(target);
            put_click(&mut arguments, *button, *double, modifiers);
            one(call("click_element", arguments))
        }
        RecordedStep::ClickAt {
            at,
            button,
            double,
            modifiers,
            within,
            ..
        } => {
            let mut arguments = Map::new();
            let Some(Within { target, offset }) = within else {
                arguments.insert("x".into(), json!(at.x));
                arguments.insert("y".into(), json!(at.y));
                put_click(&mut arguments, *button, *double, modifiers);
                return one(call("click_element", arguments));
            };
            // The element is found first, then clicked at the same place in
            // its box, wherever it sits now.
            let name = format!("box_{number}");
            let mut find = scoped(Some(&target.app), target.window.as_deref());
            find.insert("find".into(), json!(target.selector));
            find.insert("as".into(), json!(name));
            arguments.insert(
                "index".into(),
                json!(format!("${name}@{},{}", offset.x, offset.y)),
            );
            put_click(&mut arguments, *button, *double, modifiers);
            vec![
                (Value::Object(find), format!("find {}", target.described)),
                (call("click_element", arguments), said.to_string()),
            ]
        }
        RecordedStep::ClickText {
            text,
            button,
            double,
            modifiers,
            app,
            window,
        } => {
            let seen = format!("seen_{number}");
            let mut find = scoped(app.as_deref(), window.as_deref());
            find.insert("description".into(), json!(text));
            let mut click = Map::new();
            click.insert("index".into(), json!(format!("${seen}")));
            put_click(&mut click, *button, *double, modifiers);
            let mut found = call("find_element", find);
            found["as"] = json!(seen);
            vec![
                (found, format!("find {} (by OCR)", quote(text))),
                (call("click_element", click), said.to_string()),
            ]
        }
        RecordedStep::Type {
            target,
            text,
            clear,
            enter,
        } => {
            let mut arguments = aim(target);
            let text = match text {
                Typed::Text(text) => text.clone(),
                Typed::Parameter(name) => format!("${name}"),
            };
            arguments.insert("text".into(), json!(text));
            if !clear {
                arguments.insert("clear_before_typing".into(), json!(false));
            }
            let mut calls = one(call("type_into_element", arguments));
            if *enter {
                // Apart from the text: a parameter is a whole argument.
                let mut arguments = aim(target);
                arguments.insert("key".into(), json!("Return"));
                calls.push((
                    call("press_key", arguments),
                    format!("press Return in {}", target.described),
                ));
            }
            calls
        }
        RecordedStep::Toggle { target, on } => {
            let mut arguments = aim(target);
            arguments.insert("state".into(), json!(on));
            one(call("set_toggled", arguments))
        }
        RecordedStep::Choose { target, option } => {
            let mut arguments = aim(target);
            arguments.insert("option".into(), json!(option));
            one(call("select_option", arguments))
        }
        RecordedStep::Keys { keys, app, window } => {
            let mut arguments = scoped(app.as_deref(), window.as_deref());
            let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
            arguments.insert("key".into(), json!(keys.join(" ")));
            one(call("press_key", arguments))
        }
        RecordedStep::Scroll {
            target,
            direction,
            notches,
        } => {
            let mut arguments = aim(target);
            arguments.insert(
                "direction".into(),
                json!(format!("{direction:?}").to_lowercase()),
            );
            arguments.insert("amount".into(), json!(notches));
            one(call("scroll_element", arguments))
        }
        RecordedStep::Drag { from, to } => {
            let (start, end) = (format!("drag_{number}"), format!("drop_{number}"));
            let find = |target: &StepTarget, name: &str| {
                let mut find = scoped(Some(&target.app), target.window.as_deref());
                find.insert("find".into(), json!(target.selector));
                find.insert("as".into(), json!(name));
                (Value::Object(find), format!("find {}", target.described))
            };
            let mut arguments = Map::new();
            arguments.insert("from".into(), json!(format!("${start}")));
            arguments.insert("to".into(), json!(format!("${end}")));
            vec![
                find(from, &start),
                find(to, &end),
                (call("mouse_drag", arguments), said.to_string()),
            ]
        }
        RecordedStep::WaitFor { target } => one(call("wait_for_element", aim(target))),
    }
}

/// The arguments that aim at `target`.
fn aim(target: &StepTarget) -> Map<String, Value> {
    let mut arguments = scoped(Some(&target.app), target.window.as_deref());
    arguments.insert("selector".into(), json!(target.selector));
    arguments
}

/// The `app` and `window` arguments, where known.
fn scoped(app: Option<&str>, window: Option<&str>) -> Map<String, Value> {
    let mut arguments = Map::new();
    if let Some(app) = app {
        arguments.insert("app".into(), json!(app));
    }
    if let Some(window) = window {
        arguments.insert("window".into(), json!(window));
    }
    arguments
}

fn put_click(
    arguments: &mut Map<String, Value>,
    button: MouseButton,
    double: bool,
    modifiers: &[Modifier],
) {
    match button {
        MouseButton::Left => {}
        MouseButton::Middle => {
            arguments.insert("button".into(), json!("middle"));
        }
        MouseButton::Right => {
            arguments.insert("button".into(), json!("right"));
        }
    }
    if double {
        arguments.insert("click_type".into(), json!("double"));
    }
    if !modifiers.is_empty() {
        let held: Vec<String> = modifiers.iter().map(ToString::to_string).collect();
        arguments.insert("modifiers".into(), json!(held.join("+")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Key, KeyChord, Point};

    fn target(selector: &str, described: &str) -> StepTarget {
        StepTarget {
            selector: selector.into(),
            app: "form".into(),
            window: None,
            described: described.into(),
            fragile: None,
        }
    }

    fn recorded() -> (Vec<RecordedStep>, Vec<Parameter>) {
        let name = target("role:Edit && name:\"Name\"", "[Edit] Name");
        let password = target("role:Edit && name:\"Password\"", "[Edit] Password");
        let mut save = target("role:Button && nth:2", "[Button]");
        save.fragile = Some("found by its place".into());
        let steps = vec![
            RecordedStep::Type {
                target: name,
                text: Typed::Text("Ada".into()),
                clear: true,
                enter: false,
            },
            RecordedStep::Type {
                target: password,
                text: Typed::Parameter("password_1".into()),
                clear: true,
                enter: true,
            },
            RecordedStep::Click {
                target: save,
                button: MouseButton::Right,
                double: false,
                modifiers: vec![Modifier::Ctrl],
            },
            RecordedStep::Drag {
                from: target("role:ListItem && name:\"a\"", "[ListItem] a"),
                to: target("role:Group && name:\"Bin\"", "[Group] Bin"),
            },
            RecordedStep::Keys {
                keys: vec![KeyChord {
                    modifiers: vec![Modifier::Ctrl],
                    key: Key::Char('s'),
                }],
                app: Some("form".into()),
                window: None,
            },
            RecordedStep::ClickAt {
                at: Point { x: 3, y: 4 },
                button: MouseButton::Left,
                double: true,
                modifiers: vec![],
                app: None,
                within: None,
            },
            RecordedStep::ClickAt {
                at: Point { x: 130, y: 245 },
                button: MouseButton::Left,
                double: false,
                modifiers: vec![],
                app: Some("form".into()),
                within: Some(Within {
                    target: target("role:Canvas && name:\"Board\"", "[Canvas] Board"),
                    offset: Point { x: 30, y: 45 },
                }),
            },
        ];
        let parameters = vec![Parameter {
            name: "password_1".into(),
            secret: true,
            field: "[Edit] Password".into(),
            recorded: None,
        }];
        (steps, parameters)
    }

    #[test]
    fn steps_are_execute_sequence_calls_with_words_and_fragile_ones_named() {
        let (steps, parameters) = recorded();
        let plan = Plan::new(&steps, &parameters, "watch".into());
        let json = plan.to_json("2026-12-05T00:00:00.000Z");
        let steps = json["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 11);
        assert_eq!(json["described"].as_array().unwrap().len(), 11);
        assert_eq!(steps[0]["tool"], "type_into_element");
        assert_eq!(steps[0]["arguments"]["text"], "Ada");
        assert_eq!(steps[1]["arguments"]["text"], "$password_1");
        assert_eq!(steps[2]["tool"], "press_key");
        assert_eq!(steps[2]["arguments"]["key"], "Return");
        assert_eq!(steps[3]["arguments"]["button"], "right");
        assert_eq!(steps[3]["arguments"]["modifiers"], "ctrl");
        assert_eq!(steps[4]["as"], "drag_4");
        assert_eq!(steps[6]["arguments"]["from"], "$drag_4");
        assert_eq!(steps[7]["arguments"]["key"], "ctrl+s");
        assert_eq!(steps[8]["arguments"]["click_type"], "double");
        // A point in a silent surface: the surface found, then a point in it.
        assert_eq!(steps[9]["find"], "role:Canvas && name:\"Board\"");
        assert_eq!(steps[9]["as"], "box_7");
        assert_eq!(steps[10]["arguments"]["index"], "$box_7@30,45");
        assert_eq!(
            json["described"][10],
            "click at (30, 45) inside [Canvas] Board: nothing the tree names is there"
        );
        assert_eq!(json["fragile"].as_array().unwrap().len(), 3);
        assert_eq!(json["apps"], json!(["form"]));
        assert_eq!(Plan::from_json(&json).unwrap(), plan);
    }

    #[test]
    fn a_replay_puts_values_in_and_names_a_missing_secret() {
        let (steps, parameters) = recorded();
        let plan = Plan::new(&steps, &parameters, "watch".into());
        let error = plan.steps_with(&HashMap::new()).unwrap_err();
        assert!(
            error.contains("password_1") && error.contains("--param"),
            "{error}"
        );
        let values = HashMap::from([("password_1".to_string(), "s3cret".to_string())]);
        let steps = plan.steps_with(&values).unwrap();
        assert_eq!(steps[1]["arguments"]["text"], "s3cret");
        // A handle reference of the sequence's own stays.
        assert_eq!(steps[6]["arguments"]["from"], "$drag_4");
        let wrong = HashMap::from([("pasword_1".to_string(), "x".to_string())]);
        assert!(plan
            .steps_with(&wrong)
            .unwrap_err()
            .contains("no parameter `pasword_1`"));
    }

    #[test]
    fn plans_of_another_version_or_none_are_refused() {
        assert!(Plan::from_json(&json!({"axsight_plan": 2, "steps": []}))
            .unwrap_err()
            .contains("version 2"));
        assert!(Plan::from_json(&json!({"steps": []}))
            .unwrap_err()
            .contains("not an axsight plan"));
    }
}
