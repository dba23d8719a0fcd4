//! What the person sees while a recording runs: the windows of the app in
//! front as last read, every app's windows as last listed, and what a press at
//! a point landed on there.

use std::time::Instant;

use axsight_core::{
    Application, ElementId, Engine, Hit, Point, ReadOptions, State, StepTarget, WindowQuery,
    WindowSnapshot,
};

/// What a read for recording fetches: what is shown, without action names.
pub(super) const RECORDING_READ: ReadOptions = ReadOptions {
    include_invisible: false,
    actions: false,
};

/// The windows the person sees: the app in front, as last read while quiet,
/// and every app's windows as last listed.
pub(super) struct View {
    pub(super) windows: Vec<WindowSnapshot>,
    pub(super) apps: Vec<Application>,
    /// The app in front (by pid), kept while no window is active.
    pub(super) front: Option<u32>,
    /// Events came since the windows were read.
    pub(super) stale: bool,
    /// When the windows were last read.
    pub(super) read_at: Instant,
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
    pub(super) fn titled_windows(&self, snapshot: &WindowSnapshot) -> usize {
        titled_windows(&self.apps, snapshot)
    }

    /// The element holding the keyboard focus in the app in front, its
    /// active window first.
    pub(super) fn focus(&self) -> Option<Hit> {
        focus_in(self.windows.iter(), &self.apps)
    }
}

/// How many titled windows the app of `snapshot` shows in the listing `apps`.
fn titled_windows(apps: &[Application], snapshot: &WindowSnapshot) -> usize {
    apps.iter()
        .filter(|app| app.pid == snapshot.pid && app.name == snapshot.app)
        .flat_map(|app| &app.windows)
        .filter(|window| !window.title.is_empty())
        .count()
}

/// The windows the listing `apps` calls active.
fn active(apps: &[Application]) -> Vec<&ElementId> {
    apps.iter()
        .flat_map(|app| &app.windows)
        .filter(|w| w.is_active())
        .map(|w| &w.id)
        .collect()
}

/// Sorts `windows` front first, as the person sees them. An untitled window
/// (a menu, a combo box's list) is a popup over the app's windows: the
/// display may match no window of its own to it. Then a dialog, which stays
/// over the window it belongs to (Qt 6 may still call that window the active
/// one); then the active window (as `apps` lists it); then the smaller.
fn front_first(windows: &mut [&WindowSnapshot], apps: &[Application]) {
    let active = active(apps);
    windows.sort_by_key(|s| {
        let area = root_box(s).map(|b| b.area());
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
}

/// The element holding the keyboard focus in `windows`, as listed in
/// `apps`, the active window first.
pub(super) fn focus_in<'w>(
    windows: impl Iterator<Item = &'w WindowSnapshot>,
    apps: &[Application],
) -> Option<Hit> {
    let mut windows: Vec<&WindowSnapshot> = windows.collect();
    // A kept read may still mark the element a dialog took the focus from.
    front_first(&mut windows, apps);
    windows.into_iter().find_map(|snapshot| {
        let tree = &snapshot.tree;
        let node = tree
            .descendants(tree.root())
            .into_iter()
            .rev()
            .find(|&n| tree.element(n).states.contains(State::Focused))?;
        Hit::in_snapshot(snapshot, node, titled_windows(apps, snapshot))
    })
}

/// Reads the windows of the app in front again through `trees`, listing
/// every app's through `engine`; returns the windows the new read replaced,
/// `None` where none were read anew.
pub(super) async fn look<E: Engine>(
    engine: &E,
    trees: &E,
    view: &mut View,
) -> Option<Vec<WindowSnapshot>> {
    let Ok(apps) = engine.applications().await else {
        return None;
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
    let pid = front?;
    match trees
        .window_trees(Some(&pid.to_string()), RECORDING_READ)
        .await
    {
        Ok(windows) => Some(std::mem::replace(&mut view.windows, windows)),
        Err(error) => {
            tracing::debug!(%error, "recording: the app in front did not read");
            None
        }
    }
}

/// The titled windows in `now` that `before` lacked, as targets to wait for.
pub(super) fn opened(before: &[Application], now: &[Application]) -> Vec<(ElementId, StepTarget)> {
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
            found.push((window.id.clone(), window_target(&app.name, window)));
        }
    }
    found
}

/// The window `window` of `app`, found by its role and title.
pub(super) fn window_target(app: &str, window: &axsight_core::Window) -> StepTarget {
    let title = (!window.title.is_empty()).then(|| window.title.clone());
    let mut described = format!("[{}]", window.role);
    if let Some(title) = &title {
        described.push_str(&format!(" {}", axsight_core::bare(title)));
    }
    StepTarget {
        selector: format!("role:{}", window.role),
        app: app.to_string(),
        window: title,
        described,
        fragile: None,
    }
}

/// What a press at `at` landed on, in the windows last read: a popup there,
/// else a dialog, the active window, the smaller window, in that order (the
/// display is not asked: the click may have closed the window by now); where
/// no window read holds the point, the window input there reaches, read now.
pub(super) async fn hit_at<E: Engine>(engine: &E, view: &View, at: Point) -> Option<Hit> {
    hit_in(engine, view, &view.windows, at).await
}

/// [`hit_at`] in `windows`, read earlier than `view`'s.
pub(super) async fn hit_in<E: Engine>(
    engine: &E,
    view: &View,
    windows: &[WindowSnapshot],
    at: Point,
) -> Option<Hit> {
    let mut seen: Vec<&WindowSnapshot> = windows
        .iter()
        .filter(|s| root_box(s).is_some_and(|b| b.contains(at.x, at.y)))
        .collect();
    front_first(&mut seen, &view.apps);
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
pub(super) async fn window_at<E: Engine>(engine: &E, view: &View, at: Point) -> Option<ElementId> {
    let mut there: Vec<&axsight_core::Window> = view
        .apps
        .iter()
        .flat_map(|app| &app.windows)
        .filter(|w| w.bounds.is_some_and(|b| b.contains(at.x, at.y)))
        .collect();
    there.sort_by_key(|w| w.bounds.map(|b| b.area()));
    for window in there {
        if engine.input_reaches(&window.id, at).await.unwrap_or(false) {
            return Some(window.id.clone());
        }
    }
    None
}

/// The element with identity `id` in `windows`.
pub(super) fn element_in<'w>(
    windows: &'w [WindowSnapshot],
    id: &str,
) -> Option<&'w axsight_core::Element> {
    let id = ElementId(id.to_string());
    windows.iter().find_map(|snapshot| {
        let node = snapshot.tree.find(&id)?;
        Some(snapshot.tree.element(node))
    })
}

fn root_box(snapshot: &WindowSnapshot) -> Option<axsight_core::Bounds> {
    snapshot.tree.element(snapshot.tree.root()).bounds
}
