//! Arguments of `record`: start a recording, or stop it for its plan.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct RecordArgs {
    /// End it; answer the plan.
    #[serde(default)]
    pub stop: Option<bool>,
    /// Typed texts become parameters.
    #[serde(default)]
    pub params: Option<bool>,
}
