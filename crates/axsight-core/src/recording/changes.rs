//! What two reads of one window show a person did, for a desktop where their
//! input cannot be watched (a Wayland compositor shows no program another's):
//! a field's text, a check box's mark, a combo box's choice, a radio button or
//! tab picked, and a control that took the focus while something else changed
//! (a click, most likely: GTK and Qt buttons take the focus when clicked, and a
//! click does something; Tab moving through them does nothing else).

use crate::{NodeId, Role, State, Tree};

/// A change between two reads of one window, at a node of the later read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeenChange {
    /// A text field holds other text (a secret: another number of characters).
    Text(NodeId),
    /// A check box or toggle button turned on or off.
    Checked(NodeId, bool),
    /// A combo box shows another option.
    Chosen(NodeId, String),
    /// A radio button, tab or list item became the chosen one.
    Picked(NodeId),
    /// A control took the focus while something else changed too.
    Clicked(NodeId),
}

/// The changes from `before` to `after` (two reads of one window), in the
/// later read's document order.
///
/// ```
/// use axsight_core::{seen_changes, Element, Role, SeenChange, State, Tree};
/// let mut before = Tree::new(Element::new("w", Role::Window, "frame"));
/// let mut remember = Element::new("c", Role::CheckBox, "check box");
/// remember.name = "Remember me".into();
/// before.push(before.root(), remember.clone());
/// let mut after = Tree::new(Element::new("w", Role::Window, "frame"));
/// remember.states.insert(State::Checked);
/// let node = after.push(after.root(), remember);
/// assert_eq!(seen_changes(&before, &after), [SeenChange::Checked(node, true)]);
/// ```
pub fn seen_changes(before: &Tree, after: &Tree) -> Vec<SeenChange> {
    let earlier: std::collections::HashMap<&str, NodeId> = before
        .descendants(before.root())
        .into_iter()
        .map(|node| (before.element(node).id.0.as_str(), node))
        .collect();
    let mut changes = Vec::new();
    let mut focused = None;
    for node in after.descendants(after.root()) {
        let now = after.element(node);
        let Some(&old) = earlier.get(now.id.0.as_str()) else {
            continue;
        };
        let then = before.element(old);
        let has = |state| now.states.contains(state);
        let had = |state| then.states.contains(state);
        match now.role {
            Role::CheckBox | Role::ToggleButton if has(State::Checked) != had(State::Checked) => {
                changes.push(SeenChange::Checked(node, has(State::Checked)));
            }
            Role::RadioButton if has(State::Checked) && !had(State::Checked) => {
                changes.push(SeenChange::Picked(node));
            }
            Role::TabItem | Role::ListItem if has(State::Selected) && !had(State::Selected) => {
                changes.push(SeenChange::Picked(node));
            }
            Role::ComboBox if !has(State::Editable) && now.value != then.value => {
                if let Some(value) = now.value.clone().filter(|v| !v.is_empty()) {
                    changes.push(SeenChange::Chosen(node, value));
                }
            }
            // GTK 3's names itself by its choice, and holds no value.
            Role::ComboBox
                if !has(State::Editable)
                    && now.value.is_none()
                    && now.name != then.name
                    && !now.name.trim().is_empty() =>
            {
                changes.push(SeenChange::Chosen(node, now.name.trim().to_string()));
            }
            Role::Edit | Role::ComboBox | Role::SpinButton
                if now.value != then.value || now.secret_length != then.secret_length =>
            {
                changes.push(SeenChange::Text(node));
            }
            Role::Button | Role::MenuItem | Role::Link
                if has(State::Focused) && !had(State::Focused) =>
            {
                focused = Some(node);
            }
            _ => {}
        }
    }
    // Focus alone is Tab at work; with something else changed, a click.
    let others = changes
        .iter()
        .any(|change| !matches!(change, SeenChange::Text(_)))
        || changed_elsewhere(before, after, focused);
    if let (Some(node), true) = (focused, others) {
        changes.insert(0, SeenChange::Clicked(node));
    }
    changes
}

/// Whether a name or the number of elements changed, beside the focus.
fn changed_elsewhere(before: &Tree, after: &Tree, focused: Option<NodeId>) -> bool {
    if focused.is_none() {
        return false;
    }
    if before.len() != after.len() {
        return true;
    }
    let names = |tree: &Tree| -> Vec<String> {
        tree.descendants(tree.root())
            .into_iter()
            .map(|node| tree.element(node).name.clone())
            .collect()
    };
    names(before) != names(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Element;

    fn element(id: &str, role: Role, name: &str) -> Element {
        let mut e = Element::new(id, role, "raw");
        e.name = name.into();
        e
    }

    fn window(children: &[Element]) -> (Tree, Vec<NodeId>) {
        let mut tree = Tree::new(element("w", Role::Window, "Form"));
        let nodes = children
            .iter()
            .map(|child| tree.push(tree.root(), child.clone()))
            .collect();
        (tree, nodes)
    }

    #[test]
    fn a_field_a_combo_box_and_a_radio_button_changed() {
        let mut name = element("n", Role::Edit, "Name");
        name.value = Some(String::new());
        let mut colour = element("c", Role::ComboBox, "Colour");
        colour.value = Some("Red".into());
        let small = element("s", Role::RadioButton, "Small");
        let (before, _) = window(&[name.clone(), colour.clone(), small.clone()]);
        name.value = Some("Ada".into());
        colour.value = Some("Blue".into());
        let mut small = small;
        small.states.insert(State::Checked);
        let (after, nodes) = window(&[name, colour, small]);
        assert_eq!(
            seen_changes(&before, &after),
            [
                SeenChange::Text(nodes[0]),
                SeenChange::Chosen(nodes[1], "Blue".into()),
                SeenChange::Picked(nodes[2]),
            ]
        );
    }

    #[test]
    fn a_button_that_took_the_focus_is_clicked_only_when_something_else_changed() {
        let count = element("b", Role::Button, "Count");
        let (before, _) = window(std::slice::from_ref(&count));
        let mut focused = count.clone();
        focused.states.insert(State::Focused);
        // Tab reached it: nothing else happened.
        let (tabbed, _) = window(&[focused.clone()]);
        assert_eq!(seen_changes(&before, &tabbed), []);
        // Clicked: it renamed itself.
        focused.name = "Count 1".into();
        let (clicked, nodes) = window(&[focused]);
        assert_eq!(
            seen_changes(&before, &clicked),
            [SeenChange::Clicked(nodes[0])]
        );
    }

    #[test]
    fn a_combo_box_named_by_its_choice_tells_it_by_its_name() {
        let colour = element("c", Role::ComboBox, "Red");
        let (before, _) = window(std::slice::from_ref(&colour));
        let (after, nodes) = window(&[element("c", Role::ComboBox, "Blue")]);
        assert_eq!(
            seen_changes(&before, &after),
            [SeenChange::Chosen(nodes[0], "Blue".into())]
        );
    }

    #[test]
    fn a_secret_field_is_told_by_its_length() {
        let mut password = element("p", Role::Edit, "Password");
        password.secret = true;
        password.secret_length = Some(3);
        let (before, _) = window(&[password.clone()]);
        password.secret_length = Some(9);
        let (after, nodes) = window(&[password]);
        assert_eq!(seen_changes(&before, &after), [SeenChange::Text(nodes[0])]);
    }
}
