//! The tool reference, docs/tools.md: rendered from the tools this server lists
//! (names, descriptions, published input schemas, annotations), the aliases in
//! the schemas as schemars wrote them, and docs/tool-examples.json (an example
//! call per tool with the answer tests/e2e/test_tool_reference.py recorded from
//! a real desktop, and the words for arguments the published schemas leave
//! undescribed to save the model's tokens).
//!
//! It owns the page's layout and its checks only: what a tool does and takes
//! stays in its `#[tool]` description and argument struct, so the page cannot
//! say otherwise. A tool without an example, an example of no tool, or an
//! argument described nowhere is an error, not a gap in the page.

use serde::Deserialize;
use serde_json::{Map, Value};

/// Lines of an answer the page shows; the examples file keeps all of it.
const ANSWER_LINES: usize = 30;

/// The command that writes docs/tools.md, as the page and errors name it.
pub const REGENERATE: &str =
    "cargo run -q -p axsight -- tools-reference docs/tool-examples.json > docs/tools.md";

/// Why the reference could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    #[error("the examples file is not valid: {0}")]
    Examples(#[from] serde_json::Error),
    #[error("tool {0} has no example in the examples file")]
    NoExample(String),
    #[error("the examples file has an example of {0}, which the server does not list")]
    UnknownTool(String),
    #[error("the examples file has two examples of {0}")]
    TwoExamples(String),
    #[error("{tool}'s example passes {argument}, which its schema does not have")]
    UnknownArgument { tool: String, argument: String },
    #[error(
        "{tool}'s argument {argument} has no description in its schema nor in the \
         examples file's argument_words"
    )]
    Undescribed { tool: String, argument: String },
}

/// docs/tool-examples.json.
#[derive(Debug, Deserialize)]
struct Examples {
    /// Words for arguments whose published schema has no description, by name.
    #[serde(default)]
    argument_words: Map<String, Value>,
    /// One per tool, in the order the page lists them (and the test calls them).
    tools: Vec<Example>,
}

#[derive(Debug, Deserialize)]
struct Example {
    tool: String,
    /// What the example shows, when the call alone does not say.
    #[serde(default)]
    note: Option<String>,
    /// The tool call's arguments.
    call: Map<String, Value>,
    /// The answer's text as recorded (images as a line saying what they were).
    #[serde(default)]
    answer: String,
    /// Whether the answer was an error result.
    #[serde(default)]
    is_error: bool,
    /// Words for this tool's undescribed arguments, over `argument_words`.
    #[serde(default)]
    argument_words: Map<String, Value>,
}

/// One tool as the reference needs it: the listed tool (tools/list's JSON) and
/// its schema as schemars wrote it.
pub struct ListedTool {
    pub listed: Value,
    pub schemars: Map<String, Value>,
}

/// The reference page for `tools`, with the examples of `examples_json`.
pub fn render(tools: &[ListedTool], examples_json: &str) -> Result<String, ReferenceError> {
    let examples: Examples = serde_json::from_str(examples_json)?;
    let name_of = |tool: &ListedTool| text(&tool.listed, "name").to_string();
    for example in &examples.tools {
        if !tools.iter().any(|tool| name_of(tool) == example.tool) {
            return Err(ReferenceError::UnknownTool(example.tool.clone()));
        }
        if examples
            .tools
            .iter()
            .filter(|e| e.tool == example.tool)
            .count()
            > 1
        {
            return Err(ReferenceError::TwoExamples(example.tool.clone()));
        }
    }
    let mut ordered = Vec::with_capacity(tools.len());
    for example in &examples.tools {
        if let Some(tool) = tools.iter().find(|tool| name_of(tool) == example.tool) {
            ordered.push((tool, example));
        }
    }
    if let Some(missing) = tools
        .iter()
        .map(name_of)
        .find(|name| !examples.tools.iter().any(|e| &e.tool == name))
    {
        return Err(ReferenceError::NoExample(missing));
    }

    let mut page = String::new();
    page.push_str("# Tool reference\n\n");
    page.push_str(&format!(
        "<!-- Generated from the server's own tool schemas and docs/tool-examples.json: do \
         not edit. Regenerate with `{REGENERATE}`; record the example answers anew with \
         `AXSIGHT_BLESS=1` on tests/e2e/test_tool_reference.py. -->\n\n"
    ));
    let reading = ordered.iter().filter(|(t, _)| reads_only(t)).count();
    page.push_str(&format!(
        "`axsight serve` offers {} tools: {reading} that only read (the ones \
         `serve --read-only` keeps) and {} that act on the desktop. Each section below \
         gives a tool's description and arguments as the server publishes them in \
         `tools/list`, and an example call with the answer it got from the test \
         fixture (tests/fixtures/fixture_app.py) on a headless desktop. Arguments are \
         checked against these schemas before a tool runs; an argument's other names are \
         accepted too. How handles (`#u14`), selectors and targets work is in the \
         server's instructions, which every client receives at connection (see \
         crates/axsight-mcp/src/server.rs, `INSTRUCTIONS`).\n\n\
         An acting tool answers with what it did and how, and how the wait for the UI \
         went; then `check:` lines where the result can be verified (a field's text read \
         back, or only its length for a password; a toggle's state; what the clipboard \
         took after a copy or cut; that a clicked control was disabled); then the diff of \
         what changed, as added, removed and changed lines whose handles work at once (a \
         terminal's new rows, a window another app opened under that app's name); and, \
         when the focus is in a text, where its caret is, the formatting there and what is \
         selected. [What an action answers](action-answers.md) shows each.\n\n",
        ordered.len(),
        ordered.len() - reading
    ));
    page.push_str("| Tool | Kind | What it does |\n|---|---|---|\n");
    for (tool, _) in &ordered {
        let name = name_of(tool);
        page.push_str(&format!(
            "| [`{name}`](#{name}) | {} | {} |\n",
            if reads_only(tool) { "reads" } else { "acts" },
            cell(text(&tool.listed, "description"))
        ));
    }
    for (tool, example) in &ordered {
        page.push('\n');
        section(&mut page, tool, example, &examples.argument_words)?;
    }
    Ok(page)
}

fn section(
    page: &mut String,
    tool: &ListedTool,
    example: &Example,
    common_words: &Map<String, Value>,
) -> Result<(), ReferenceError> {
    let name = text(&tool.listed, "name");
    page.push_str(&format!("## {name}\n\n"));
    page.push_str(text(&tool.listed, "description"));
    page.push_str("\n\n");
    page.push_str(&kind_line(&tool.listed));
    page.push_str("\n\n");

    let schema = tool.listed.get("inputSchema").unwrap_or(&Value::Null);
    let rows = argument_rows(schema, &tool.schemars, "");
    for argument in example.call.keys() {
        if !rows.iter().any(|row| &row.name == argument) {
            return Err(ReferenceError::UnknownArgument {
                tool: name.to_string(),
                argument: argument.clone(),
            });
        }
    }
    if rows.is_empty() {
        page.push_str("Arguments: none.\n\n");
    } else {
        page.push_str(
            "| Argument | Type | Required | Default | Allowed | Description |\n\
             |---|---|---|---|---|---|\n",
        );
        for row in &rows {
            let words = match &row.description {
                Some(words) => words.clone(),
                None => example
                    .argument_words
                    .get(&row.name)
                    .or_else(|| common_words.get(&row.name))
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| ReferenceError::Undescribed {
                        tool: name.to_string(),
                        argument: row.name.clone(),
                    })?,
            };
            // The published schemas drop `false` defaults: an absent flag is off.
            let default = row
                .default
                .clone()
                .or_else(|| default_in(&words))
                .or_else(|| (row.kind == "boolean").then(|| "false".to_string()));
            let mut description = words;
            if !row.aliases.is_empty() {
                let aliases: Vec<String> = row.aliases.iter().map(|a| format!("`{a}`")).collect();
                description.push_str(&format!(" Also named {}.", aliases.join(", ")));
            }
            page.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                row.name,
                row.kind,
                if row.required { "yes" } else { "no" },
                default.map_or("—".to_string(), |d| format!("`{}`", cell(&d))),
                if row.allowed.is_empty() {
                    "—".to_string()
                } else {
                    cell(&row.allowed)
                },
                cell(&description)
            ));
        }
        page.push('\n');
    }

    page.push_str("Example:\n\n");
    if let Some(note) = &example.note {
        page.push_str(note);
        page.push_str("\n\n");
    }
    // As a client sends it: the tool's name, then its arguments.
    page.push_str(&format!(
        "```json\n{{\"name\":{},\"arguments\":{}}}\n```\n\n",
        Value::from(name),
        Value::Object(example.call.clone())
    ));
    page.push_str(if example.is_error {
        "The answer (an error result, `isError: true`):\n\n"
    } else {
        "The answer:\n\n"
    });
    page.push_str("```text\n");
    let lines: Vec<&str> = example.answer.lines().collect();
    for line in lines.iter().take(ANSWER_LINES) {
        page.push_str(line);
        page.push('\n');
    }
    if lines.len() > ANSWER_LINES {
        page.push_str(&format!(
            "… {} more lines (the whole answer is in docs/tool-examples.json)\n",
            lines.len() - ANSWER_LINES
        ));
    }
    page.push_str("```\n");
    Ok(())
}

/// Whether the tool is marked as one that only reads.
fn reads_only(tool: &ListedTool) -> bool {
    hint(&tool.listed, "readOnlyHint") == Some(true)
}

fn hint(listed: &Value, name: &str) -> Option<bool> {
    listed.get("annotations")?.get(name)?.as_bool()
}

/// What the annotations say, in words.
fn kind_line(listed: &Value) -> String {
    let mut line = match hint(listed, "readOnlyHint") {
        Some(true) => "Reads only: it changes nothing on the desktop.".to_string(),
        _ => "Acts on the desktop (left out by `serve --read-only`).".to_string(),
    };
    match hint(listed, "destructiveHint") {
        Some(false) => line.push_str(" Marked not destructive."),
        Some(true) => line.push_str(" Marked destructive: it may do what cannot be undone."),
        None => {}
    }
    if hint(listed, "openWorldHint") == Some(true) {
        line.push_str(" Reaches beyond the desktop (web pages).");
    }
    line
}

/// One argument's row of the table.
struct Row {
    /// `steps[].tool` for a field of a list's objects.
    name: String,
    kind: String,
    required: bool,
    /// The schema's own default.
    default: Option<String>,
    allowed: String,
    description: Option<String>,
    aliases: Vec<String>,
}

/// The rows of a published object schema's properties, and of the objects its
/// lists hold (as `name[].field`), with the aliases `schemars` gives them.
fn argument_rows(schema: &Value, schemars: &Map<String, Value>, prefix: &str) -> Vec<Row> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let raw_properties = schemars.get("properties").and_then(Value::as_object);
    let mut rows = Vec::new();
    for (name, property) in properties {
        let aliases = raw_properties
            .and_then(|raw| raw.get(name))
            .map(|raw| crate::arguments::names_at(raw, crate::arguments::ALIASES_KEY))
            .unwrap_or_default();
        rows.push(Row {
            name: format!("{prefix}{name}"),
            kind: type_of(property),
            required: required.contains(&name.as_str()),
            default: property.get("default").map(value_text),
            allowed: allowed(property),
            description: property
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            aliases,
        });
        if let Some(items) = property.get("items") {
            if items.get("properties").is_some() {
                rows.extend(argument_rows(items, &Map::new(), &format!("{name}[].")));
            }
        }
    }
    rows
}

/// `string`, `array of integer`, `object`…
fn type_of(property: &Value) -> String {
    let kind = property
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("any");
    match (kind, property.get("items")) {
        ("array", Some(items)) if items.get("properties").is_some() => "array of object".into(),
        ("array", Some(items)) => format!("array of {}", type_of(items)),
        _ => kind.to_string(),
    }
}

/// What the schema limits the value to: its choices, range, length or count.
fn allowed(property: &Value) -> String {
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    let mut parts = Vec::new();
    if let Some(choices) = property.get("enum").and_then(Value::as_array) {
        let choices: Vec<String> = choices
            .iter()
            .map(|c| format!("`{}`", value_text(c)))
            .collect();
        parts.push(format!("one of {}", choices.join(", ")));
    }
    match (number("minimum"), number("maximum")) {
        (Some(min), Some(max)) => parts.push(format!("{min} to {max}")),
        (Some(min), None) => parts.push(format!("at least {min}")),
        (None, Some(max)) => parts.push(format!("at most {max}")),
        (None, None) => {}
    }
    if let Some(max) = number("maxLength") {
        parts.push(format!("at most {max} characters"));
    }
    match (number("minItems"), number("maxItems")) {
        (Some(min), Some(max)) if min == max => parts.push(format!("exactly {min} items")),
        (Some(min), Some(max)) => parts.push(format!("{min} to {max} items")),
        (None, Some(max)) => parts.push(format!("at most {max} items")),
        (Some(min), None) => parts.push(format!("at least {min} items")),
        (None, None) => {}
    }
    parts.join("; ")
}

/// The default a description states: `(default 16000)`, or `left (default), …`.
fn default_in(description: &str) -> Option<String> {
    if let Some(start) = description.find("(default ") {
        let rest = &description[start + "(default ".len()..];
        return rest.find(')').map(|end| rest[..end].trim().to_string());
    }
    let end = description.find(" (default)")?;
    let word = description[..end]
        .rsplit(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .next()?;
    (!word.is_empty()).then(|| word.to_string())
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Text fit for a table cell: one line, its bars escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> ListedTool {
        ListedTool {
            listed: json!({
                "name": name,
                "description": "Does a thing.",
                "inputSchema": schema,
                "annotations": {"readOnlyHint": true}
            }),
            schemars: json!({"properties": {"app": {"x-aliases": ["process"]}}})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }
    }

    fn examples(tools: Value) -> String {
        json!({"argument_words": {"app": "App name."}, "tools": tools}).to_string()
    }

    #[test]
    fn a_section_lists_every_argument_with_its_type_default_and_limits() {
        let tools = [tool(
            "read_thing",
            json!({"type": "object", "properties": {
                "app": {"type": "string"},
                "side": {"type": "string", "enum": ["left", "right"], "description": "Which side."},
                "count": {"type": "integer", "minimum": 1, "description": "How many (default 3)."},
                "all": {"type": "boolean", "description": "Everything."},
                "clear": {"type": "boolean", "description": "Empty it first (default true)."},
                "button": {"type": "string", "description": "left (default), right or middle."}
            }, "required": ["side"]}),
        )];
        let page = render(
            &tools,
            &examples(json!([{"tool": "read_thing", "call": {"side": "left"}, "answer": "done"}])),
        )
        .unwrap();
        assert!(
            page.contains("| [`read_thing`](#read_thing) | reads | Does a thing. |"),
            "{page}"
        );
        assert!(
            page.contains("| `app` | string | no | — | — | App name. Also named `process`. |"),
            "{page}"
        );
        assert!(
            page.contains("| `side` | string | yes | — | one of `left`, `right` | Which side. |"),
            "{page}"
        );
        assert!(
            page.contains("| `count` | integer | no | `3` | at least 1 |"),
            "{page}"
        );
        assert!(
            page.contains("| `all` | boolean | no | `false` |"),
            "{page}"
        );
        assert!(
            page.contains("| `clear` | boolean | no | `true` |"),
            "{page}"
        );
        assert!(
            page.contains("| `button` | string | no | `left` |"),
            "{page}"
        );
        assert!(
            page.contains("{\"name\":\"read_thing\",\"arguments\":{\"side\":\"left\"}}"),
            "{page}"
        );
        assert!(page.contains("```text\ndone\n```"), "{page}");
    }

    #[test]
    fn a_missing_example_an_unknown_tool_or_an_undescribed_argument_is_an_error() {
        let tools = [tool(
            "read_thing",
            json!({"properties": {"other": {"type": "string"}}}),
        )];
        let none = render(&tools, &examples(json!([])));
        assert!(matches!(none, Err(ReferenceError::NoExample(name)) if name == "read_thing"));
        let unknown = render(
            &tools,
            &examples(json!([{"tool": "read_thing", "call": {}}, {"tool": "gone", "call": {}}])),
        );
        assert!(matches!(unknown, Err(ReferenceError::UnknownTool(name)) if name == "gone"));
        let undescribed = render(
            &tools,
            &examples(json!([{"tool": "read_thing", "call": {}}])),
        );
        assert!(
            matches!(&undescribed, Err(ReferenceError::Undescribed { argument, .. }) if argument == "other"),
            "{undescribed:?}"
        );
        let bad_call = render(
            &[tool("read_thing", json!({"properties": {}}))],
            &examples(json!([{"tool": "read_thing", "call": {"nope": 1}}])),
        );
        assert!(matches!(
            bad_call,
            Err(ReferenceError::UnknownArgument { .. })
        ));
    }

    #[test]
    fn long_answers_are_cut_and_fields_of_listed_objects_get_rows() {
        let tools = [tool(
            "run_steps",
            json!({"properties": {"steps": {"type": "array", "description": "Steps.", "maxItems": 50,
                "items": {"type": "object", "properties": {"tool": {"type": "string", "description": "Its name."}}}}}}),
        )];
        let answer: Vec<String> = (1..=40).map(|n| format!("line {n}")).collect();
        let page = render(
            &tools,
            &examples(json!([{"tool": "run_steps", "call": {}, "answer": answer.join("\n"), "is_error": true}])),
        )
        .unwrap();
        assert!(
            page.contains("| `steps` | array of object | no | — | at most 50 items | Steps. |"),
            "{page}"
        );
        assert!(page.contains("| `steps[].tool` | string | no |"), "{page}");
        assert!(page.contains("line 30\n… 10 more lines"), "{page}");
        assert!(!page.contains("line 31"), "{page}");
        assert!(page.contains("an error result"), "{page}");
    }

    /// The CI check that the page never drifts: docs/tools.md is what this
    /// server's schemas and docs/tool-examples.json make. `AXSIGHT_BLESS=1`
    /// writes it instead.
    #[test]
    fn docs_tools_md_is_what_the_server_and_its_examples_make() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let examples = std::fs::read_to_string(root.join("docs/tool-examples.json"))
            .expect("docs/tool-examples.json is readable");
        let server = crate::AxsightServer::<axsight_linux::LinuxEngine>::new();
        let page = server
            .tools_reference(&examples)
            .unwrap_or_else(|error| panic!("the tool reference cannot be made: {error}"));
        let path = root.join("docs/tools.md");
        if std::env::var_os("AXSIGHT_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &page).expect("docs/tools.md is writable");
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == page,
            "docs/tools.md is not what the server's tool schemas and docs/tool-examples.json \
             make; regenerate it with `{REGENERATE}` (or AXSIGHT_BLESS=1 on this test)"
        );
    }

    #[test]
    fn defaults_are_read_from_the_words_that_state_them() {
        assert_eq!(
            default_in("Characters at most (default 16000).").as_deref(),
            Some("16000")
        );
        assert_eq!(
            default_in("exists (default), gone or visible.").as_deref(),
            Some("exists")
        );
        assert_eq!(
            default_in("To start: chromium (default), firefox.").as_deref(),
            Some("chromium")
        );
        assert_eq!(default_in("No default here."), None);
    }
}
