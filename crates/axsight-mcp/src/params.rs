//! Tool arguments. Names follow the Windows-era tools agents already know (`app`
//! also as `process`, `window` also as `title`), and descriptions stay short: every
//! client sends them to its model on every turn.

mod acting;
mod browsing;
mod sequence;

pub use acting::*;
pub use browsing::*;
pub use sequence::*;

use schemars::JsonSchema;
use serde::Deserialize;

/// Output format of a tree: compact text (default) or JSON as structured content.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// App name (substring) or pid; default: the active window's app.
    #[serde(default, alias = "process")]
    pub app: Option<String>,
    /// Window title (substring).
    #[serde(default, alias = "title")]
    pub window: Option<String>,
    /// Print only the subtree of this handle, e.g. "#u40".
    #[serde(default)]
    pub from: Option<String>,
    /// Print only the subtree of the first match.
    #[serde(default)]
    pub selector: Option<String>,
    /// Levels below the first element.
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// Characters of output at most (default 16000).
    #[serde(default, alias = "budget")]
    pub max_chars: Option<usize>,
    /// Also list elements that are not drawn.
    #[serde(default)]
    pub include_invisible: bool,
    /// Add the text OCR reads in the window, with #o handles to click.
    #[serde(default)]
    pub include_ocr: bool,
    /// Add the controls a UI-element detector model finds, with #m handles.
    #[serde(default, alias = "include_omniparser")]
    pub include_detector: bool,
    /// Add the elements a vision model names, with #v handles.
    #[serde(default, alias = "include_gemini_vision")]
    pub include_vision: bool,
    /// Add the elements of the page a browser window shows, with #d handles.
    #[serde(default, alias = "include_browser_dom")]
    pub include_dom: bool,
    #[serde(default)]
    pub format: Format,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// Selector, e.g. "role:Button && name:Save".
    pub selector: String,
    /// Limit to one app (name substring or pid).
    #[serde(default, alias = "process")]
    pub app: Option<String>,
    /// Limit to one window (title substring).
    #[serde(default, alias = "title")]
    pub window: Option<String>,
    /// Matches listed at most (default 50).
    #[serde(default)]
    pub max_results: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ValidateArgs {
    /// Selector to look for.
    #[serde(default)]
    pub selector: Option<String>,
    /// Handle to check, e.g. "#u14".
    #[serde(default)]
    pub index: Option<IndexArg>,
    /// With a numeric index: its source ("ui_tree").
    #[serde(default)]
    pub vision_type: Option<String>,
    #[serde(default, alias = "process")]
    pub app: Option<String>,
    #[serde(default, alias = "title")]
    pub window: Option<String>,
}

// A handle ("#u14"), or a bare number with `vision_type`. No description in the
// schema: every acting tool takes one, and the server's instructions explain it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum IndexArg {
    Number(u32),
    Text(String),
}

impl IndexArg {
    /// The handle text this index stands for; a bare number is a tree handle unless
    /// `vision_type` names another source.
    pub fn handle_text(&self, vision_type: Option<&str>) -> Result<String, String> {
        match self {
            IndexArg::Text(text) => Ok(text.clone()),
            IndexArg::Number(number) => {
                let source = match vision_type {
                    None => axsight_core::Source::Tree,
                    Some(name) => axsight_core::Source::from_vision_type(name)
                        .ok_or_else(|| format!("unknown vision_type '{name}'; use ui_tree, dom, ocr, omniparser or gemini"))?,
                };
                Ok(format!("#{}{number}", source.letter()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_era_names_are_accepted() {
        let args: TreeArgs =
            serde_json::from_value(serde_json::json!({"process": "gedit", "title": "Untitled"}))
                .unwrap();
        assert_eq!(args.app.as_deref(), Some("gedit"));
        assert_eq!(args.window.as_deref(), Some("Untitled"));
        let args: ValidateArgs =
            serde_json::from_value(serde_json::json!({"index": 14, "vision_type": "ui_tree"}))
                .unwrap();
        assert_eq!(
            args.index
                .unwrap()
                .handle_text(args.vision_type.as_deref())
                .unwrap(),
            "#u14"
        );
        let args: ValidateArgs =
            serde_json::from_value(serde_json::json!({"index": "u3"})).unwrap();
        assert_eq!(args.index.unwrap().handle_text(None).unwrap(), "u3");
    }
}
