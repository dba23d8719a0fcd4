//! A recording under way: what the person sees (a [`View`] of the app in
//! front, read between its events), and what they did so far. Input is taken
//! one piece at a time: a press is looked up in the tree the person saw, keys
//! go to the element with the focus, windows that opened are waited for after
//! the step that opened them. Where input cannot be watched, the steps come
//! from what consecutive reads show changed.

use std::time::Duration;

use axsight_core::{
    seen_changes, Application, ElementId, Engine, EventMark, Hit, Key, Modifier, MouseButton,
    Observed, ObservedInput, Point, Recording, SeenChange, StepTarget, WindowSnapshot,
};

use super::view::{
    element_in, focus_in, hit_at, hit_in, look, opened, window_at, window_target, View,
};
use crate::Session;

/// The longest the windows go unread while events keep coming.
const MOST_STALE: Duration = Duration::from_millis(60);
/// How long after the last read an app that went quiet is read whole.
const SETTLED: Duration = Duration::from_millis(100);
/// A press and release farther apart than this, in pixels, is a drag.
const DRAG_DISTANCE: i32 = 8;

/// A press not yet released.
struct Press {
    button: MouseButton,
    at: Point,
    hit: Option<Hit>,
    modifiers: Vec<Modifier>,
    time_ms: u32,
}

/// A window that opened during the recording, not yet written as a wait.
struct Opened {
    id: ElementId,
    target: StepTarget,
}

/// A recording under way: what the person sees, and what they did so far.
pub(super) struct Recorder<'e, E: Engine> {
    session: &'e Session<E>,
    engine: &'e E,
    view: View,
    recording: Recording,
    pressed: Option<Press>,
    /// The events seen so far.
    pub(super) mark: EventMark,
    /// Windows that opened and are not yet waited for: before the step that
    /// acts in one, else after the step during which they were seen.
    opened: Vec<Opened>,
    /// The last key typed a character: the focus is where it was.
    typing: bool,
    /// The same desktop without kept reads: every read through it is whole.
    fresh: E,
    /// A whole read came since the last events.
    settled: bool,
    /// Input cannot be watched: steps come from what the reads show changed.
    events_only: bool,
    /// The windows as read before the last read, the apps as listed then,
    /// and whether input came while that read ran.
    earlier: Vec<WindowSnapshot>,
    earlier_apps: Vec<Application>,
    pub(super) raced: bool,
}

impl<'e, E: Engine> Recorder<'e, E> {
    /// A recording over `engine` (whose reads are kept), `fresh` (whose are
    /// not); with `events_only`, no input is watched and the steps come from
    /// what the reads show changed.
    pub(super) async fn new(
        session: &'e Session<E>,
        engine: &'e E,
        fresh: E,
        recording: Recording,
        events_only: bool,
    ) -> Recorder<'e, E> {
        Recorder {
            events_only,
            session,
            fresh,
            settled: true,
            earlier: Vec::new(),
            earlier_apps: Vec::new(),
            raced: false,
            engine,
            view: View::default(),
            recording,
            pressed: None,
            mark: engine.mark().await,
            opened: Vec::new(),
            typing: false,
        }
    }

    /// The steps so far.
    pub(super) fn recording(&self) -> &Recording {
        &self.recording
    }

    /// The steps and the parameters they use, with what was still going on
    /// (typing) written out.
    pub(super) fn finish(
        self,
    ) -> (
        Vec<axsight_core::RecordedStep>,
        Vec<axsight_core::Parameter>,
    ) {
        self.recording.finish()
    }

    /// One piece of the person's input.
    pub(super) async fn take(&mut self, input: ObservedInput) {
        // Never a key's character: it may be part of a password.
        match &input.what {
            Observed::Key(_) => {
                tracing::debug!(
                    stale = self.view.stale,
                    raced = self.raced,
                    "recording: a key"
                )
            }
            pointer => tracing::debug!(?pointer, stale = self.view.stale, "recording: pointer"),
        }
        let engine = self.engine;
        match input.what {
            Observed::Pressed {
                button,
                at,
                modifiers,
            } => {
                // Pressed while the windows were being read: the read may show
                // the click's effect (a check box checked); the one before it
                // shows what the person saw. A popup that opened while that
                // read went on is only in the read itself.
                let seen = match self.raced {
                    true => match hit_in(engine, &self.view, &self.earlier, at).await {
                        None => hit_at(engine, &self.view, at).await,
                        seen => seen,
                    },
                    false => hit_at(engine, &self.view, at).await,
                };
                tracing::debug!(?seen, raced = self.raced, "recording: seen at the press");
                let hit = match seen {
                    Some(hit) => Some(hit),
                    // Events since the last read (the pointer's hover, a popup
                    // still opening): read again now, a few milliseconds after
                    // the press, before the app is done with it.
                    None if self.view.stale => {
                        self.look().await;
                        let hit = hit_at(engine, &self.view, at).await;
                        tracing::debug!(?hit, "recording: read again at the press");
                        // Its check mark and text as the person saw them (the
                        // read before this one): the app may have taken the
                        // click by now.
                        hit.map(|hit| match element_in(&self.earlier, &hit.element) {
                            Some(before) => hit.as_it_was(before),
                            None => hit,
                        })
                    }
                    None => None,
                };
                if let Some(hit) = &hit {
                    self.wait_first_for(&hit.window);
                }
                self.pressed = Some(Press {
                    button,
                    at,
                    hit,
                    modifiers,
                    time_ms: input.time_ms,
                });
            }
            Observed::Released { button, at } => {
                let Some(press) = self.pressed.take().filter(|p| p.button == button) else {
                    return;
                };
                self.released(press, at).await;
                // What opened by now is the click's doing.
                self.relist().await;
                self.write_waits();
            }
            Observed::Scrolled { direction, at } => {
                if let Some(hit) = hit_at(engine, &self.view, at).await {
                    self.wait_first_for(&hit.window);
                    self.recording.scrolled(hit, direction);
                }
            }
            Observed::Key(chord) => {
                let character = matches!(chord.key, Key::Char(_)) && chord.modifiers.is_empty();
                // The first character after anything else goes where the focus
                // is now (a click or Tab moved it); a chord goes where it was
                // when pressed (it may open a window that takes the focus).
                if character && !self.typing && self.view.stale {
                    self.look().await;
                }
                self.typing = character;
                // Pressed while the windows were read: a window the read no
                // longer holds was open when the key went to it (a dialog's
                // field, closed by this Return).
                let closed = match self.raced {
                    true => self.focus_in_closed(),
                    false => None,
                };
                let focus = closed.or_else(|| self.view.focus());
                if let Some(focus) = &focus {
                    self.wait_first_for(&focus.window);
                }
                self.recording.key(&chord, focus.as_ref());
                if !character {
                    self.relist().await;
                    self.write_waits();
                }
            }
        }
    }

    /// A press released at `at`: a click, or a drag when it moved.
    async fn released(&mut self, press: Press, at: Point) {
        let engine = self.engine;
        let moved = (at.x - press.at.x).abs().max((at.y - press.at.y).abs());
        let onto = match moved > DRAG_DISTANCE {
            true => hit_at(engine, &self.view, at).await,
            false => None,
        };
        self.typing = false;
        // In a silent surface the place is what counts, not the element.
        let (hit, surface) = match press.hit {
            Some(hit) if hit.silent => (None, Some(hit)),
            hit => (hit, None),
        };
        match (hit, onto) {
            (Some(from), Some(to)) => self.recording.drag(from, to),
            (hit, _) => {
                let nothing = hit.is_none();
                self.recording
                    .click(hit, press.at, press.button, &press.modifiers, press.time_ms);
                if nothing {
                    self.name_the_point(press.at, surface).await;
                }
            }
        }
    }

    /// Says what is at a point clicked where the tree names nothing: its
    /// app, the silent surface or window it lay in and where, and the text
    /// OCR reads there (read after the click, which may have changed it).
    async fn name_the_point(&mut self, at: Point, surface: Option<Hit>) {
        let engine = self.engine;
        let Some(window) = window_at(engine, &self.view, at).await else {
            return;
        };
        let listed = self.view.apps.iter().find_map(|app| {
            let window = app.windows.iter().find(|w| w.id == window)?;
            Some((app.name.clone(), window))
        });
        let Some((app, listed)) = listed else {
            return;
        };
        let title = listed.title.clone();
        let within = match surface {
            Some(surface) => surface.bounds.map(|b| (surface.target, b)),
            None => listed.bounds.map(|b| (window_target(&app, listed), b)),
        };
        self.recording.click_in_app(&app);
        if let Some((target, bounds)) = within {
            let offset = Point {
                x: at.x - bounds.x,
                y: at.y - bounds.y,
            };
            self.recording.click_within(target, offset);
        }
        if let Some(text) = self.session.read_around(engine, at).await {
            let window = (!title.is_empty()).then_some(title);
            self.recording.click_reads(text, window);
        }
    }

    /// The events up to `next`: the windows are read again once they stop.
    /// Windows that opened are waited for by [`Recorder::write_waits`], once
    /// no input that came during the read is waiting: its click, seen later,
    /// may be what opened them.
    pub(super) async fn events_until(&mut self, next: EventMark) {
        let quiet = next == self.mark;
        if !quiet {
            self.mark = next;
            self.view.stale = true;
        }
        // An app that never goes quiet (a menu sliding open sends its
        // window's box on every frame) is read between its events.
        let long_stale = self.view.read_at.elapsed() >= MOST_STALE;
        if !quiet {
            self.settled = false;
        } else if !self.settled && self.view.read_at.elapsed() >= SETTLED {
            // Once the app has been quiet a while, read it afresh: a toolkit
            // may lay out what it just showed without a word (Qt's menu items
            // get their boxes after the menu said it shows).
            self.settled = true;
            self.look_with(Fresh::Yes).await;
            return;
        }
        if self.view.stale && (quiet || long_stale) {
            self.look().await;
        }
    }

    /// Reads the app in front again, noting windows that opened. Events that
    /// come while it reads are after the read.
    pub(super) async fn look(&mut self) {
        self.look_with(Fresh::No).await;
    }

    async fn look_with(&mut self, fresh: Fresh) {
        self.mark = self.engine.mark().await;
        let before = std::mem::take(&mut self.view.apps);
        let trees = match fresh {
            Fresh::Yes => &self.fresh,
            Fresh::No => self.engine,
        };
        let replaced = look(self.engine, trees, &mut self.view).await;
        // Nothing read anew (rare): the windows before are the windows now.
        self.earlier = replaced.unwrap_or_else(|| self.view.windows.clone());
        if self.view.apps.is_empty() {
            // The listing failed: keep the last.
            self.view.apps = before.clone();
            self.earlier_apps = before;
            return;
        }
        if self.events_only {
            self.note_changes();
        }
        self.note_typing();
        self.note_opened(&before);
        self.earlier_apps = before;
    }

    /// The focus as the read before the last saw it, in a window the last
    /// read no longer holds.
    fn focus_in_closed(&self) -> Option<Hit> {
        let read: Vec<ElementId> = self.view.windows.iter().map(|w| w.window_id()).collect();
        let closed = self
            .earlier
            .iter()
            .filter(|w| !read.contains(&w.window_id()));
        focus_in(closed, &self.earlier_apps)
    }

    /// Tells the recording what the field being typed into holds now.
    fn note_typing(&mut self) {
        let Some(field) = self.recording.typing_into().map(str::to_string) else {
            return;
        };
        if let Some(value) = element_in(&self.view.windows, &field).and_then(|e| e.value.clone()) {
            self.recording.field_shows(&field, &value);
        }
    }

    /// Where input cannot be watched: the steps the last read shows were
    /// taken since the one before it.
    fn note_changes(&mut self) {
        for now in &self.view.windows {
            let id = now.window_id();
            let Some(then) = self.earlier.iter().find(|w| w.window_id() == id) else {
                continue;
            };
            let titled = self.view.titled_windows(now);
            for change in seen_changes(&then.tree, &now.tree) {
                let node = match &change {
                    SeenChange::Text(node)
                    | SeenChange::Checked(node, _)
                    | SeenChange::Chosen(node, _)
                    | SeenChange::Picked(node)
                    | SeenChange::Clicked(node) => *node,
                };
                // Aimed at the element as the person saw it, before the change
                // (a button that renames itself when clicked, a combo box
                // named by its choice).
                let id = &now.tree.element(node).id;
                let hit = match then.tree.find(id) {
                    Some(seen) => Hit::in_snapshot(then, seen, titled),
                    None => Hit::in_snapshot(now, node, titled),
                };
                let Some(hit) = hit else {
                    continue;
                };
                match change {
                    SeenChange::Text(_) => {
                        let element = now.tree.element(node);
                        let text = (!element.is_secret())
                            .then(|| element.value.clone().unwrap_or_default());
                        self.recording.field_holds(hit, text);
                    }
                    SeenChange::Checked(_, on) => self.recording.toggled_to(hit, on),
                    SeenChange::Chosen(_, option) => self.recording.chose(hit, option),
                    SeenChange::Picked(_) => self.recording.picked(hit, false),
                    SeenChange::Clicked(_) => self.recording.picked(hit, true),
                }
            }
        }
    }

    /// Lists the apps again, when events came, to learn of windows that
    /// opened, without reading any tree: a press is looked up in the tree the
    /// person saw.
    async fn relist(&mut self) {
        if !self.view.stale {
            return;
        }
        let Ok(apps) = self.engine.applications().await else {
            return;
        };
        let before = std::mem::replace(&mut self.view.apps, apps);
        self.note_opened(&before);
    }

    fn note_opened(&mut self, before: &[Application]) {
        for (id, target) in opened(before, &self.view.apps) {
            if !self.opened.iter().any(|o| o.id == id) {
                self.opened.push(Opened { id, target });
            }
        }
    }

    /// Waits for the windows that opened, before a step that acts in one of
    /// them (`window`): they opened before it.
    fn wait_first_for(&mut self, window: &str) {
        if self.opened.iter().any(|o| o.id.0 == window) {
            self.write_waits();
        }
    }

    pub(super) fn write_waits(&mut self) {
        if self.pressed.is_some() {
            return; // the click is written at its release, and goes first
        }
        for opened in self.opened.drain(..) {
            // What was open before the first step needs no wait.
            if !self.recording.steps().is_empty() {
                self.recording.window_opened(opened.target);
            }
        }
    }
}

/// Whether a look reads every window anew or patches the kept reads.
#[derive(Clone, Copy)]
enum Fresh {
    Yes,
    No,
}
