//! Arguments of the acting tools. Names follow the Windows-era tools (`index` with
//! `vision_type`, `text_to_type`, `ui_diff_before_after`), so agents written for
//! them work unchanged.

use std::time::Duration;

use axsight_core::{Modifier, Point};
use schemars::JsonSchema;
use serde::Deserialize;

use super::IndexArg;
use axsight_session::{ActOptions, ClipboardRequest, NewValue, Target, ToolError};

/// Which element an action aims at: exactly one of `selector`, `index`, or `x`+`y`.
///
/// The fields carry no descriptions in the schema: every acting tool has them,
/// and the server's instructions explain them once (see `INSTRUCTIONS`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct TargetArgs {
    // Selector, e.g. "role:Button && name:Save".
    #[serde(default)]
    pub selector: Option<String>,
    // Handle ("#u14"), or a number with vision_type.
    #[serde(default)]
    pub index: Option<IndexArg>,
    // Source of a numeric index ("ui_tree").
    #[serde(default)]
    pub vision_type: Option<String>,
    // A stale tree handle acts on its element found again (default false).
    #[serde(default)]
    pub heal: Option<bool>,
    // Screen x (with y).
    #[serde(default)]
    pub x: Option<i32>,
    // Screen y (with x).
    #[serde(default)]
    pub y: Option<i32>,
    // The selector's app (name or pid).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    // The selector's window (title).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
}

impl TargetArgs {
    /// The one target these arguments name.
    pub fn target(&self) -> Result<Target, ToolError> {
        self.target_if_any()?.ok_or_else(|| {
            ToolError::BadArguments(
                "name the element: give `selector`, `index` (a handle such as \"#u14\"), or `x` and `y`".into(),
            )
        })
    }

    /// The target, or `None` when no target is given at all.
    pub fn target_if_any(&self) -> Result<Option<Target>, ToolError> {
        let point = match (self.x, self.y) {
            (Some(x), Some(y)) => Some(Point { x, y }),
            (None, None) => None,
            _ => {
                return Err(ToolError::BadArguments(
                    "a point needs both `x` and `y`".into(),
                ))
            }
        };
        let given = [
            self.selector.is_some(),
            self.index.is_some(),
            point.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(ToolError::BadArguments(
                "give exactly one target: `selector`, `index`, or `x` and `y`".into(),
            ));
        }
        if let Some(selector) = &self.selector {
            return Ok(Some(Target::Selector {
                selector: selector.clone(),
                app: self.app.clone(),
                window: self.window.clone(),
            }));
        }
        if let Some(index) = &self.index {
            let handle = index
                .handle_text(self.vision_type.as_deref())
                .map_err(ToolError::BadArguments)?;
            return Ok(Some(match self.heal {
                Some(true) => Target::HealingHandle(handle),
                _ => Target::Handle(handle),
            }));
        }
        Ok(point.map(Target::Point))
    }
}

/// What every action takes besides its target.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ActArgs {
    // Answer with the UI diff (default true).
    #[serde(default)]
    pub ui_diff_before_after: Option<bool>,
    // Max ms to wait for the UI to settle (default 5000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl ActArgs {
    pub fn options(&self) -> ActOptions {
        let default = ActOptions::default();
        ActOptions {
            diff: self.ui_diff_before_after.unwrap_or(true),
            timeout: self.timeout_ms.map_or(default.timeout, |ms| {
                Duration::from_millis(ms.clamp(50, 120_000))
            }),
            ..default
        }
    }
}

/// Modifier keys, as "ctrl+shift" or ["ctrl", "shift"].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ModifiersArg {
    Text(String),
    List(Vec<String>),
}

impl ModifiersArg {
    pub fn modifiers(&self) -> Result<Vec<Modifier>, ToolError> {
        let text = match self {
            ModifiersArg::Text(text) => text.clone(),
            ModifiersArg::List(list) => list.join("+"),
        };
        Modifier::parse_list(&text).map_err(ToolError::BadArguments)
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ClickArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// left (default), right or middle.
    #[serde(default)]
    pub button: Option<String>,
    /// single (default) or double.
    #[serde(default)]
    pub click_type: Option<String>,
    /// Keys held while clicking (`ctrl+shift`).
    #[serde(default)]
    pub modifiers: Option<ModifiersArg>,
    /// Use its accessible action; the pointer stays.
    #[serde(default)]
    pub background: bool,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct TypeArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// Text to type.
    #[schemars(extend("x-aliases" = ["text_to_type"]), length(max = 65536))]
    pub text: String,
    /// Empty the field first (default true).
    #[serde(default)]
    pub clear_before_typing: Option<bool>,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct KeyArgs {
    /// `ctrl+s`, `alt+F4`, `shift+Tab Return` (space-separated).
    #[serde(default)]
    pub key: Option<String>,
    /// Typed first, as keys.
    #[serde(default)]
    #[schemars(length(max = 65536))]
    pub text: Option<String>,
    /// Optional element to focus first.
    #[serde(flatten)]
    pub target: TargetArgs,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ScrollArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// up, down, left or right.
    pub direction: String,
    /// Wheel notches (default 3).
    #[serde(default)]
    pub amount: Option<u32>,
    /// Move the scroll bar, not the wheel.
    #[serde(default)]
    pub background: bool,
    #[serde(flatten)]
    pub act: ActArgs,
}

/// A value as text or a number.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ValueArg {
    Number(f64),
    Text(String),
}

impl From<&ValueArg> for NewValue {
    fn from(value: &ValueArg) -> NewValue {
        match value {
            ValueArg::Number(n) => NewValue::Number(*n),
            ValueArg::Text(t) => NewValue::Text(t.clone()),
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SetValueArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    // A number for sliders and spin buttons, text for fields (the tool says so).
    #[schemars(length(max = 65536))]
    pub value: ValueArg,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SelectArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    // Its visible text (the tool says so).
    pub option: String,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ToggleArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// true: checked/on.
    pub state: bool,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ActionArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// One the element lists (format=json shows them).
    pub action: String,
    #[serde(flatten)]
    pub act: ActArgs,
}

/// Handle or "x,y".
// Also {"x":1,"y":2} or [1,2]: the published schema gives the text form only.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PlaceArg {
    Handle(String),
    Point { x: i32, y: i32 },
    Pair([i32; 2]),
}

impl PlaceArg {
    pub fn target(&self) -> Target {
        match self {
            PlaceArg::Handle(text) => match point_text(text) {
                Some(point) => Target::Point(point),
                None => Target::Handle(text.clone()),
            },
            PlaceArg::Point { x, y } | PlaceArg::Pair([x, y]) => {
                Target::Point(Point { x: *x, y: *y })
            }
        }
    }
}

/// "120,40" (spaces allowed) as a point.
fn point_text(text: &str) -> Option<Point> {
    let (x, y) = text.split_once(',')?;
    Some(Point {
        x: x.trim().parse().ok()?,
        y: y.trim().parse().ok()?,
    })
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DragArgs {
    pub from: PlaceArg,
    pub to: PlaceArg,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct WindowArgs {
    /// App name (substring) or pid.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    /// Window title (substring).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ClipboardArgs {
    /// Text to set (neither this nor `from`: read it).
    #[serde(default)]
    #[schemars(length(max = 65536))]
    pub text: Option<String>,
    /// Handle: set its value (else name).
    #[serde(default)]
    pub from: Option<String>,
}

impl ClipboardArgs {
    /// What these arguments ask of the clipboard.
    pub fn request(&self) -> Result<ClipboardRequest, ToolError> {
        match (&self.text, &self.from) {
            (Some(_), Some(_)) => Err(ToolError::BadArguments(
                "give `text` or `from`, not both".into(),
            )),
            (Some(text), None) => Ok(ClipboardRequest::Set(text.clone())),
            (None, Some(from)) => Ok(ClipboardRequest::CopyFrom(Target::Handle(
                super::tree_handle(from.clone()),
            ))),
            (None, None) => Ok(ClipboardRequest::Read),
        }
    }
}

// The window-placing tools' arguments carry no descriptions: each tool's own
// description says what they mean, and `app`/`window` are those of every tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct MoveArgs {
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    pub x: i32,
    pub y: i32,
    #[serde(default)]
    pub width: Option<i32>,
    #[serde(default)]
    pub height: Option<i32>,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ResizeArgs {
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    pub width: i32,
    pub height: i32,
    #[serde(flatten)]
    pub act: ActArgs,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct WindowStateArgs {
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    #[serde(default)]
    pub restore: Option<bool>,
    #[serde(flatten)]
    pub act: ActArgs,
}

impl MoveArgs {
    /// The placement these arguments ask for.
    pub fn placement(&self) -> Result<axsight_core::Placement, ToolError> {
        let size = match (self.width, self.height) {
            (Some(w), Some(h)) => Some((w, h)),
            (None, None) => None,
            _ => {
                return Err(ToolError::BadArguments(
                    "give both `width` and `height`, or neither".into(),
                ))
            }
        };
        Ok(axsight_core::Placement::Move {
            x: self.x,
            y: self.y,
            size,
        })
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct OpenArgs {
    /// Desktop id, name or command (`gnome-calculator`).
    #[schemars(extend("x-aliases" = ["app_name", "name"]))]
    pub app: String,
    /// Longest wait for its window, in ms (default 20000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct WaitArgs {
    #[serde(flatten)]
    pub target: TargetArgs,
    /// exists (default), gone, visible, enabled, focused or has_value.
    #[serde(default)]
    pub condition: Option<String>,
    /// Text its value must hold (has_value; a silent surface's: what OCR reads).
    #[serde(default)]
    pub value: Option<String>,
    /// Longest wait, in ms (default 10000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse<T: JsonSchema + for<'de> Deserialize<'de>>(value: serde_json::Value) -> T {
        crate::params::tests::checked(value).unwrap()
    }

    #[test]
    fn targets_are_one_of_selector_handle_or_point() {
        let args: ClickArgs = parse(json!({"index": 14, "vision_type": "ui_tree"}));
        assert_eq!(args.target.target().unwrap(), Target::Handle("#u14".into()));
        let args: ClickArgs = parse(json!({"x": 5, "y": 6, "button": "right"}));
        assert_eq!(
            args.target.target().unwrap(),
            Target::Point(Point { x: 5, y: 6 })
        );
        let args: ClickArgs = parse(json!({"x": 5}));
        assert!(args.target.target().is_err());
        let args: ClickArgs = parse(json!({"selector": "name:OK", "index": "u3"}));
        assert!(args.target.target().is_err());
        let args: ClickArgs = parse(json!({}));
        assert!(args
            .target
            .target()
            .unwrap_err()
            .to_string()
            .contains("name the element"));
    }

    #[test]
    fn windows_era_names_are_accepted() {
        let args: TypeArgs = parse(
            json!({"index": "#u3", "text_to_type": "hi", "ui_diff_before_after": false, "timeout_ms": 100}),
        );
        assert_eq!(args.text, "hi");
        let options = args.act.options();
        assert!(!options.diff);
        assert_eq!(options.timeout, Duration::from_millis(100));
    }

    #[test]
    fn modifiers_come_as_text_or_lists() {
        let one = ModifiersArg::Text("ctrl+Shift".into()).modifiers().unwrap();
        assert_eq!(one, vec![Modifier::Ctrl, Modifier::Shift]);
        let many = ModifiersArg::List(vec!["alt".into(), "ctrl".into()])
            .modifiers()
            .unwrap();
        assert_eq!(many, vec![Modifier::Alt, Modifier::Ctrl]);
        assert!(ModifiersArg::Text("hyper".into()).modifiers().is_err());
    }

    #[test]
    fn drag_ends_are_handles_or_points() {
        let args: DragArgs = parse(json!({"from": "#u3", "to": [10, 20]}));
        assert_eq!(args.from.target(), Target::Handle("#u3".into()));
        assert_eq!(args.to.target(), Target::Point(Point { x: 10, y: 20 }));
        let args: DragArgs = parse(json!({"from": {"x": 1, "y": 2}, "to": "u4"}));
        assert_eq!(args.from.target(), Target::Point(Point { x: 1, y: 2 }));
        let args: DragArgs = parse(json!({"from": "120, 40", "to": "#u4"}));
        assert_eq!(args.from.target(), Target::Point(Point { x: 120, y: 40 }));
        assert_eq!(args.to.target(), Target::Handle("#u4".into()));
    }
}

/// A screen region: [x, y, width, height] or {"x","y","width","height"}.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RegionArg {
    List([i32; 4]),
    Object {
        x: i32,
        y: i32,
        width: i32,
        height: i32,
    },
}

impl RegionArg {
    pub fn bounds(&self) -> Result<axsight_core::Bounds, ToolError> {
        let (x, y, width, height) = match *self {
            RegionArg::List([x, y, w, h]) => (x, y, w, h),
            RegionArg::Object {
                x,
                y,
                width,
                height,
            } => (x, y, width, height),
        };
        axsight_core::Bounds::from_extents(x, y, width, height)
            .filter(axsight_core::Bounds::has_area)
            .ok_or_else(|| {
                ToolError::BadArguments(format!(
                    "region [{x},{y},{width},{height}] is empty or off any screen"
                ))
            })
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ShotArgs {
    /// App name or pid.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    /// Window title.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
    /// An element's handle.
    #[serde(default)]
    pub index: Option<IndexArg>,
    /// Source of a numeric index (`ui_tree`).
    #[serde(default)]
    pub vision_type: Option<String>,
    /// [x, y, width, height] on screen.
    #[serde(default)]
    pub region: Option<RegionArg>,
    /// png (default) or jpeg.
    #[serde(default)]
    pub format: Option<String>,
    /// Largest side in pixels (default 1568).
    #[serde(default)]
    pub max_dimension: Option<u32>,
    /// Magnify an element or region 1-8 times.
    #[serde(default)]
    pub zoom: Option<f64>,
    /// Draw the elements' handles on it.
    #[serde(default)]
    pub annotate: bool,
    /// With annotate: also OCR's text (#o).
    #[serde(default)]
    pub include_ocr: bool,
    /// With annotate: also the detector's finds (#m).
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["include_omniparser"]))]
    pub include_detector: bool,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct DescribeArgs {
    /// E.g. `the Save button`, `search field top right`.
    pub description: String,
    /// App name or pid.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["process"]))]
    pub app: Option<String>,
    /// Window title.
    #[serde(default)]
    #[schemars(extend("x-aliases" = ["title"]))]
    pub window: Option<String>,
}
