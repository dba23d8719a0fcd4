//! Setting what an element holds: values, options, toggles, and any named action.
//! These go through the accessible interfaces (Value, EditableText, Selection,
//! Action) and so work in background windows too; toggles are clicked like a
//! person would.

use axsight_core::{quote, Engine, EngineError, FailureKind, NodeId, Operation, Role, State, Tree};

use super::pointer::{unanswered_note, ClickOptions};
use super::{is_editable, ActOptions, Session};
use crate::target::Target;
use crate::ToolError;

/// A value to set: text, or a number.
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    Text(String),
    Number(f64),
}

impl NewValue {
    fn number(&self) -> Option<f64> {
        match self {
            NewValue::Number(n) => Some(*n),
            NewValue::Text(t) => t.trim().parse().ok(),
        }
    }

    fn text(&self) -> String {
        match self {
            NewValue::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 1e15 {
                    format!("{}", *n as i64)
                } else {
                    n.to_string()
                }
            }
            NewValue::Text(t) => t.clone(),
        }
    }
}

/// Roles whose value is a number on a range.
fn takes_number(role: Role) -> bool {
    matches!(
        role,
        Role::Slider | Role::SpinButton | Role::ScrollBar | Role::ProgressBar
    )
}

impl<E: Engine> Session<E> {
    /// `set_value`: a number through the element's Value, or text through its
    /// EditableText.
    pub async fn set_value(
        &self,
        target: &Target,
        value: &NewValue,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_set_value(target, value, options).await)
            .await
    }

    async fn do_set_value(
        &self,
        target: &Target,
        value: &NewValue,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let aimed = self.aim(&engine, target).await?;
        let name = self.describe(&aimed);
        let element = aimed.required_element(&name, "")?;
        let before = self
            .before(&engine, Some(aimed.snapshot.clone()), options)
            .await;
        let numeric = takes_number(element.role)
            || element
                .value
                .as_deref()
                .is_some_and(|v| v.parse::<f64>().is_ok())
                && !is_editable(&element);
        let how = match (numeric, value.number()) {
            (true, Some(number)) => {
                engine
                    .perform(&element.id, &Operation::SetValue(number))
                    .await
                    .map_err(ToolError::engine)?;
                "through its accessible value"
            }
            (true, None) => {
                return Err(ToolError::BadArguments(format!(
                    "{name} takes a number; '{}' is not one",
                    value.text()
                )))
            }
            (false, _) if is_editable(&element) => {
                engine
                    .perform(&element.id, &Operation::SetText(value.text()))
                    .await
                    .map_err(ToolError::engine)?;
                "through its editable text"
            }
            (false, _) => {
                return Err(ToolError::CannotAct(format!(
                    "{name} holds no value to set; set_value works on sliders, spin buttons, scroll bars and text fields (use select_option for combo boxes and lists)"
                )))
            }
        };
        let shown = if element.is_secret() {
            "the secret".to_string()
        } else {
            quote(&value.text())
        };
        let what = format!("set {name} to {shown} {how}");
        Ok(self.answer(&engine, what, before, options).await?.text())
    }

    /// `select_option`: selects the item named `option` in a combo box, list, tab
    /// list or tree.
    pub async fn select_option(
        &self,
        target: &Target,
        option: &str,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_select_option(target, option, options).await)
            .await
    }

    async fn do_select_option(
        &self,
        target: &Target,
        option: &str,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        if option.trim().is_empty() {
            return Err(ToolError::BadArguments(
                "give the option's visible text in `option`".into(),
            ));
        }
        let engine = self.engine().await?;
        let aimed = self.aim(&engine, target).await?;
        let name = self.describe(&aimed);
        let Some(node) = aimed.node else {
            return Err(ToolError::CannotAct(format!("no element at {name}")));
        };
        let id = aimed.snapshot.tree.element(node).id.clone();
        // A closed combo box's items are hidden: read them too.
        let full = self
            .read_for_acting(&engine, &aimed.window_id(), true, None)
            .await?;
        let container = full
            .tree
            .find(&id)
            .ok_or_else(|| ToolError::CannotAct(format!("{name} went away")))?;
        let found = find_option(&full.tree, container, option).ok_or_else(|| {
            ToolError::CannotAct(format!(
                "{name} has no option '{option}'; {}",
                option_list(&full.tree, container, option)
            ))
        })?;
        let item = full.tree.element(found);
        let is_combo = full.tree.element(container).role == Role::ComboBox;
        // Only a combo box that shows its current option (Qt's, as its value) can
        // be checked afterwards; GTK3's keeps its label as its name.
        let checkable = is_combo && shows_an_option(&full.tree, container);
        let parent = full.tree.node(found).parent.unwrap_or(container);
        let index_in_parent = full
            .tree
            .node(parent)
            .children
            .iter()
            .position(|&c| c == found)
            .unwrap_or(0);
        let mut tries: Vec<(axsight_core::ElementId, Operation, &str)> = Vec::new();
        if is_combo {
            // A combo box selects by its item's index in its popup.
            tries.push((
                id.clone(),
                Operation::SelectChild(index_in_parent),
                "the combo box's selection",
            ));
        }
        if parent != container || tries.is_empty() {
            tries.push((
                full.tree.element(parent).id.clone(),
                Operation::SelectChild(index_in_parent),
                "its list's selection",
            ));
        }
        if let Some(action) = axsight_core::click_action(item) {
            tries.push((
                item.id.clone(),
                Operation::Action(action.to_string()),
                "the option's action",
            ));
        }
        let mut failures = Vec::new();
        for (element, operation, how) in tries {
            let before = self
                .before(&engine, Some(aimed.snapshot.clone()), options)
                .await;
            match engine.perform(&element, &operation).await {
                Ok(performed) => {
                    let what = format!(
                        "selected '{}' in {name} through {how}{}",
                        item.name,
                        unanswered_note(performed)
                    );
                    let answered = self.answer(&engine, what, before, options).await?;
                    // A way the toolkit accepts but ignores (Qt's closed combo box
                    // takes an item's action and stays as it was) is no selection.
                    let shown = match answered.after.as_ref() {
                        Some(_) => shows_option(&answered, &id, &item.name),
                        // No diff asked for (a sequence's step): read it anyway.
                        None if checkable => {
                            let now = self
                                .read_for_acting(&engine, &aimed.window_id(), false, None)
                                .await?;
                            now.tree
                                .find(&id)
                                .map(|node| element_shows(now.tree.element(node), &item.name))
                        }
                        None => None,
                    };
                    if checkable && shown == Some(false) {
                        failures.push(format!("{how}: the combo box did not change"));
                        continue;
                    }
                    return Ok(answered.text());
                }
                // Unanswered may still have worked: trying another way could
                // select twice.
                Err(error) if error.kind() == FailureKind::NotAnswering => {
                    return Err(ToolError::engine(error))
                }
                Err(error) => failures.push(format!("{how}: {error}")),
            }
        }
        if checkable {
            let option_name = item.name.clone();
            return self
                .select_by_pointer(&engine, aimed, &option_name, &failures, options)
                .await;
        }
        Err(ToolError::CannotAct(format!(
            "could not select '{}' in {name} ({}); try click_element on the combo box, then on the option",
            item.name,
            failures.join("; ")
        )))
    }

    /// Selects `option` in the combo box `aimed` as a person would: a click opens
    /// it, a click on the option once it shows chooses it. For when the accessible
    /// ways (`failed`) were refused or ignored.
    async fn select_by_pointer(
        &self,
        engine: &E,
        mut aimed: crate::target::Aimed,
        option: &str,
        failed: &[String],
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let name = self.describe(&aimed);
        let combo = aimed.required_element(&name, "")?.id;
        let refused = || failed.join("; ");
        let at = match self.pointer_way(engine, &mut aimed, false).await? {
            Ok(at) => at,
            Err(why) => {
                return Err(ToolError::CannotAct(format!(
                    "could not select '{option}' in {name} ({}), and it cannot be clicked: {why}",
                    refused()
                )))
            }
        };
        let before = self
            .before(engine, Some(aimed.snapshot.clone()), options)
            .await;
        self.bring_forward(engine, &aimed).await?;
        let click = ClickOptions {
            count: 1,
            ..ClickOptions::default()
        };
        self.send_click(engine, at, &click, None).await?;
        // The popup shows its options after the click has been handled.
        let deadline = std::time::Instant::now() + options.timeout;
        let mut mark = engine.mark().await;
        let shown = loop {
            let now = self
                .read_for_acting(engine, &aimed.window_id(), false, None)
                .await?;
            let point = now
                .tree
                .find(&combo)
                .and_then(|node| find_option(&now.tree, node, option))
                .and_then(|found| now.tree.element(found).bounds)
                .filter(|b| b.has_area());
            if let Some(bounds) = point {
                break bounds;
            }
            if std::time::Instant::now() > deadline {
                return Err(ToolError::CannotAct(format!(
                    "could not select '{option}' in {name} ({}); clicked it open, but the option never showed",
                    refused()
                )));
            }
            mark = engine
                .next_event(mark, std::time::Duration::from_millis(200))
                .await;
        };
        let (x, y) = shown.center();
        self.send_click(engine, axsight_core::Point { x, y }, &click, None)
            .await?;
        let what = format!(
            "selected '{option}' in {name} with the pointer (opened it, clicked the option at ({x}, {y})), as the accessible ways did nothing ({})",
            refused()
        );
        Ok(self.answer(engine, what, before, options).await?.text())
    }

    /// `set_toggled`: checks or unchecks a check box or toggle button, pressing
    /// nothing when it already is as wanted.
    pub async fn set_toggled(
        &self,
        target: &Target,
        wanted: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_set_toggled(target, wanted, options).await)
            .await
    }

    async fn do_set_toggled(
        &self,
        target: &Target,
        wanted: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let mut aimed = self.aim(&engine, target).await?;
        let name = self.describe(&aimed);
        let element = aimed.required_element(&name, "")?;
        let word = |on: bool| if on { "on" } else { "off" };
        if !is_toggle(&element) {
            return Err(ToolError::CannotAct(format!(
                "{name} is not a check box or toggle (it cannot be checked); use click_element"
            )));
        }
        if is_on(&element.states) == wanted {
            return Ok(format!(
                "{name} is already {}: pressed nothing\nno change\n",
                word(wanted)
            ));
        }
        let way = self.pointer_way(&engine, &mut aimed, false).await?;
        let before = self
            .before(&engine, Some(aimed.snapshot.clone()), options)
            .await;
        let click = ClickOptions::default();
        let what = self.click_aimed(&engine, &aimed, way, &click).await?;
        let what = format!("turned {name} {} ({what})", word(wanted));
        let mut answered = self.answer(&engine, what, before, options).await?;
        let after = match answered.after.take() {
            Some(after) => Some(after),
            // Without a diff there is no read after: read for the check alone.
            None => self
                .read_for_acting(&engine, &aimed.window_id(), false, None)
                .await
                .ok(),
        };
        let now = after.as_ref().and_then(|s| {
            s.tree
                .find(&element.id)
                .map(|n| is_on(&s.tree.element(n).states))
        });
        answered.checks.push(match now {
            Some(now) if now == wanted => format!("check: it is {}", word(now)),
            Some(now) => format!("check: MISMATCH: it is still {}", word(now)),
            None => "check: could not read it back".into(),
        });
        Ok(answered.text())
    }

    /// `invoke_action`: runs any action the element lists, by name.
    pub async fn invoke_action(
        &self,
        target: &Target,
        action: &str,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_invoke_action(target, action, options).await)
            .await
    }

    async fn do_invoke_action(
        &self,
        target: &Target,
        action: &str,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let aimed = self.aim(&engine, target).await?;
        let name = self.describe(&aimed);
        let element = aimed.required_element(&name, "")?;
        let before = self
            .before(&engine, Some(aimed.snapshot.clone()), options)
            .await;
        let performed = engine
            .perform(&element.id, &Operation::Action(action.trim().to_string()))
            .await
            .map_err(ToolError::engine)?;
        let what = format!(
            "invoked '{}' on {name}{}",
            action.trim(),
            unanswered_note(performed)
        );
        Ok(self.answer(&engine, what, before, options).await?.text())
    }
}

/// Whether the combo box at `combo` shows one of its options as its value or name.
fn shows_an_option(tree: &Tree, combo: NodeId) -> bool {
    let element = tree.element(combo);
    [
        element.value.as_deref().unwrap_or(""),
        element.name.as_str(),
    ]
    .into_iter()
    .filter(|text| !text.trim().is_empty())
    .any(|text| {
        find_option(tree, combo, text).is_some_and(|n| {
            tree.element(n)
                .name
                .trim()
                .eq_ignore_ascii_case(text.trim())
        })
    })
}

/// Whether the combo box `combo`, as read after an action, shows `option` (as its
/// value or its name); `None` when the answer holds no read of it.
fn shows_option(
    answered: &super::Answered,
    combo: &axsight_core::ElementId,
    option: &str,
) -> Option<bool> {
    let after = answered.after.as_ref()?;
    Some(element_shows(
        after.tree.element(after.tree.find(combo)?),
        option,
    ))
}

/// Whether a combo box shows `option` as its value (or its name).
fn element_shows(element: &axsight_core::Element, option: &str) -> bool {
    let same = |text: &str| text.trim().eq_ignore_ascii_case(option.trim());
    element.value.as_deref().is_some_and(same) || same(&element.name)
}

/// Whether an element can be checked: a check box, switch, toggle or radio button, a
/// checkable menu item, or anything that says it is checkable.
fn is_toggle(element: &axsight_core::Element) -> bool {
    matches!(
        element.role,
        Role::CheckBox
            | Role::Switch
            | Role::ToggleButton
            | Role::RadioButton
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    ) || element.states.contains(State::Checkable)
}

/// Whether a toggle is on: checked, or pressed for toggle buttons.
fn is_on(states: &axsight_core::StateSet) -> bool {
    states.contains(State::Checked) || states.contains(State::Pressed)
}

/// The item under `container` named `option`: an exact name first (any case),
/// then one that contains it.
fn find_option(tree: &Tree, container: NodeId, option: &str) -> Option<NodeId> {
    let want = option.trim().to_lowercase();
    let items: Vec<NodeId> = tree
        .descendants(container)
        .into_iter()
        .filter(|&n| n != container && !tree.element(n).name.trim().is_empty())
        .collect();
    let name = |n: NodeId| tree.element(n).name.trim().to_lowercase();
    items
        .iter()
        .copied()
        .find(|&n| name(n) == want)
        .or_else(|| items.iter().copied().find(|&n| name(n).contains(&want)))
}

/// The names of the items under `container`, for an error message.
/// How many options there shown: `its 3 options: Red, Green, Blue`, all
/// of them up to [`LISTED_OPTIONS`] (else the first ones, and how many in all),
/// then the ones closest to `wanted` (`; closest: Green`).
fn option_list(tree: &Tree, container: NodeId, wanted: &str) -> String {
    let names: Vec<String> = tree
        .descendants(container)
        .into_iter()
        .filter(|&n| n != container)
        .map(|n| tree.element(n).name.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    let listed = names
        .iter()
        .take(LISTED_OPTIONS)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = match names.len() {
        0 => return "it shows no options".into(),
        1 => format!("its one option: {listed}"),
        n if n <= LISTED_OPTIONS => format!("its {n} options: {listed}"),
        n => format!("its first {LISTED_OPTIONS} of {n} options: {listed}"),
    };
    // Names that hold what was asked, then those spelt nearly so.
    let lower = wanted.trim().to_lowercase();
    let mut closest: Vec<&str> = names
        .iter()
        .filter(|n| n.to_lowercase().contains(&lower) || lower.contains(&n.to_lowercase()))
        .map(String::as_str)
        .take(3)
        .collect();
    for near in axsight_core::close_matches(wanted, names.iter().map(String::as_str)) {
        if closest.len() < 3 && !closest.contains(&near) {
            closest.push(near);
        }
    }
    if !closest.is_empty() {
        out.push_str(&format!("; closest: {}", closest.join(", ")));
    }
    out
}

/// How many options a refusal lists.
const LISTED_OPTIONS: usize = 30;

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Element;

    #[test]
    fn options_match_exactly_before_by_substring() {
        let mut tree = Tree::new(Element::new("c", Role::ComboBox, "combo box"));
        let menu = tree.push(tree.root(), Element::new("m", Role::Menu, "menu"));
        for (id, name) in [("a", "Dark red"), ("b", "Red"), ("g", "Green")] {
            let mut item = Element::new(id, Role::MenuItem, "menu item");
            item.name = name.into();
            tree.push(menu, item);
        }
        let found =
            |want| find_option(&tree, tree.root(), want).map(|n| tree.element(n).name.clone());
        assert_eq!(found("red").as_deref(), Some("Red"));
        assert_eq!(found("GRE").as_deref(), Some("Green"));
        assert_eq!(found("blue"), None);
        assert_eq!(
            option_list(&tree, tree.root(), "Gren"),
            "its 3 options: Dark red, Red, Green; closest: Green"
        );
        assert_eq!(
            option_list(&tree, tree.root(), "red wine"),
            "its 3 options: Dark red, Red, Green; closest: Red"
        );
    }

    #[test]
    fn new_values_read_as_numbers_or_text() {
        assert_eq!(NewValue::Text(" 42.5 ".into()).number(), Some(42.5));
        assert_eq!(NewValue::Number(30.0).text(), "30");
        assert_eq!(NewValue::Text("abc".into()).number(), None);
    }
}
