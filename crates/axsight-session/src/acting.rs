//! Acting on the desktop and answering with what changed.
//!
//! Every action runs the same way: find the target afresh ([`crate::target`]), note
//! the app's windows and a mark in the event stream, act, wait for the UI to settle
//! (events, never a fixed sleep), read again and print the diff, with handles for
//! everything new. The tools differ only in how they act; that lives in the
//! submodules.
//!
//! # An action, end to end
//!
//! Every acting tool runs the same steps: aim, re-check, note what is there, act,
//! settle, read again, diff. Taking `click_element` as the example:
//!
//! 1. **Tool handler** (`axsight-mcp/src/server/acting.rs`). rmcp deserialises
//!    `ClickArgs` (`params/acting.rs`). `TargetArgs` is flattened into every tool that
//!    has a target and insists on exactly one of `selector`, `index` (with
//!    `vision_type` for a number) or `x`+`y`. The aliases are the Windows-era names:
//!    `process`, `title`, `text_to_type`, `app_name`/`name`. `ActArgs` becomes
//!    `ActOptions`: the diff on or off (`ui_diff_before_after`), `timeout_ms` (held to
//!    50 ms–120 s), and a 6000-character diff budget.
//! 2. **Aim** (`target.rs`, `Session::aim`). The target's window is read afresh, with
//!    action names. A handle goes through the registry to its element and window; the
//!    window is read, and read again with invisible elements if the element is not
//!    drawn. An element that is gone makes the handle stale (undecided when the read
//!    was partial), and so does a role or name other than the registry last printed.
//!    A selector is tried on the named or active window first, then on every window
//!    (`window_trees`). A point takes the windows whose bounds hold it, the active one
//!    first, and picks the first that `input_reaches`; the element is
//!    `aim::element_at`, the deepest drawn element there.
//! 3. **Re-check: pointer or not** (`acting/pointer.rs`, `pointer_way`). With
//!    `background`, the accessible way. Otherwise the point is `aim::clickable_point`:
//!    the centre of the element's box cut by its clipping ancestors (window, dialog,
//!    scrolled pane, list, tree, table; not menus, whose items live in a popup far
//!    from the menu's box). No visible part: `Operation::ScrollIntoView`, a short
//!    settle, a fresh read, and one more try. Then `input_reaches` at that point. Each
//!    "no" becomes the reason the answer prints (`another window covers it there`, `it
//!    has no visible box on screen`).
//! 4. **Before** (`acting.rs`, `Session::before`). The aimed window as just read, every
//!    other window of the same app (same pid) read again, and the app's window list:
//!    an action in a dialog often changes the window beneath it, and a click often
//!    opens a new window. Then `Engine::mark()`, after those reads, so their own events
//!    do not count, and a capture of the window for the pixel witness (see
//!    Where the tree is silent (see `sources/surfaces.rs` and `acting/witness.rs` in `axsight-session`)). With the diff off, only
//!    the mark is used.
//! 5. **Act.** By pointer: `bring_forward` activates the window when its root is not
//!    `active`, then `send_input(Input::Click)`. Otherwise `perform(Operation::Action)`
//!    with `aim::click_action` (the first of `click`, `press`, `activate`, `toggle`,
//!    `jump`, `open`, `select`, or the only action). Clicks that only a pointer can give
//!    (right, middle, double, with modifiers) are refused instead. The other tools act
//!    in `acting/text.rs` (typing, keys), `acting/values.rs` (values, options, toggles,
//!    named actions), `acting/windows.rs` (activate, close, open) and `acting/wait.rs`.
//! 6. **Settle.** `Engine::settle(window, mark, SettlePolicy::default().within(timeout))`
//!    (`axsight-atspi`'s `events` module says how). The answer's first line is what was done and how, then `;` and
//!    how the wait went (`Settled`'s `Display`).
//! 7. **Read again** (`Session::answer`). Each window of the before set is read by its
//!    identity; one that is gone counts as closed. A read that fails as not answering
//!    ends the answer there, with a line saying the app may be running a modal dialog
//!    inside the action's call, where its windows are on screen, and how to close it. The app's windows are listed
//!    again: new ones are read (opened); listed ones that went before they could be
//!    read become one-line stubs (closed).
//! 8. **Diff** (`axsight-core/src/diff.rs`). `WindowChange::between`, `opened` and
//!    `closed` per window; `render_diff` prints `added:`, `removed:` and `changed:`
//!    through the registry, so every element it names gets its handle now.
//!    `Session::remember` maps the new elements to their windows during the reads, so
//!    the new handles work in the next call. Where the tree says nothing (a window
//!    off the bus, no change, a silent surface acted on), the pixel witness's lines
//!    follow or replace it. Elements are compared by identity, and
//!    only those the compact tree would print (drawn, under drawn ancestors) count: a
//!    rename is a change, and scrolling out of view is a removal. An added subtree
//!    that does not fit the budget is printed as one line with a count and
//!    `get_window_tree from:`.
//! 9. **Recover.** As for reads, a lost connection drops the engine so the next call
//!    connects again.
//!
//! Typing (`acting/text.rs`) focuses the element (`GrabFocus`), clears it
//! (`SetTextContents("")`, else `ctrl+a BackSpace` as keys), inserts the text at the
//! caret through `EditableText` (which the engine refuses for a toolkit whose quirks
//! say it ignores it: Gecko), and falls back to `Input::Text` after making the
//! keyboard reach the element (window activated; a pointer click when `GrabFocus`
//! failed). It reads the field back (a short settle, then a read) before pressing the
//! trailing keys that `split_trailing_keys` took off the text, and moves the settle mark
//! to just before those keys. `wait_for_element` aims again on every event
//! (`next_event`) and at least every 500 ms; `open_application` checks the app listing
//! the same way, at least every 250 ms.

mod clipboard;
mod elsewhere;
mod menu_choice;
mod pointer;
mod sequence;
mod text;
mod values;
mod wait;
mod windows;
mod witness;

use std::time::{Duration, Instant};

use axsight_core::{
    element_head, render_diff, visible_box, Bounds, Capture, Element, ElementId, Engine,
    EngineError, EventMark, Expecting, FailureKind, Role, SettleEnd, SettlePolicy, State, Tree,
    Window, WindowChange, WindowQuery, WindowSnapshot,
};

pub use clipboard::ClipboardRequest;
pub(crate) use elsewhere::Desktop;
pub use pointer::{AgainstReference, ClickOptions};
pub use sequence::SequenceStart;
pub use values::NewValue;
pub use wait::Condition;

use crate::session::Session;
use crate::target::Aimed;
use crate::ToolError;

/// What every action tool takes besides its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActOptions {
    /// Answer with the diff of the UI (on by default).
    pub diff: bool,
    /// The longest each wait for the UI to settle may take.
    pub timeout: Duration,
    /// Characters of diff at most.
    pub max_chars: usize,
}

impl Default for ActOptions {
    fn default() -> ActOptions {
        ActOptions {
            diff: true,
            timeout: Duration::from_millis(5000),
            max_chars: 6000,
        }
    }
}

/// An action's answer: what was done, how the wait went, what changed.
pub(crate) struct Answered {
    /// What was done and how, with how settling went.
    pub head: String,
    /// Lines checking the result (typed text read back, a toggle's state).
    pub checks: Vec<String>,
    /// Lines after the checks: where the caret is now, windows other apps
    /// opened before the action.
    pub notes: Vec<String>,
    pub diff: String,
    /// The acted-in window as read after settling; `None` when it closed or no
    /// diff was asked for.
    pub after: Option<WindowSnapshot>,
}

impl Answered {
    /// The answer as the agent reads it.
    pub fn text(&self) -> String {
        let mut out = format!("{}\n", self.head);
        for line in self.checks.iter().chain(&self.notes) {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&self.diff);
        out
    }
}

/// The state of things just before acting, to diff against.
#[derive(Clone)]
pub(crate) struct Before {
    /// Every window of the app acted on, as read just before; the one acted in
    /// first. An action in a dialog often changes the window beneath it.
    trees: Vec<WindowSnapshot>,
    /// The pid of the app acted on, and its windows then.
    pid: Option<u32>,
    windows: Vec<Window>,
    /// The desktop's windows then, to tell the ones other apps open (none
    /// when it could not be listed, or no diff is given).
    desktop: Option<elsewhere::Desktop>,
    /// Windows other apps opened after the last answer and before this
    /// action, one line each.
    meanwhile: Vec<String>,
    /// Where settling starts counting: just before the last input.
    pub mark: EventMark,
    /// What the action is expected to change: settling ends sooner once it has.
    pub expecting: Expecting,
    /// The acted-in window's pixels just before, to witness what events do
    /// not show (see `witness.rs`).
    pixels: Option<Capture>,
    /// The silent surface acted on, if any: its pixels are witnessed even
    /// when the tree shows changes elsewhere.
    surface: Option<Bounds>,
    /// A control acted on in a document (a web page): the document's id and
    /// the control's box. A page's control may change only its look (a chip's
    /// class), so where the page shows no other change than focus, the
    /// control's pixels are witnessed.
    page_control: Option<(ElementId, Bounds)>,
    /// Where the pointer clicked, if it did: what changes there is mostly the
    /// clicked control's own look.
    pub pointer: Option<axsight_core::Point>,
    /// Where this session's pointer was before: the control it left changes
    /// its look too.
    pointer_before: Option<axsight_core::Point>,
    /// Whether the action may move a caret (keys, typing, a click into a
    /// text): its answer then says where the focused text's caret is.
    pub tells_caret: bool,
    /// A menu item the action chose: its menu closes once the app has taken
    /// the choice, so the answer is not read while it still shows.
    pub chosen_item: Option<ElementId>,
}

impl Before {
    /// Notes that the action aims at `aimed`'s element: where it is a silent
    /// surface (or lies in one), what changes there is told from its pixels.
    pub(crate) fn aiming_at(&mut self, aimed: &Aimed) {
        let tree = &aimed.snapshot.tree;
        self.surface = aimed.silent_surface().and_then(|n| visible_box(tree, n));
        self.page_control = aimed.node.and_then(|node| {
            let page = tree
                .ancestors(node)
                .find(|&n| tree.element(n).role == Role::Document)?;
            Some((tree.element(page).id.clone(), visible_box(tree, node)?))
        });
        self.chosen_item = aimed
            .node
            .filter(|&node| menu_choice::chooses_from_a_menu(tree, node))
            .map(|node| tree.element(node).id.clone());
    }
}

impl<E: Engine> Session<E> {
    /// Notes what is there before acting in `window`: every window of its app and
    /// the event mark. Take it after the last read and before acting; without a
    /// diff to give, only the mark.
    pub(crate) async fn before(
        &self,
        engine: &E,
        window: Option<WindowSnapshot>,
        options: &ActOptions,
    ) -> Before {
        let pid = window.as_ref().and_then(|w| w.pid);
        let mut trees: Vec<WindowSnapshot> = window.into_iter().collect();
        let apps = match options.diff {
            true => engine.applications().await.ok(),
            false => None,
        };
        let windows = own_windows(apps.as_deref().unwrap_or_default(), pid);
        let desktop = apps.as_deref().map(elsewhere::Desktop::noted);
        let meanwhile = match (
            &apps,
            &*self.desktop_told.lock().unwrap_or_else(|e| e.into_inner()),
        ) {
            (Some(apps), Some(told)) => told
                .new_elsewhere(apps, pid)
                .into_iter()
                .map(|(window, app)| elsewhere::meanwhile_line(window, &app))
                .collect(),
            _ => Vec::new(),
        };
        for other in &windows {
            if trees.iter().any(|t| t.window_id() == other.id) {
                continue;
            }
            if let Ok(Some(snapshot)) = self.reread(engine, &other.id).await {
                trees.push(snapshot);
            }
        }
        let frame = trees
            .first()
            .and_then(|t| t.tree.element(t.tree.root()).bounds)
            .filter(Bounds::has_area);
        let pixels = match (options.diff, frame) {
            (true, Some(frame)) => self.capture_for_witness(engine, frame).await,
            _ => None,
        };
        Before {
            trees,
            pid,
            windows,
            desktop,
            meanwhile,
            mark: engine.mark().await,
            expecting: Expecting::Unknown,
            pixels,
            surface: None,
            page_control: None,
            pointer: None,
            pointer_before: *self.pointer.lock().unwrap_or_else(|e| e.into_inner()),
            tells_caret: false,
            chosen_item: None,
        }
    }

    /// Notes the desktop's windows as told: after a tool that opened windows on
    /// purpose (an app started, a browser), they are not news in the next
    /// action's answer.
    pub(crate) async fn note_desktop(&self) {
        let Ok(engine) = self.engine().await else {
            return;
        };
        if let Ok(apps) = engine.applications().await {
            self.tell_desktop(&apps);
        }
    }

    /// Keeps `apps`' windows as the ones the agent has been told of.
    fn tell_desktop(&self, apps: &[axsight_core::Application]) {
        *self.desktop_told.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(elsewhere::Desktop::noted(apps));
    }

    /// What the app with `pid` shows on the display, as a sentence for an agent
    /// that cannot read its tree right now.
    async fn shown_by(&self, engine: &E, pid: Option<u32>) -> String {
        let Some(pid) = pid else { return String::new() };
        match engine.screen_windows(pid).await {
            Ok(windows) if !windows.is_empty() => {
                let listed: Vec<String> = windows
                    .iter()
                    .rev()
                    .map(|(title, b)| {
                        format!("'{title}' [{},{},{},{}]", b.x, b.y, b.width, b.height)
                    })
                    .collect();
                format!("Its windows on screen, top first: {}. ", listed.join(", "))
            }
            _ => String::new(),
        }
    }

    /// Waits for the UI to settle after an action and prints what changed after
    /// `what` (the line that says what was done and how).
    pub(crate) async fn answer(
        &self,
        engine: &E,
        what: String,
        before: Before,
        options: &ActOptions,
    ) -> Result<Answered, ToolError> {
        self.expire_now_and_then(engine).await;
        let window_id = before.trees.first().map(WindowSnapshot::window_id);
        let policy = SettlePolicy::default()
            .expecting(before.expecting)
            .within(options.timeout);
        let mut settled = engine.settle(window_id.as_ref(), before.mark, policy).await;
        if let (Some(item), true) = (&before.chosen_item, options.diff) {
            settled = self
                .until_menu_closes(engine, &before, item, settled, options)
                .await;
        }
        // A window without events is watched by its pixels instead.
        let watched = match (&before.pixels, settled.end) {
            (Some(then), SettleEnd::Silent) => {
                Some(self.settle_pixels(engine, then, options.timeout).await)
            }
            _ => None,
        };
        let head = match &watched {
            Some((_, pixels)) => format!("{what}; {pixels}"),
            None => format!("{what}; {settled}"),
        };
        if !options.diff {
            return Ok(Answered {
                head,
                checks: Vec::new(),
                notes: Vec::new(),
                diff: String::new(),
                after: None,
            });
        }
        let mut afters = Vec::with_capacity(before.trees.len());
        for then in &before.trees {
            match self.reread(engine, &then.window_id()).await {
                Ok(now) => afters.push(now),
                Err(error) if error.engine_failure() == Some(FailureKind::NotAnswering) => {
                    let shown = self.shown_by(engine, before.pid).await;
                    return Ok(Answered {
                        head,
                        checks: vec![format!(
                            "the app stopped answering after this: {error}. It is probably running a modal dialog inside the \
                             accessible action's call (GTK3 does) and answers nothing until that closes. {shown}\
                             Close it with close_window and its exact title, or click_element with x and y on one of its \
                             buttons; do not press keys into it (a key press while the app is stuck can deadlock it for good)"
                        )],
                        notes: Vec::new(),
                        diff: String::new(),
                        after: None,
                    });
                }
                // The action happened: say so, and why nothing more can be said.
                Err(error) => {
                    return Ok(Answered {
                        head,
                        checks: vec![format!("the window could not be read again: {error}")],
                        notes: Vec::new(),
                        diff: String::new(),
                        after: None,
                    })
                }
            }
        }
        // The desktop listed again, waiting a little where the focus went to a
        // window no listing has yet (another app's, still starting).
        let deadline = Instant::now() + options.timeout.saturating_sub(settled.waited);
        let apps_now = match &before.desktop {
            Some(desktop) => elsewhere::listed_after(engine, desktop, deadline).await,
            None => engine.applications().await.ok(),
        }
        .unwrap_or_default();
        if !apps_now.is_empty() {
            self.tell_desktop(&apps_now);
        }
        let windows_now = own_windows(&apps_now, before.pid);
        // Windows another app opened: a portal's file chooser, a prompt.
        let mut opened_elsewhere = Vec::new();
        for (window, app) in before
            .desktop
            .as_ref()
            .map(|desktop| desktop.new_elsewhere(&apps_now, before.pid))
            .unwrap_or_default()
        {
            if let Ok(Some(snapshot)) = self.reread(engine, &window.id).await {
                opened_elsewhere.push((snapshot, app));
            }
        }
        let was_read = |id: &ElementId| before.trees.iter().any(|t| &t.window_id() == id);
        // Windows of the app that appeared: dialogs, menus, new documents.
        let mut opened = Vec::new();
        for window in windows_now
            .iter()
            .filter(|w| !before.windows.iter().any(|b| b.id == w.id) && !was_read(&w.id))
        {
            if let Ok(Some(snapshot)) = self.reread(engine, &window.id).await {
                opened.push(snapshot);
            }
        }
        // Windows that went before they could be read: one line each.
        let closed: Vec<Tree> = before
            .windows
            .iter()
            .filter(|b| !windows_now.iter().any(|w| w.id == b.id) && !was_read(&b.id))
            .map(window_stub)
            .collect();
        let mut changes = Vec::new();
        for (then, now) in before.trees.iter().zip(&afters) {
            changes.push(match now {
                Some(now) => WindowChange::between(&then.tree, &now.tree),
                None => WindowChange::closed(&then.tree),
            });
        }
        changes.extend(opened.iter().map(|s| WindowChange::opened(&s.tree)));
        changes.extend(closed.iter().map(WindowChange::closed));
        changes.extend(
            opened_elsewhere
                .iter()
                .map(|(s, app)| WindowChange::opened_elsewhere(&s.tree, app.clone())),
        );
        let tree_quiet = changes.iter().all(|c| c.diff.is_empty());
        // No event said more than the focus moved, yet reading again found
        // more (an app that misses events): the head must not say otherwise.
        let head = if settled.end == SettleEnd::NoChange
            && watched.is_none()
            && !witness::shows_only_focus(&changes)
        {
            format!(
                "{what}; no event announced a change within {} ms, but reading again found these",
                settled.waited.as_millis()
            )
        } else {
            head
        };
        let mut diff = {
            let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            render_diff(&changes, &mut registry, options.max_chars)
        };
        let mut head = head;
        // The pixels speak where the tree cannot: a silent window, an action
        // after which the tree is quiet, a silent surface acted on, a page's
        // control where the page shows no change but focus (a web chip that
        // changes only its colour).
        let unannounced = settled.end == SettleEnd::NoChange;
        let page_control = before
            .page_control
            .as_ref()
            .filter(|(page, _)| witness::page_shows_no_change(&changes, page))
            .map(|&(_, control)| control);
        let witnessed =
            watched.is_some() || tree_quiet || before.surface.is_some() || page_control.is_some();
        if let (Some(then), true) = (&before.pixels, witnessed) {
            let now = match watched {
                Some((now, _)) => now,
                None => self.capture_for_witness(engine, then.bounds()).await,
            };
            if let Some(now) = now {
                let within = (!tree_quiet)
                    .then_some(before.surface.or(page_control))
                    .flatten();
                let frame = then.bounds();
                let pointers = witness::Pointers {
                    clicked: before.pointer,
                    before: before.pointer_before,
                    // An item picked in a surface inside the window, not a
                    // button of a window without accessibility.
                    read_under_pointer: before.surface.is_some_and(|s| s != frame),
                };
                let lines = self.witness_lines(then, now, within, pointers).await;
                match (tree_quiet, lines.is_empty()) {
                    (true, true) => diff = "no change, in the tree or on screen\n".into(),
                    (true, false) => diff = String::new(),
                    (false, _) => {}
                }
                for line in &lines {
                    diff.push_str(line);
                    diff.push('\n');
                }
                if unannounced && !lines.is_empty() {
                    head = format!(
                        "{what}; no event but focus within {} ms, but its pixels changed",
                        settled.waited.as_millis()
                    );
                }
            }
        }
        let mut notes = before.meanwhile;
        if let (true, Some(Some(now))) = (before.tells_caret, afters.first()) {
            notes.extend(self.caret_line(engine, now).await);
        }
        Ok(Answered {
            head,
            checks: Vec::new(),
            notes,
            diff,
            after: afters.into_iter().next().flatten(),
        })
    }

    /// Where the caret is in the window's focused text, and what is selected
    /// there, with the formatting at the caret: `caret in #u19 [Paragraph] at 8
    /// of 27, where the text is bold`. `None` when the focus is in no
    /// text, or its caret and selection cannot be read.
    async fn caret_line(&self, engine: &E, now: &WindowSnapshot) -> Option<String> {
        let tree = &now.tree;
        let node = tree.descendants(tree.root()).into_iter().find(|&n| {
            let element = tree.element(n);
            element.states.contains(State::Focused) && crate::session::holds_text(element)
        })?;
        let element = tree.element(node);
        let mut detail = engine.text_detail(&element.id, false).await.ok()??;
        // A one-line field has no formatting worth telling.
        if matches!(element.role, Role::Edit | Role::Text) {
            detail.at_caret = None;
            detail.in_selection = None;
        }
        let place = detail.place()?;
        let head = {
            let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            let handle = registry.assign(&element.id, element.role, &element.name);
            element_head(&handle.to_string(), element)
        };
        // LibreOffice updates its toolbars' states a quarter to two thirds of a
        // second after the caret moves (measured on 7.4): the diff may not
        // show them yet, the document's own formatting is read here.
        let late = match now.app == "soffice" {
            true => " (LibreOffice's toolbars follow the caret up to a second later: a diff may not show their Bold yet)",
            false => "",
        };
        // Said as a sentence, not as a diff's `head: change` line.
        Some(match place.strip_prefix("caret at ") {
            Some(rest) => format!("caret in {head} at {rest}{late}"),
            None => format!("in {head}, {place}{late}"),
        })
    }

    /// Reads a window again after acting; `None` when it is gone.
    async fn reread(
        &self,
        engine: &E,
        window: &ElementId,
    ) -> Result<Option<WindowSnapshot>, ToolError> {
        let query = WindowQuery {
            window_id: Some(window.clone()),
            ..WindowQuery::default()
        };
        match engine
            .window_tree(&query, self.read_options(false, false))
            .await
        {
            Ok(snapshot) => {
                self.remember(&snapshot);
                Ok(Some(snapshot))
            }
            Err(error)
                if matches!(error.kind(), FailureKind::WindowGone | FailureKind::AppGone) =>
            {
                Ok(None)
            }
            Err(error) => Err(ToolError::engine(error)),
        }
    }

    /// The aimed element's line with its handle, for saying what was acted on.
    pub(crate) fn describe(&self, aimed: &Aimed) -> String {
        if let Some(label) = &aimed.label {
            return label.clone();
        }
        match (aimed.node, aimed.point) {
            (Some(node), _) => {
                let element = aimed.snapshot.tree.element(node);
                let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
                let handle = registry.assign(&element.id, element.role, &element.name);
                element_head(&handle.to_string(), element)
            }
            (None, Some(point)) => format!("({}, {})", point.x, point.y),
            (None, None) => "the window".into(),
        }
    }

    /// Makes the aimed element's window the active one, if it is not already
    /// and the screen can raise windows (the desktop portals cannot: then the
    /// input goes where it is aimed, as it stands).
    pub(crate) async fn bring_forward(&self, engine: &E, aimed: &Aimed) -> Result<bool, ToolError> {
        let root = aimed.snapshot.tree.element(aimed.snapshot.tree.root());
        if root.states.contains(State::Active) {
            return Ok(false);
        }
        match engine.activate_window(&aimed.window_id()).await {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == FailureKind::Refused => {
                tracing::debug!(%error, "the window is not raised");
                Ok(false)
            }
            Err(error) => Err(ToolError::engine(error)),
        }
    }
}

/// The windows of the app with `pid` among `apps` (none when unknown).
fn own_windows(apps: &[axsight_core::Application], pid: Option<u32>) -> Vec<Window> {
    let Some(pid) = pid else { return Vec::new() };
    apps.iter()
        .filter(|app| app.pid == Some(pid))
        .flat_map(|app| app.windows.iter().cloned())
        .collect()
}

/// A one-element tree standing for a window that closed before it was read.
fn window_stub(window: &Window) -> Tree {
    let mut element = Element::new(window.id.0.clone(), window.role, "frame");
    element.name = window.title.clone();
    element.states = window.states;
    element.bounds = window.bounds;
    Tree::new(element)
}

/// Whether an element takes typed text.
pub(crate) fn is_editable(element: &Element) -> bool {
    element.states.contains(State::Editable)
        || matches!(element.role, Role::Edit | Role::Terminal)
        || element.is_secret()
}
