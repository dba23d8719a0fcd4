//! Arguments of the browser tools.

use schemars::JsonSchema;
use serde::Deserialize;

/// `navigate_browser`'s arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    /// The address to open.
    #[serde(default)]
    #[schemars(length(max = 65536))]
    pub url: Option<String>,
    /// In a new tab.
    #[serde(default)]
    pub new_tab: bool,
    /// Instead of a url.
    #[serde(default)]
    pub action: Option<HistoryAction>,
    /// To start when none runs: chromium (default), firefox or a path.
    #[serde(default)]
    pub browser: Option<String>,
    /// Browser window: app name or pid / title.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    /// Also the page's elements (#d).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["include_browser_dom"]))]
    pub include_dom: bool,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// A move through a tab's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HistoryAction {
    Back,
    Forward,
    Reload,
}

/// `execute_browser_script`'s arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ScriptArgs {
    /// The JavaScript to run.
    #[schemars(length(max = 65536))]
    pub script: String,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
}
