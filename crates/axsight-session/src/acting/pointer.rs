//! Clicks, drags and scrolls: real pointer input where it reaches the element, the
//! element's accessible way where it does not (a covered window, no box on screen,
//! or a caller who asks for the background).

use axsight_core::{
    click_action, clickable_point, Engine, Expecting, Input, Modifier, MouseButton, NodeId,
    Operation, Performed, Point, Role, ScrollDirection, State,
};

use super::{ActOptions, Session};
use crate::target::{Aimed, Target};
use crate::ToolError;

/// How to click: by default one left click, the way that fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClickOptions {
    pub button: MouseButton,
    /// 1 for a single click, 2 for a double click.
    pub count: u8,
    pub modifiers: Vec<Modifier>,
    /// Use the accessible action even where the pointer could click.
    pub background: bool,
}

impl Default for ClickOptions {
    fn default() -> ClickOptions {
        ClickOptions {
            button: MouseButton::Left,
            count: 1,
            modifiers: Vec::new(),
            background: false,
        }
    }
}

impl ClickOptions {
    /// Whether only a real pointer can give this click.
    fn needs_pointer(&self) -> bool {
        self.button != MouseButton::Left || self.count > 1 || !self.modifiers.is_empty()
    }

    fn verb(&self) -> String {
        let mut verb = String::new();
        for modifier in &self.modifiers {
            verb.push_str(&format!("{modifier}+"));
        }
        verb.push_str(match (self.count > 1, self.button) {
            (true, _) => "double-clicked",
            (false, MouseButton::Right) => "right-clicked",
            (false, MouseButton::Middle) => "middle-clicked",
            (false, MouseButton::Left) => "clicked",
        });
        verb
    }
}

/// A click's answer and a slow reference's (see
/// [`Session::click_against_reference`]).
#[derive(Debug, Clone)]
pub struct AgainstReference {
    /// The answer `click_element` gives.
    pub fast: String,
    /// How long it took, from aiming to the answer.
    pub fast_took: std::time::Duration,
    /// The answer once the reference's time more had passed.
    pub slow: String,
}

impl AgainstReference {
    /// Whether both say the same, but for their first lines (which say how
    /// long settling took).
    pub fn agree(&self) -> bool {
        let body = |text: &str| text.split_once('\n').map(|(_, rest)| rest.to_string());
        body(&self.fast) == body(&self.slow)
    }
}

/// What `click` on the aimed element is expected to do: only a plain left
/// click is known ([`Expecting::of_click`]).
fn expected_of(aimed: &Aimed, click: &ClickOptions) -> Expecting {
    match aimed.element() {
        Some(element)
            if click.count == 1
                && click.button == MouseButton::Left
                && click.modifiers.is_empty() =>
        {
            Expecting::of_click(element.role)
        }
        _ => Expecting::Unknown,
    }
}

/// Where real pointer input can go, or why it cannot.
pub(crate) type PointerWay = Result<Point, String>;

impl<E: Engine> Session<E> {
    /// `click_element`: clicks the target and answers with what changed.
    pub async fn click(
        &self,
        target: &Target,
        click: &ClickOptions,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_click(target, click, options).await)
            .await
    }

    async fn do_click(
        &self,
        target: &Target,
        click: &ClickOptions,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        // Whether the element was enabled when last read, before this aim
        // reads it again.
        let was_enabled = |id: &axsight_core::ElementId| {
            self.fingerprints
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(id)
                .map(|f| !f.disabled)
        };
        let enabled_before = match target {
            Target::Handle(handle) => self
                .tree_handle(handle)
                .ok()
                .and_then(|(_, id, _)| was_enabled(&id)),
            _ => None,
        };
        let mut aimed = match self.aim(&engine, target).await {
            Ok(aimed) => aimed,
            Err(error) => return self.click_blind(&engine, target, click, error).await,
        };
        // A disabled control may ignore the click: the answer says so, so that
        // a quiet diff is not read as a click that did nothing for no reason.
        let disabled = aimed.element().is_some_and(|e| e.is_disabled());
        // One the app disabled since the agent last saw it (KeePassXC's Save,
        // after it saved by itself) says so: the last answer showed it enabled.
        let disabled_since = disabled && enabled_before == Some(true);
        let (what, before) = self
            .click_noted(&engine, &mut aimed, click, options)
            .await?;
        let mut answered = self.answer(&engine, what, before, options).await?;
        if disabled {
            let since = match disabled_since {
                true => " (the app disabled it after the last answer, which showed it enabled)",
                false => "",
            };
            answered.checks.push(format!(
                "check: it is disabled{since}, so the app may have ignored the click (the diff \
                 says what changed)"
            ));
        }
        Ok(answered.text())
    }

    /// Notes what is there, clicks the aimed element the way that fits, and
    /// says how: the click's line and what to diff against.
    async fn click_noted(
        &self,
        engine: &E,
        aimed: &mut Aimed,
        click: &ClickOptions,
        options: &ActOptions,
    ) -> Result<(String, super::Before), ToolError> {
        let way = self.pointer_way(engine, aimed, click.background).await?;
        let mut before = self
            .before(engine, Some(aimed.snapshot.clone()), options)
            .await;
        before.expecting = expected_of(aimed, click);
        before.aiming_at(aimed);
        before.tells_caret = aimed.element().is_some_and(crate::session::holds_text);
        before.pointer = way.as_ref().ok().copied();
        let what = self.click_aimed(engine, aimed, way, click).await?;
        Ok((what, before))
    }

    /// `click` as [`Session::click`] answers it, and the same click's answer
    /// as a slow reference gives it: the same "before" compared with the
    /// windows once `reference` more has passed. For measuring that settling
    /// ends no sooner than the UI does (`axsight bench settle`).
    pub async fn click_against_reference(
        &self,
        target: &Target,
        click: &ClickOptions,
        options: &ActOptions,
        reference: std::time::Duration,
    ) -> Result<AgainstReference, ToolError> {
        let start = std::time::Instant::now();
        let engine = self.engine().await?;
        let mut aimed = self.aim(&engine, target).await?;
        let (what, before) = self
            .click_noted(&engine, &mut aimed, click, options)
            .await?;
        let fast = self
            .answer(&engine, what.clone(), before.clone(), options)
            .await?
            .text();
        let fast_took = start.elapsed();
        tokio::time::sleep(reference).await;
        let slow = self.answer(&engine, what, before, options).await?.text();
        Ok(AgainstReference {
            fast,
            fast_took,
            slow,
        })
    }

    /// A point where no readable window lies — none that is accessible, or one
    /// whose app answers no call (a modal dialog run inside an action) — is
    /// still clicked: the pointer needs no tree. Any other failure to aim stands.
    async fn click_blind(
        &self,
        engine: &E,
        target: &Target,
        click: &ClickOptions,
        error: ToolError,
    ) -> Result<String, ToolError> {
        let Target::Point(at) = target else {
            return Err(error);
        };
        if !error.leaves_point_blind() {
            return Err(error);
        }
        // Raised first, as for any click; a desktop with nothing there is fine.
        let _ = engine.activate_window_at(*at).await;
        self.send_click(engine, *at, click, None).await?;
        Ok(format!(
            "{} at ({}, {}) with the pointer; no diff, since no window there can be read ({error})\n",
            click.verb(),
            at.x,
            at.y
        ))
    }

    /// Sends one click (of `click`'s button, count and modifiers) at `at`, on
    /// `control` when it is known (see `Aimed::control`).
    pub(crate) async fn send_click(
        &self,
        engine: &E,
        at: Point,
        click: &ClickOptions,
        control: Option<u64>,
    ) -> Result<(), ToolError> {
        engine
            .send_input(&Input::Click {
                at,
                button: click.button,
                count: click.count.max(1),
                modifiers: click.modifiers.clone(),
                control,
            })
            .await
            .map_err(ToolError::engine)?;
        *self.pointer.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
        Ok(())
    }

    /// Clicks an element already aimed at, the way `way` allows; says how.
    pub(crate) async fn click_aimed(
        &self,
        engine: &E,
        aimed: &Aimed,
        way: PointerWay,
        click: &ClickOptions,
    ) -> Result<String, ToolError> {
        let name = self.describe(aimed);
        let verb = click.verb();
        match way {
            Ok(at) => {
                self.bring_forward(engine, aimed).await?;
                self.send_click(engine, at, click, aimed.control()).await?;
                Ok(format!(
                    "{verb} {name} with the pointer at ({}, {})",
                    at.x, at.y
                ))
            }
            Err(why) => {
                if click.needs_pointer() {
                    return Err(ToolError::CannotAct(format!(
                        "cannot have {verb} {name}: only the pointer can, and {why}"
                    )));
                }
                let element = aimed
                    .element()
                    .ok_or_else(|| ToolError::CannotAct(format!("cannot click {name}: {why}")))?;
                let action = click_action(element).ok_or_else(|| {
                    ToolError::CannotAct(format!(
                        "cannot click {name}: {why}, and it has no action to click with (actions: {})",
                        list_or_none(&element.actions)
                    ))
                })?;
                let action = action.to_string();
                let performed = engine
                    .perform(&element.id, &Operation::Action(action.clone()))
                    .await
                    .map_err(ToolError::engine)?;
                Ok(format!(
                    "{verb} {name} through its accessible action '{action}' ({why}){}",
                    unanswered_note(performed)
                ))
            }
        }
    }

    /// Where the pointer can click the aimed element, scrolling it into view first
    /// if needed; or why it cannot (then the accessible way is used).
    pub(crate) async fn pointer_way(
        &self,
        engine: &E,
        aimed: &mut Aimed,
        background: bool,
    ) -> Result<PointerWay, ToolError> {
        if background {
            return Ok(Err("the background way was asked for".into()));
        }
        // A point is clicked where it is, whatever window lies on top there.
        if let Some(point) = aimed.point {
            return Ok(Ok(point));
        }
        let point = match aimed.node {
            Some(node) => self.visible_point(engine, aimed, node).await?,
            None => None,
        };
        let Some(point) = point else {
            return Ok(Err("it has no visible box on screen".into()));
        };
        match engine.input_reaches(&aimed.window_id(), point).await {
            Ok(true) => Ok(Ok(point)),
            Ok(false) => Ok(Err("another window covers it there".into())),
            Err(error) => Ok(Err(format!(
                "whether the pointer reaches it could not be told ({error})"
            ))),
        }
    }

    /// The element's visible centre, after scrolling it into view when it is
    /// out of sight.
    async fn visible_point(
        &self,
        engine: &E,
        aimed: &mut Aimed,
        node: NodeId,
    ) -> Result<Option<Point>, ToolError> {
        if let Some(point) = clickable_point(&aimed.snapshot.tree, node) {
            return Ok(Some(point));
        }
        let id = aimed.snapshot.tree.element(node).id.clone();
        // Only a hidden element inside a drawn window can come into view.
        let mark = engine.mark().await;
        if engine
            .perform(&id, &Operation::ScrollIntoView)
            .await
            .is_err()
        {
            return Ok(None);
        }
        settle_briefly(engine, &aimed.window_id(), mark).await;
        let snapshot = self
            .read_for_acting(engine, &aimed.window_id(), false, None)
            .await?;
        let Some(node) = snapshot.tree.find(&id) else {
            return Ok(None);
        };
        let point = clickable_point(&snapshot.tree, node);
        aimed.snapshot = snapshot;
        aimed.node = Some(node);
        Ok(point)
    }

    /// `mouse_drag`: presses at `from`, moves to `to`, releases.
    pub async fn drag(
        &self,
        from: &Target,
        to: &Target,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_drag(from, to, options).await).await
    }

    async fn do_drag(
        &self,
        from: &Target,
        to: &Target,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let mut start = self.aim(&engine, from).await?;
        let mut end = self.aim(&engine, to).await?;
        let from_point = self
            .pointer_way(&engine, &mut start, false)
            .await?
            .map_err(|why| ToolError::CannotAct(format!("cannot drag from there: {why}")))?;
        let to_point = match end.point {
            Some(point) => point,
            None => self
                .pointer_way(&engine, &mut end, false)
                .await?
                .map_err(|why| ToolError::CannotAct(format!("cannot drag to there: {why}")))?,
        };
        let before = self
            .before(&engine, Some(start.snapshot.clone()), options)
            .await;
        self.bring_forward(&engine, &start).await?;
        engine
            .send_input(&Input::Drag {
                from: from_point,
                to: to_point,
                button: axsight_core::MouseButton::Left,
            })
            .await
            .map_err(ToolError::engine)?;
        let what = format!(
            "dragged from {} ({}, {}) to {} ({}, {})",
            self.describe(&start),
            from_point.x,
            from_point.y,
            self.describe(&end),
            to_point.x,
            to_point.y
        );
        Ok(self.answer(&engine, what, before, options).await?.text())
    }

    /// `scroll_element`: wheel notches over the element, or its scroll bar moved
    /// through the accessible Value where the pointer cannot reach.
    pub async fn scroll(
        &self,
        target: &Target,
        direction: ScrollDirection,
        amount: u32,
        background: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(
            self.do_scroll(target, direction, amount, background, options)
                .await,
        )
        .await
    }

    async fn do_scroll(
        &self,
        target: &Target,
        direction: ScrollDirection,
        amount: u32,
        background: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let mut aimed = self.aim(&engine, target).await?;
        let amount = amount.clamp(1, 100);
        let name = self.describe(&aimed);
        let way = self.pointer_way(&engine, &mut aimed, background).await?;
        let before = self
            .before(&engine, Some(aimed.snapshot.clone()), options)
            .await;
        let what = match way {
            Ok(at) => {
                self.bring_forward(&engine, &aimed).await?;
                engine
                    .send_input(&Input::Scroll {
                        at,
                        direction,
                        amount,
                    })
                    .await
                    .map_err(ToolError::engine)?;
                format!("scrolled {name} {direction} by {amount} with the wheel")
            }
            Err(why) => {
                let bar = scroll_bar_for(&aimed, direction).ok_or_else(|| {
                    ToolError::CannotAct(format!(
                        "cannot scroll {name}: {why}, and it has no scroll bar to move"
                    ))
                })?;
                let sign = match direction {
                    ScrollDirection::Up | ScrollDirection::Left => -1.0,
                    ScrollDirection::Down | ScrollDirection::Right => 1.0,
                };
                let bar_id = aimed.snapshot.tree.element(bar).id.clone();
                engine
                    .perform(
                        &bar_id,
                        &Operation::AdjustValue(sign * WHEEL_STEP * f64::from(amount)),
                    )
                    .await
                    .map_err(ToolError::engine)?;
                format!("scrolled {name} {direction} by {amount} through its scroll bar's value ({why})")
            }
        };
        Ok(self.answer(&engine, what, before, options).await?.text())
    }
}

/// How far one wheel notch moves a scroll bar's value when set directly (GTK's
/// scroll bars count pixels; a notch scrolls about this much of a typical list).
const WHEEL_STEP: f64 = 50.0;

/// The scroll bar that scrolls the aimed element in `direction`: inside it, or in
/// an ancestor up to the nearest scrolled pane.
fn scroll_bar_for(aimed: &Aimed, direction: ScrollDirection) -> Option<NodeId> {
    let tree = &aimed.snapshot.tree;
    let node = aimed.node?;
    let vertical = matches!(direction, ScrollDirection::Up | ScrollDirection::Down);
    let fits = |n: NodeId| {
        let e = tree.element(n);
        e.role == Role::ScrollBar
            && e.value.is_some()
            && match (
                e.states.contains(State::Vertical),
                e.states.contains(State::Horizontal),
            ) {
                (true, _) => vertical,
                (_, true) => !vertical,
                // No orientation state: guess from the shape.
                _ => e.bounds.is_some_and(|b| (b.height > b.width) == vertical),
            }
    };
    // Look no further out than the nearest scrolled pane: a bar beyond it
    // scrolls something else.
    let mut scopes = Vec::new();
    for scope in std::iter::once(node).chain(tree.ancestors(node)) {
        scopes.push(scope);
        if tree.element(scope).role == Role::ScrollPane {
            break;
        }
    }
    scopes
        .into_iter()
        .find_map(|scope| tree.descendants(scope).into_iter().find(|&n| fits(n)))
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// Waits for the UI to settle after a step inside an action (scrolling into view,
/// typing before reading back): the usual rule, but expecting a change for 300 ms.
pub(crate) async fn settle_briefly<E: Engine>(
    engine: &E,
    window: &axsight_core::ElementId,
    mark: axsight_core::EventMark,
) {
    let policy = axsight_core::SettlePolicy {
        expect: std::time::Duration::from_millis(300),
        ..axsight_core::SettlePolicy::default()
    };
    engine.settle(Some(window), mark, policy).await;
}

/// What to add when an accessible call went unanswered.
pub(crate) fn unanswered_note(performed: Performed) -> &'static str {
    match performed {
        Performed::Done => "",
        Performed::Unanswered => {
            "; the app has not answered the call yet: it may be showing a modal dialog, which the diff lists"
        }
    }
}
