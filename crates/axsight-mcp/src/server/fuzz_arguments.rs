//! The property test of every tool's arguments. For each tool the server lists
//! (its router, the source of `tools/list`), arguments are generated from the
//! tool's schema: valid ones, valid ones bent slightly, and arbitrary JSON. Each
//! goes the way a `tools/call` goes before its tool runs: the schema check
//! `call_checked` makes, the typed parse rmcp's `Parameters` makes, and for
//! `execute_sequence` its plan, whose steps are checked the same way. Each must
//! end as arguments that fit the schema, or as a short error in the tool's words.
//!
//! `AXSIGHT_FUZZ_CASES` sets the cases per tool and property (default
//! [`DEFAULT_CASES`]) for a longer soak. Nothing here touches a desktop: the
//! server's session connects only when a tool runs, and none runs.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rmcp::handler::server::common::{schema_for_empty_input, schema_for_input};
use rmcp::handler::server::tool::parse_json_object;
use rmcp::model::JsonObject;
use serde_json::{Map, Number, Value};

use super::AxsightServer;
use crate::arguments::{names_at, ALIASES_KEY, DEFAULT_MAX_CHARS, DEFAULT_MAX_ITEMS, QUOTE_CHARS};
use crate::params::*;
use axsight_session::ToolError;

type Server = AxsightServer<axsight_linux::LinuxEngine>;

/// Cases per tool for each property, unless `AXSIGHT_FUZZ_CASES` says: the whole
/// test stays within seconds on a small machine.
const DEFAULT_CASES: u32 = 128;
/// Bytes an argument error has at most: one line an agent reads, whatever it sent.
const MAX_ERROR_BYTES: usize = 1024;
/// Words of Rust an error must not show an agent.
const RUST_WORDS: &[&str] = &[
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "f32",
    "f64", "enum", "struct", "untagged", "variant", "serde", "Option", "Vec", "String",
];

/// How a call's arguments were refused.
#[derive(Debug)]
enum Refusal {
    /// The tool's own error, as the agent reads it.
    Told(String),
    /// The typed parse refused what the check took: rmcp answers that with a
    /// protocol error in serde's words.
    Unparsed(String),
}

/// The calls a tool call's arguments come to, each with its checked arguments.
type Calls = Vec<(String, Map<String, Value>)>;

/// What the server does with one argument type's arguments after the check:
/// the calls they come to (the call itself; a sequence's steps besides).
type Parse = fn(&Server, &str, Map<String, Value>) -> Result<Calls, Refusal>;

/// An argument type: its schema as schemars writes it, and its parse.
struct ArgType {
    schema: Arc<JsonObject>,
    parse: Parse,
}

fn parsed<T: serde::de::DeserializeOwned>(
    _: &Server,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<Calls, Refusal> {
    parse_json_object::<T>(arguments.clone()).map_err(|e| Refusal::Unparsed(e.message.into()))?;
    Ok(vec![(tool.to_string(), arguments)])
}

/// `execute_sequence`: parsed, then planned, which checks every step.
fn planned(server: &Server, tool: &str, arguments: Map<String, Value>) -> Result<Calls, Refusal> {
    let args = parse_json_object::<SequenceArgs>(arguments.clone())
        .map_err(|e| Refusal::Unparsed(e.message.into()))?;
    let plan = server
        .plan(args)
        .map_err(|why| Refusal::Told(ToolError::BadArguments(why).to_string()))?;
    let mut calls = vec![(tool.to_string(), arguments)];
    for step in plan.steps {
        if let crate::sequence::StepKind::Call { tool, arguments } = step.kind {
            calls.push((tool, arguments));
        }
    }
    Ok(calls)
}

macro_rules! arg_types {
    ($($t:ty),* $(,)?) => {
        vec![$(ArgType {
            schema: schema_for_input::<$t>().expect("an object schema"),
            parse: parsed::<$t>,
        }),*]
    };
}

/// Every argument type a tool takes. A tool whose type is missing here fails
/// [`tools`], which names it.
fn arg_types() -> Vec<ArgType> {
    let mut types = arg_types![
        TreeArgs,
        FindArgs,
        ValidateArgs,
        ClickArgs,
        TypeArgs,
        KeyArgs,
        ScrollArgs,
        SetValueArgs,
        SelectArgs,
        ToggleArgs,
        ActionArgs,
        DragArgs,
        WindowArgs,
        ClipboardArgs,
        MoveArgs,
        ResizeArgs,
        WindowStateArgs,
        OpenArgs,
        WaitArgs,
        ShotArgs,
        DescribeArgs,
        NavigateArgs,
        ScriptArgs,
        RecordArgs,
    ];
    types.push(ArgType {
        schema: schema_for_input::<SequenceArgs>().expect("an object schema"),
        parse: planned,
    });
    // A tool without arguments: rmcp parses nothing.
    types.push(ArgType {
        schema: schema_for_empty_input(),
        parse: |_, tool, arguments| Ok(vec![(tool.to_string(), arguments)]),
    });
    types
}

/// A tool of the server's, with the schema its check reads.
struct Tool {
    name: String,
    schema: Arc<JsonObject>,
    parse: Parse,
}

impl Tool {
    /// What a `tools/call` of this tool does with `arguments` before it runs.
    fn take(&self, server: &Server, arguments: &Map<String, Value>) -> Result<Calls, Refusal> {
        let mut arguments = arguments.clone();
        server
            .arguments
            .check(&self.name, &mut arguments)
            .map_err(|why| Refusal::Told(ToolError::BadArguments(why).to_string()))?;
        (self.parse)(server, &self.name, arguments)
    }
}

/// The server's tools, each matched to its argument type by the schema it
/// publishes.
fn tools(server: &Server) -> Vec<Tool> {
    let types: Vec<(ArgType, JsonObject)> = arg_types()
        .into_iter()
        .map(|t| {
            let mut published = t.schema.as_ref().clone();
            crate::schema::compact(&mut published);
            (t, published)
        })
        .collect();
    let listed = server.tool_router.list_all();
    assert!(listed.len() > 20, "the server lists {} tools", listed.len());
    listed
        .into_iter()
        .map(|tool| {
            let matching: Vec<&ArgType> = types
                .iter()
                .filter(|(_, published)| published == tool.input_schema.as_ref())
                .map(|(t, _)| t)
                .collect();
            let [arg_type] = matching[..] else {
                panic!(
                    "{}: {} argument types publish its schema; add its type to arg_types()",
                    tool.name,
                    matching.len()
                )
            };
            Tool {
                name: tool.name.to_string(),
                schema: arg_type.schema.clone(),
                parse: arg_type.parse,
            }
        })
        .collect()
}

fn cases() -> u32 {
    std::env::var("AXSIGHT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    })
}

// ---- Generating arguments ------------------------------------------------------

/// A schema with the `$defs` its `$ref`s name.
#[derive(Clone)]
struct Schema {
    defs: Arc<Value>,
}

impl Schema {
    fn of(schema: &JsonObject) -> Schema {
        Schema {
            defs: Arc::new(schema.get("$defs").cloned().unwrap_or(Value::Null)),
        }
    }

    fn resolve<'a>(&'a self, node: &'a Value) -> &'a Value {
        match node.get("$ref").and_then(Value::as_str) {
            Some(reference) => reference
                .strip_prefix("#/$defs/")
                .and_then(|name| self.defs.get(name))
                .unwrap_or(&Value::Null),
            None => node,
        }
    }

    /// A value `node` allows.
    fn valid(&self, node: &Value) -> BoxedStrategy<Value> {
        self.value(node, 0, false)
    }

    /// A value of `node`'s, here and there bent or replaced: of another type, at
    /// an edge of its range, too long, a near name, a name too many.
    fn bent(&self, node: &Value) -> BoxedStrategy<Value> {
        // The arguments themselves stay an object: MCP refuses any other.
        self.exact(self.resolve(node), 0, true)
    }

    fn value(&self, node: &Value, depth: usize, bend: bool) -> BoxedStrategy<Value> {
        let node = self.resolve(node).clone();
        let exact = self.exact(&node, depth, bend);
        if !bend {
            return exact;
        }
        Union::new_weighted(vec![(12, exact), (3, near(&node)), (1, wild())]).boxed()
    }

    fn exact(&self, node: &Value, depth: usize, bend: bool) -> BoxedStrategy<Value> {
        if depth > 12 {
            return Just(Value::Null).boxed();
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(arms)) = node.get(union) {
                let arms: Vec<BoxedStrategy<Value>> = arms
                    .iter()
                    .map(|arm| self.value(arm, depth + 1, bend))
                    .collect();
                return Union::new(arms).boxed();
            }
        }
        if let Some(Value::Array(choices)) = node.get("enum") {
            return proptest::sample::select(choices.clone()).boxed();
        }
        if let Some(choice) = node.get("const") {
            return Just(choice.clone()).boxed();
        }
        let kinds: Vec<String> = match node.get("type") {
            Some(Value::String(kind)) => vec![kind.clone()],
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => return small_wild(),
        };
        let arms: Vec<BoxedStrategy<Value>> = kinds
            .iter()
            .map(|kind| self.typed(kind, node, depth, bend))
            .collect();
        Union::new(arms).boxed()
    }

    fn typed(&self, kind: &str, node: &Value, depth: usize, bend: bool) -> BoxedStrategy<Value> {
        match kind {
            "null" => Just(Value::Null).boxed(),
            "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
            "string" => valid_text(max_chars(node)).prop_map(Value::String).boxed(),
            "integer" => {
                let (min, max) = integer_range(node);
                integer(min, max).boxed()
            }
            "number" => finite().boxed(),
            "array" => {
                let item = node
                    .get("items")
                    .map_or_else(small_wild, |items| self.value(items, depth + 1, bend));
                let min = count(node, "minItems").unwrap_or(0);
                let max = count(node, "maxItems").unwrap_or(DEFAULT_MAX_ITEMS);
                let sizes = Union::new_weighted(vec![
                    (8, (min..=max.min(min + 3)).boxed()),
                    (1, Just(max).boxed()),
                ]);
                sizes
                    .prop_flat_map(move |n| proptest::collection::vec(item.clone(), n..=n))
                    .prop_map(Value::Array)
                    .boxed()
            }
            "object" => self.object(node, depth, bend),
            _ => small_wild(),
        }
    }

    /// An object with its required fields and some others, each perhaps under
    /// one of its other names; bent, also with names dropped, added or doubled.
    fn object(&self, node: &Value, depth: usize, bend: bool) -> BoxedStrategy<Value> {
        let Some(Value::Object(properties)) = node.get("properties") else {
            return proptest::collection::btree_map(key(), small_wild(), 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect()))
                .boxed();
        };
        let required: Vec<String> = names_at(node, "required");
        let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
            .iter()
            .map(|(name, property)| {
                let mut names = vec![name.clone()];
                names.extend(names_at(property, ALIASES_KEY));
                let named = (
                    proptest::sample::select(names),
                    self.value(property, depth + 1, bend),
                )
                    .prop_map(Some);
                if required.contains(name) && !bend {
                    named.boxed()
                } else if required.contains(name) {
                    Union::new_weighted(vec![(12, named.boxed()), (1, Just(None).boxed())]).boxed()
                } else {
                    prop::option::weighted(0.4, named)
                        .prop_map(Option::flatten)
                        .boxed()
                }
            })
            .collect();
        let known: Vec<String> = properties.keys().cloned().collect();
        let base =
            fields.prop_map(|fields| fields.into_iter().flatten().collect::<Map<String, Value>>());
        if !bend {
            return base.prop_map(Value::Object).boxed();
        }
        let extra = Union::new_weighted(vec![
            (
                10,
                proptest::collection::vec((key_near(known.clone()), wild()), 0..1).boxed(),
            ),
            (
                4,
                proptest::collection::vec((key_near(known.clone()), wild()), 1..4).boxed(),
            ),
            (
                1,
                proptest::collection::vec((key(), small_wild()), 20..120).boxed(),
            ),
        ]);
        (base, extra)
            .prop_map(|(mut object, extra)| {
                object.extend(extra);
                Value::Object(object)
            })
            .boxed()
    }
}

fn count(node: &Value, key: &str) -> Option<usize> {
    node.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

fn max_chars(node: &Value) -> usize {
    count(node, "maxLength").unwrap_or(DEFAULT_MAX_CHARS)
}

/// The whole numbers an integer schema allows, by its format and bounds.
fn integer_range(node: &Value) -> (i128, i128) {
    let (mut min, mut max): (i128, i128) = match node.get("format").and_then(Value::as_str) {
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        Some("uint8") => (0, u8::MAX.into()),
        Some("uint16") => (0, u16::MAX.into()),
        Some("uint32") => (0, u32::MAX.into()),
        Some("uint64" | "uint") => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    };
    if let Some(low) = node.get("minimum").and_then(Value::as_f64) {
        min = min.max(low.ceil() as i128);
    }
    if let Some(high) = node.get("maximum").and_then(Value::as_f64) {
        max = max.min(high.floor() as i128);
    }
    (min, max)
}

fn json_integer(n: i128) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(n), _) => Value::from(n),
        (_, Ok(n)) => Value::from(n),
        _ => Value::from(n as f64),
    }
}

/// A whole number in `min..=max`, often at an edge.
fn integer(min: i128, max: i128) -> impl Strategy<Value = Value> {
    let span = (max - min) as u128;
    let edges: Vec<i128> = [min, max, 0, 1, min + 1, max - 1]
        .into_iter()
        .filter(|n| (min..=max).contains(n))
        .collect();
    Union::new_weighted(vec![
        (1, proptest::sample::select(edges).boxed()),
        (
            2,
            any::<u128>()
                .prop_map(move |r| min + (r % (span + 1).max(1)) as i128)
                .boxed(),
        ),
        (
            1,
            (0i128..=200).prop_map(move |n| (min + n).min(max)).boxed(),
        ),
    ])
    .prop_map(json_integer)
}

/// A finite JSON number of any size or sign.
fn finite() -> impl Strategy<Value = Value> {
    use proptest::num::f64 as float;
    let floats = float::POSITIVE | float::NEGATIVE | float::NORMAL | float::SUBNORMAL | float::ZERO;
    prop_oneof![
        floats.prop_map(|f| Value::Number(Number::from_f64(f).unwrap_or_else(|| Number::from(0)))),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
    ]
}

/// Text of at most `max` characters: any characters, printable ones, or
/// exactly `max` of them.
fn valid_text(max: usize) -> impl Strategy<Value = String> {
    let short = max.min(24);
    prop_oneof![
        4 => proptest::string::string_regex(&format!(".{{0,{short}}}")).expect("a regex"),
        4 => proptest::string::string_regex(&format!("[ -~]{{0,{short}}}")).expect("a regex"),
        1 => "[a-zA-Z0-9]".prop_map(move |c| c.repeat(max)),
    ]
    // Not a `$name`: in a sequence step that refers to an earlier step.
    .prop_map(|text| match text.strip_prefix('$') {
        Some(rest) => format!("_{rest}"),
        None => text,
    })
}

/// Text a check must refuse or take as it is: long, odd, numeric, NaN-like.
fn odd_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec![
            "NaN",
            "nan",
            "-NaN",
            "Infinity",
            "-Infinity",
            "inf",
            "1e999",
            "-1e999",
            "-0",
            "0x1F",
            "1_000",
            "0b1",
            "+7",
            " 7 ",
            "7.",
            ".5",
            "1e3",
            "99999999999999999999999",
            "",
            " ",
            "\0",
            "a\0b",
            "null",
            "true",
            "TRUE",
            " false ",
            "yes",
            "[]",
            "{}",
            "#u14",
            "u3",
            "$name",
            "$",
            "${x}",
            "ü",
            "😀",
            "\u{202e}rtl",
            "\u{feff}",
            "\\",
            "\"",
            "`",
            "\n",
        ])
        .prop_map(str::to_string),
        // Long enough to pass any limit, the same characters again and again.
        (1usize..=70_000, "[a-zA-Z0-9]{1,7}")
            .prop_map(|(n, chunk)| chunk.repeat(n / chunk.len() + 1)),
        // Longer than a quote, none of it the same.
        "[a-zA-Z0-9 ]{41,400}",
        ".{30,200}",
    ]
}

/// Edge values of `node`'s type, and values of other types it might be sent as.
fn near(node: &Value) -> BoxedStrategy<Value> {
    let kinds: Vec<&str> = match node.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let mut arms: Vec<BoxedStrategy<Value>> = vec![odd_text().prop_map(Value::String).boxed()];
    if kinds.contains(&"integer") || kinds.contains(&"number") {
        let (min, max) = integer_range(node);
        arms.push(
            proptest::sample::select(vec![
                json_integer(min - 1),
                json_integer(max + 1),
                Value::from(-1),
                Value::from(1.5),
                Value::from(-0.0),
                Value::from(1e308),
                Value::from(-1e308),
                Value::from(9.0e18),
                Value::from(1.8446744073709552e19),
                Value::from(i64::MIN),
                Value::from(u64::MAX),
                Value::String(format!("{}", max + 1)),
                Value::String(format!(" {min} ")),
            ])
            .boxed(),
        );
    }
    if let Some(Value::Array(choices)) = node.get("enum") {
        let choices: Vec<String> = choices
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        if !choices.is_empty() {
            arms.push(
                (proptest::sample::select(choices), 0..4usize)
                    .prop_map(|(choice, how)| {
                        Value::String(match how {
                            0 => choice.to_uppercase(),
                            1 => format!(" {choice} "),
                            2 => format!("{choice}x"),
                            _ => choice[..choice.len() / 2].to_string(),
                        })
                    })
                    .boxed(),
            );
        }
    }
    if kinds.contains(&"array") {
        let size = count(node, "maxItems").unwrap_or(DEFAULT_MAX_ITEMS) + 1;
        arms.push(
            proptest::collection::vec(small_wild(), size..=size + 2)
                .prop_map(Value::Array)
                .boxed(),
        );
    }
    Union::new(arms).boxed()
}

/// An argument name: one of `known` a little off, or any name at all.
fn key_near(known: Vec<String>) -> BoxedStrategy<String> {
    if known.is_empty() {
        return key().boxed();
    }
    let off = (proptest::sample::select(known), 0..5usize).prop_map(|(name, how)| match how {
        0 => name.to_uppercase(),
        1 => format!("{name}s"),
        2 => format!(" {name}"),
        3 => name.replace('_', "-"),
        _ => format!("{name}\0"),
    });
    prop_oneof![off, key()].boxed()
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_]{1,12}",
        2 => ".{0,16}",
        1 => odd_text(),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        finite(),
        odd_text().prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
    ]
}

/// Any JSON value, small.
fn small_wild() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(key(), inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
        .boxed()
}

/// Any JSON value, nested up to the depth a request's parse allows (serde_json
/// stops at 128).
fn wild() -> BoxedStrategy<Value> {
    let deep = (1usize..=120, leaf(), any::<bool>()).prop_map(|(depth, leaf, arrays)| {
        (0..depth).fold(leaf, |inner, _| match arrays {
            true => Value::Array(vec![inner]),
            false => Value::Object(Map::from_iter([("x".to_string(), inner)])),
        })
    });
    prop_oneof![6 => small_wild(), 1 => deep].boxed()
}

/// Arguments of `execute_sequence` whose steps call the server's tools, with
/// arguments from `step_arguments` (a strategy per tool), named by `as` and
/// referred to by `$name`.
fn sequence(calls: Vec<(String, BoxedStrategy<Value>)>, bend: bool) -> BoxedStrategy<Value> {
    let call =
        Union::new(calls.into_iter().map(|(tool, arguments)| {
            arguments.prop_map(move |arguments| (tool.clone(), arguments))
        }));
    let name = if bend {
        prop_oneof![4 => "[a-z_]{1,40}", 1 => key()].boxed()
    } else {
        "[a-z_][a-z0-9_]{0,39}".boxed()
    };
    let step = (
        call,
        prop::option::weighted(0.5, name),
        0..=10u32,
        0..=10_000u64,
        any::<bool>(),
    )
        .prop_map(|((tool, arguments), name, retries, delay_ms, optional)| {
            let mut step = Map::new();
            step.insert("tool".into(), Value::String(tool));
            step.insert("arguments".into(), arguments);
            if let Some(name) = name {
                step.insert("as".into(), Value::String(name));
            }
            step.insert("retries".into(), Value::from(retries));
            step.insert("delay_ms".into(), Value::from(delay_ms));
            step.insert("optional".into(), Value::Bool(optional));
            Value::Object(step)
        })
        .boxed();
    // Now and then more steps than a sequence takes, or nearly, with names to list.
    let steps = match bend {
        true => Union::new_weighted(vec![
            (12, (1..=4usize).boxed()),
            (1, (45..=55usize).boxed()),
        ])
        .boxed(),
        false => (1..=4usize).boxed(),
    };
    let reference = (any::<bool>(), "[a-z_]{1,40}");
    (
        steps.prop_flat_map(move |n| proptest::collection::vec(step.clone(), n..=n)),
        reference,
    )
        .prop_map(move |(mut steps, (refer, name))| {
            // A step that refers to a name, which an earlier step may not give.
            if bend && refer {
                if let Some(Value::Object(last)) = steps.last_mut() {
                    last.insert(
                        "arguments".into(),
                        Value::Object(Map::from_iter([(
                            "index".to_string(),
                            Value::String(format!("${name}")),
                        )])),
                    );
                }
            }
            Value::Object(Map::from_iter([("steps".to_string(), Value::Array(steps))]))
        })
        .boxed()
}

// ---- Judging the outcome ---------------------------------------------------------

/// Whether `value` fits the schema `node`, as a client reading the schema
/// expects of the arguments a tool gets: a second reading, independent of the
/// check's.
fn conforms(schema: &Schema, node: &Value, value: &Value, at: &str) -> Result<(), String> {
    let node = schema.resolve(node);
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(arms)) = node.get(union) {
            return match arms
                .iter()
                .any(|arm| conforms(schema, arm, value, at).is_ok())
            {
                true => Ok(()),
                false => Err(format!("{at}: {} fits no arm of {node}", shown(value))),
            };
        }
    }
    if let Some(Value::Array(choices)) = node.get("enum") {
        if !choices.contains(value) {
            return Err(format!("{at}: {} is none of {choices:?}", shown(value)));
        }
    }
    let kinds: Vec<&str> = match node.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let fits = |kind: &str| -> Result<(), String> {
        match (kind, value) {
            ("null", Value::Null) | ("boolean", Value::Bool(_)) => Ok(()),
            ("number", Value::Number(_)) => Ok(()),
            ("integer", Value::Number(n)) => {
                let (min, max) = integer_range(node);
                let n = n
                    .as_i64()
                    .map(i128::from)
                    .or(n.as_u64().map(i128::from))
                    .ok_or(format!("{at}: {n} is not whole"))?;
                match (min..=max).contains(&n) {
                    true => Ok(()),
                    false => Err(format!("{at}: {n} is outside {min}..={max}")),
                }
            }
            ("string", Value::String(text)) => match count(node, "maxLength") {
                Some(max) if text.chars().count() > max => Err(format!("{at}: longer than {max}")),
                _ => Ok(()),
            },
            ("array", Value::Array(items)) => {
                let min = count(node, "minItems").unwrap_or(0);
                let max = count(node, "maxItems").unwrap_or(usize::MAX);
                if !(min..=max).contains(&items.len()) {
                    return Err(format!("{at}: {} items, not {min}..={max}", items.len()));
                }
                let item = node.get("items").cloned().unwrap_or(Value::Bool(true));
                items
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, v)| conforms(schema, &item, v, &format!("{at}[{i}]")))
            }
            ("object", Value::Object(object)) => {
                for name in names_at(node, "required") {
                    if !object.contains_key(&name) {
                        return Err(format!("{at}: `{name}` is missing"));
                    }
                }
                let open = node.get("additionalProperties") == Some(&Value::Bool(true));
                let properties = node.get("properties").and_then(Value::as_object);
                for (name, v) in object {
                    match properties.and_then(|p| p.get(name)) {
                        Some(property) => conforms(schema, property, v, &format!("{at}.{name}"))?,
                        None if open || properties.is_none() => {}
                        None => {
                            return Err(format!(
                                "{at}: `{}` is not an argument",
                                shown(&Value::String(name.clone()))
                            ))
                        }
                    }
                }
                Ok(())
            }
            _ => Err(format!("{at}: {} is not {kind}", shown(value))),
        }
    };
    let mut why = Vec::new();
    for kind in kinds {
        match fits(kind) {
            Ok(()) => return Ok(()),
            Err(e) => why.push(e),
        }
    }
    Err(why.join("; "))
}

fn shown(value: &Value) -> String {
    axsight_core::cut(&value.to_string(), 80)
}

/// Every text in `value`: its strings and its objects' names.
fn texts<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => into.push(text),
        Value::Array(items) => items.iter().for_each(|v| texts(v, into)),
        Value::Object(object) => {
            for (key, v) in object {
                into.push(key);
                texts(v, into);
            }
        }
        _ => {}
    }
}

/// Where each run of [`ECHO_STEP`] characters stands in an error.
type Windows = HashMap<Vec<char>, Vec<usize>>;

/// Half a quote: a run of a sent text longer than a quote holds one of the
/// text's windows of this many characters that start at a multiple of it.
const ECHO_STEP: usize = QUOTE_CHARS / 2;

fn windows(said: &[char]) -> Windows {
    let mut windows = Windows::new();
    for at in 0..said.len().saturating_sub(ECHO_STEP - 1) {
        windows
            .entry(said[at..at + ECHO_STEP].to_vec())
            .or_default()
            .push(at);
    }
    windows
}

/// The longest run of characters of `text` that the error `said` repeats,
/// when longer than a quote may be.
fn echoed_run(said: &[char], windows: &Windows, text: &str) -> Option<usize> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= QUOTE_CHARS {
        return None;
    }
    let mut longest = 0;
    for start in (0..chars.len().saturating_sub(ECHO_STEP)).step_by(ECHO_STEP) {
        let Some(places) = windows.get(&chars[start..start + ECHO_STEP]) else {
            continue;
        };
        for &at in places {
            let back = (1..=start.min(at))
                .take_while(|&i| chars[start - i] == said[at - i])
                .count();
            let ahead = (0..)
                .take_while(|&i| {
                    start + i < chars.len()
                        && at + i < said.len()
                        && chars[start + i] == said[at + i]
                })
                .count();
            longest = longest.max(back + ahead);
        }
    }
    (longest > QUOTE_CHARS).then_some(longest)
}

/// What an error an agent reads must be: short, naming the tool or an argument,
/// quoting little of what was sent, in no Rust words.
fn judge_error(
    tool: &str,
    error: &str,
    sent: &Value,
    names: &BTreeSet<String>,
) -> Result<(), TestCaseError> {
    prop_assert!(
        error.len() <= MAX_ERROR_BYTES,
        "{tool}: the error is {} bytes: {}",
        error.len(),
        axsight_core::cut(error, 300)
    );
    prop_assert!(
        !error.chars().any(char::is_control),
        "{tool}: the error is not one line of plain text: {error:?}"
    );
    let named = error.contains(tool)
        || error.starts_with("step ")
        || names.iter().any(|name| error.contains(&format!("`{name}")));
    prop_assert!(
        named,
        "{tool}: the error names neither tool nor argument: {error}"
    );
    let mut sent_texts = Vec::new();
    texts(sent, &mut sent_texts);
    let said: Vec<char> = error.chars().collect();
    let windows = windows(&said);
    for text in &sent_texts {
        if let Some(run) = echoed_run(&said, &windows, text) {
            return Err(TestCaseError::fail(format!(
                "{tool}: the error repeats {run} characters of what was sent: {error}"
            )));
        }
    }
    let words = error.split(|c: char| !c.is_alphanumeric() && c != '_');
    for word in words {
        let rust = RUST_WORDS.contains(&word) || (word.ends_with("Args") && word.len() > 4);
        // A word the agent sent may come back in a quote.
        let sent_it = sent_texts.iter().any(|text| text.contains(word));
        prop_assert!(!rust || sent_it, "{tool}: the error says `{word}`: {error}");
    }
    Ok(())
}

/// The names an error may use for a tool's arguments: every property and alias
/// of `tools`' schemas, at any depth.
fn argument_names(tools: &[Tool]) -> BTreeSet<String> {
    fn walk(value: &Value, names: &mut BTreeSet<String>) {
        match value {
            Value::Object(object) => {
                if let Some(Value::Object(properties)) = object.get("properties") {
                    names.extend(properties.keys().cloned());
                }
                for name in names_at(value, ALIASES_KEY) {
                    names.insert(name);
                }
                object.values().for_each(|v| walk(v, names));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, names)),
            _ => {}
        }
    }
    let mut names = BTreeSet::new();
    for tool in tools {
        walk(&Value::Object(tool.schema.as_ref().clone()), &mut names);
    }
    names
}

fn by_name<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// Each call the arguments came to fits its tool's schema.
fn judge_taken(tools: &[Tool], calls: &Calls) -> Result<(), TestCaseError> {
    for (name, arguments) in calls {
        let tool = by_name(tools, name);
        let schema = Schema::of(&tool.schema);
        let root = Value::Object(tool.schema.as_ref().clone());
        if let Err(why) = conforms(&schema, &root, &Value::Object(arguments.clone()), name) {
            return Err(TestCaseError::fail(format!(
                "{name} took arguments its schema does not allow: {why}"
            )));
        }
    }
    Ok(())
}

/// The argument strategies of every tool, valid or bent; `execute_sequence`'s
/// steps call the other tools.
fn strategies(tools: &[Tool], bend: bool) -> Vec<BoxedStrategy<Value>> {
    let generic: Vec<BoxedStrategy<Value>> = tools
        .iter()
        .map(|tool| {
            let schema = Schema::of(&tool.schema);
            let root = Value::Object(tool.schema.as_ref().clone());
            match bend {
                true => schema.bent(&root),
                false => schema.valid(&root),
            }
        })
        .collect();
    tools
        .iter()
        .zip(&generic)
        .map(|(tool, own)| {
            if tool.name != "execute_sequence" {
                return own.clone();
            }
            let calls: Vec<(String, BoxedStrategy<Value>)> = tools
                .iter()
                .zip(&generic)
                .filter(|(other, _)| other.name != "execute_sequence")
                .map(|(other, strategy)| (other.name.clone(), strategy.clone()))
                .collect();
            match bend {
                true => prop_oneof![1 => own.clone(), 2 => sequence(calls, true)].boxed(),
                false => sequence(calls, false),
            }
        })
        .collect()
}

#[test]
fn every_tool_takes_arguments_its_schema_allows() {
    let server = Server::new();
    let tools = tools(&server);
    for (tool, strategy) in tools.iter().zip(strategies(&tools, false)) {
        let result = runner().run(&strategy, |arguments| {
            let Value::Object(object) = &arguments else {
                return Err(TestCaseError::fail("arguments are an object"));
            };
            match tool.take(&server, object) {
                Ok(calls) => judge_taken(&tools, &calls),
                Err(refusal) => Err(TestCaseError::fail(format!(
                    "{}: valid arguments refused: {refusal:?}",
                    tool.name
                ))),
            }
        });
        if let Err(failure) = result {
            panic!("{}: {failure}", tool.name);
        }
    }
}

#[test]
fn every_tool_answers_any_arguments_with_fitting_ones_or_a_short_error() {
    let server = Server::new();
    let tools = tools(&server);
    let names = argument_names(&tools);
    for (tool, strategy) in tools.iter().zip(strategies(&tools, true)) {
        let began = std::time::Instant::now();
        let result = runner().run(&strategy, |arguments| {
            let Value::Object(object) = &arguments else {
                return Ok(());
            };
            match tool.take(&server, object) {
                Ok(calls) => judge_taken(&tools, &calls),
                Err(Refusal::Told(error)) => judge_error(&tool.name, &error, &arguments, &names),
                Err(Refusal::Unparsed(error)) => Err(TestCaseError::fail(format!(
                    "{}: the check took arguments the typed parse refuses: {error}",
                    tool.name
                ))),
            }
        });
        if let Err(failure) = result {
            panic!("{}: {failure}", tool.name);
        }
        eprintln!("{}: {} cases in {:?}", tool.name, cases(), began.elapsed());
    }
}

#[test]
fn a_request_the_server_cannot_read_gets_a_short_error() {
    let methods = prop_oneof![
        proptest::sample::select(vec!["tools/call", "tools/list", "initialize", "ping"])
            .prop_map(str::to_string),
        key(),
    ];
    let params = prop_oneof![
        3 => Schema::of(&JsonObject::new()).bent(&serde_json::json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}}
        })),
        1 => wild(),
    ];
    let result = runner().run(&(methods, params), |(method, params)| {
        let request = rmcp::model::CustomRequest::new(method.clone(), Some(params.clone()));
        let error = super::protocol::unread_request(&request).message;
        prop_assert!(
            error.len() <= MAX_ERROR_BYTES,
            "{} bytes: {error}",
            error.len()
        );
        prop_assert!(!error.chars().any(char::is_control), "{error:?}");
        let said: Vec<char> = error.chars().collect();
        let windows = windows(&said);
        let mut sent = vec![method.as_str()];
        texts(&params, &mut sent);
        for text in sent {
            prop_assert!(echoed_run(&said, &windows, text).is_none(), "{error}");
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
