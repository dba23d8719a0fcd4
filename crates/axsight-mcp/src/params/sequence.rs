//! Arguments of `execute_sequence`: steps, each a tool call as it would be made
//! alone, or a selector to find and name for later steps.

use schemars::JsonSchema;
use serde::Deserialize;

// One step of a sequence: `tool` with `arguments`, or `find` with a selector
// (`{"find": "role:Button && name:Save", "as": "save"}`, then
// `{"tool": "click_element", "arguments": {"index": "$save"}}`). The fields carry
// no descriptions in the schema: the tool's description explains them once.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct StepArgs {
    // A tool to call, e.g. "type_into_element".
    #[serde(default)]
    pub tool: Option<String>,
    // Its arguments, as for a call of its own; "$name" stands for a handle named
    // by an earlier step's `as`.
    #[serde(default)]
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
    // Instead of a tool: a selector whose first match's handle `as` names.
    #[serde(default)]
    pub find: Option<String>,
    // With `find`: the app (name or pid) and window (title) to look in.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    // Names the handle this step found or acted on, for "$name" later.
    #[serde(default, rename = "as")]
    pub name: Option<String>,
    // A failure of this step does not stop the sequence.
    #[serde(default)]
    pub optional: Option<bool>,
    // Tries again after a failure, this many times (at most 10).
    #[serde(default)]
    pub retries: Option<u32>,
    // Milliseconds to wait before each try again (at most 10000).
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SequenceArgs {
    // The tool calls, in order (docs/tool-examples.json words it).
    #[schemars(length(max = crate::sequence::MAX_STEPS))]
    pub steps: Vec<StepArgs>,
    // Stop at the first failed step that is not optional (default true).
    #[serde(default)]
    pub stop_on_error: Option<bool>,
    // Add the tree of the window acted in (default false).
    #[serde(default)]
    pub include_tree: Option<bool>,
}
