//! Recording a person's work as a plan (`axsight record`). The engine watches
//! the pointer and keyboard ([`Engine::watch_input`]); this module finds what
//! each press landed on, in the tree the person saw, and which element had the
//! focus at each key, and core's [`Recording`] folds those moments into steps.
//! [`plan`] writes them as `execute_sequence`'s JSON.
//!
//! **The tree the person saw.** The windows of the app in front are read
//! whenever its events have been quiet for [`QUIET`], and a press is looked up
//! in the last such read: by the time the press is seen the click may already
//! have closed the menu it chose from. A press outside every window read so
//! far (another app's) is looked up in that window read then. Keys go to the
//! element the latest read says has the focus, read again first when events
//! came since (Tab moved it).
//!
//! It never reads a secret field's text: a password typed is a parameter.

mod plan;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axsight_core::{
    seen_changes, Application, ConnectOptions, ElementId, Engine, EventMark, Hit, Key, Modifier,
    MouseButton, Observed, ObservedInput, Point, ReadOptions, Recording, SeenChange, State,
    StepTarget, WatchEnded, WindowQuery, WindowSnapshot,
};

use crate::{Session, ToolError};
pub use plan::{Plan, PLAN_VERSION};

/// How long an app's events must be quiet before its windows are read again.
const QUIET: Duration = Duration::from_millis(40);
/// The longest the windows go unread while events keep coming.
const MOST_STALE: Duration = Duration::from_millis(60);
/// How a recording made without watching input says so, and what it misses.
const EVENTS_ONLY: &str = "accessibility events alone: a field's text, a check box, a combo \
     box's choice, a radio button or tab picked, windows opening, and a click only where a \
     control took the focus as something changed; chords, drags and the wheel are not seen";

/// How long after the last read an app that went quiet is read whole.
const SETTLED: Duration = Duration::from_millis(100);
/// A press and release farther apart than this, in pixels, is a drag.
const DRAG_DISTANCE: i32 = 8;
/// How often the input forwarder looks whether the recording still listens.
const FORWARD_POLL: Duration = Duration::from_millis(200);
/// What a read for recording fetches: what is shown, without action names.
const RECORDING_READ: ReadOptions = ReadOptions {
    include_invisible: false,
    actions: false,
};

/// How a recording is made.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// Every typed text becomes a parameter of the plan (secrets always are).
    pub every_text_a_parameter: bool,
}

/// What a recording tells while it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordNews {
    /// Input is being watched (how), and the person may begin.
    Watching(String),
    /// A step was written, as a person reads it.
    Step(String),
}

/// The windows the person sees: the app in front, as last read while quiet,
/// and every app's windows as last listed.
struct View {
    windows: Vec<WindowSnapshot>,
    apps: Vec<Application>,
    /// The app in front (by pid), kept while no window is active.
    front: Option<u32>,
    /// Events came since the windows were read.
    stale: bool,
    /// When the windows were last read.
    read_at: Instant,
}

impl Default for View {
    fn default() -> View {
        View {
            windows: Vec::new(),
            apps: Vec::new(),
            front: None,
            stale: false,
            read_at: Instant::now(),
        }
    }
}

impl View {
    /// How many titled windows the app of `snapshot` shows.
    fn titled_windows(&self, snapshot: &WindowSnapshot) -> usize {
        self.apps
            .iter()
            .filter(|app| app.pid == snapshot.pid && app.name == snapshot.app)
            .flat_map(|app| &app.windows)
            .filter(|window| !window.title.is_empty())
            .count()
    }

    /// The element holding the keyboard focus in the app in front, its
    /// active window first.
    fn focus(&self) -> Option<Hit> {
        let active: Vec<&ElementId> = self
            .apps
            .iter()
            .flat_map(|app| &app.windows)
            .filter(|w| w.is_active())
            .map(|w| &w.id)
            .collect();
        let mut windows: Vec<&WindowSnapshot> = self.windows.iter().collect();
        windows.sort_by_key(|s| !active.contains(&&s.window_id()));
        windows.into_iter().find_map(|snapshot| {
            let tree = &snapshot.tree;
            let node = tree
                .descendants(tree.root())
                .into_iter()
                .rev()
                .find(|&n| tree.element(n).states.contains(State::Focused))?;
            Hit::in_snapshot(snapshot, node, self.titled_windows(snapshot))
        })
    }
}

/// A recording running in the background (the `record` tool's): how to stop
/// it, and the task that ends with its plan.
pub(crate) struct Running {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<Plan, ToolError>>,
}

impl<E: Engine> Session<E> {
    /// Starts recording in the background, for [`Session::stop_recording`];
    /// answers once input is being watched, with how.
    pub async fn start_recording(
        self: &Arc<Self>,
        options: RecordOptions,
    ) -> Result<String, ToolError> {
        let mut running = self.recording.lock().await;
        if running.as_ref().is_some_and(|r| !r.task.is_finished()) {
            return Err(ToolError::BadArguments(
                "a recording is already under way: stop it first (record with stop: true)".into(),
            ));
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, watching) = tokio::sync::oneshot::channel::<String>();
        let session = Arc::clone(self);
        let task = tokio::spawn(async move {
            let mut ready = Some(ready);
            let stopped = async {
                let _ = stopped.await;
            };
            session
                .record(options, stopped, move |news| {
                    if let (RecordNews::Watching(how), Some(ready)) = (news, ready.take()) {
                        let _ = ready.send(how);
                    }
                })
                .await
        });
        match watching.await {
            Ok(how) => {
                *running = Some(Running { stop, task });
                Ok(how)
            }
            // It ended before it watched anything: its error says why.
            Err(_) => match task.await {
                Ok(Err(error)) => Err(error),
                _ => Err(ToolError::BadArguments(
                    "the recording could not start".into(),
                )),
            },
        }
    }

    /// Stops the recording [`Session::start_recording`] began, and returns
    /// its plan.
    pub async fn stop_recording(&self) -> Result<Plan, ToolError> {
        let running = self.recording.lock().await.take().ok_or_else(|| {
            ToolError::BadArguments(
                "no recording is under way: start one first (record without stop)".into(),
            )
        })?;
        let _ = running.stop.send(());
        match running.task.await {
            Ok(plan) => plan,
            Err(error) => Err(ToolError::BadArguments(format!(
                "the recording failed: {error}"
            ))),
        }
    }

    /// Records what the person does until `stop` resolves (or the input
    /// watch ends), telling `news` as it goes, and returns the plan.
    pub async fn record(
        &self,
        options: RecordOptions,
        stop: impl Future<Output = ()>,
        mut news: impl FnMut(RecordNews),
    ) -> Result<Plan, ToolError> {
        let engine = self.engine().await?;
        let (sender, mut inputs) = tokio::sync::mpsc::unbounded_channel();
        // Kept while input cannot be watched, so that the channel stays open.
        let mut unwatched = None;
        let watched = match engine.watch_input().await {
            Ok(watch) => {
                let watched = watch.source.clone();
                // The watch blocks: a thread hands its input over until nobody
                // listens.
                std::thread::Builder::new()
                    .name("axsight-record".into())
                    .spawn(move || loop {
                        match watch.next(FORWARD_POLL) {
                            Ok(input) => {
                                if sender.send(input).is_err() {
                                    return;
                                }
                            }
                            Err(WatchEnded::Quiet) if sender.is_closed() => return,
                            Err(WatchEnded::Quiet) => {}
                            Err(WatchEnded::Closed) => return,
                        }
                    })
                    .map_err(|e| ToolError::BadArguments(format!("cannot start recording: {e}")))?;
                watched
            }
            Err(why) => {
                unwatched = Some(sender);
                format!("{EVENTS_ONLY} ({why})")
            }
        };
        let fresh = E::connect(ConnectOptions::default())
            .await
            .map_err(ToolError::engine)?;
        let mut recorder = Recorder {
            events_only: unwatched.is_some(),
            session: self,
            fresh,
            settled: true,
            earlier: Vec::new(),
            raced: false,
            engine: &*engine,
            view: View::default(),
            recording: Recording::new(options.every_text_a_parameter),
            pressed: None,
            mark: engine.mark().await,
            opened: Vec::new(),
            typing: false,
        };
        recorder.look().await;
        let mut told = 0;
        news(RecordNews::Watching(watched.clone()));
        tokio::pin!(stop);
        loop {
            tokio::select! {
                biased;
                () = &mut stop => break,
                input = inputs.recv() => match input {
                    Some(input) => recorder.take(input).await,
                    None => break,
                },
                next = engine.next_event(recorder.mark, QUIET) => {
                    recorder.events_until(next).await;
                    // Input that came while the windows were read may show
                    // its effect in that read already.
                    recorder.raced = !inputs.is_empty();
                }
            }
            for step in &recorder.recording.steps()[told..] {
                news(RecordNews::Step(step.described()));
            }
            told = recorder.recording.steps().len();
        }
        drop(inputs);
        let (steps, parameters) = recorder.recording.finish();
        for step in steps.iter().skip(told) {
            news(RecordNews::Step(step.described()));
        }
        Ok(Plan::new(&steps, &parameters, watched))
    }
}

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
struct Recorder<'e, E: Engine> {
    session: &'e Session<E>,
    engine: &'e E,
    view: View,
    recording: Recording,
    pressed: Option<Press>,
    /// The events seen so far.
    mark: EventMark,
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
    /// The windows as read before the last read, and whether input came
    /// while that read ran.
    earlier: Vec<WindowSnapshot>,
    raced: bool,
}

impl<E: Engine> Recorder<'_, E> {
    /// One piece of the person's input.
    async fn take(&mut self, input: ObservedInput) {
        // Never a key's character: it may be part of a password.
        match &input.what {
            Observed::Key(_) => tracing::debug!(stale = self.view.stale, "recording: a key"),
            pointer => tracing::debug!(?pointer, stale = self.view.stale, "recording: pointer"),
        }
        let engine = self.engine;
        match input.what {
            Observed::Pressed {
                button,
                at,
                modifiers,
            } => {
                // Events since the last read (the pointer's hover, a popup
                // still opening): read again now, a few milliseconds after the
                // press, before the app is done with it.
                // Pressed while the windows were being read: the read may show
                // the click's effect (a check box checked); the one before it
                // shows what the person saw.
                let seen = match self.raced {
                    true => hit_in(engine, &self.view, &self.earlier, at).await,
                    false => hit_at(engine, &self.view, at).await,
                };
                tracing::debug!(?seen, raced = self.raced, "recording: seen at the press");
                let hit = match seen {
                    Some(hit) => Some(hit),
                    None if self.view.stale => {
                        let seen = self.view.windows.clone();
                        self.look().await;
                        let hit = hit_at(engine, &self.view, at).await;
                        tracing::debug!(?hit, "recording: read again at the press");
                        // Its check mark and text as the person saw them:
                        // the app may have taken the click by now.
                        hit.map(|hit| match element_in(&seen, &hit.element) {
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
                let focus = self.view.focus();
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
        let hit = press.hit.filter(|hit| !hit.silent);
        match (hit, onto) {
            (Some(from), Some(to)) => self.recording.drag(from, to),
            (hit, _) => {
                let nothing = hit.is_none();
                self.recording
                    .click(hit, press.at, press.button, &press.modifiers, press.time_ms);
                if nothing {
                    self.name_the_point(press.at).await;
                }
            }
        }
    }

    /// Says what is at a point clicked where the tree names nothing: its
    /// app, and the text OCR reads there (read after the click, which may
    /// have changed it).
    async fn name_the_point(&mut self, at: Point) {
        let engine = self.engine;
        let Some(window) = window_at(engine, &self.view, at).await else {
            return;
        };
        let listed = self.view.apps.iter().find_map(|app| {
            let window = app.windows.iter().find(|w| w.id == window)?;
            Some((app.name.clone(), window.title.clone()))
        });
        let Some((app, title)) = listed else {
            return;
        };
        self.recording.click_in_app(&app);
        if let Some(text) = self.session.read_around(engine, at).await {
            let window = (!title.is_empty()).then_some(title);
            self.recording.click_reads(text, window);
        }
    }

    /// The events up to `next`: the windows are read again once they stop,
    /// and windows that opened meanwhile are waited for.
    async fn events_until(&mut self, next: EventMark) {
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
            self.write_waits();
            return;
        }
        if self.view.stale && (quiet || long_stale) {
            self.look().await;
            self.write_waits();
        }
    }

    /// Reads the app in front again, noting windows that opened. Events that
    /// come while it reads are after the read.
    async fn look(&mut self) {
        self.look_with(Fresh::No).await;
    }

    async fn look_with(&mut self, fresh: Fresh) {
        self.mark = self.engine.mark().await;
        let before = std::mem::take(&mut self.view.apps);
        let trees = match fresh {
            Fresh::Yes => &self.fresh,
            Fresh::No => self.engine,
        };
        self.earlier = self.view.windows.clone();
        look(self.engine, trees, &mut self.view).await;
        if self.view.apps.is_empty() {
            self.view.apps = before; // the listing failed: keep the last
            return;
        }
        if self.events_only {
            self.note_changes();
        }
        self.note_opened(&before);
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
                let Some(hit) = Hit::in_snapshot(now, node, titled) else {
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

    fn write_waits(&mut self) {
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

/// Reads the windows of the app in front again through `trees`, listing
/// every app's through `engine`.
async fn look<E: Engine>(engine: &E, trees: &E, view: &mut View) {
    let Ok(apps) = engine.applications().await else {
        return;
    };
    let front = apps
        .iter()
        .find(|app| app.windows.iter().any(|w| w.is_active()))
        .and_then(|app| app.pid)
        .or(view.front);
    view.apps = apps;
    view.front = front;
    view.stale = false;
    view.read_at = Instant::now();
    if let Some(pid) = front {
        match trees
            .window_trees(Some(&pid.to_string()), RECORDING_READ)
            .await
        {
            Ok(windows) => view.windows = windows,
            Err(error) => tracing::debug!(%error, "recording: the app in front did not read"),
        }
    }
}

/// The titled windows in `now` that `before` lacked, as targets to wait for.
fn opened(before: &[Application], now: &[Application]) -> Vec<(ElementId, StepTarget)> {
    if before.is_empty() {
        return Vec::new(); // the first listing: what was open when it began
    }
    let known: Vec<&ElementId> = before
        .iter()
        .flat_map(|a| &a.windows)
        .map(|w| &w.id)
        .collect();
    let mut found = Vec::new();
    for app in now {
        for window in app.windows.iter().filter(|w| !known.contains(&&w.id)) {
            if window.title.trim().is_empty() {
                continue; // a popup: the step that opened it acts in it next
            }
            found.push((
                window.id.clone(),
                StepTarget {
                    selector: format!("role:{}", window.role),
                    app: app.name.clone(),
                    window: Some(window.title.clone()),
                    described: format!("[{}] {}", window.role, axsight_core::bare(&window.title)),
                    fragile: None,
                },
            ));
        }
    }
    found
}

/// What a press at `at` landed on: a popup read while quiet, else the
/// smallest window read while quiet that input there reaches, else the window
/// there read now.
async fn hit_at<E: Engine>(engine: &E, view: &View, at: Point) -> Option<Hit> {
    hit_in(engine, view, &view.windows, at).await
}

/// [`hit_at`] in `windows`, read earlier than `view`'s.
async fn hit_in<E: Engine>(
    engine: &E,
    view: &View,
    windows: &[WindowSnapshot],
    at: Point,
) -> Option<Hit> {
    let active: Vec<&ElementId> = view
        .apps
        .iter()
        .flat_map(|app| &app.windows)
        .filter(|w| w.is_active())
        .map(|w| &w.id)
        .collect();
    let mut seen: Vec<&WindowSnapshot> = windows
        .iter()
        .filter(|s| root_box(s).is_some_and(|b| b.contains(at.x, at.y)))
        .collect();
    // An untitled window (a menu, a combo box's list) is a popup over the
    // app's windows: the display may match no window of its own to it. Then
    // a dialog, which stays over the window it belongs to (Qt 6 may still
    // call that window the active one); then the active window; then the
    // smaller.
    seen.sort_by_key(|s| {
        let area = root_box(s).map(|b| i64::from(b.width) * i64::from(b.height));
        let dialog = matches!(
            s.tree.element(s.tree.root()).role,
            axsight_core::Role::Dialog | axsight_core::Role::Alert
        );
        (
            !s.title.is_empty(),
            !dialog,
            !active.contains(&&s.window_id()),
            area,
        )
    });
    for snapshot in seen.iter().filter(|s| s.title.is_empty()) {
        if let Some(hit) = Hit::at_point(snapshot, at, view.titled_windows(snapshot)) {
            return Some(hit);
        }
    }
    // The display is not asked which window is on top: by now the click may
    // have closed the one it was on (a dialog's OK).
    if let Some(snapshot) = seen.into_iter().find(|s| !s.title.is_empty()) {
        return Hit::at_point(snapshot, at, view.titled_windows(snapshot));
    }
    let window = window_at(engine, view, at).await?;
    let query = WindowQuery {
        window_id: Some(window),
        ..WindowQuery::default()
    };
    let snapshot = engine.window_tree(&query, RECORDING_READ).await.ok()?;
    Hit::at_point(&snapshot, at, view.titled_windows(&snapshot))
}

/// The listed window that input at `at` reaches, smallest first.
async fn window_at<E: Engine>(engine: &E, view: &View, at: Point) -> Option<ElementId> {
    let mut there: Vec<&axsight_core::Window> = view
        .apps
        .iter()
        .flat_map(|app| &app.windows)
        .filter(|w| w.bounds.is_some_and(|b| b.contains(at.x, at.y)))
        .collect();
    there.sort_by_key(|w| w.bounds.map(|b| i64::from(b.width) * i64::from(b.height)));
    for window in there {
        if engine.input_reaches(&window.id, at).await.unwrap_or(false) {
            return Some(window.id.clone());
        }
    }
    None
}

/// The element with identity `id` in `windows`.
fn element_in<'w>(windows: &'w [WindowSnapshot], id: &str) -> Option<&'w axsight_core::Element> {
    windows.iter().find_map(|snapshot| {
        let tree = &snapshot.tree;
        tree.descendants(tree.root())
            .into_iter()
            .map(|node| tree.element(node))
            .find(|element| element.id.0 == id)
    })
}

fn root_box(snapshot: &WindowSnapshot) -> Option<axsight_core::Bounds> {
    snapshot.tree.element(snapshot.tree.root()).bounds
}
