//! Turning raw AT-SPI nodes into axsight elements: role names, states, cleaned names,
//! and bounds in true screen coordinates.

use axsight_core::{Bounds, Element, ElementId, Role, ScreenMapping, State, Tree};

use crate::roles::role_name;
use crate::states;
use crate::walk::{Quirks, RawNode};

/// Cleans a toolkit's name for printing: trims and collapses whitespace, and for GTK4
/// drops mnemonic underscores (`Page _2`), doubled labels (`7 7`, `_OK OK`) and class
/// names given to unlabelled widgets (`GtkEntry`).
///
/// ```
/// use axsight_atspi::normalize::clean_name;
/// assert_eq!(clean_name("Save As...      ", false), "Save As...");
/// assert_eq!(clean_name("Page _2", true), "Page 2");
/// assert_eq!(clean_name("_OK OK", true), "OK");
/// assert_eq!(clean_name("7 7", true), "7");
/// assert_eq!(clean_name("GtkMenuButton", true), "");
/// assert_eq!(clean_name("file_name.txt", false), "file_name.txt");
/// ```
pub fn clean_name(raw: &str, gtk4: bool) -> String {
    let mut name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if !gtk4 {
        return name;
    }
    if is_class_name(&name) {
        return String::new();
    }
    name = strip_mnemonics(&name);
    let words: Vec<&str> = name.split(' ').collect();
    if words.len().is_multiple_of(2) && !words.is_empty() {
        let (first, second) = words.split_at(words.len() / 2);
        if first == second {
            return first.join(" ");
        }
    }
    name
}

/// The role a GTK4 class-name placeholder names, where it says more than the role
/// the toolkit reported: GTK 4.8 reports a `GtkSwitch` as a nameless check box.
///
/// ```
/// use axsight_core::Role;
/// use axsight_atspi::normalize::class_role;
/// assert_eq!(class_role("GtkSwitch", Role::CheckBox), Some(Role::Switch));
/// assert_eq!(class_role("GtkEntry", Role::Group), Some(Role::Edit));
/// assert_eq!(class_role("GtkEntry", Role::Edit), None);
/// assert_eq!(class_role("Save", Role::Button), None);
/// ```
pub fn class_role(name: &str, reported: Role) -> Option<Role> {
    let name = name.trim();
    if !is_class_name(name) {
        return None;
    }
    let named = match &name[3..] {
        "Switch" => Role::Switch,
        "ToggleButton" => Role::ToggleButton,
        "CheckButton" => Role::CheckBox,
        "SpinButton" => Role::SpinButton,
        "Scale" => Role::Slider,
        "Entry" | "Text" | "PasswordEntry" | "SearchEntry" => Role::Edit,
        "TextView" => Role::Edit,
        "DropDown" | "ComboBox" => Role::ComboBox,
        "Button" | "MenuButton" | "LinkButton" => Role::Button,
        "ProgressBar" | "LevelBar" => Role::ProgressBar,
        "Image" | "Picture" => Role::Image,
        _ => return None,
    };
    let refines = match named {
        // A switch is reported as a check box or toggle button: say which it is.
        Role::Switch => true,
        _ => matches!(reported, Role::Unknown | Role::Group | Role::Pane),
    };
    (refines && named != reported).then_some(named)
}

/// Whether `name` is the word GTK 4.8 names every element of `role` with when
/// the app names none: each notebook tab is "Tab" and its strip "Tab list"
/// (the tab's words are in its label child). Such a name says only the role.
///
/// ```
/// use axsight_core::Role;
/// use axsight_atspi::normalize::is_gtk4_role_placeholder;
/// assert!(is_gtk4_role_placeholder("Tab", Role::TabItem));
/// assert!(is_gtk4_role_placeholder("Tab list", Role::Tab));
/// assert!(!is_gtk4_role_placeholder("Tab", Role::Button));
/// assert!(!is_gtk4_role_placeholder("Page 1", Role::TabItem));
/// ```
pub fn is_gtk4_role_placeholder(name: &str, role: Role) -> bool {
    matches!(
        (role, name),
        (Role::TabItem, "Tab") | (Role::Tab, "Tab list")
    )
}

/// Whether a description is the toolkit's stock text for every widget of its kind,
/// which tells nothing about this one: GTK3 describes each spinner as "Provides
/// visual indication of progress" (English only: a translated desktop's text stays).
///
/// ```
/// use axsight_atspi::normalize::is_stock_description;
/// assert!(is_stock_description("animation", "Provides visual indication of progress"));
/// assert!(!is_stock_description("animation", "Loading mail"));
/// ```
pub fn is_stock_description(raw_role: &str, description: &str) -> bool {
    matches!(
        (raw_role, description),
        ("animation", "Provides visual indication of progress")
    )
}

fn is_class_name(name: &str) -> bool {
    name.strip_prefix("Gtk").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// Removes GTK mnemonic markers: `_x` becomes `x`, `__` stays a literal `_`.
fn strip_mnemonics(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            match chars.peek() {
                Some('_') => {
                    out.push('_');
                    chars.next();
                }
                Some(_) => {}
                None => out.push('_'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The role of an app's top-level object: a window, whatever plain container
/// role the toolkit gives it (Qt reports a bare `QWidget` window as `filler`).
pub fn top_level_role(raw: &str) -> Role {
    match Role::from_atspi_name(raw) {
        Role::Group | Role::Pane | Role::Unknown => Role::Window,
        role => role,
    }
}

/// Builds a [`Tree`] from a raw window subtree (its root is the window), its
/// reported extents put on screen by `mapping` (the window's screen position for
/// toolkits that report window-relative extents, and the scale of one that
/// reports logical pixels).
pub fn build_tree(raw: &RawNode, quirks: Quirks, mapping: ScreenMapping) -> Tree {
    let mut window = element_of(raw, quirks, mapping);
    window.role = top_level_role(&window.raw_role);
    let mut tree = Tree::new(window);
    let mut stack: Vec<_> = children_of(raw, quirks)
        .map(|c| (tree.root(), c, mapping))
        .collect();
    while let Some((parent, (node, label), mapping)) = stack.pop() {
        let mapping =
            match quirks.document_in_device_pixels && role_name(node.role) == "document web" {
                true => mapping.unscaled(),
                false => mapping,
            };
        let mut element = element_of(node, quirks, mapping);
        let mapping = match quirks.libreoffice {
            true => {
                presentation_placeholder(&mut element, tree.element(parent));
                placed_like_parent(&mut element, tree.element(parent), mapping)
            }
            false => mapping,
        };
        // Below the window, a frame is a framed group (Qt's QFrame), not a window,
        // and a Swing option pane is the body of its dialog.
        if (element.role == Role::Window && quirks.qt) || element.raw_role == "option pane" {
            element.role = Role::Group;
        }
        if element.name.is_empty() && element.role.is_field() {
            element.name = label.unwrap_or_default();
        }
        let id = tree.push(parent, element);
        stack.extend(children_of(node, quirks).map(|c| (id, c, mapping)));
    }
    if quirks.menu_items_misplaced {
        crate::menu_popups::place_menu_items(&mut tree);
    }
    if quirks.web_content {
        crate::web_content::reshape_pages(&mut tree);
    }
    crate::one_focus::keep_one_focus(&mut tree);
    tree
}

/// LibreOffice Impress shows an empty presentation shape's placeholder (`Click to
/// add Title`, `Click to add Text`) as its paragraph's text, and nothing marks it
/// apart from typed text (no attribute, state or name changes once it is
/// replaced). A paragraph of a shape named `Presentation…` (`PresentationTitle`,
/// `PresentationOutliner`) whose text is such a phrase is empty, with that hint.
/// Measured on LibreOffice 7.4 in English; a translated UI's phrases stay values.
fn presentation_placeholder(element: &mut Element, shape: &Element) {
    const PLACEHOLDER: &str = "Click to add ";
    if element.role != Role::Paragraph || !shape.name.starts_with("Presentation") {
        return;
    }
    if let Some(text) = element.value.take_if(|text| text.starts_with(PLACEHOLDER)) {
        element.hint = Some(text);
        element.value = Some(String::new());
    }
}

/// LibreOffice's own widgets hang below a `root pane` that fills its GTK parent
/// exactly, but until the pointer first moves over the window they report
/// themselves without the GTK menu bar above them (25 px too high). A root pane
/// of its parent's size placed elsewhere is moved onto its parent; the mapping
/// returned is what its descendants need.
fn placed_like_parent(
    element: &mut Element,
    parent: &Element,
    mapping: ScreenMapping,
) -> ScreenMapping {
    let (Some(own), Some(parent)) = (element.bounds, parent.bounds) else {
        return mapping;
    };
    let same_size = (own.width, own.height) == (parent.width, parent.height);
    if element.raw_role != "root pane" || !same_size || (own.x, own.y) == (parent.x, parent.y) {
        return mapping;
    }
    let (dx, dy) = (parent.x - own.x, parent.y - own.y);
    element.bounds = Some(own.offset(dx, dy));
    mapping.shifted(dx, dy)
}

/// A node's children, last first (for a stack), each with the name of the label
/// that labels it by place: in Qt and Java, a nameless field (a Qt spin box
/// without a buddy, a Swing combo box) is named by the label just before it
/// among its siblings, if that label sits left of it on its row or right above
/// it. Other toolkits relate labels to their fields themselves, and their lone
/// labels must not name a neighbour.
///
/// A grid made labels first and fields after (a Qt settings dialog's
/// `QGridLayout`) puts no label just before its field: a nameless field is then
/// named by the nearest label left of it on its row, among all its siblings.
fn children_of(node: &RawNode, quirks: Quirks) -> impl Iterator<Item = (&RawNode, Option<String>)> {
    node.children
        .iter()
        .enumerate()
        .rev()
        .map(move |(i, child)| {
            if !quirks.labels_by_place {
                return (child, None);
            }
            let before = i
                .checked_sub(1)
                .map(|before| &node.children[before])
                .filter(|before| role_name(before.role) == "label")
                .filter(|before| labels_by_place(before.extents, child.extents));
            let label = before
                .or_else(|| {
                    let nameless_field = child.name.trim().is_empty()
                        && Role::from_atspi_name(role_name(child.role)).is_field();
                    nameless_field
                        .then(|| label_on_row(&node.children, child))
                        .flatten()
                })
                .map(|label| clean_name(&label.name, quirks.gtk4))
                .filter(|name| !name.is_empty());
            (child, label)
        })
}

/// The label left of `field` on its row, nearest first, among `siblings`,
/// with no other sibling between them on that row.
fn label_on_row<'n>(siblings: &'n [RawNode], field: &RawNode) -> Option<&'n RawNode> {
    let (fx, fy, _, fh) = field.extents?;
    let on_row = |node: &RawNode| {
        node.extents.and_then(|(x, y, w, h)| {
            let middle = y + h / 2;
            (w > 0 && h > 0 && middle >= fy && middle < fy + fh && x + w <= fx + 1).then_some(x + w)
        })
    };
    let (right, nearest) = siblings
        .iter()
        .filter(|s| !std::ptr::eq(*s, field))
        .filter_map(|s| on_row(s).map(|right| (right, s)))
        .max_by_key(|(right, _)| *right)?;
    (role_name(nearest.role) == "label" && fx - right <= ROW_LABEL_GAP).then_some(nearest)
}

/// How far left of its field a label on the field's row may end.
const ROW_LABEL_GAP: i32 = 200;

/// Whether a label with extents `label` sits where it labels a field with
/// extents `field`: left of it with their rows overlapping, or above it with
/// their columns overlapping, and close (Qt's and Java's forms, web pages).
pub fn labels_by_place(
    label: Option<(i32, i32, i32, i32)>,
    field: Option<(i32, i32, i32, i32)>,
) -> bool {
    const NEAR: i32 = 24;
    let (Some((lx, ly, lw, lh)), Some((fx, fy, fw, fh))) = (label, field) else {
        return false;
    };
    let rows_overlap = ly < fy + fh && fy < ly + lh;
    let columns_overlap = lx < fx + fw && fx < lx + lw;
    let left_of = rows_overlap && lx + lw <= fx + 1 && fx - (lx + lw) <= NEAR;
    let above = columns_overlap && ly + lh <= fy + 1 && fy - (ly + lh) <= NEAR;
    left_of || above
}

fn element_of(raw: &RawNode, quirks: Quirks, mapping: ScreenMapping) -> Element {
    let raw_role = role_name(raw.role);
    let mut states = states::state_set(raw.state_mask);
    let bounds = raw
        .extents
        .and_then(|(x, y, w, h)| Bounds::from_extents(x, y, w, h))
        .map(|b| mapping.bounds(b));
    if quirks.gtk4 && states.contains(State::Visible) && bounds.is_some_and(|b| b.has_area()) {
        states.insert(State::Showing);
    }
    // GTK3 drops a scrolled viewport's SHOWING (and reports no position) while its
    // content stays on screen: a visible viewport counts as shown.
    if raw.role == crate::walk::VIEWPORT && states.contains(State::Visible) {
        states.insert(State::Showing);
    }
    let mut role = Role::from_atspi_name(raw_role);
    if quirks.gtk4 {
        role = class_role(&raw.name, role).unwrap_or(role);
    }
    let secret = raw.secret || raw_role == "password text";
    // Window titles are the app's own text, not widget labels with mnemonics.
    let labels = quirks.gtk4 && !matches!(role, Role::Window | Role::Dialog | Role::Alert);
    let name = match quirks.gtk4 && is_gtk4_role_placeholder(raw.name.trim(), role) {
        true => String::new(),
        false => clean_name(&raw.name, labels),
    };
    Element {
        id: raw
            .id
            .clone()
            .or_else(|| raw.obj.as_ref().map(|obj| obj.element_id()))
            .unwrap_or_else(|| ElementId(String::new())),
        role,
        raw_role: raw_role.to_string(),
        name,
        description: match is_stock_description(raw_role, raw.description.trim()) {
            true => String::new(),
            false => clean_name(&raw.description, false),
        },
        accessible_id: raw.accessible_id.clone(),
        value: if secret { None } else { raw.value.clone() },
        // A placeholder is only what the field shows while it is empty.
        hint: raw
            .hint
            .clone()
            .filter(|_| !secret && raw.value.as_deref().is_none_or(str::is_empty)),
        states,
        bounds,
        secret,
        secret_length: raw.secret_length.filter(|_| secret),
        actionable: raw.actionable,
        actions: raw.actions.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtk4_origin_and_showing_are_applied() {
        let raw = RawNode {
            role: 23, // frame
            state_mask: 1 << 30,
            extents: Some((0, 0, 100, 50)),
            children: vec![RawNode {
                role: 43, // push button
                name: "_OK OK".into(),
                state_mask: 1 << 30,
                extents: Some((10, 10, 20, 20)),
                value: Some("x".into()),
                ..RawNode::default()
            }],
            ..RawNode::default()
        };
        let tree = build_tree(
            &raw,
            Quirks::of_toolkit("GTK", "4.8.3"),
            ScreenMapping::offset((100, 200)),
        );
        let button = tree.element(tree.node(tree.root()).children[0]);
        assert_eq!(button.name, "OK");
        assert_eq!(button.role, Role::Button);
        assert_eq!(
            button.bounds,
            Some(Bounds {
                x: 110,
                y: 210,
                width: 20,
                height: 20
            })
        );
        assert!(button.is_shown());
    }

    fn node(role: u32, name: &str, children: Vec<RawNode>) -> RawNode {
        RawNode {
            role,
            name: name.into(),
            state_mask: 1 << 25 | 1 << 30,
            extents: Some((0, 0, 10, 10)),
            children,
            ..RawNode::default()
        }
    }

    fn printed(tree: &Tree) -> Vec<(Role, String)> {
        tree.descendants(tree.root())
            .into_iter()
            .map(|id| (tree.element(id).role, tree.element(id).name.clone()))
            .collect()
    }

    #[test]
    fn qt_windows_are_windows_and_inner_frames_are_groups() {
        // Qt: a bare QWidget window is a `filler`; a QFrame inside is a `frame`.
        let raw = node(
            20,
            "Palette",
            vec![node(23, "", vec![node(43, "OK", vec![])])],
        );
        let tree = build_tree(
            &raw,
            Quirks::of_toolkit("Qt", "6.4.2"),
            ScreenMapping::IDENTITY,
        );
        assert_eq!(
            printed(&tree),
            [
                (Role::Window, "Palette".to_string()),
                (Role::Group, String::new()),
                (Role::Button, "OK".to_string()),
            ]
        );
    }

    #[test]
    fn a_nameless_field_takes_the_name_of_the_label_before_it() {
        let at = |mut node: RawNode, x, y, w| {
            node.extents = Some((x, y, w, 20));
            node
        };
        let raw = node(
            23,
            "Editor",
            vec![
                at(node(29, "Go to line:", vec![]), 0, 0, 80),
                at(node(52, "", vec![]), 84, 0, 60),
                at(node(29, "Find", vec![]), 0, 30, 40),
                at(node(61, "Search", vec![]), 44, 30, 100),
                at(node(29, "Far away", vec![]), 0, 60, 40),
                at(node(52, "", vec![]), 300, 60, 60),
                at(node(43, "", vec![]), 0, 90, 40),
            ],
        );
        let names = |quirks| -> Vec<String> {
            let tree = build_tree(&raw, quirks, ScreenMapping::IDENTITY);
            printed(&tree).into_iter().map(|(_, n)| n).collect()
        };
        // The spin button beside its label is named; a named field, a field far
        // from its label and a button are left alone.
        assert_eq!(
            names(Quirks::of_toolkit("Qt", "5.15.8")),
            [
                "Editor",
                "Go to line:",
                "Go to line:",
                "Find",
                "Search",
                "Far away",
                "",
                ""
            ]
        );
        // GTK relates its labels itself: a label beside a field names nothing.
        assert_eq!(names(Quirks::of_toolkit("GTK", "3.24.38"))[2], "");
    }

    #[test]
    fn a_gtk4_switch_placeholder_becomes_the_role() {
        let raw = node(23, "Settings", vec![node(7, "GtkSwitch", vec![])]);
        let tree = build_tree(
            &raw,
            Quirks::of_toolkit("GTK", "4.8.3"),
            ScreenMapping::IDENTITY,
        );
        let switch = tree.element(tree.node(tree.root()).children[0]);
        assert_eq!((switch.role, switch.name.as_str()), (Role::Switch, ""));
        assert_eq!(switch.raw_role, "check box");
        assert_eq!(role_name(130), "switch");
        assert_eq!(Role::from_atspi_name(role_name(130)), Role::Switch);
    }

    #[test]
    fn gtk4_tab_placeholders_are_dropped_and_named_tabs_kept() {
        assert_eq!(
            (role_name(37), role_name(38)),
            ("page tab", "page tab list")
        );
        let tabs = || {
            node(
                23,
                "Demo",
                vec![node(
                    38,
                    "Tab list",
                    vec![node(37, "Tab", vec![]), node(37, "Page 2", vec![])],
                )],
            )
        };
        let names = |quirks| {
            printed(&build_tree(&tabs(), quirks, ScreenMapping::IDENTITY))
                .into_iter()
                .map(|(_, name)| name)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(Quirks::of_toolkit("GTK", "4.8.3")),
            ["Demo", "", "", "Page 2"]
        );
        // Only GTK4 names its tabs so: elsewhere "Tab" is an app's own word.
        assert_eq!(
            names(Quirks::of_toolkit("GTK", "3.24.38")),
            ["Demo", "Tab list", "Tab", "Page 2"]
        );
    }

    #[test]
    fn a_libreoffice_root_pane_is_moved_onto_its_parent_with_its_content() {
        // The GTK panel below the menu bar, the root pane 25 px too high, a button.
        let at = |mut node: RawNode, x, y, w, h| {
            node.extents = Some((x, y, w, h));
            node
        };
        let raw = at(
            node(
                23,
                "Untitled 1 - LibreOffice Writer",
                vec![at(
                    node(
                        39,
                        "",
                        vec![at(
                            node(46, "", vec![at(node(43, "Save", vec![]), 149, 52, 44, 35)]),
                            57,
                            50,
                            1805,
                            955,
                        )],
                    ),
                    57,
                    75,
                    1805,
                    955,
                )],
            ),
            57,
            50,
            1805,
            980,
        );
        let boxes = |quirks| -> Vec<(i32, i32)> {
            let tree = build_tree(&raw, quirks, ScreenMapping::IDENTITY);
            tree.descendants(tree.root())
                .into_iter()
                .map(|id| tree.element(id).bounds.map(|b| (b.x, b.y)).unwrap())
                .collect()
        };
        let libreoffice = Quirks::of_application("soffice", "gtk", "3.24.38");
        assert_eq!(
            boxes(libreoffice),
            [(57, 50), (57, 75), (57, 75), (149, 77)]
        );
        // Other GTK apps keep what they report.
        let gtk = Quirks::of_toolkit("gtk", "3.24.38");
        assert_eq!(boxes(gtk), [(57, 50), (57, 75), (57, 50), (149, 52)]);
    }

    #[test]
    fn password_values_never_survive() {
        let raw = RawNode {
            role: 40,
            value: Some("hunter2".into()),
            ..RawNode::default()
        };
        let tree = build_tree(&raw, Quirks::default(), ScreenMapping::IDENTITY);
        assert_eq!(tree.element(tree.root()).value, None);
    }

    #[test]
    fn a_nameless_field_is_named_by_the_label_on_its_row_anywhere_among_its_siblings() {
        let node = |role: u32, name: &str, extents| RawNode {
            role,
            name: name.into(),
            extents: Some(extents),
            ..RawNode::default()
        };
        // Labels first, fields after them (a QGridLayout built so).
        let (label, spin) = (29, 52);
        assert_eq!(
            (role_name(label), role_name(spin)),
            ("label", "spin button")
        );
        let siblings = vec![
            node(label, "Double click interval:", (29, 302, 288, 23)),
            node(label, "Theme:", (29, 369, 288, 22)),
            node(spin, "", (323, 302, 288, 23)),
        ];
        let named = label_on_row(&siblings, &siblings[2]).map(|l| l.name.as_str());
        assert_eq!(named, Some("Double click interval:"));
        // A field between them on the row: no label.
        let blocked = vec![
            node(label, "Far:", (0, 10, 50, 20)),
            node(spin, "", (60, 10, 50, 20)),
            node(spin, "", (120, 10, 50, 20)),
        ];
        assert!(label_on_row(&blocked, &blocked[2]).is_none());
    }

    #[test]
    fn placeholders_are_hints_not_values() {
        let (frame, panel, paragraph, text) = (23, 39, 73, 61);
        assert_eq!(
            [frame, panel, paragraph, text].map(role_name),
            ["frame", "panel", "paragraph", "text"]
        );
        let node = |role: u32, name: &str, value: Option<&str>, children| RawNode {
            role,
            name: name.into(),
            value: value.map(Into::into),
            children,
            ..RawNode::default()
        };
        // Impress: the placeholder is the paragraph's text, in a presentation shape.
        let slide = node(
            frame,
            "Untitled 1 - LibreOffice Impress",
            None,
            vec![
                node(
                    panel,
                    "PresentationTitle ",
                    None,
                    vec![node(paragraph, "", Some("Click to add Title"), vec![])],
                ),
                node(
                    panel,
                    "PresentationOutliner ",
                    None,
                    vec![node(paragraph, "", Some("Real text"), vec![])],
                ),
            ],
        );
        let impress = Quirks::of_application("soffice", "gtk", "3.24.38");
        let tree = build_tree(&slide, impress, ScreenMapping::IDENTITY);
        let paragraphs: Vec<_> = tree
            .descendants(tree.root())
            .into_iter()
            .map(|n| tree.element(n))
            .filter(|e| e.role == Role::Paragraph)
            .map(|e| (e.value.as_deref(), e.hint.as_deref()))
            .collect();
        assert_eq!(
            paragraphs,
            [
                (Some(""), Some("Click to add Title")),
                (Some("Real text"), None)
            ]
        );
        // GTK: the placeholder attribute counts only while the field is empty.
        let field = |value: &str| RawNode {
            hint: Some("Search here".into()),
            ..node(text, "", Some(value), vec![])
        };
        let gtk = Quirks::of_toolkit("gtk", "3.24.38");
        let hint_of = |value| {
            let tree = build_tree(&field(value), gtk, ScreenMapping::IDENTITY);
            tree.element(tree.root()).hint.clone()
        };
        assert_eq!(hint_of("").as_deref(), Some("Search here"));
        assert_eq!(hint_of("typed"), None);
    }
}
