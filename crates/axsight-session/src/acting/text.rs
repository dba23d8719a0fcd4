//! Typing and key presses. Text goes in through the element's EditableText where it
//! has one (no focus or raised window needed), else as real key events; what the
//! field holds afterwards is read back and a mismatch reported. Secrets are typed
//! but never read back or echoed.

use axsight_core::{
    parse_keys, quote_typed, quote_whole, split_trailing_keys, Engine, EngineError, FailureKind,
    Input, KeyChord, Operation, Performed, Role, State, WindowQuery,
};

use super::pointer::settle_briefly;
use super::{is_editable, ActOptions, Session};
use crate::target::{Aimed, Target};
use crate::ToolError;

/// Characters typed in one call at most: the keyboard takes a few milliseconds
/// for each, and a call must end within its deadline.
const MAX_TEXT: usize = 5000;

impl<E: Engine> Session<E> {
    /// `type_into_element`: focuses the element, optionally clears it, types
    /// `text` (then presses trailing `{Enter}`-style keys) and checks the result.
    /// Without a target, the text goes where the keyboard focus is. An element
    /// that takes no text but has the focus, or shows what the tree does not
    /// (a sheet's grid, a canvas, a window without accessibility), gets the
    /// text as key events.
    pub async fn type_into(
        &self,
        target: Option<&Target>,
        text: &str,
        clear: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_type(target, text, clear, options).await)
            .await
    }

    async fn do_type(
        &self,
        target: Option<&Target>,
        text: &str,
        clear: bool,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let mut aimed = match target {
            Some(target) => self.aim(&engine, target).await?,
            None => self.aim_at_focus(&engine).await?,
        };
        let name = match self.aim_into_its_field(&mut aimed)? {
            Some(container) => format!("{} (inside {container})", self.describe(&aimed)),
            None => self.describe(&aimed),
        };
        let element = aimed.required_element(&name, " to type into")?;
        if !is_editable(&element) {
            let silent = !aimed.snapshot.accessible || aimed.in_silent_surface();
            let focused = element.states.contains(State::Focused);
            if target.is_none() || focused || silent {
                return self.type_keys(&engine, aimed, text, options).await;
            }
            return Err(ToolError::CannotAct(format!(
                "{name} does not take text (it is not editable, and has not the keyboard focus); \
                 aim at an Edit, or leave out the target to type where the focus is"
            )));
        }
        if !element.states.is_enabled() {
            return Err(ToolError::CannotAct(format!("{name} is disabled")));
        }
        let (text, keys) = split_trailing_keys(text);
        if text.chars().count() > MAX_TEXT {
            return Err(ToolError::BadArguments(format!(
                "the text is longer than {MAX_TEXT} characters; type it in parts"
            )));
        }
        let mut before = self
            .before(&engine, Some(aimed.snapshot.clone()), options)
            .await;
        before.tells_caret = true;
        // Read back from here: the events of typing come after this mark.
        let typing = engine.mark().await;
        // A field that has the focus keeps its selection: focusing a GTK entry
        // again would select all of it. A selection in a field that had no focus
        // is no one's choice (GTK selects on focus): typing goes at the caret.
        let had_focus = element.states.contains(State::Focused);
        let focused = self.focus_once(engine.as_ref(), &element).await;
        let mut ways = Vec::new();
        let mut keyboard_ready = false;
        let terminal = element.role == Role::Terminal;
        if clear && terminal {
            // Editing keys would go to the shell, or to whatever runs in it.
            ways.push("cleared nothing: a terminal has no field to empty");
        } else if clear {
            match engine
                .perform(&element.id, &Operation::SetText(String::new()))
                .await
            {
                Ok(_) => ways.push("cleared it through EditableText"),
                // Keys only where the element has no such way: after a call that
                // went unanswered or an element that went away, keys would land
                // twice or elsewhere.
                Err(error) if error.kind() != FailureKind::Refused => {
                    return Err(ToolError::engine(error))
                }
                Err(_) => {
                    self.ready_keyboard(&engine, &mut aimed, focused).await?;
                    keyboard_ready = true;
                    // In a spreadsheet's cell, ctrl+a selects the whole sheet (and
                    // LibreOffice's BackSpace then asks what to delete): a cell
                    // is emptied with Delete.
                    let (keys, way) = match element.role {
                        Role::Cell => ("Delete", "cleared it with Delete"),
                        _ => ("ctrl+a BackSpace", "cleared it with ctrl+a, BackSpace"),
                    };
                    let clearing = parse_keys(keys).unwrap_or_default();
                    self.send(&engine, Input::Keys(clearing)).await?;
                    ways.push(way);
                }
            }
        }
        let mut through_editable_text = false;
        if !text.is_empty() && terminal {
            self.ready_keyboard(&engine, &mut aimed, focused).await?;
            keyboard_ready = true;
            self.send(&engine, Input::Text(text.to_string())).await?;
            ways.push("typed with key events");
        } else if !text.is_empty() {
            match engine
                .perform(&element.id, &insertion(text, had_focus))
                .await
            {
                Ok(Performed::Done) => {
                    through_editable_text = true;
                    ways.push("typed through EditableText");
                }
                Ok(Performed::Unanswered) => {
                    return Err(ToolError::CannotAct(format!(
                    "{name} did not answer the text it was given; read it again before typing more"
                )))
                }
                Err(error) if error.kind() != FailureKind::Refused => {
                    return Err(ToolError::engine(error))
                }
                Err(_) => {
                    if !keyboard_ready {
                        self.ready_keyboard(&engine, &mut aimed, focused).await?;
                        keyboard_ready = true;
                    }
                    self.send(&engine, Input::Text(text.to_string())).await?;
                    ways.push("typed with key events");
                }
            }
        }
        // Read back before trailing keys: Enter may submit and clear the field.
        // A field counts as secret if it was or now is one: an empty GTK4
        // password entry shows its mask only once it holds text.
        let (mut check, mut secret_now) = self
            .read_back(&engine, &aimed, &element.id, text, clear, typing)
            .await;
        // EditableText that put the text somewhere else than a keyboard would
        // (in front of a placeholder's hint, say): undo it and type as a person.
        // Not in a cell, which takes its text only once editing ends.
        if through_editable_text && check.held == Some(false) && element.role != Role::Cell {
            let original = if clear {
                Some(String::new())
            } else {
                element.value.clone()
            };
            let undone = match original {
                Some(original) => engine
                    .perform(&element.id, &Operation::SetText(original))
                    .await
                    .is_ok(),
                None => false,
            };
            if undone {
                if !keyboard_ready {
                    self.ready_keyboard(&engine, &mut aimed, focused).await?;
                    keyboard_ready = true;
                }
                let retyping = engine.mark().await;
                if clear {
                    let select_all = parse_keys("ctrl+a BackSpace").unwrap_or_default();
                    self.send(&engine, Input::Keys(select_all)).await?;
                }
                self.send(&engine, Input::Text(text.to_string())).await?;
                (check, secret_now) = self
                    .read_back(&engine, &aimed, &element.id, text, clear, retyping)
                    .await;
                ways.push(match check.held {
                    Some(true) => "which read back wrong, so it was undone and typed again with key events, which read back right",
                    _ => "which read back wrong, so it was undone and typed again with key events, which read back wrong too",
                });
            } else {
                ways.push("which read back wrong and could not be undone");
            }
        }
        let secret = element.is_secret() || secret_now;
        if !keys.is_empty() {
            if !keyboard_ready {
                self.ready_keyboard(&engine, &mut aimed, focused).await?;
            }
            // Settling counts from the keys: what they cause comes last.
            before.mark = engine.mark().await;
            self.send(&engine, Input::Keys(keys.clone())).await?;
            // A spreadsheet's cell takes typed text only once Enter (or Tab)
            // ends the editing: a field that did not hold it yet is read again.
            let mut read_after = false;
            if !secret && check.held != Some(true) {
                let (after, _) = self
                    .read_back(&engine, &aimed, &element.id, text, clear, before.mark)
                    .await;
                if after.held == Some(true) {
                    check = after.once_pressed(&keys);
                    read_after = true;
                }
            }
            if !read_after && check.held == Some(true) {
                check = check.before_pressed(&keys);
            }
        }
        let shown = if secret {
            characters(text.chars().count())
        } else {
            quote_typed(text)
        };
        let mut what = format!("typed {shown} into {name} ({})", ways.join(", "));
        if !keys.is_empty() {
            what.push_str(&format!(", then pressed {}", chords_text(&keys)));
        }
        let mut answered = self.answer(&engine, what, before, options).await?;
        answered.checks.push(check.line);
        Ok(answered.text())
    }

    /// The element that has the keyboard focus in the active window, or the
    /// window itself when none of its elements says it has it.
    async fn aim_at_focus(&self, engine: &E) -> Result<Aimed, ToolError> {
        let snapshot = engine
            .window_tree(&WindowQuery::default(), self.read_options(false, false))
            .await
            .map_err(|error| match error.kind() {
                FailureKind::ConnectionLost => ToolError::engine(error),
                _ => ToolError::CannotAct(format!(
                    "no window has the keyboard focus to type into ({error}); name a target"
                )),
            })?;
        self.remember(&snapshot);
        let tree = &snapshot.tree;
        let focused = tree
            .ids()
            .filter(|&n| tree.element(n).states.contains(State::Focused))
            .last()
            .unwrap_or(tree.root());
        Ok(Aimed {
            node: Some(focused),
            snapshot,
            point: None,
            label: None,
        })
    }

    /// Types `text` (then its trailing keys) as key events into the aimed
    /// element, which takes no text through the accessibility interfaces: its
    /// window is raised and the element given the focus where it can be (never
    /// with a click, which would pick a cell or press a button), and the keys
    /// go to whatever widget has the focus. What changed is told by the tree,
    /// else by the pixels.
    async fn type_keys(
        &self,
        engine: &E,
        aimed: Aimed,
        text: &str,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let name = self.describe(&aimed);
        let (text, keys) = split_trailing_keys(text);
        if text.chars().count() > MAX_TEXT {
            return Err(ToolError::BadArguments(format!(
                "the text is longer than {MAX_TEXT} characters; type it in parts"
            )));
        }
        let element = aimed.element().cloned();
        let secret = element.as_ref().is_some_and(|e| e.is_secret());
        let mut before = self
            .before(engine, Some(aimed.snapshot.clone()), options)
            .await;
        before.aiming_at(&aimed);
        before.tells_caret = true;
        self.bring_forward(engine, &aimed).await?;
        let focused = match &element {
            Some(e) if e.states.contains(State::Focused) => true,
            Some(e) if aimed.snapshot.accessible => {
                engine.perform(&e.id, &Operation::Focus).await.is_ok()
            }
            _ => false,
        };
        if !text.is_empty() {
            self.send(engine, Input::Text(text.to_string())).await?;
        }
        if !keys.is_empty() {
            before.mark = engine.mark().await;
            self.send(engine, Input::Keys(keys.clone())).await?;
        }
        let shown = match secret {
            true => characters(text.chars().count()),
            false => quote_typed(text),
        };
        let why = match (focused, aimed.snapshot.accessible) {
            (_, false) => "its window has no accessibility: the keys went to its focused widget",
            (true, true) => "it takes no text itself: the keys went to it, as typed on a keyboard",
            (false, true) => {
                "it takes no text and could not take the focus: the keys went to its window's focused widget"
            }
        };
        let mut what = format!("typed {shown} with key events into {name} ({why})");
        if !keys.is_empty() {
            what.push_str(&format!(", then pressed {}", chords_text(&keys)));
        }
        Ok(self.answer(engine, what, before, options).await?.text())
    }

    /// Makes real key events reach the element: its window active, and the
    /// element focused (a pointer click on it when focusing failed).
    async fn ready_keyboard(
        &self,
        engine: &E,
        aimed: &mut Aimed,
        focused: bool,
    ) -> Result<(), ToolError> {
        self.bring_forward(engine, aimed).await?;
        let has_focus = aimed
            .element()
            .is_some_and(|e| e.states.contains(State::Focused));
        if focused || has_focus {
            return Ok(());
        }
        match self.pointer_way(engine, aimed, false).await? {
            Ok(at) => {
                self.send_click(engine, at, &super::ClickOptions::default(), None)
                    .await
            }
            Err(why) => Err(ToolError::CannotAct(format!(
                "cannot give the element the keyboard focus: it refused, and {why}"
            ))),
        }
    }

    /// Gives `element` the keyboard focus unless it has it already, so that a
    /// field keeps its caret and selection (focusing a GTK entry again selects
    /// all of it); whether it has the focus now.
    async fn focus_once(&self, engine: &E, element: &axsight_core::Element) -> bool {
        element.states.contains(State::Focused)
            || engine.perform(&element.id, &Operation::Focus).await.is_ok()
    }

    /// Aims at the field inside a container aimed at (an Impress title shape's
    /// group holds its paragraph): typing's editing keys sent to the container
    /// went to the slide, where ctrl+a, BackSpace deleted the shape. Answers
    /// how the container is called when it did, and refuses a container with
    /// several fields, naming them.
    fn aim_into_its_field(&self, aimed: &mut Aimed) -> Result<Option<String>, ToolError> {
        let Some(node) = aimed.node else {
            return Ok(None);
        };
        let tree = &aimed.snapshot.tree;
        if !tree.element(node).role.is_container() {
            return Ok(None);
        }
        let fields: Vec<_> = tree
            .descendants(node)
            .into_iter()
            .skip(1)
            .filter(|&n| {
                let element = tree.element(n);
                is_editable(element) && element.is_shown()
            })
            .collect();
        match fields.as_slice() {
            [] => Ok(None),
            [field] => {
                let container = self.describe(aimed);
                aimed.node = Some(*field);
                Ok(Some(container))
            }
            several => {
                let heads: Vec<String> = {
                    let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
                    several
                        .iter()
                        .take(5)
                        .map(|&n| {
                            let element = tree.element(n);
                            let handle = registry.assign(&element.id, element.role, &element.name);
                            super::element_head(&handle.to_string(), element)
                        })
                        .collect()
                };
                Err(ToolError::CannotAct(format!(
                    "{} holds {} fields; aim at the one to type into: {}",
                    self.describe(aimed),
                    several.len(),
                    heads.join(", ")
                )))
            }
        }
    }

    /// Whether no accessible window lies at the point `target` names. An app that
    /// answers nothing does not count: keys pressed into an app stuck inside an
    /// accessible call can deadlock it, so aiming there fails as it should.
    async fn no_window_at(&self, engine: &E, target: &Target) -> bool {
        matches!(
            self.aim(engine, target).await,
            Err(ToolError::NoWindowAt { .. })
        )
    }

    async fn send(&self, engine: &E, input: Input) -> Result<(), ToolError> {
        engine.send_input(&input).await.map_err(ToolError::engine)
    }

    /// Reads the field after typing (whose events follow `mark`) and says whether
    /// it holds what was typed.
    async fn read_back(
        &self,
        engine: &E,
        aimed: &Aimed,
        id: &axsight_core::ElementId,
        typed: &str,
        cleared: bool,
        mark: axsight_core::EventMark,
    ) -> (Check, bool) {
        const SECRET: &str = "check: not read back (a secret field's content is never read)";
        // Key events arrive asynchronously: let the text-changed events come in.
        settle_briefly(engine, &aimed.window_id(), mark).await;
        let field = match self
            .read_for_acting(engine, &aimed.window_id(), false, None)
            .await
        {
            Ok(snapshot) => snapshot
                .tree
                .find(id)
                .map(|n| snapshot.tree.element(n).clone()),
            Err(_) => None,
        };
        let Some(field) = field else {
            return (
                Check::unread("check: could not read the field back (it is gone)"),
                false,
            );
        };
        let was_secret = aimed.element().is_some_and(|e| e.is_secret());
        if was_secret || field.is_secret() {
            // Its length, never its text: as many characters as were typed
            // (after what it held, when appending)?
            let before = match cleared {
                true => Some(0),
                false => aimed.element().and_then(|e| e.secret_length),
            };
            let expected = before.map(|before| before + typed.chars().count());
            return match (field.secret_length, expected) {
                (Some(holds), Some(expected)) => (secret_length_check(holds, expected), true),
                _ => (Check::unread(SECRET), true),
            };
        }
        if field.role == Role::Terminal {
            let check = match field.value.as_deref() {
                Some(screen) => terminal_shows(screen, typed),
                None => Check::unread(
                    "check: not read back: this terminal does not give its screen on the bus \
                     (Konsole's text is the top of its history): its screen is read by OCR \
                     in get_window_tree",
                ),
            };
            return (check, false);
        }
        let holds = field.value.clone().unwrap_or_default();
        let ok = if cleared {
            holds == typed
        } else {
            holds.contains(typed)
        };
        // A cell shows the result of the formula typed into it; LibreOffice's
        // cells carry the formula as their description.
        let formula = field.role == Role::Cell && !typed.is_empty() && field.description == typed;
        let line = if ok {
            format!("check: the field holds {}", quote_whole(&holds))
        } else if formula {
            format!(
                "check: the field holds the formula {}, showing {}",
                quote_whole(typed),
                quote_whole(&holds)
            )
        } else {
            format!(
                "check: MISMATCH: the field holds {}, expected {} {}",
                quote_whole(&holds),
                if cleared { "exactly" } else { "it to contain" },
                quote_whole(typed)
            )
        };
        (
            Check {
                line,
                held: Some(ok || formula),
            },
            false,
        )
    }

    /// `press_key`: presses keys, in the target after focusing it, or wherever the
    /// keyboard focus is.
    pub async fn press_key(
        &self,
        keys: &str,
        target: Option<&Target>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.press(None, Some(keys), target, options).await
    }

    /// `press_key` with `text` typed as key events before `keys` (either may
    /// be left out, not both): into a grid, a canvas, a terminal, where the
    /// focus is or in the target after focusing it.
    pub async fn press(
        &self,
        text: Option<&str>,
        keys: Option<&str>,
        target: Option<&Target>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_press_key(text, keys, target, options).await)
            .await
    }

    async fn do_press_key(
        &self,
        text: Option<&str>,
        keys: Option<&str>,
        target: Option<&Target>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let text = text.filter(|t| !t.is_empty());
        if text.is_none() && keys.is_none() {
            return Err(ToolError::BadArguments(
                "give `key` (keys to press), `text` (text to type as keys), or both".into(),
            ));
        }
        if text.is_some_and(|t| t.chars().count() > MAX_TEXT) {
            return Err(ToolError::BadArguments(format!(
                "the text is longer than {MAX_TEXT} characters; type it in parts"
            )));
        }
        let chords = match keys {
            Some(keys) => parse_keys(keys).map_err(|e| ToolError::BadArguments(e.to_string()))?,
            None => Vec::new(),
        };
        let engine = self.engine().await?;
        let (window, place, in_secret) = match target {
            // A point no accessible window covers: focus it with a click anyway.
            Some(point @ Target::Point(at)) if self.no_window_at(&engine, point).await => {
                let click = super::ClickOptions::default();
                engine
                    .activate_window_at(*at)
                    .await
                    .map_err(ToolError::engine)?;
                self.send_click(&engine, *at, &click, None).await?;
                if let Some(text) = text {
                    self.send(&engine, Input::Text(text.to_string())).await?;
                }
                if !chords.is_empty() {
                    self.send(&engine, Input::Keys(chords.clone())).await?;
                }
                return Ok(format!(
                    "clicked at ({}, {}) and {}; no diff, since no window lies there\n",
                    at.x,
                    at.y,
                    pressed(text, &chords, false)
                ));
            }
            Some(target) => {
                let mut aimed = self.aim(&engine, target).await?;
                let name = self.describe(&aimed);
                let focused = match aimed.element() {
                    Some(element) => self.focus_once(engine.as_ref(), element).await,
                    None => false,
                };
                self.ready_keyboard(&engine, &mut aimed, focused).await?;
                let secret = aimed.element().is_some_and(|e| e.is_secret());
                (Some(aimed.snapshot), format!(" in {name}"), secret)
            }
            None => {
                let active = engine
                    .window_tree(&WindowQuery::default(), self.read_options(false, false))
                    .await;
                match active {
                    Ok(snapshot) => {
                        let place = match snapshot.title.as_str() {
                            // A popup or menu has no title: the window it is over does.
                            "" => self.untitled_place(&engine, &snapshot).await,
                            title => format!(" in the active window '{title}'"),
                        };
                        let tree = &snapshot.tree;
                        let secret = tree.ids().any(|id| {
                            let element = tree.element(id);
                            element.states.contains(State::Focused) && element.is_secret()
                        });
                        (Some(snapshot), place, secret)
                    }
                    Err(error) if error.kind() == axsight_core::FailureKind::ConnectionLost => {
                        return Err(ToolError::engine(error))
                    }
                    Err(_) => (None, " (no window is active)".into(), false),
                }
            }
        };
        // The app the keys went to: a copy or cut there put its text on the
        // clipboard.
        let copier = window.as_ref().map(|w| w.app.clone());
        let mut before = self.before(&engine, window, options).await;
        before.expecting = axsight_core::Expecting::of_keys(&chords);
        before.tells_caret = true;
        let clipboard_before = self.clipboard_before_copy(&engine, &chords).await;
        if let Some(text) = text {
            self.send(&engine, Input::Text(text.to_string())).await?;
            before.expecting = axsight_core::Expecting::Unknown;
        }
        if !chords.is_empty() {
            self.send(&engine, Input::Keys(chords.clone())).await?;
        }
        let what = format!("{}{place}", pressed(text, &chords, in_secret));
        let mut answered = self.answer(&engine, what, before, options).await?;
        // Once the app has settled, its copy (if it made one) holds the clipboard.
        if let Some(before) = clipboard_before {
            let (line, copied) = self
                .clipboard_after_copy(&engine, before, copier.as_deref(), in_secret)
                .await;
            if in_secret && copied {
                self.note_secret_copy(&engine, &chords).await;
            }
            answered.checks.push(line);
        }
        Ok(answered.text())
    }
}

/// How text goes in through EditableText: over the selection, as the keyboard
/// would, in a field that had the focus (the agent may have selected text in
/// it); at the caret in one that had not.
impl<E: Engine> Session<E> {
    /// Where keys went when the active window has no title (a popup, a menu):
    /// named by its app and the titled window of that app it is over.
    async fn untitled_place(&self, engine: &E, snapshot: &axsight_core::WindowSnapshot) -> String {
        let titled = engine.applications().await.ok().and_then(|apps| {
            apps.into_iter()
                .filter(|app| app.pid.is_some() && app.pid == snapshot.pid)
                .flat_map(|app| app.windows)
                .map(|window| window.title)
                .find(|title| !title.is_empty())
        });
        match titled {
            Some(title) => format!(
                " in an untitled window of {} (a popup or menu over '{title}')",
                snapshot.app
            ),
            None => format!(" in an untitled window of {}", snapshot.app),
        }
    }
}

/// `n` characters, in words (`1 character`, `12 characters`).
fn characters(n: usize) -> String {
    match n {
        1 => "1 character".into(),
        n => format!("{n} characters"),
    }
}

/// The check of a secret field by its length: its text is never read.
fn secret_length_check(holds: usize, expected: usize) -> Check {
    let line = match holds == expected {
        true => format!(
            "check: the field holds {}, as many as were typed (a secret field's text is never read)",
            characters(holds)
        ),
        false => format!(
            "check: MISMATCH: the field holds {}, {expected} were expected (a secret field's text is never read)",
            characters(holds)
        ),
    };
    Check {
        line,
        held: Some(holds == expected),
    }
}

/// Whether a terminal's screen shows what was typed: on the cursor's row, or
/// on rows it wrapped onto (a long line), the row named either way.
fn terminal_shows(screen: &str, typed: &str) -> Check {
    let screen = axsight_core::terminal::without_cursor(screen);
    let rows: Vec<&str> = screen.split('\n').collect();
    let joined: String = rows.concat();
    let shown = typed.is_empty() || joined.contains(typed);
    let row = rows
        .iter()
        .rev()
        .find(|row| !typed.is_empty() && row.contains(typed))
        .or(rows.last())
        .copied()
        .unwrap_or_default();
    let line = match shown {
        true => format!(
            "check: the terminal shows it, on the row {}",
            quote_typed(row)
        ),
        false => format!(
            "check: MISMATCH: the terminal does not show the typed text; its last row is {}",
            quote_typed(row)
        ),
    };
    Check {
        line,
        held: Some(shown),
    }
}

fn insertion(text: &str, had_focus: bool) -> Operation {
    match had_focus {
        true => Operation::TypeOver(text.to_string()),
        false => Operation::InsertText(text.to_string()),
    }
}

/// What reading a field back found: the answer's check line, and whether the
/// field held the text (`None`: it could not be read, or must not be).
struct Check {
    line: String,
    held: Option<bool>,
}

impl Check {
    fn unread(line: &str) -> Check {
        Check {
            line: line.to_string(),
            held: None,
        }
    }

    /// The check of a field that took its text only when `keys` were pressed.
    fn once_pressed(self, keys: &[KeyChord]) -> Check {
        let line = match self.line.strip_prefix("check: ") {
            Some(rest) => format!("check: once {} was pressed, {rest}", chords_text(keys)),
            None => self.line,
        };
        Check { line, ..self }
    }

    /// The check of a field read before `keys` were pressed: they may have
    /// ended its dialog, so it holds the text no more.
    fn before_pressed(self, keys: &[KeyChord]) -> Check {
        let keys = chords_text(keys);
        let line = if let Some(rest) = self.line.strip_prefix("check: the field holds") {
            format!("check: before {keys}, the field held{rest}")
        } else if let Some(rest) = self.line.strip_prefix("check: the terminal shows it") {
            // Return runs the line: the screen may show it no more.
            format!("check: before {keys}, the terminal showed it{rest}")
        } else {
            self.line
        };
        Check { line, ..self }
    }
}

/// What `press_key` did: `typed "120" as key events and pressed Return`.
fn pressed(text: Option<&str>, chords: &[KeyChord], secret: bool) -> String {
    let typed = text.map(|text| match secret {
        true => format!("typed {} as key events", characters(text.chars().count())),
        false => format!("typed {} as key events", quote_typed(text)),
    });
    let keys = (!chords.is_empty()).then(|| format!("pressed {}", chords_text(chords)));
    [typed, keys]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" and ")
}

fn chords_text(chords: &[KeyChord]) -> String {
    chords
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
