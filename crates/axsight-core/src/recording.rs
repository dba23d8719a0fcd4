//! Recording: what a person did, written as the tool calls an agent would make
//! to do it again. The engine observes the input ([`crate::ObservedInput`]), the
//! session finds what each press landed on and where the keys went
//! ([`Hit`]); this module, on plain data, turns those moments into
//! [`RecordedStep`]s: a click on a named element, one typed text per field
//! (never keystrokes), a check box set on or off, a combo box's choice, chords,
//! and a wait for each window a step opened.
//!
//! It reads nothing and knows no tool's JSON; the session writes the plan.

mod changes;
mod selector_for;
mod steps;

pub use changes::{seen_changes, SeenChange};
pub use selector_for::{selector_for, Chosen};
pub use steps::{Parameter, RecordedStep, Recording, Typed, Within};

use crate::{
    element_at, quote, visible_box, Bounds, MatchContext, NodeId, Point, Role, State,
    WindowSnapshot,
};

/// Where a step acts: a selector and the app and window to look in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepTarget {
    pub selector: String,
    pub app: String,
    /// The window's title, where the app had more than one window and this one
    /// has a title; else the app's active window is meant.
    pub window: Option<String>,
    /// How a person reads it: `[Button] Save in 'Export'`.
    pub described: String,
    /// Why replaying it may miss, when it may (`by its place among 3
    /// look-alikes`).
    pub fragile: Option<String>,
}

/// An element a person's input went to: under a press, or holding the keyboard
/// focus at a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub target: StepTarget,
    /// The element's identity on the desktop, to tell two hits on one element.
    pub element: String,
    /// Its window's identity.
    pub window: String,
    pub role: Role,
    /// Checked when the person reached it (before their click).
    pub checked: bool,
    /// It takes typed text (an editable field; not a terminal).
    pub text_field: bool,
    /// It takes line breaks (Return types one).
    pub multiline: bool,
    /// A password field: what is typed there is never written down.
    pub secret: bool,
    /// The text it held when reached (`None` for a secret, which is never
    /// read), and how many characters that was (a secret's too).
    pub text: Option<String>,
    pub chars: usize,
    /// Its name: what a combo box's choice is written with.
    pub name: String,
    /// A silent surface (a canvas, an icon view, a window without
    /// accessibility): where in it the press landed is what counts, and the
    /// tree does not say what is there.
    pub silent: bool,
    /// Its box on screen when reached: a click in a silent surface is written
    /// as a point inside it.
    pub bounds: Option<Bounds>,
}

/// Roles a person clicks as one thing: a click on a label or icon inside one
/// is a click on it.
const CONTROLS: &[Role] = &[
    Role::Button,
    Role::ToggleButton,
    Role::CheckBox,
    Role::RadioButton,
    Role::Link,
    Role::MenuItem,
    Role::CheckMenuItem,
    Role::RadioMenuItem,
    Role::ListItem,
    Role::TreeItem,
    Role::TabItem,
    Role::ComboBox,
    Role::Edit,
    Role::SpinButton,
    Role::Slider,
];

/// The smallest item of an open menu drawn at `point`: a control, or a
/// submenu, with a menu above it.
fn menu_item_at(tree: &crate::Tree, point: Point) -> Option<NodeId> {
    smallest_at(tree, point, |n| {
        let role = tree.element(n).role;
        (CONTROLS.contains(&role) || role == Role::Menu)
            && tree
                .ancestors(n)
                .any(|a| tree.element(a).role == Role::Menu)
    })
}

/// The smallest control of `tree` drawn at `point`.
fn smallest_control_at(tree: &crate::Tree, point: Point) -> Option<NodeId> {
    smallest_at(tree, point, |n| CONTROLS.contains(&tree.element(n).role))
}

/// The smallest node `wanted` keeps whose drawn box holds `point`.
fn smallest_at(
    tree: &crate::Tree,
    point: Point,
    wanted: impl Fn(NodeId) -> bool,
) -> Option<NodeId> {
    tree.descendants(tree.root())
        .into_iter()
        .filter(|&n| wanted(n))
        .filter_map(|n| Some((n, visible_box(tree, n)?)))
        .filter(|(_, b)| b.contains(point.x, point.y))
        .min_by_key(|(_, b)| b.area())
        .map(|(n, _)| n)
}

/// How far above the element under the pointer a control that holds it is
/// looked for.
const CONTROL_DEPTH: usize = 3;

impl Hit {
    /// What a press at `point` in `snapshot` landed on: the deepest element
    /// there, or the control holding it (the label inside a button is the
    /// button). `None` where nothing the tree names is there.
    pub fn at_point(snapshot: &WindowSnapshot, point: Point, titled_windows: usize) -> Option<Hit> {
        let tree = &snapshot.tree;
        // An open menu is drawn above the window, wherever its items sit in
        // the tree (Qt's and GTK 3's hang below the menu bar's title).
        if let Some(item) = menu_item_at(tree, point) {
            return Hit::in_snapshot(snapshot, item, titled_windows);
        }
        let node = element_at(tree, point)?;
        let control = match CONTROLS.contains(&tree.element(node).role) {
            true => node,
            false => tree
                .ancestors(node)
                .take(CONTROL_DEPTH)
                .find(|&a| CONTROLS.contains(&tree.element(a).role))
                .unwrap_or(node),
        };
        let control = match CONTROLS.contains(&tree.element(control).role) {
            true => control,
            // A menu's items lie outside the box of the menu that holds them
            // (GTK 3's hang below their menu bar title), where the walk from
            // the root does not reach: the smallest control there is it.
            false => smallest_control_at(tree, point).unwrap_or(control),
        };
        if control == tree.root() {
            return None; // the window itself: nothing in it is named there
        }
        Hit::in_snapshot(snapshot, control, titled_windows)
    }

    /// The element `node` of `snapshot`, as a hit; `titled_windows` is how many
    /// titled windows its app shows (the window is named only when it is one of
    /// several). `None` when no selector finds it again.
    pub fn in_snapshot(
        snapshot: &WindowSnapshot,
        node: NodeId,
        titled_windows: usize,
    ) -> Option<Hit> {
        let tree = &snapshot.tree;
        let context = MatchContext {
            app: &snapshot.app,
            window: &snapshot.title,
        };
        let chosen = selector_for(tree, node, &context)?;
        let element = tree.element(node);
        let window =
            (titled_windows > 1 && !snapshot.title.is_empty()).then(|| snapshot.title.clone());
        let mut described = format!("[{}]", element.role);
        if !element.name.trim().is_empty() {
            described.push(' ');
            described.push_str(&crate::bare(element.name.trim()));
        }
        if !snapshot.title.is_empty() {
            described.push_str(&format!(" in {}", quote(&snapshot.title)));
        }
        let fragile = chosen.by_place.then(|| {
            "found by its place among elements that look alike: if their order changes, another is found"
                .to_string()
        });
        let editable = element.states.contains(State::Editable);
        // GTK 4 leaves `editable` off some entries; a read-only one says so.
        let text_field = match element.role {
            Role::Edit => editable || !element.states.contains(State::ReadOnly),
            Role::ComboBox | Role::SpinButton => editable,
            _ => false,
        };
        Some(
            Hit {
                target: StepTarget {
                    selector: chosen.selector,
                    app: snapshot.app.clone(),
                    window,
                    described,
                    fragile,
                },
                element: element.id.0.clone(),
                window: snapshot.window_id().0,
                role: element.role,
                checked: false,
                text_field,
                multiline: element.states.contains(State::MultiLine),
                secret: element.is_secret(),
                text: None,
                chars: 0,
                name: element.name.trim().to_string(),
                silent: crate::is_silent_surface(tree, node),
                bounds: element.bounds,
            }
            .as_it_was(element),
        )
    }

    /// The hit with what `element` (the same element, read earlier) held
    /// then: its check mark and its text, as the person saw them before
    /// their click changed them.
    pub fn as_it_was(mut self, element: &crate::Element) -> Hit {
        self.checked = element.states.contains(State::Checked);
        self.text = (!element.is_secret()).then(|| element.value.clone().unwrap_or_default());
        self.chars = match element.is_secret() {
            true => element.secret_length.unwrap_or(0),
            false => element.value.as_deref().unwrap_or("").chars().count(),
        };
        self
    }
}
