//! Tool arguments. Names follow the Windows-era tools agents already know (`app`
//! also as `process`, `window` also as `title`), and descriptions stay short: every
//! client sends them to its model on every turn.
//!
//! These structs see arguments only after `crate::arguments` has checked them
//! against the schema derived from them: an argument's other names are listed in
//! its schema (`x-aliases`) and renamed by that check, so serde never needs them.
//! A union here (`IndexArg`) is what the server takes; the published schema gives
//! its text form only (see `crate::schema`).

mod acting;
mod browsing;
mod recording;
mod sequence;

pub use acting::*;
pub use browsing::*;
pub use recording::*;
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
    /// App name (substring) or pid (default: the active window's).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    /// Window title (substring).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    /// Print only this handle's subtree (`#u40`).
    #[serde(default)]
    pub from: Option<String>,
    /// Print only the subtree of the first match.
    #[serde(default)]
    pub selector: Option<String>,
    /// Levels below the first element.
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// Most characters of output (default 16000).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["budget"]))]
    pub max_chars: Option<usize>,
    /// Also list undrawn elements.
    #[serde(default)]
    pub include_invisible: bool,
    /// Add OCR's text (#o).
    #[serde(default)]
    pub include_ocr: bool,
    /// Add the detector's finds (#m).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["include_omniparser"]))]
    pub include_detector: bool,
    /// Add a vision model's finds (#v).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["include_gemini_vision"]))]
    pub include_vision: bool,
    /// Add a page's elements (#d).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["include_browser_dom"]))]
    pub include_dom: bool,
    /// OCR icon views, canvases, apps off the bus (default true).
    #[serde(default)]
    pub fall_through: Option<bool>,
    #[serde(default)]
    pub format: Format,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// E.g. `role:Button && name:Save`.
    pub selector: String,
    /// App name (substring) or pid.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    /// Window title (substring).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    /// Matches listed at most (default 50).
    #[serde(default)]
    pub max_results: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ValidateArgs {
    /// Selector.
    #[serde(default)]
    pub selector: Option<String>,
    /// Handle, e.g. `#u14`.
    #[serde(default)]
    pub index: Option<IndexArg>,
    /// Source of a numeric index (`ui_tree`).
    #[serde(default)]
    pub vision_type: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
}

// A handle ("#u14"), or a bare number (14 or "14") with `vision_type`. No
// description in the schema: every acting tool takes one, and the server's
// instructions explain it.
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
        let number: u32 = match self {
            IndexArg::Number(number) => *number,
            // The published schema says text, so a client may send "14" for 14.
            IndexArg::Text(text) => match text.trim().parse() {
                Ok(number) => number,
                Err(_) => return Ok(text.clone()),
            },
        };
        let source = match vision_type {
            None => axsight_core::Source::Tree,
            Some(name) => axsight_core::Source::from_vision_type(name).ok_or_else(|| {
                format!(
                    "unknown vision_type {}; use ui_tree, dom, ocr, omniparser or gemini",
                    crate::arguments::quote(name)
                )
            })?,
        };
        Ok(format!("#{}{number}", source.letter()))
    }
}

/// A handle given as text; a bare number is a tree handle ("40" is "#u40"), as a
/// client may send `"from": 40`.
pub fn tree_handle(text: String) -> String {
    match text.trim().parse::<u32>() {
        Ok(number) => format!("#u{number}"),
        Err(_) => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::ToolArguments;

    /// Arguments as a tool gets them: checked against `T`'s schema, then parsed.
    pub(crate) fn checked<T: JsonSchema + for<'de> Deserialize<'de>>(
        value: serde_json::Value,
    ) -> Result<T, String> {
        let schema = schemars::schema_for!(T);
        let schema = schema.as_object().expect("an object schema").clone();
        let rules = ToolArguments::new([("tool", &schema)]);
        let mut arguments = value.as_object().expect("an object").clone();
        rules.check("tool", &mut arguments)?;
        serde_json::from_value(serde_json::Value::Object(arguments)).map_err(|e| e.to_string())
    }

    #[test]
    fn windows_era_names_are_accepted() {
        let args: TreeArgs =
            checked(serde_json::json!({"process": "gedit", "title": "Untitled", "budget": 10}))
                .unwrap();
        assert_eq!(args.app.as_deref(), Some("gedit"));
        assert_eq!(args.window.as_deref(), Some("Untitled"));
        assert_eq!(args.max_chars, Some(10));
        let args: ValidateArgs =
            checked(serde_json::json!({"index": 14, "vision_type": "ui_tree"})).unwrap();
        assert_eq!(
            args.index
                .unwrap()
                .handle_text(args.vision_type.as_deref())
                .unwrap(),
            "#u14"
        );
        let args: ValidateArgs = checked(serde_json::json!({"index": "u3"})).unwrap();
        assert_eq!(args.index.unwrap().handle_text(None).unwrap(), "u3");
        let args: TreeArgs = checked(serde_json::json!({"from": 40})).unwrap();
        assert_eq!(args.from.map(tree_handle).as_deref(), Some("#u40"));
    }

    #[test]
    fn a_numeric_index_is_a_number_whether_sent_as_text_or_not() {
        for index in [serde_json::json!(14), serde_json::json!("14")] {
            let args: ValidateArgs =
                checked(serde_json::json!({"index": index, "vision_type": "ocr"})).unwrap();
            let handle = args.index.unwrap().handle_text(args.vision_type.as_deref());
            assert_eq!(handle.unwrap(), "#o14");
        }
    }

    /// Every form of every argument the check takes, parsed by the struct.
    fn each_form_parses<T: JsonSchema + for<'de> Deserialize<'de>>() {
        let schema = schemars::schema_for!(T);
        let schema = schema.as_object().expect("an object schema").clone();
        let forms = crate::arguments::every_form(&schema);
        assert!(forms.len() > 1 || schema.get("properties").is_none());
        for form in forms {
            let shown = serde_json::Value::Object(form.clone()).to_string();
            if let Err(error) = checked::<T>(serde_json::Value::Object(form)) {
                panic!("{}: {shown}: {error}", std::any::type_name::<T>());
            }
        }
    }

    #[test]
    fn what_the_check_takes_every_argument_struct_takes() {
        each_form_parses::<TreeArgs>();
        each_form_parses::<FindArgs>();
        each_form_parses::<ValidateArgs>();
        each_form_parses::<ClickArgs>();
        each_form_parses::<TypeArgs>();
        each_form_parses::<KeyArgs>();
        each_form_parses::<ScrollArgs>();
        each_form_parses::<SetValueArgs>();
        each_form_parses::<SelectArgs>();
        each_form_parses::<ToggleArgs>();
        each_form_parses::<ActionArgs>();
        each_form_parses::<DragArgs>();
        each_form_parses::<WindowArgs>();
        each_form_parses::<ClipboardArgs>();
        each_form_parses::<MoveArgs>();
        each_form_parses::<ResizeArgs>();
        each_form_parses::<WindowStateArgs>();
        each_form_parses::<OpenArgs>();
        each_form_parses::<WaitArgs>();
        each_form_parses::<ShotArgs>();
        each_form_parses::<DescribeArgs>();
        each_form_parses::<NavigateArgs>();
        each_form_parses::<ScriptArgs>();
        each_form_parses::<SequenceArgs>();
    }

    /// Found by the argument fuzz test: 51 to 64 steps passed the check (its
    /// default list limit) and were refused in words naming no argument.
    #[test]
    fn a_sequence_of_too_many_steps_is_refused_by_its_schema() {
        let steps: Vec<serde_json::Value> =
            (0..51).map(|_| serde_json::json!({"find": "x"})).collect();
        let error = checked::<SequenceArgs>(serde_json::json!({ "steps": steps })).unwrap_err();
        assert_eq!(error, "`steps` has 51 items; it takes at most 50");
    }

    #[test]
    fn every_argument_struct_is_read_by_its_checked_schema() {
        // A pid sent as a number is the app's text; null is absent.
        let args: FindArgs =
            checked(serde_json::json!({"selector": "name:OK", "app": 4242, "window": null}))
                .unwrap();
        assert_eq!(args.app.as_deref(), Some("4242"));
        let error = checked::<FindArgs>(serde_json::json!({"selector": "x", "max_results": -1}))
            .unwrap_err();
        assert_eq!(
            error,
            "`max_results` must be a whole number, 0 or more, not -1"
        );
        let error = checked::<TreeArgs>(serde_json::json!({"format": "xml"})).unwrap_err();
        assert_eq!(error, "`format` must be one of text, json, not \"xml\"");
        let args: TreeArgs = checked(serde_json::json!({"format": "JSON"})).unwrap();
        assert_eq!(args.format, Format::Json);
    }
}
