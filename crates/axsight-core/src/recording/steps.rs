//! The moments of a recording folded into steps an agent would take: keys typed
//! into one field become one typed text, a click that only put the caret in
//! that field goes (typing there focuses it), a click on a combo box and then on
//! one of its options is one choice, a check box's click says which way it
//! went, and chords stay chords.

use crate::{
    quote, quote_typed, Key, KeyChord, Modifier, MouseButton, Point, Role, ScrollDirection,
};

use super::{Hit, StepTarget};

/// The longest gap between two presses of one double click, in milliseconds
/// (GTK's and Qt's default is 400).
const DOUBLE_CLICK_MS: u32 = 400;
/// The farthest two presses of one double click lie apart, in pixels.
const DOUBLE_CLICK_DISTANCE: i32 = 4;

/// A point inside an element (a silent surface, or a window): found again by
/// the element's selector, clicked at the same place in its box, wherever
/// the window sits now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Within {
    pub target: StepTarget,
    /// From the left and top of its box.
    pub offset: Point,
}

/// Text a step types: as recorded, or a parameter given at replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    Text(String),
    /// `$name`: a secret never recorded, or a text made a parameter.
    Parameter(String),
}

/// A value a replay is given: each secret typed, and with `--params` each text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// `password_1`, `text_2`.
    pub name: String,
    /// A secret: never written down, asked for at replay.
    pub secret: bool,
    /// The field it was typed into, as a person reads it.
    pub field: String,
    /// What was typed when it was recorded, for a text made a parameter (never
    /// for a secret).
    pub recorded: Option<String>,
}

/// One step of a plan, as the tool call that does it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordedStep {
    /// `click_element` on a named element.
    Click {
        target: StepTarget,
        button: MouseButton,
        double: bool,
        modifiers: Vec<Modifier>,
    },
    /// `click_element` at a point where nothing the tree names was: inside a
    /// silent surface or a window, where one is known, else on the screen.
    ClickAt {
        at: Point,
        button: MouseButton,
        double: bool,
        modifiers: Vec<Modifier>,
        /// The app whose window was there, if any.
        app: Option<String>,
        /// The element or window the point lay in, and where in it.
        within: Option<Within>,
    },
    /// `find_element` by the text OCR read where a click landed in a silent
    /// surface, then `click_element` on what it finds.
    ClickText {
        text: String,
        button: MouseButton,
        double: bool,
        modifiers: Vec<Modifier>,
        app: Option<String>,
        window: Option<String>,
    },
    /// `type_into_element`: the whole text typed into one field.
    Type {
        target: StepTarget,
        text: Typed,
        /// Empty the field first: it was empty, or the person selected or
        /// erased what it held.
        clear: bool,
        /// Return pressed after the text (a one-line field).
        enter: bool,
    },
    /// `set_toggled`.
    Toggle { target: StepTarget, on: bool },
    /// `select_option`: a combo box, then one of its options.
    Choose { target: StepTarget, option: String },
    /// `press_key` in the app's window.
    Keys {
        keys: Vec<KeyChord>,
        app: Option<String>,
        window: Option<String>,
    },
    /// `scroll_element`.
    Scroll {
        target: StepTarget,
        direction: ScrollDirection,
        notches: u32,
    },
    /// `mouse_drag` from one element onto another.
    Drag { from: StepTarget, to: StepTarget },
    /// `wait_for_element`: a window the step before opened.
    WaitFor { target: StepTarget },
}

impl RecordedStep {
    /// The step in one line, as a person reads it.
    ///
    /// ```
    /// use axsight_core::{RecordedStep, StepTarget};
    /// let target = StepTarget {
    ///     selector: "role:CheckBox && name:\"Remember me\"".into(),
    ///     app: "fixture".into(),
    ///     window: None,
    ///     described: "[CheckBox] Remember me".into(),
    ///     fragile: None,
    /// };
    /// let step = RecordedStep::Toggle { target, on: false };
    /// assert_eq!(step.described(), "uncheck [CheckBox] Remember me");
    /// ```
    pub fn described(&self) -> String {
        match self {
            RecordedStep::Click {
                target,
                button,
                double,
                modifiers,
            } => format!(
                "{} {}",
                click_words(*button, *double, modifiers),
                target.described
            ),
            RecordedStep::ClickAt {
                at,
                button,
                double,
                modifiers,
                app,
                within,
            } => {
                let click = click_words(*button, *double, modifiers);
                match within {
                    Some(Within { target, offset }) => format!(
                        "{click} at ({}, {}) inside {}: nothing the tree names is there",
                        offset.x, offset.y, target.described
                    ),
                    None => format!(
                        "{click} at ({}, {}){}: nothing the tree names is there",
                        at.x,
                        at.y,
                        in_a_window_of(app.as_deref())
                    ),
                }
            }
            RecordedStep::ClickText {
                text,
                button,
                double,
                modifiers,
                app,
                ..
            } => {
                let whose = in_a_window_of(app.as_deref());
                format!(
                    "{} {} (read by OCR there){whose}",
                    click_words(*button, *double, modifiers),
                    quote(text)
                )
            }
            RecordedStep::Type {
                target,
                text,
                clear,
                enter,
            } => {
                let text = match text {
                    Typed::Text(text) => quote_typed(text),
                    Typed::Parameter(name) => format!("${name}"),
                };
                let how = if *clear { "type" } else { "add" };
                let then = if *enter { ", then Return" } else { "" };
                format!("{how} {text} into {}{then}", target.described)
            }
            RecordedStep::Toggle { target, on } => {
                let how = if *on { "check" } else { "uncheck" };
                format!("{how} {}", target.described)
            }
            RecordedStep::Choose { target, option } => {
                format!("choose {} in {}", quote(option), target.described)
            }
            RecordedStep::Keys { keys, window, .. } => {
                let keys: Vec<String> = keys.iter().map(KeyChord::to_string).collect();
                let place = window
                    .as_ref()
                    .map(|w| format!(" in {}", quote(w)))
                    .unwrap_or_default();
                format!("press {}{place}", keys.join(" "))
            }
            RecordedStep::Scroll {
                target,
                direction,
                notches,
            } => {
                let direction = format!("{direction:?}").to_lowercase();
                let unit = if *notches == 1 { "notch" } else { "notches" };
                format!(
                    "scroll {direction} {notches} {unit} over {}",
                    target.described
                )
            }
            RecordedStep::Drag { from, to } => {
                format!("drag {} onto {}", from.described, to.described)
            }
            RecordedStep::WaitFor { target } => format!("wait for {}", target.described),
        }
    }

    /// The targets the step acts on, for telling which are fragile.
    pub fn targets(&self) -> Vec<&StepTarget> {
        match self {
            RecordedStep::Click { target, .. }
            | RecordedStep::Type { target, .. }
            | RecordedStep::Toggle { target, .. }
            | RecordedStep::Choose { target, .. }
            | RecordedStep::Scroll { target, .. }
            | RecordedStep::WaitFor { target } => vec![target],
            RecordedStep::Drag { from, to } => vec![from, to],
            RecordedStep::ClickAt { within, .. } => {
                within.iter().map(|within| &within.target).collect()
            }
            RecordedStep::ClickText { .. } | RecordedStep::Keys { .. } => Vec::new(),
        }
    }
}

/// ` in a window of APP`, where the app is known.
fn in_a_window_of(app: Option<&str>) -> String {
    app.map(|app| format!(" in a window of {app}"))
        .unwrap_or_default()
}

fn click_words(button: MouseButton, double: bool, modifiers: &[Modifier]) -> String {
    let mut words = String::new();
    for modifier in modifiers {
        words.push_str(&format!("{modifier}+"));
    }
    words.push_str(match button {
        MouseButton::Left => "",
        MouseButton::Middle => "middle-",
        MouseButton::Right => "right-",
    });
    words.push_str(if double { "double-click" } else { "click" });
    words
}

/// Keys typed into one field so far.
#[derive(Debug, Clone)]
struct Typing {
    hit: Hit,
    text: String,
    /// The person erased or selected what the field held.
    replacing: bool,
}

/// A click written only once what follows it is known.
#[derive(Debug, Clone)]
enum Held {
    /// Into a text field: typing there next makes it needless.
    Field(Hit),
    /// On a combo box: an option clicked next makes the two one choice.
    Combo(Hit),
}

/// The last press, for telling a double click.
#[derive(Debug, Clone, Copy)]
struct LastPress {
    button: MouseButton,
    at: Point,
    time_ms: u32,
}

/// A recording being made: feed it what the person did, in order, then
/// [`Recording::finish`].
///
/// ```
/// use axsight_core::{Hit, KeyChord, Key, MouseButton, Point, RecordedStep, Recording, Role, StepTarget, Typed};
/// let field = Hit {
///     target: StepTarget {
///         selector: "role:Edit && name:\"Name\"".into(),
///         app: "form".into(),
///         window: None,
///         described: "[Edit] Name".into(),
///         fragile: None,
///     },
///     element: "e1".into(),
///     window: "w1".into(),
///     role: Role::Edit,
///     checked: false,
///     text_field: true,
///     multiline: false,
///     secret: false,
///     text: Some(String::new()),
///     chars: 0,
///     name: "Name".into(),
///     silent: false,
///     bounds: None,
/// };
/// let mut recording = Recording::new(false);
/// recording.click(Some(field.clone()), Point { x: 5, y: 5 }, MouseButton::Left, &[], 0);
/// for c in "Ada".chars() {
///     recording.key(&KeyChord { modifiers: vec![], key: Key::Char(c) }, Some(&field));
/// }
/// let (steps, parameters) = recording.finish();
/// assert_eq!(steps.len(), 1);
/// assert_eq!(steps[0].described(), "type \"Ada\" into [Edit] Name");
/// assert!(parameters.is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Recording {
    steps: Vec<RecordedStep>,
    typing: Option<Typing>,
    held: Option<Held>,
    last_press: Option<LastPress>,
    /// Text erased or selected in a field before typing there: the typing
    /// replaces the field's content.
    replacing: Option<String>,
    parameters: Vec<Parameter>,
    every_text_a_parameter: bool,
}

impl Recording {
    /// An empty recording; with `every_text_a_parameter`, every typed text is
    /// made a parameter with the recorded text as its example.
    pub fn new(every_text_a_parameter: bool) -> Recording {
        Recording {
            every_text_a_parameter,
            ..Recording::default()
        }
    }

    /// The steps written so far (typing still going on is not among them).
    pub fn steps(&self) -> &[RecordedStep] {
        &self.steps
    }

    /// A press and release of `button` at one place, on `hit` (`None`: nothing
    /// the tree names is there), at the display's `time_ms`.
    pub fn click(
        &mut self,
        hit: Option<Hit>,
        at: Point,
        button: MouseButton,
        modifiers: &[Modifier],
        time_ms: u32,
    ) {
        let press = LastPress {
            button,
            at,
            time_ms,
        };
        if let Some(last) = self.last_press.replace(press) {
            let close = (at.x - last.at.x).abs() <= DOUBLE_CLICK_DISTANCE
                && (at.y - last.at.y).abs() <= DOUBLE_CLICK_DISTANCE;
            if last.button == button
                && close
                && time_ms.wrapping_sub(last.time_ms) <= DOUBLE_CLICK_MS
                && self.make_double()
            {
                // A third press is a new click, not part of this one.
                self.last_press = None;
                return;
            }
        }
        self.end_typing();
        if let (Some(Held::Combo(combo)), Some(option)) = (&self.held, &hit) {
            let is_option = matches!(
                option.role,
                Role::MenuItem
                    | Role::ListItem
                    | Role::CheckMenuItem
                    | Role::RadioMenuItem
                    | Role::Cell
                    | Role::TreeItem
            );
            if is_option && option.target.app == combo.target.app && !option.name.is_empty() {
                self.steps.push(RecordedStep::Choose {
                    target: combo.target.clone(),
                    option: option.name.clone(),
                });
                self.held = None;
                return;
            }
        }
        self.write_held();
        let Some(hit) = hit else {
            self.steps.push(RecordedStep::ClickAt {
                at,
                button,
                double: false,
                modifiers: modifiers.to_vec(),
                app: None,
                within: None,
            });
            return;
        };
        let plain = button == MouseButton::Left && modifiers.is_empty();
        match hit.role {
            Role::CheckBox | Role::ToggleButton if plain => {
                self.steps.push(RecordedStep::Toggle {
                    on: !hit.checked,
                    target: hit.target,
                });
            }
            Role::ComboBox if plain && !hit.text_field => self.held = Some(Held::Combo(hit)),
            _ if plain && hit.text_field => self.held = Some(Held::Field(hit)),
            _ => self.steps.push(RecordedStep::Click {
                target: hit.target,
                button,
                double: false,
                modifiers: modifiers.to_vec(),
            }),
        }
    }

    /// A click at a point no element names, in a window of `app`.
    pub fn click_in_app(&mut self, app: &str) {
        if let Some(RecordedStep::ClickAt { app: whose, .. }) = self.steps.last_mut() {
            *whose = Some(app.to_string());
        }
    }

    /// The last click, at a point no element names, lay in `target` (a
    /// silent surface, or a window) at `offset` from its box's corner.
    pub fn click_within(&mut self, target: StepTarget, offset: Point) {
        if let Some(RecordedStep::ClickAt { within, .. }) = self.steps.last_mut() {
            *within = Some(Within { target, offset });
        }
    }

    /// The last click, at a point no element names, goes by the text OCR
    /// read there (`window` is the title of the window it lay in).
    pub fn click_reads(&mut self, text: String, window: Option<String>) {
        let Some(RecordedStep::ClickAt {
            button,
            double,
            modifiers,
            app,
            ..
        }) = self.steps.last().cloned()
        else {
            return;
        };
        if let Some(last) = self.steps.last_mut() {
            *last = RecordedStep::ClickText {
                text,
                button,
                double,
                modifiers,
                app,
                window,
            };
        }
    }

    /// A read made while typing into `element` shows it holding `value`.
    /// Holding only what was typed so far (or the first of it) means the
    /// typing replaced the field's text: a selection typed over, such as the
    /// name a Save As dialog offers.
    pub fn field_shows(&mut self, element: &str, value: &str) {
        if let Some(typing) = &mut self.typing {
            if typing.hit.element == element && !value.is_empty() && typing.text.starts_with(value)
            {
                typing.replacing = true;
            }
        }
    }

    /// The field being typed into, if any.
    pub fn typing_into(&self) -> Option<&str> {
        self.typing
            .as_ref()
            .map(|typing| typing.hit.element.as_str())
    }

    /// A press on `from` released over `to`, far enough away to be a drag.
    pub fn drag(&mut self, from: Hit, to: Hit) {
        self.end_typing();
        self.write_held();
        self.last_press = None;
        self.steps.push(RecordedStep::Drag {
            from: from.target,
            to: to.target,
        });
    }

    /// One notch of the wheel over `hit`.
    pub fn scrolled(&mut self, hit: Hit, direction: ScrollDirection) {
        self.end_typing();
        self.write_held();
        if let Some(RecordedStep::Scroll {
            target,
            direction: last,
            notches,
        }) = self.steps.last_mut()
        {
            if *target == hit.target && *last == direction {
                *notches += 1;
                return;
            }
        }
        self.steps.push(RecordedStep::Scroll {
            target: hit.target,
            direction,
            notches: 1,
        });
    }

    /// A key pressed while `focus` had the keyboard focus (`None`: no element
    /// is known to have it).
    pub fn key(&mut self, chord: &KeyChord, focus: Option<&Hit>) {
        // A field clicked just before has the focus, whatever an older read says.
        let clicked = match &self.held {
            Some(Held::Field(hit)) => Some(hit.clone()),
            _ => None,
        };
        // Text goes on into the field being typed into: a read made between
        // two keys may not show the focus there yet (Chromium's page), and a
        // secret's characters must never become keys of their own.
        let editing = chord.modifiers.is_empty()
            && matches!(chord.key, Key::Char(_) | Key::Named("BackSpace" | "Return"));
        let typing = self
            .typing
            .as_ref()
            .filter(|_| editing)
            .map(|typing| typing.hit.clone());
        let focus = clicked.as_ref().or(typing.as_ref()).or(focus);
        let field = focus.filter(|hit| hit.text_field);
        let typing_here = |typing: &Option<Typing>| matches!((typing, field), (Some(t), Some(f)) if t.hit.element == f.element);
        match (&chord.key, field) {
            (Key::Char(c), Some(field)) if chord.modifiers.is_empty() => {
                if !typing_here(&self.typing) {
                    self.end_typing();
                    self.start_typing(field);
                }
                if let Some(typing) = &mut self.typing {
                    typing.text.push(*c);
                }
                return;
            }
            (Key::Named("BackSpace"), Some(field)) if chord.modifiers.is_empty() => {
                if typing_here(&self.typing) {
                    if let Some(typing) = &mut self.typing {
                        if typing.text.pop().is_some() {
                            return;
                        }
                    }
                }
                // Erasing what the field held before: the typing replaces it.
                self.end_typing();
                self.forget_held_click_on(field);
                self.replacing = Some(field.element.clone());
                return;
            }
            (Key::Named("Return"), Some(field))
                if chord.modifiers.is_empty() && typing_here(&self.typing) =>
            {
                if field.multiline {
                    if let Some(typing) = &mut self.typing {
                        typing.text.push('\n');
                    }
                } else {
                    self.finish_typing(true);
                }
                return;
            }
            (Key::Char('a'), Some(field)) if chord.modifiers == [Modifier::Ctrl] => {
                self.end_typing();
                self.forget_held_click_on(field);
                self.replacing = Some(field.element.clone());
                return;
            }
            _ => {}
        }
        self.end_typing();
        self.write_held();
        let (app, window) = match focus {
            Some(hit) => (Some(hit.target.app.clone()), hit.target.window.clone()),
            None => (None, None),
        };
        if let Some(RecordedStep::Keys {
            keys,
            app: last_app,
            window: last_window,
        }) = self.steps.last_mut()
        {
            if *last_app == app && *last_window == window {
                keys.push(chord.clone());
                return;
            }
        }
        self.steps.push(RecordedStep::Keys {
            keys: vec![chord.clone()],
            app,
            window,
        });
    }

    /// A window opened after the last step (a dialog it brought up): the plan
    /// waits for it before the next step.
    pub fn window_opened(&mut self, target: StepTarget) {
        self.end_typing();
        self.write_held();
        self.steps.push(RecordedStep::WaitFor { target });
    }

    /// Where input cannot be watched: `field` now holds `text` (`None`: a
    /// secret, whose text is never read). Typing on into one field updates
    /// its step.
    pub fn field_holds(&mut self, field: Hit, text: Option<String>) {
        if let Some(RecordedStep::Type {
            target,
            text: typed,
            ..
        }) = self.steps.last_mut()
        {
            if *target == field.target {
                if let (Typed::Text(old), Some(new)) = (typed, text) {
                    *old = new;
                }
                return;
            }
        }
        let text = match text {
            Some(text) if !self.every_text_a_parameter => Typed::Text(text),
            text => {
                let secret = text.is_none();
                let name = match secret {
                    true => format!("password_{}", self.count_secrets() + 1),
                    false => format!("text_{}", self.parameters.len() - self.count_secrets() + 1),
                };
                self.parameters.push(Parameter {
                    name: name.clone(),
                    secret,
                    field: field.target.described.clone(),
                    recorded: text,
                });
                Typed::Parameter(name)
            }
        };
        self.steps.push(RecordedStep::Type {
            target: field.target,
            text,
            clear: true,
            enter: false,
        });
    }

    /// Where input cannot be watched: a check box or toggle turned `on` or off.
    pub fn toggled_to(&mut self, hit: Hit, on: bool) {
        if let Some(RecordedStep::Toggle { target, on: last }) = self.steps.last_mut() {
            if *target == hit.target {
                *last = on;
                return;
            }
        }
        self.steps.push(RecordedStep::Toggle {
            target: hit.target,
            on,
        });
    }

    /// Where input cannot be watched: a combo box shows `option` now.
    pub fn chose(&mut self, combo: Hit, option: String) {
        if let Some(RecordedStep::Choose {
            target,
            option: last,
        }) = self.steps.last_mut()
        {
            if *target == combo.target {
                *last = option;
                return;
            }
        }
        self.steps.push(RecordedStep::Choose {
            target: combo.target,
            option,
        });
    }

    /// Where input cannot be watched: a radio button, tab or item was picked,
    /// or (`inferred`) a control took the focus while something changed.
    pub fn picked(&mut self, hit: Hit, inferred: bool) {
        let mut target = hit.target;
        if inferred {
            target.fragile = Some(
                "no click was seen: it took the focus while something changed, which a click does"
                    .into(),
            );
        }
        if matches!(self.steps.last(), Some(RecordedStep::Click { target: last, .. }) if last.selector == target.selector && last.window == target.window)
        {
            return;
        }
        self.steps.push(RecordedStep::Click {
            target,
            button: MouseButton::Left,
            double: false,
            modifiers: Vec::new(),
        });
    }

    /// The steps and the parameters they use.
    pub fn finish(mut self) -> (Vec<RecordedStep>, Vec<Parameter>) {
        self.end_typing();
        self.write_held();
        // A window the last step opened that nothing acts in (a browser's
        // offer to save a password) is no part of the job.
        while let Some(RecordedStep::WaitFor { .. }) = self.steps.last() {
            self.steps.pop();
        }
        (self.steps, self.parameters)
    }

    fn start_typing(&mut self, field: &Hit) {
        self.forget_held_click_on(field);
        // Tab only moved the focus here, which typing into the field does.
        if let Some(RecordedStep::Keys { keys, .. }) = self.steps.last() {
            let tab = |chord: &KeyChord| {
                chord.key == Key::Named("Tab")
                    && (chord.modifiers.is_empty() || chord.modifiers == [Modifier::Shift])
            };
            if keys.iter().all(tab) {
                self.steps.pop();
            }
        }
        let replacing = self.replacing.take().is_some_and(|e| e == field.element);
        self.typing = Some(Typing {
            hit: field.clone(),
            text: String::new(),
            replacing,
        });
    }

    /// A held click into `field` goes: typing there (or erasing) focuses it.
    fn forget_held_click_on(&mut self, field: &Hit) {
        if matches!(&self.held, Some(Held::Field(held)) if held.element == field.element) {
            self.held = None;
        }
        self.write_held();
    }

    fn end_typing(&mut self) {
        self.finish_typing(false);
    }

    fn finish_typing(&mut self, enter: bool) {
        let Some(typing) = self.typing.take() else {
            return;
        };
        if typing.text.is_empty() && !enter {
            return;
        }
        // The field may have been read after the first keys landed: what it
        // held then, if the typing begins with it, was the typing's own.
        let held_ours = match &typing.hit.text {
            Some(held) => typing.text.starts_with(held.as_str()),
            None => typing.hit.chars <= typing.text.chars().count(),
        };
        let clear = typing.replacing || held_ours;
        let text = if typing.hit.secret {
            let name = format!("password_{}", self.count_secrets() + 1);
            self.parameters.push(Parameter {
                name: name.clone(),
                secret: true,
                field: typing.hit.target.described.clone(),
                recorded: None,
            });
            Typed::Parameter(name)
        } else if self.every_text_a_parameter {
            let name = format!("text_{}", self.parameters.len() - self.count_secrets() + 1);
            self.parameters.push(Parameter {
                name: name.clone(),
                secret: false,
                field: typing.hit.target.described.clone(),
                recorded: Some(typing.text.clone()),
            });
            Typed::Parameter(name)
        } else {
            Typed::Text(typing.text)
        };
        self.steps.push(RecordedStep::Type {
            target: typing.hit.target,
            text,
            clear,
            enter,
        });
    }

    fn count_secrets(&self) -> usize {
        self.parameters.iter().filter(|p| p.secret).count()
    }

    fn write_held(&mut self) {
        let hit = match self.held.take() {
            Some(Held::Field(hit) | Held::Combo(hit)) => hit,
            None => return,
        };
        self.steps.push(RecordedStep::Click {
            target: hit.target,
            button: MouseButton::Left,
            double: false,
            modifiers: Vec::new(),
        });
    }

    /// The last click made a double click, if there is one to make so.
    fn make_double(&mut self) -> bool {
        if self.typing.is_some() {
            return false;
        }
        if self.held.is_some() {
            self.write_held();
        }
        match self.steps.last_mut() {
            Some(
                RecordedStep::Click { double, .. }
                | RecordedStep::ClickAt { double, .. }
                | RecordedStep::ClickText { double, .. },
            ) if !*double => {
                *double = true;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(role: Role, name: &str) -> Hit {
        Hit {
            target: StepTarget {
                selector: format!("role:{role} && name:\"{name}\""),
                app: "form".into(),
                window: None,
                described: format!("[{role}] {name}"),
                fragile: None,
            },
            element: format!("{role}/{name}"),
            window: "w".into(),
            role,
            checked: false,
            text_field: role == Role::Edit,
            multiline: false,
            secret: false,
            text: Some(String::new()),
            chars: 0,
            name: name.into(),
            silent: false,
            bounds: None,
        }
    }

    fn char_key(c: char) -> KeyChord {
        KeyChord {
            modifiers: vec![],
            key: Key::Char(c),
        }
    }

    fn named(name: &'static str, modifiers: Vec<Modifier>) -> KeyChord {
        KeyChord {
            modifiers,
            key: Key::Named(name),
        }
    }

    const AT: Point = Point { x: 10, y: 10 };

    fn type_text(recording: &mut Recording, text: &str, focus: &Hit) {
        for c in text.chars() {
            recording.key(&char_key(c), Some(focus));
        }
    }

    /// Tab to `field` (dropped once typing there starts), then `text` typed.
    fn tab_and_type(recording: &mut Recording, text: &str, field: &Hit) {
        recording.key(&named("Tab", vec![]), Some(field));
        type_text(recording, text, field);
    }

    fn said(steps: &[RecordedStep]) -> Vec<String> {
        steps.iter().map(RecordedStep::described).collect()
    }

    #[test]
    fn a_form_filled_by_clicks_keys_and_tab_is_typed_texts_a_toggle_and_a_click() {
        let name = hit(Role::Edit, "Name");
        let mut city = hit(Role::Edit, "City");
        city.text = Some("Lyon".into());
        city.chars = 4;
        let mut remember = hit(Role::CheckBox, "Remember me");
        remember.checked = true;
        let mut recording = Recording::new(false);
        // A stale read still says the city has the focus: the click says Name.
        recording.click(Some(name.clone()), AT, MouseButton::Left, &[], 0);
        recording.key(&char_key('a').with_ctrl(), Some(&city));
        type_text(&mut recording, "Adx", &name);
        recording.key(&named("BackSpace", vec![]), Some(&name));
        type_text(&mut recording, "a", &name);
        recording.key(&named("Tab", vec![]), Some(&name));
        // The city held text: selected whole, then typed over.
        recording.key(&char_key('a').with_ctrl(), Some(&city));
        type_text(&mut recording, "Paris", &city);
        recording.key(&named("Return", vec![]), Some(&city));
        recording.click(Some(remember), AT, MouseButton::Left, &[], 5_000);
        recording.click(
            Some(hit(Role::Button, "Save")),
            AT,
            MouseButton::Left,
            &[],
            9_000,
        );
        recording.key(&char_key('s').with_ctrl(), Some(&city));
        let (steps, parameters) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "type \"Ada\" into [Edit] Name",
                "type \"Paris\" into [Edit] City, then Return",
                "uncheck [CheckBox] Remember me",
                "click [Button] Save",
                "press ctrl+s",
            ]
        );
        assert!(parameters.is_empty());
    }

    #[test]
    fn typing_added_to_a_field_that_held_text_keeps_it() {
        let mut notes = hit(Role::Edit, "Notes");
        notes.text = Some("Notes:".into());
        notes.chars = 6;
        let mut recording = Recording::new(false);
        recording.click(Some(notes.clone()), AT, MouseButton::Left, &[], 0);
        type_text(&mut recording, " more", &notes);
        // A name offered selected, typed over: a read while typing shows it.
        let mut offered = hit(Role::Edit, "File name");
        offered.text = Some("Untitled".into());
        offered.chars = 8;
        tab_and_type(&mut recording, "/tmp/n", &offered);
        recording.field_shows("Edit/File name", "/tmp");
        type_text(&mut recording, "otes.txt", &offered);
        // Read once the first keys had landed: what it held was the typing's.
        let mut late = hit(Role::Edit, "Your name");
        late.text = Some("Gr".into());
        late.chars = 2;
        tab_and_type(&mut recording, "Grace", &late);
        let (steps, _) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "add \" more\" into [Edit] Notes",
                "type \"/tmp/notes.txt\" into [Edit] File name",
                "type \"Grace\" into [Edit] Your name"
            ]
        );
        assert!(matches!(steps[0], RecordedStep::Type { clear: false, .. }));
    }

    #[test]
    fn a_secret_is_a_parameter_and_its_text_is_nowhere() {
        let mut password = hit(Role::Edit, "Password");
        password.secret = true;
        let mut recording = Recording::new(false);
        type_text(&mut recording, "hunter2", &password);
        recording.key(&named("Return", vec![]), Some(&password));
        let (steps, parameters) = recording.finish();
        assert_eq!(
            said(&steps),
            ["type $password_1 into [Edit] Password, then Return"]
        );
        assert_eq!(parameters.len(), 1);
        assert!(parameters[0].secret && parameters[0].recorded.is_none());
        assert!(!format!("{steps:?}{parameters:?}").contains("hunter2"));
    }

    #[test]
    fn a_secret_typed_on_while_a_read_shows_the_focus_elsewhere_stays_in_its_field() {
        let mut password = hit(Role::Edit, "Password");
        password.secret = true;
        let page = hit(Role::Document, "Order");
        let mut recording = Recording::new(false);
        recording.click(Some(password.clone()), AT, MouseButton::Left, &[], 0);
        recording.key(&char_key('h'), Some(&page));
        for c in "unter2".chars() {
            // Chromium's page read between keys says the document has the focus.
            recording.key(&char_key(c), Some(&page));
        }
        recording.key(&named("Return", vec![]), Some(&page));
        // A chord goes where the focus is said to be.
        recording.key(&named("F5", vec![]), Some(&page));
        let (steps, parameters) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "type $password_1 into [Edit] Password, then Return",
                "press F5"
            ]
        );
        assert_eq!(parameters.len(), 1);
        assert!(!format!("{steps:?}").contains("unter"));
    }

    #[test]
    fn a_window_the_last_step_opened_is_not_waited_for() {
        let mut recording = Recording::new(false);
        recording.click(
            Some(hit(Role::Button, "Place order")),
            AT,
            MouseButton::Left,
            &[],
            0,
        );
        recording.window_opened(hit(Role::Alert, "Save password?").target);
        let (steps, _) = recording.finish();
        assert_eq!(said(&steps), ["click [Button] Place order"]);
    }

    #[test]
    fn with_params_every_text_is_a_parameter_with_its_example() {
        let name = hit(Role::Edit, "Name");
        let mut password = hit(Role::Edit, "Password");
        password.secret = true;
        let mut recording = Recording::new(true);
        type_text(&mut recording, "Ada", &name);
        tab_and_type(&mut recording, "pw", &password);
        tab_and_type(&mut recording, "Bob", &hit(Role::Edit, "Other"));
        let (steps, parameters) = recording.finish();
        let names: Vec<_> = parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["text_1", "password_1", "text_2"]);
        assert_eq!(parameters[2].recorded.as_deref(), Some("Bob"));
        assert_eq!(steps.len(), 3);
    }

    #[test]
    fn a_combo_box_then_its_option_is_one_choice() {
        let mut recording = Recording::new(false);
        recording.click(
            Some(hit(Role::ComboBox, "Colour")),
            AT,
            MouseButton::Left,
            &[],
            0,
        );
        recording.click(
            Some(hit(Role::MenuItem, "Green")),
            AT,
            MouseButton::Left,
            &[],
            2_000,
        );
        // A combo box clicked and left alone is a click.
        recording.click(
            Some(hit(Role::ComboBox, "Size")),
            AT,
            MouseButton::Left,
            &[],
            4_000,
        );
        recording.key(&named("Escape", vec![]), None);
        let (steps, _) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "choose \"Green\" in [ComboBox] Colour",
                "click [ComboBox] Size",
                "press Escape"
            ]
        );
    }

    #[test]
    fn two_quick_presses_at_one_place_are_a_double_click_and_a_third_a_new_click() {
        let row = hit(Role::ListItem, "notes.txt");
        let mut recording = Recording::new(false);
        recording.click(Some(row.clone()), AT, MouseButton::Left, &[], 1_000);
        recording.click(Some(row.clone()), AT, MouseButton::Left, &[], 1_200);
        recording.click(Some(row.clone()), AT, MouseButton::Left, &[], 1_350);
        // Too late to be a double click.
        recording.click(Some(row.clone()), AT, MouseButton::Left, &[], 3_000);
        recording.click(None, Point { x: 7, y: 9 }, MouseButton::Right, &[], 9_000);
        recording.click_in_app("form");
        recording.click(None, Point { x: 70, y: 90 }, MouseButton::Left, &[], 12_000);
        recording.click_in_app("form");
        recording.click_reads("Canvas text 42".into(), Some("Main".into()));
        let (steps, _) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "double-click [ListItem] notes.txt",
                "click [ListItem] notes.txt",
                "click [ListItem] notes.txt",
                "right-click at (7, 9) in a window of form: nothing the tree names is there",
                "click \"Canvas text 42\" (read by OCR there) in a window of form",
            ]
        );
    }

    #[test]
    fn wheel_notches_over_one_element_add_up_and_windows_are_waited_for() {
        let list = hit(Role::List, "Files");
        let mut recording = Recording::new(false);
        for _ in 0..3 {
            recording.scrolled(list.clone(), ScrollDirection::Down);
        }
        recording.scrolled(list.clone(), ScrollDirection::Up);
        recording.click(
            Some(hit(Role::Button, "Open")),
            AT,
            MouseButton::Left,
            &[],
            0,
        );
        recording.window_opened(hit(Role::Dialog, "Open File").target);
        recording.drag(hit(Role::ListItem, "a.txt"), hit(Role::Group, "Trash"));
        let (steps, _) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "scroll down 3 notches over [List] Files",
                "scroll up 1 notch over [List] Files",
                "click [Button] Open",
                "wait for [Dialog] Open File",
                "drag [ListItem] a.txt onto [Group] Trash",
            ]
        );
    }

    #[test]
    fn where_input_is_unseen_changes_become_steps_and_typing_on_updates_one() {
        let name = hit(Role::Edit, "Name");
        let mut password = hit(Role::Edit, "Password");
        password.secret = true;
        let mut recording = Recording::new(false);
        recording.field_holds(name.clone(), Some("Ad".into()));
        recording.field_holds(name.clone(), Some("Ada".into()));
        recording.field_holds(password.clone(), None);
        recording.field_holds(password, None);
        recording.toggled_to(hit(Role::CheckBox, "Remember me"), true);
        recording.chose(hit(Role::ComboBox, "Colour"), "Green".into());
        recording.chose(hit(Role::ComboBox, "Colour"), "Blue".into());
        recording.picked(hit(Role::Button, "Count"), true);
        recording.picked(hit(Role::Button, "Count"), true);
        let (steps, parameters) = recording.finish();
        assert_eq!(
            said(&steps),
            [
                "type \"Ada\" into [Edit] Name",
                "type $password_1 into [Edit] Password",
                "check [CheckBox] Remember me",
                "choose \"Blue\" in [ComboBox] Colour",
                "click [Button] Count",
            ]
        );
        assert_eq!(parameters.len(), 1);
        assert!(steps[4].targets()[0].fragile.is_some());
    }

    impl KeyChord {
        fn with_ctrl(mut self) -> KeyChord {
            self.modifiers.push(Modifier::Ctrl);
            self
        }
    }
}
