//! [`LinuxEngine`]: the accessibility bus ([`Accessibility`], which lists the
//! apps and reads and keeps their windows) composed with the screen, which
//! says where windows sit ([`WindowPlaces`]) and shows the windows the bus
//! does not (`silent_windows`). The reading half of the [`Engine`] impl; the
//! acting half is `acting`.

use std::sync::Arc;
use std::time::Duration;

use axsight_atspi::Accessibility;
use axsight_core::{
    Application, Bounds, Capture, ChangeWitness, ClipboardText, ConnectOptions, ElementId, Engine,
    EventMark, Input, InputWatch, Launch, Launched, Operation, Performed, Placement, Point,
    ReadOptions, ScreenMapping, SettlePolicy, Settled, Window, WindowQuery, WindowSnapshot,
};
use futures_util::future::join_all;

use crate::apps::{matching, pick, pick_window, screen_may_have_it, AppEntry, WindowPlaces};
use crate::backends;
use crate::discover::{self, Discovery};
use crate::screen::clipboard::Clipboard;
use crate::screen::{self, matching::Wanted, SharedScreen};
use crate::silent_windows::{self, OnTheBus};
use crate::sync::lock;
use crate::{Error, Result};

pub use axsight_atspi::accessibility::READ_DEADLINE;

/// The longest a window look-up on the screen may take.
const SCREEN_DEADLINE: Duration = Duration::from_secs(1);

/// The longest connecting to the bus may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(5);

/// The Linux engine: the accessibility bus (see [`Accessibility`]), and the
/// screen (X11 or a Wayland compositor) for geometry, input and pixels.
pub struct LinuxEngine {
    /// The accessibility side: listings, reads, operations, settling.
    pub(crate) a11y: Accessibility,
    discovery: Discovery,
    pub(crate) screen: Option<SharedScreen>,
    /// Why there is no screen, when there is none.
    pub(crate) screen_problem: Option<String>,
    /// Every app's extents are relative to its window (Wayland), not only
    /// GTK4's (X11): each window's origin is added.
    every_window_relative: bool,
    /// The screen's input devices are new, and no app has been seen to take
    /// them in yet (see [`LinuxEngine::send_input`]).
    pub(crate) devices_unconfirmed: std::sync::atomic::AtomicBool,
    /// The display's clipboard, when there is a display.
    pub(crate) clipboard: Option<Arc<dyn Clipboard>>,
    /// The scale each app (by pid) that reports screen coordinates draws at,
    /// once the screen showed one of its windows: an X11 app's scale is set
    /// when it starts, so its windows are not looked up again.
    app_scales: std::sync::Mutex<std::collections::HashMap<u32, f64>>,
    /// The apps whose windows this engine shows and acts on (see `scope.rs`).
    pub(crate) scope: Option<axsight_core::AppScope>,
}

/// Apps whose scales are kept before the lot is dropped.
const MAX_APP_SCALES: usize = 256;

impl LinuxEngine {
    /// Finds the buses (see [`discover`]) and connects to the accessibility bus.
    pub async fn connect() -> Result<LinuxEngine> {
        let connect = async {
            let discovery = discover::discover().await?;
            let conn = discover::connect_to(&discovery.a11y_bus).await?;
            Ok::<_, Error>((discovery, conn))
        };
        let (discovery, conn) = tokio::time::timeout(CONNECT_DEADLINE, connect)
            .await
            .map_err(|_| Error::Timeout {
                app: "the accessibility bus".into(),
                ms: CONNECT_DEADLINE.as_millis() as u64,
            })??;
        // The screen is connected to while the apps' caches wake: a cold read
        // waits for both, not for one after the other.
        let session = crate::DesktopSession::current();
        let screen = backends::connect(
            &session,
            discovery.display.as_deref(),
            discovery.session_bus.as_deref(),
        );
        let ((), (screen, screen_problem)) =
            futures_util::join!(crate::cache::wake_app_caches(&conn), screen);
        let (every_window_relative, new_devices, own_clipboard) = match &screen {
            Some(screen) => {
                let screen = lock(screen);
                (
                    screen.extents_are_window_relative(),
                    screen.made_input_devices(),
                    screen.clipboard(),
                )
            }
            None => (false, false, None),
        };
        tracing::debug!(bus = %discovery.a11y_bus, via = discovery.a11y_bus_source, "connected");
        let clipboard = backends::clipboard(own_clipboard, discovery.display.as_deref());
        Ok(LinuxEngine {
            a11y: Accessibility::new(conn),
            discovery,
            screen,
            screen_problem,
            every_window_relative,
            devices_unconfirmed: new_devices.into(),
            clipboard,
            app_scales: Default::default(),
            scope: None,
        })
    }

    /// Connects like [`LinuxEngine::connect`] and watches events, so that reading a
    /// window nothing changed in costs one call instead of a walk. For long-lived
    /// users such as the MCP server.
    ///
    /// The watch relies on the event recorder running whenever a read yields, which
    /// a current-thread tokio runtime guarantees; on another runtime this fails.
    pub async fn connect_watching() -> Result<LinuxEngine> {
        let mut engine = LinuxEngine::connect().await?;
        engine.a11y.watch_events().await?;
        Ok(engine)
    }

    /// When the last tree-changing event arrived, if events are watched.
    pub fn last_event(&self) -> Option<std::time::Instant> {
        self.a11y.last_event()
    }

    /// Where the display and buses were found.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// The applications on the accessibility bus and their top-level windows,
    /// then the apps of windows only the screen shows (see `silent_windows`).
    pub async fn applications(&self) -> Result<Vec<Application>> {
        let entries = self.a11y.app_entries(self).await?;
        let silent = self.silent_apps(&entries).await;
        Ok(entries.into_iter().map(|e| e.info).chain(silent).collect())
    }

    /// The apps of the windows the screen shows that no app of `entries`
    /// shows, nor any other process connected to the accessibility bus (an app
    /// that just started and is not listed yet, one that does not answer);
    /// none when the screen lists no windows or does not answer.
    pub(crate) async fn silent_apps(&self, entries: &[AppEntry]) -> Vec<Application> {
        let (toplevels, connected) =
            futures_util::join!(self.toplevels(), self.a11y.connected_pids());
        let mut bus = OnTheBus {
            pids: connected,
            ..OnTheBus::default()
        };
        for entry in entries {
            bus.pids.extend(entry.info.pid);
            bus.titles
                .extend(entry.info.windows.iter().map(|w| w.title.as_str()));
        }
        silent_windows::silent_apps(&toplevels, &bus, silent_windows::command_of)
    }

    /// The screen's top-level windows, bottom first; none without a screen or
    /// when it does not answer in time.
    async fn toplevels(&self) -> Vec<screen::Toplevel> {
        let Some(screen) = self.screen.clone() else {
            return Vec::new();
        };
        match screen::off_thread(SCREEN_DEADLINE, move || lock(&screen).toplevels()).await {
            Ok(toplevels) => toplevels,
            Err(error) => {
                tracing::warn!(%error, "the screen did not list its windows");
                Vec::new()
            }
        }
    }

    /// The silent window `id` (see [`silent_windows`]) read: the window alone.
    async fn read_silent(&self, id: &ElementId) -> Result<WindowSnapshot> {
        let toplevels = self.toplevels().await;
        let shown: Vec<screen::Toplevel> = toplevels
            .into_iter()
            .filter(|t| Some(t.id) == silent_windows::window_of(id))
            .collect();
        let apps =
            silent_windows::silent_apps(&shown, &OnTheBus::default(), silent_windows::command_of);
        let app = apps.first().ok_or(Error::WindowGone)?;
        Ok(silent_windows::snapshot(app, 0))
    }

    /// Reads the tree of the window `query` names.
    pub async fn window_tree(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<WindowSnapshot> {
        Ok(self.read_listed(query, options).await?.0)
    }

    /// Reads the tree of the window `query` names, and lists the applications
    /// with the same listing.
    pub async fn window_tree_listed(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<(WindowSnapshot, Vec<Application>)> {
        self.read_listed(query, options).await
    }

    async fn read_listed(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<(WindowSnapshot, Vec<Application>)> {
        if let Some(id) = query.window_id.as_ref() {
            if silent_windows::window_of(id).is_some() {
                let snapshot = self.read_silent(id).await?;
                return Ok((snapshot, self.applications().await?));
            }
        }
        // The window the last listing picks has its extents asked alongside the
        // listing's pings: a warm read then waits for one round trip, not two.
        let (entries, early) = futures_util::join!(
            self.a11y.app_entries(self),
            self.a11y.early_extents(query, options)
        );
        let entries = entries?;
        let error = match pick_window(&entries, query) {
            Ok((entry, index)) => {
                let snapshot = self
                    .a11y
                    .read_window(self, entry, index, options, early)
                    .await?;
                return Ok((snapshot, entries.into_iter().map(|e| e.info).collect()));
            }
            Err(error) if screen_may_have_it(&error) && query.window_id.is_none() => error,
            Err(error) => return Err(error.into()),
        };
        // Not among the apps on the bus: among the windows only the screen shows.
        let silent = self.silent_apps(&entries).await;
        if silent.is_empty() {
            return Err(error.into());
        }
        let all: Vec<&Application> = entries.iter().map(|e| &e.info).chain(&silent).collect();
        let (app, index) = pick(&all, query)?;
        let snapshot = match app.checked_sub(entries.len()) {
            Some(silent_app) => silent_windows::snapshot(&silent[silent_app], index),
            None => {
                self.a11y
                    .read_window(self, &entries[app], index, options, None)
                    .await?
            }
        };
        let apps = entries.into_iter().map(|e| e.info).chain(silent).collect();
        Ok((snapshot, apps))
    }

    /// Reads the trees of every window of the apps `app` names (all apps when `None`),
    /// concurrently; the windows only the screen shows are among them. Windows
    /// that fail to read are left out.
    pub async fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> Result<Vec<WindowSnapshot>> {
        let entries = self.a11y.app_entries(self).await?;
        let silent = self.silent_apps(&entries).await;
        let all: Vec<&Application> = entries.iter().map(|e| &e.info).chain(&silent).collect();
        let chosen = match app {
            Some(want) => matching(&all, want)?,
            None => (0..all.len()).collect(),
        };
        let (on_bus, off_bus): (Vec<usize>, Vec<usize>) =
            chosen.into_iter().partition(|&a| a < entries.len());
        let reads = on_bus.into_iter().flat_map(|a| {
            let entry = &entries[a];
            (0..entry.windows.len())
                .map(move |i| self.a11y.read_window(self, entry, i, options, None))
        });
        let mut snapshots = Vec::new();
        for result in join_all(reads).await {
            match result {
                Ok(snapshot) => snapshots.push(snapshot),
                Err(error) => tracing::warn!(%error, "window skipped"),
            }
        }
        for a in off_bus {
            let app = &silent[a - entries.len()];
            snapshots.extend((0..app.windows.len()).map(|i| silent_windows::snapshot(app, i)));
        }
        Ok(snapshots)
    }

    /// The name of the screen in use (`X11`, `sway (wlroots)`), and why there
    /// is none when there is none.
    pub fn screen(&self) -> std::result::Result<String, String> {
        match &self.screen {
            Some(screen) => Ok(lock(screen).name()),
            None => Err(self
                .screen_problem
                .clone()
                .unwrap_or_else(|| "no display server was found".into())),
        }
    }

    /// The monitors the screen spans (see [`screen::Output`]); none without a
    /// screen, or where it does not say.
    pub async fn outputs(&self) -> Result<Vec<screen::Output>> {
        let Some(screen) = self.screen.clone() else {
            return Ok(Vec::new());
        };
        Ok(screen::off_thread(SCREEN_DEADLINE, move || lock(&screen).outputs()).await?)
    }

    /// Each listed app that draws at a scale its extents leave out (see
    /// [`crate::apps::AppEntry::scale`]), with that scale: name, pid, scale.
    pub async fn app_scales(&self) -> Result<Vec<(String, Option<u32>, f64)>> {
        let entries = self.a11y.app_entries(self).await?;
        Ok(entries
            .into_iter()
            .filter(|entry| ScreenMapping::scaled(entry.scale).is_scaled())
            .map(|entry| (entry.info.name, entry.info.pid, entry.scale))
            .collect())
    }

    /// See [`Engine::add_witness`]: the windows of `pid` are then refreshed from
    /// events while the witness's mark holds, though their toolkit misses some.
    pub fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        self.a11y.add_witness(pid, witness);
    }

    /// Lets go of the witness of `pid`'s windows (they are read whole again);
    /// the witness, if there was one.
    pub fn take_witness(&self, pid: u32) -> Option<Arc<dyn ChangeWitness>> {
        self.a11y.take_witness(pid)
    }
}

/// Where windows sit, from the screen: for listing apps (see `apps`) and for
/// placing a read window's boxes.
impl WindowPlaces for LinuxEngine {
    /// Whether the windows of an app with `quirks` report extents relative to
    /// themselves, so that their origin on screen must be added.
    fn window_relative(&self, quirks: crate::quirks::Quirks) -> bool {
        quirks.gtk4 || self.every_window_relative
    }

    /// How `window`'s reported boxes become the screen's (see
    /// [`WindowPlaces::window_mapping`]): window-relative boxes are moved to
    /// where the screen shows the window's content, and boxes in screen
    /// coordinates are scaled by the scale the app draws at (X11 apps scale
    /// themselves and report logical pixels; once known, an app's scale is kept
    /// by its pid, so its windows cost no look-up). `None` when no display window
    /// matches (GNOME without axsight's extension, a window the compositor does
    /// not list, a popup the display does not show). `siblings` are the ids of
    /// its app's current windows: each is matched to a display window of its
    /// own (see [`screen::matching::Matches::find`]). Replies are waited for off
    /// the runtime, within a second: a stopped display server must not stall
    /// the runtime that also serves D-Bus.
    async fn window_mapping(
        &self,
        pid: Option<u32>,
        window: &Window,
        frame: Option<Bounds>,
        siblings: &[ElementId],
        relative: bool,
    ) -> Option<ScreenMapping> {
        // A frame without extents (Java's) has no boxes to move.
        let Some(frame) = frame else {
            return Some(ScreenMapping::IDENTITY);
        };
        let known = pid.and_then(|pid| lock(&self.app_scales).get(&pid).copied());
        if let (false, Some(scale)) = (relative, known) {
            return Some(ScreenMapping::scaled(scale));
        }
        let screen = self.screen.clone()?;
        let inset = match relative && self.every_window_relative {
            true => self.a11y.frame_inset(window, frame).await,
            false => None,
        };
        let wanted = Wanted {
            title: window.title.clone(),
            size: Some((frame.width, frame.height)),
            pid,
            inset,
        };
        let id = window.id.clone();
        let siblings = siblings.to_vec();
        let lookup = screen::off_thread(SCREEN_DEADLINE, move || {
            lock(&screen).content_origin(&id, &siblings, &wanted)
        });
        let title = &window.title;
        match lookup.await {
            Ok(Some(place)) if !relative => {
                if let Some(pid) = pid {
                    let mut scales = lock(&self.app_scales);
                    // Apps come and go: a bound, not a cache to tend.
                    if scales.len() >= MAX_APP_SCALES {
                        scales.clear();
                    }
                    scales.insert(pid, place.scale);
                }
                Some(ScreenMapping::scaled(place.scale))
            }
            // Window-relative boxes count from the frame's own corner, which
            // is (0, 0) but for Qt, which adds its screen's place in the
            // layout (a frame at (1280, 0) on a second monitor).
            Ok(Some(place)) => Some(ScreenMapping {
                origin: (
                    place.x - (f64::from(frame.x) * place.scale).round() as i32,
                    place.y - (f64::from(frame.y) * place.scale).round() as i32,
                ),
                scale: place.scale,
            }),
            // An untitled one is often no window at all (GNOME Shell's own).
            Ok(None) if relative && title.is_empty() => {
                tracing::debug!("no display window for an untitled window");
                Some(ScreenMapping::IDENTITY)
            }
            Ok(None) if relative => {
                tracing::warn!("no display window for {title:?}: its boxes are left out");
                None
            }
            Ok(None) => None,
            // A screen that places no window at all (the desktop portals).
            Err(error @ axsight_screen::Error::NoWindowControl(_)) => {
                tracing::debug!(%error, "no origin for {title:?}");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "no origin for {title:?}");
                None
            }
        }
    }

    /// The screen bounds of `window`'s display window, for a window that
    /// reports no extents of its own; `None` when no display window matches.
    async fn display_window_bounds(
        &self,
        pid: Option<u32>,
        window: &Window,
        siblings: &[ElementId],
    ) -> Option<Bounds> {
        let screen = self.screen.clone()?;
        let wanted = Wanted {
            title: window.title.clone(),
            size: None,
            pid,
            inset: None,
        };
        let id = window.id.clone();
        let siblings = siblings.to_vec();
        let lookup = screen::off_thread(SCREEN_DEADLINE, move || {
            lock(&screen).window_bounds(&id, &siblings, &wanted)
        });
        match lookup.await {
            Ok(bounds) => bounds,
            Err(error) => {
                tracing::warn!(%error, title = %window.title, "no screen bounds for a window without extents");
                None
            }
        }
    }
}

impl Engine for LinuxEngine {
    type Error = Error;

    async fn connect(options: ConnectOptions) -> Result<LinuxEngine> {
        let mut engine = match options.watch_events {
            true => LinuxEngine::connect_watching().await?,
            false => LinuxEngine::connect().await?,
        };
        engine.scope = options.scope;
        Ok(engine)
    }

    // A scope (`scope.rs`) applies here, on the trait: the engine's own calls
    // to its inherent methods see the whole desktop.
    async fn applications(&self) -> Result<Vec<Application>> {
        Ok(self.scoped_apps(LinuxEngine::applications(self).await?))
    }

    async fn window_tree(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<WindowSnapshot> {
        let snapshot = LinuxEngine::window_tree(self, query, options).await?;
        self.check_snapshot(&snapshot)?;
        Ok(snapshot)
    }

    async fn window_tree_listed(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<(WindowSnapshot, Vec<Application>)> {
        let (snapshot, apps) = LinuxEngine::window_tree_listed(self, query, options).await?;
        self.check_snapshot(&snapshot)?;
        Ok((snapshot, self.scoped_apps(apps)))
    }

    async fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> Result<Vec<WindowSnapshot>> {
        let snapshots = LinuxEngine::window_trees(self, app, options).await?;
        Ok(snapshots
            .into_iter()
            .filter(|snapshot| self.check_snapshot(snapshot).is_ok())
            .collect())
    }

    async fn perform(&self, element: &ElementId, operation: &Operation) -> Result<Performed> {
        LinuxEngine::perform(self, element, operation).await
    }

    async fn send_input(&self, input: &Input) -> Result<()> {
        self.check_input(input).await?;
        LinuxEngine::send_input(self, input).await
    }

    async fn text_detail(
        &self,
        element: &ElementId,
        runs: bool,
    ) -> Result<Option<axsight_core::TextDetail>> {
        LinuxEngine::text_detail(self, element, runs).await
    }

    async fn input_reaches_each(&self, window: &ElementId, points: &[Point]) -> Result<Vec<bool>> {
        LinuxEngine::input_reaches_each(self, window, points).await
    }

    async fn activate_window(&self, window: &ElementId) -> Result<()> {
        LinuxEngine::activate_window(self, window).await
    }

    async fn screen_windows(&self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        self.check_pid(pid, "the process's windows").await?;
        LinuxEngine::screen_windows(self, pid).await
    }

    async fn activate_window_at(&self, point: Point) -> Result<()> {
        self.check_scoped_point(point).await?;
        LinuxEngine::activate_window_at(self, point).await
    }

    async fn close_window_titled(&self, title: &str) -> Result<bool> {
        self.check_title(title).await?;
        LinuxEngine::close_window_titled(self, title).await
    }

    async fn close_window(&self, window: &ElementId) -> Result<()> {
        LinuxEngine::close_window(self, window).await
    }

    async fn place_window(
        &self,
        window: &ElementId,
        placement: Placement,
    ) -> Result<Option<Bounds>> {
        LinuxEngine::place_window(self, window, placement).await
    }

    async fn clipboard_text(&self) -> Result<Option<ClipboardText>> {
        let text = LinuxEngine::clipboard_text(self).await?;
        if let Some(text) = &text {
            self.check_pid(text.owner, "the clipboard's text").await?;
        }
        Ok(text)
    }

    async fn set_clipboard_text(&self, text: String) -> Result<()> {
        LinuxEngine::set_clipboard_text(self, text).await
    }

    async fn check_alive(&self) -> Result<()> {
        LinuxEngine::check_alive(self).await
    }

    async fn clipboard_owner(&self) -> Result<Option<u32>> {
        LinuxEngine::clipboard_owner(self).await
    }

    async fn watch_input(&self) -> Result<InputWatch> {
        self.check_watch()?;
        LinuxEngine::watch_input(self).await
    }

    async fn desktop_launch(&self, app: &str) -> Result<Option<Launch>> {
        LinuxEngine::desktop_launch(self, app).await
    }

    async fn launch(&self, launch: &Launch) -> Result<Launched> {
        LinuxEngine::launch(self, launch).await
    }

    fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        LinuxEngine::add_witness(self, pid, witness);
    }

    async fn outputs(&self) -> Result<Vec<axsight_core::Output>> {
        LinuxEngine::outputs(self).await
    }

    fn app_environment(&self) -> Vec<(String, String)> {
        let found = &self.discovery;
        // The accessibility bus too: Chromium joins it only when it can find it
        // without a session bus to ask (a server started with no environment).
        let a11y = Some(found.a11y_bus.clone());
        [
            ("DISPLAY", &found.display),
            ("DBUS_SESSION_BUS_ADDRESS", &found.session_bus),
            ("AT_SPI_BUS_ADDRESS", &a11y),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.clone().map(|v| (name.to_string(), v)))
        .collect()
    }

    async fn capture(&self, region: Option<Bounds>) -> Result<Capture> {
        self.check_capture(region).await?;
        LinuxEngine::capture(self, region).await
    }

    async fn mark(&self) -> EventMark {
        LinuxEngine::mark(self).await
    }

    async fn settle(
        &self,
        window: Option<&ElementId>,
        mark: EventMark,
        policy: SettlePolicy,
    ) -> Settled {
        LinuxEngine::settle(self, window, mark, policy).await
    }

    async fn next_event(&self, mark: EventMark, timeout: Duration) -> EventMark {
        LinuxEngine::next_event(self, mark, timeout).await
    }
}
