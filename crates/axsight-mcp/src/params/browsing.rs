//! Arguments of the browser tools.

use schemars::JsonSchema;
use serde::Deserialize;

/// `navigate_browser`'s arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    /// The address to open.
    #[serde(default)]
    pub url: Option<String>,
    /// Open it in a new tab.
    #[serde(default)]
    pub new_tab: bool,
    /// "back", "forward" or "reload" instead of a url.
    #[serde(default)]
    pub action: Option<HistoryAction>,
    /// Browser to start when none runs: "chromium" (default), "firefox" or a path.
    #[serde(default)]
    pub browser: Option<String>,
    /// Which browser window (app name or pid / title substring).
    #[serde(default, alias = "process")]
    pub app: Option<String>,
    #[serde(default, alias = "title")]
    pub window: Option<String>,
    /// Also list the page's elements with #d handles.
    #[serde(default, alias = "include_browser_dom")]
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
    /// JavaScript to run in the page; its value comes back as JSON.
    pub script: String,
    #[serde(default, alias = "process")]
    pub app: Option<String>,
    #[serde(default, alias = "title")]
    pub window: Option<String>,
}
