//! Turning raw AT-SPI nodes into axsight elements: role names, states, cleaned names,
//! and bounds in true screen coordinates.

use axsight_core::{Bounds, Element, ElementId, Role, State, Tree};

use crate::states;
use crate::walk::{Quirks, RawNode};

/// The AT-SPI role name of role number `role` (`push button`, `label`).
pub fn role_name(role: u32) -> &'static str {
    match atspi_common::Role::try_from(role).map(|role| role.name()) {
        // atspi-common shortens this one; toolkits and Accerciser say "push button".
        Ok("button") => "push button",
        Ok(name) => name,
        Err(_) => "unknown",
    }
}

/// Cleans a toolkit's name for printing: trims and collapses whitespace, and for GTK4
/// drops mnemonic underscores (`Page _2`), doubled labels (`7 7`, `_OK OK`) and class
/// names given to unlabelled widgets (`GtkEntry`).
///
/// ```
/// use axsight_linux::clean_name;
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

/// Builds a [`Tree`] from a raw subtree. `origin` is added to every extent (the
/// window's screen position for toolkits that report window-relative extents).
pub fn build_tree(raw: &RawNode, quirks: Quirks, origin: (i32, i32)) -> Tree {
    let mut tree = Tree::new(element_of(raw, quirks, origin));
    let mut stack: Vec<_> = raw
        .children
        .iter()
        .rev()
        .map(|child| (tree.root(), child))
        .collect();
    while let Some((parent, node)) = stack.pop() {
        let id = tree.push(parent, element_of(node, quirks, origin));
        stack.extend(node.children.iter().rev().map(|child| (id, child)));
    }
    tree
}

fn element_of(raw: &RawNode, quirks: Quirks, origin: (i32, i32)) -> Element {
    let raw_role = role_name(raw.role);
    let mut states = states::state_set(raw.state_mask);
    let bounds = raw
        .extents
        .and_then(|(x, y, w, h)| Bounds::from_extents(x, y, w, h))
        .map(|b| b.offset(origin.0, origin.1));
    if quirks.gtk4 && states.contains(State::Visible) && bounds.is_some_and(|b| b.has_area()) {
        states.insert(State::Showing);
    }
    // GTK3 drops a scrolled viewport's SHOWING (and reports no position) while its
    // content stays on screen: a visible viewport counts as shown.
    if raw.role == crate::walk::VIEWPORT && states.contains(State::Visible) {
        states.insert(State::Showing);
    }
    let role = Role::from_atspi_name(raw_role);
    let secret = raw.secret || raw_role == "password text";
    // Window titles are the app's own text, not widget labels with mnemonics.
    let labels = quirks.gtk4 && !matches!(role, Role::Window | Role::Dialog | Role::Alert);
    Element {
        id: raw
            .obj
            .as_ref()
            .map(|obj| obj.element_id())
            .unwrap_or_else(|| ElementId(String::new())),
        role,
        raw_role: raw_role.to_string(),
        name: clean_name(&raw.name, labels),
        description: clean_name(&raw.description, false),
        accessible_id: raw.accessible_id.clone(),
        value: if secret { None } else { raw.value.clone() },
        states,
        bounds,
        secret,
        actionable: raw.actionable,
        actions: raw.actions.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_named_by_the_spec() {
        assert_eq!(role_name(40), "password text");
        assert_eq!(role_name(43), "push button");
        assert_eq!(role_name(9999), "unknown");
    }

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
            Quirks {
                gtk4: true,
                exports_ids: false,
                misses_events: false,
            },
            (100, 200),
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

    #[test]
    fn password_values_never_survive() {
        let raw = RawNode {
            role: 40,
            value: Some("hunter2".into()),
            ..RawNode::default()
        };
        let tree = build_tree(&raw, Quirks::default(), (0, 0));
        assert_eq!(tree.element(tree.root()).value, None);
    }
}
