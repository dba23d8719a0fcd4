//! [`LinuxEngine`]: the AT-SPI2 engine's public face — applications, windows and
//! window trees — and the memory that lets a watching engine answer from what it
//! already read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axsight_core::{
    Application, Bounds, Capture, ChangeWitness, ClipboardText, ConnectOptions, ElementId, Engine,
    EventMark, Input, Launched, Operation, Performed, Placement, Point, ReadOptions, SettlePolicy,
    Settled, Window, WindowQuery, WindowSnapshot,
};
use futures_util::future::join_all;
use zbus::Connection;

use crate::apps::{
    matching, pick, pick_window, screen_may_have_it, AppEntry, Listing, WindowPlaces,
};
use crate::backends;
use crate::cache::AppCache;
use crate::dbus;
use crate::discover::{self, Discovery};
use crate::events::{Change, Event, EventWatch};
use crate::normalize::build_tree;
use crate::refresh;
use crate::screen::clipboard::Clipboard;
use crate::screen::{self, matching::Wanted, SharedScreen};
use crate::silent_windows::{self, OnTheBus};
use crate::sync::lock;
use crate::walk::{RawNode, Walker};
use crate::{Error, Result};

/// The longest one whole window read may take, whatever its calls do.
pub const READ_DEADLINE: Duration = Duration::from_secs(8);

/// How long an app may take to answer a ping before it counts as stuck.
pub(crate) const PING_DEADLINE: Duration = Duration::from_millis(300);

/// A frame's children read for its content's corner: the header bar and the
/// content come first.
const MAX_INSET_CHILDREN: usize = 8;
/// Windows whose insets are kept before the lot is dropped.
const MAX_INSETS: usize = 256;
/// AT-SPI's window-relative coordinate type.
const WINDOW_COORDS: u32 = 1;

/// The longest a window look-up on the screen may take.
const SCREEN_DEADLINE: Duration = Duration::from_secs(1);

/// The longest connecting to the bus may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(5);

/// A window read kept for reuse while its app reports no change.
struct CachedWindow {
    /// The event log's bookmark taken before the read: later events are replayed.
    bookmark: u64,
    options: ReadOptions,
    raw: Arc<RawNode>,
    /// Where the window's content starts on screen; `None` when its extents
    /// are window-relative and the screen cannot say where it is.
    origin: Option<(i32, i32)>,
    gaps: Vec<String>,
    /// The app's witness's mark taken before the read, for an app that misses
    /// events (see [`LinuxEngine::add_witness`]).
    mark: Option<String>,
    /// This read's number ([`WindowSnapshot::read`]): kept while a refresh
    /// changes nothing.
    read: u64,
}

/// Numbers the reads of windows, for [`WindowSnapshot::read`].
static READS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_read() -> u64 {
    READS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Cached reads are kept per window and per visibility: a read of hidden elements
/// and one without them answer different questions.
type WindowKey = (ElementId, bool);

/// A window and its frame's size: what a frame's inset is kept by.
type FrameKey = (ElementId, i32, i32);

/// A window's extents asked ahead of its read (see [`LinuxEngine::early_extents`]).
struct EarlyExtents {
    obj: dbus::ObjRef,
    extents: zbus::Result<(i32, i32, i32, i32)>,
}

/// The Linux engine: one connection to the accessibility bus, and the screen
/// (X11 or a Wayland compositor) for geometry, input and pixels.
pub struct LinuxEngine {
    pub(crate) conn: Connection,
    discovery: Discovery,
    pub(crate) screen: Option<SharedScreen>,
    /// Why there is no screen, when there is none.
    pub(crate) screen_problem: Option<String>,
    /// Every app's extents are relative to its window (Wayland), not only
    /// GTK4's (X11): each window's origin is added.
    every_window_relative: bool,
    /// Where each window's content starts inside its frame, by window and
    /// frame size (see [`LinuxEngine::frame_inset`]).
    insets: Mutex<HashMap<FrameKey, (i32, i32)>>,
    /// The screen's input devices are new, and no app has been seen to take
    /// them in yet (see [`LinuxEngine::send_input`]).
    pub(crate) devices_unconfirmed: std::sync::atomic::AtomicBool,
    /// With a watch, unchanged windows and app lists are served from memory, and
    /// actions wait for the UI to settle.
    pub(crate) watch: Option<EventWatch>,
    windows: Mutex<HashMap<WindowKey, Arc<CachedWindow>>>,
    /// The last app listing and the event bookmark taken before it.
    pub(crate) listing: Mutex<Option<(u64, Vec<AppEntry>)>>,
    /// Apps (by bus name) that did not answer a listing, and since when.
    pub(crate) stuck: Mutex<HashMap<String, std::time::Instant>>,
    /// The display's clipboard, when there is a display.
    pub(crate) clipboard: Option<Arc<dyn Clipboard>>,
    /// What vouches for the windows of apps (by pid) that miss events.
    witnesses: Mutex<HashMap<u32, Arc<dyn ChangeWitness>>>,
    /// The process of each connection to the accessibility bus seen so far,
    /// by its unique name (names are never reused).
    bus_pids: Mutex<HashMap<String, Option<u32>>>,
}

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
            conn,
            discovery,
            screen,
            screen_problem,
            every_window_relative,
            devices_unconfirmed: new_devices.into(),
            insets: Mutex::default(),
            clipboard,
            watch: None,
            windows: Mutex::default(),
            listing: Mutex::default(),
            stuck: Mutex::default(),
            witnesses: Mutex::default(),
            bus_pids: Mutex::default(),
        })
    }

    /// Connects like [`LinuxEngine::connect`] and watches events, so that reading a
    /// window nothing changed in costs one call instead of a walk. For long-lived
    /// users such as the MCP server.
    ///
    /// The watch relies on the event recorder running whenever a read yields, which
    /// a current-thread tokio runtime guarantees; on another runtime this fails.
    pub async fn connect_watching() -> Result<LinuxEngine> {
        let flavor = tokio::runtime::Handle::current().runtime_flavor();
        if flavor != tokio::runtime::RuntimeFlavor::CurrentThread {
            return Err(Error::Runtime);
        }
        let mut engine = LinuxEngine::connect().await?;
        engine.watch = Some(EventWatch::start(&engine.conn).await?);
        Ok(engine)
    }

    /// When the last tree-changing event arrived, if events are watched.
    pub fn last_event(&self) -> Option<std::time::Instant> {
        self.watch.as_ref().and_then(EventWatch::last_event)
    }

    /// Where the display and buses were found.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// The applications on the accessibility bus and their top-level windows,
    /// then the apps of windows only the screen shows (see `silent_windows`).
    pub async fn applications(&self) -> Result<Vec<Application>> {
        let entries = self.app_entries().await?;
        let silent = self.silent_apps(&entries).await;
        Ok(entries.into_iter().map(|e| e.info).chain(silent).collect())
    }

    /// The apps of the windows the screen shows that no app of `entries`
    /// shows, nor any other process connected to the accessibility bus (an app
    /// that just started and is not listed yet, one that does not answer);
    /// none when the screen lists no windows or does not answer.
    pub(crate) async fn silent_apps(&self, entries: &[AppEntry]) -> Vec<Application> {
        let (toplevels, connected) = futures_util::join!(self.toplevels(), self.connected_pids());
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

    /// The processes connected to the accessibility bus: every app with a
    /// bridge connects when it starts, before it is listed, and stays
    /// connected while it hangs. One call to the bus, and one more per new
    /// connection.
    async fn connected_pids(&self) -> std::collections::HashSet<u32> {
        let daemon = dbus::ObjRef::new("org.freedesktop.DBus", "/org/freedesktop/DBus");
        let names: Vec<String> =
            match dbus::call(&self.conn, &daemon, "org.freedesktop.DBus", "ListNames", ()).await {
                Ok(names) => names,
                Err(error) => {
                    tracing::debug!(%error, "the accessibility bus did not list its connections");
                    return Default::default();
                }
            };
        let unique: Vec<String> = names.into_iter().filter(|n| n.starts_with(':')).collect();
        let unknown: Vec<String> = {
            let known = lock(&self.bus_pids);
            unique
                .iter()
                .filter(|n| !known.contains_key(*n))
                .cloned()
                .collect()
        };
        let asked = unknown.iter().map(|name| {
            dbus::call::<_, u32>(
                &self.conn,
                &daemon,
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                (name.as_str(),),
            )
        });
        let pids = join_all(asked).await;
        let mut known = lock(&self.bus_pids);
        for (name, pid) in unknown.into_iter().zip(pids) {
            known.insert(name, pid.ok());
        }
        known.retain(|name, _| unique.contains(name));
        known.values().flatten().copied().collect()
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
        let (entries, early) =
            futures_util::join!(self.app_entries(), self.early_extents(query, options));
        let entries = entries?;
        let error = match pick_window(&entries, query) {
            Ok((entry, index)) => {
                let snapshot = self.read_window(entry, index, options, early).await?;
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
                self.read_window(&entries[app], index, options, None)
                    .await?
            }
        };
        let apps = entries.into_iter().map(|e| e.info).chain(silent).collect();
        Ok((snapshot, apps))
    }

    /// The extents of the window that the last listing picks for `query`, with
    /// the window asked; `None` when not watching, nothing was listed yet, or
    /// the window has no read to refresh (none kept, or its app misses events
    /// and nothing vouches for it: it is read whole). [`LinuxEngine::refreshed`]
    /// uses them if the listing still picks that window.
    async fn early_extents(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Option<EarlyExtents> {
        self.watch.as_ref()?;
        let (obj, coords) = {
            let last = lock(&self.listing);
            let (_, entries) = last.as_ref()?;
            let (entry, index) = pick_window(entries, query).ok()?;
            let key = (
                entry.info.windows[index].id.clone(),
                options.include_invisible,
            );
            let vouched = !entry.quirks.misses_events
                || entry
                    .info
                    .pid
                    .is_some_and(|pid| lock(&self.witnesses).contains_key(&pid));
            if !vouched || !lock(&self.windows).contains_key(&key) {
                return None;
            }
            (entry.windows[index].clone(), entry.quirks.extent_coords())
        };
        let extents = dbus::call(&self.conn, &obj, dbus::COMPONENT, "GetExtents", (coords,)).await;
        Some(EarlyExtents { obj, extents })
    }

    /// Reads the trees of every window of the apps `app` names (all apps when `None`),
    /// concurrently; the windows only the screen shows are among them. Windows
    /// that fail to read are left out.
    pub async fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> Result<Vec<WindowSnapshot>> {
        let entries = self.app_entries().await?;
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
            (0..entry.windows.len()).map(move |i| self.read_window(entry, i, options, None))
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

    /// Where `window`'s content starts inside its frame `frame` (as the app
    /// reports it, window-relative): its children's top-left corner, read once
    /// per window and frame size (a window that floats gains a shadow; tiled, it
    /// has none). `None` when the children cannot be read.
    async fn frame_inset(&self, window: &Window, frame: Bounds) -> Option<(i32, i32)> {
        let key = (window.id.clone(), frame.width, frame.height);
        if let Some(inset) = lock(&self.insets).get(&key) {
            return Some(*inset);
        }
        let obj = dbus::ObjRef::from_element_id(&window.id).ok()?;
        let children: Vec<dbus::ObjRef> =
            dbus::call(&self.conn, &obj, dbus::ACCESSIBLE, "GetChildren", ())
                .await
                .ok()?;
        // Window coordinates: the frame's own corner is where it says it is.
        let reads = children.iter().take(MAX_INSET_CHILDREN).map(|child| {
            dbus::call::<_, (i32, i32, i32, i32)>(
                &self.conn,
                child,
                dbus::COMPONENT,
                "GetExtents",
                (WINDOW_COORDS,),
            )
        });
        let corner = join_all(reads)
            .await
            .into_iter()
            .flatten()
            .filter(|&(_, _, width, height)| width > 0 && height > 0)
            .map(|(x, y, _, _)| (x, y))
            .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1)))?;
        let inset = ((corner.0 - frame.x).max(0), (corner.1 - frame.y).max(0));
        let mut insets = lock(&self.insets);
        // Windows come and go: a bound, not a cache to tend.
        if insets.len() >= MAX_INSETS {
            insets.clear();
        }
        insets.insert(key, inset);
        Some(inset)
    }

    /// The app listing: fresh, or the last one when no event since touched an app
    /// or window root and no app came or went.
    pub(crate) async fn app_entries(&self) -> Result<Vec<AppEntry>> {
        let Some(watch) = &self.watch else {
            return Ok(self.listing().list_apps(&[]).await?);
        };
        let bookmark = watch.bookmark().await;
        let last = lock(&self.listing).clone();
        if let Some((seen, entries)) = &last {
            // A call to each app orders its earlier events before the check; one
            // to the registry tells that the bus itself still answers (a bus that
            // died sends no event, and with no app listed nothing else is asked).
            let pings = entries.iter().map(|e| dbus::ping(&self.conn, &e.root));
            let registry = dbus::ObjRef::new(dbus::REGISTRY, dbus::ROOT_PATH);
            let bus_alive = dbus::answers_ping(&self.conn, &registry, dbus::CALL_TIMEOUT);
            let (_, bus_alive) = futures_util::join!(join_all(pings), bus_alive);
            watch.settle().await;
            if bus_alive && listing_unchanged(entries, watch.since(*seen, None)) {
                *lock(&self.listing) = Some((bookmark, entries.clone()));
                return Ok(entries.clone());
            }
        }
        let previous = last.map(|(_, entries)| entries).unwrap_or_default();
        let entries = self.listing().list_apps(&previous).await?;
        *lock(&self.listing) = Some((bookmark, entries.clone()));
        // Forget the reads of windows that are gone.
        lock(&self.windows).retain(|(id, _), _| {
            entries
                .iter()
                .any(|e| e.info.windows.iter().any(|w| &w.id == id))
        });
        Ok(entries)
    }

    /// Whether the app at `root` answers a ping within [`PING_DEADLINE`]: cheaper
    /// than any accessibility call, and answered by a busy app's main loop alone.
    pub(crate) async fn answers_ping(&self, root: &dbus::ObjRef) -> bool {
        dbus::answers_ping(&self.conn, root, PING_DEADLINE).await
    }

    /// Reads one window: walked afresh, or (when watching) the last read brought up
    /// to date. Everything together is held to [`READ_DEADLINE`].
    async fn read_window(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        early: Option<EarlyExtents>,
    ) -> Result<WindowSnapshot> {
        let window = &entry.info.windows[index];
        // An app that just did not answer is pinged before it is read again: a
        // stopped app then costs a ping, not every call's full timeout.
        let stuck_since = lock(&self.stuck).get(&entry.root.bus).copied();
        if let Some(since) = stuck_since {
            if self.answers_ping(&entry.root).await {
                lock(&self.stuck).remove(&entry.root.bus);
            } else {
                let since = match since.elapsed().as_secs() {
                    0 => "since just now".to_string(),
                    seconds => format!("for {seconds} s"),
                };
                return Err(Error::NotAnsweringSince {
                    app: entry.info.name.clone(),
                    since,
                });
            }
        }
        let read = async {
            let Some(watch) = &self.watch else {
                return self
                    .walk_window(entry, index, options, 0, None)
                    .await
                    .map(Arc::new);
            };
            let key = (window.id.clone(), options.include_invisible);
            let bookmark = watch.bookmark().await;
            // Taken after the bookmark and before any read: a change the witness
            // sees from here on makes the next mark differ.
            let mark = self.witness_mark(entry).await;
            let read = match self
                .refreshed(entry, index, options, bookmark, mark.as_deref(), early)
                .await
            {
                Some(read) => read,
                None if lock(&self.stuck).contains_key(&entry.root.bus) => {
                    return Err(Error::Timeout {
                        app: entry.info.name.clone(),
                        ms: dbus::CALL_TIMEOUT.as_millis() as u64,
                    })
                }
                None => Arc::new(
                    self.walk_window(entry, index, options, bookmark, mark)
                        .await?,
                ),
            };
            lock(&self.windows).insert(key, read.clone());
            Ok(read)
        };
        let read = tokio::time::timeout(READ_DEADLINE, read)
            .await
            .map_err(|_| Error::Timeout {
                app: entry.info.name.clone(),
                ms: READ_DEADLINE.as_millis() as u64,
            })
            .and_then(|read| read);
        if matches!(read, Err(Error::Timeout { .. })) {
            lock(&self.stuck)
                .entry(entry.root.bus.clone())
                .or_insert_with(std::time::Instant::now);
        }
        let read = read?;
        let mut tree = build_tree(&read.raw, entry.quirks, read.origin.unwrap_or((0, 0)));
        if read.origin.is_none() {
            // Window-relative boxes where the window is not known: none at all
            // rather than boxes that look like the screen's and are not.
            let ids: Vec<_> = tree.ids().collect();
            for id in ids {
                tree.element_mut(id).bounds = None;
            }
        }
        // A window that reports no extents (Java's) is where its X window is.
        let root = tree.root();
        if tree.element(root).bounds.is_none() {
            tree.element_mut(root).bounds = window.bounds;
        }
        Ok(WindowSnapshot {
            app: entry.info.name.clone(),
            pid: entry.info.pid,
            title: window.title.clone(),
            tree,
            gaps: read.gaps.clone(),
            read: Some(read.read),
            accessible: true,
        })
    }

    /// The mark of the witness of `entry`'s app, for an app that misses events
    /// and has one; `None` otherwise (its windows are then read whole).
    async fn witness_mark(&self, entry: &AppEntry) -> Option<String> {
        if !entry.quirks.misses_events {
            return None;
        }
        let witness = lock(&self.witnesses).get(&entry.info.pid?).cloned()?;
        witness.mark().await
    }

    /// See [`Engine::add_witness`]: the windows of `pid` are then refreshed from
    /// events while the witness's mark holds, though their toolkit misses some.
    pub fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        lock(&self.witnesses).insert(pid, witness);
    }

    /// Lets go of the witness of `pid`'s windows (they are read whole again);
    /// the witness, if there was one.
    pub fn take_witness(&self, pid: u32) -> Option<Arc<dyn ChangeWitness>> {
        lock(&self.witnesses).remove(&pid)
    }

    /// The last read of a window brought up to date with the events since, or
    /// `None` when it should be walked afresh (no earlier read, the window moved,
    /// too much changed; an app that misses events without a witness whose
    /// `mark` is the cached read's). `bookmark` was taken before any call made
    /// here.
    async fn refreshed(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
        mark: Option<&str>,
        early: Option<EarlyExtents>,
    ) -> Option<Arc<CachedWindow>> {
        let watch = self.watch.as_ref()?;
        let window = &entry.info.windows[index];
        let obj = &entry.windows[index];
        let cached = lock(&self.windows)
            .get(&(window.id.clone(), options.include_invisible))
            .cloned()?;
        if entry.quirks.misses_events && (mark.is_none() || cached.mark.as_deref() != mark) {
            return None;
        }
        // A partial read is read again whole: its gaps may have filled.
        if !cached.options.covers(&options) || !cached.gaps.is_empty() {
            return None;
        }
        // One call to the app: its reply comes after every event the app sent before
        // it, so once the recorder has run the log holds them all. Asked already
        // while the apps were listed, where that picked this window.
        let coords = entry.quirks.extent_coords();
        let asked = match early {
            Some(early) if &early.obj == obj => early.extents,
            _ => dbus::call(&self.conn, obj, dbus::COMPONENT, "GetExtents", (coords,)).await,
        };
        let extents = match asked {
            Ok(extents) => Some(extents),
            // Not answering: noted, so that the read ends here instead of
            // waiting out every call of a walk (see `read_window`).
            Err(error) if dbus::failure_kind(&error) == dbus::Failure::NoReply => {
                lock(&self.stuck)
                    .entry(obj.bus.clone())
                    .or_insert_with(std::time::Instant::now);
                return None;
            }
            Err(_) => None,
        };
        if extents != cached.raw.extents {
            return None;
        }
        if self.window_relative(entry.quirks)
            && self
                .window_origin(
                    entry.info.pid,
                    window,
                    frame_of(cached.raw.extents),
                    &entry.window_ids(),
                )
                .await
                != cached.origin
        {
            return None;
        }
        watch.settle().await;
        let plan = refresh::plan(&watch.since(cached.bookmark, Some(&obj.bus))?)?;
        let plan = refresh::widen(&cached.raw, plan);
        let (raw, read) = if plan.is_empty() {
            (cached.raw.clone(), cached.read)
        } else {
            let walker = Walker::new(
                &self.conn,
                entry.quirks,
                cached.options,
                AppCache::default(),
            );
            let raw = refresh::patch(&walker, &self.conn, &cached.raw, &obj.bus, plan, coords)
                .await
                .ok()?;
            // A patch that met vanishing objects gives way to a whole read.
            if !walker.into_gaps().is_empty() {
                return None;
            }
            (Arc::new(raw), next_read())
        };
        Some(Arc::new(CachedWindow {
            bookmark,
            options: cached.options,
            raw,
            origin: cached.origin,
            gaps: Vec::new(),
            mark: mark.map(str::to_string),
            read,
        }))
    }

    /// Reads a window's tree from the app.
    async fn walk_window(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
        mark: Option<String>,
    ) -> Result<CachedWindow> {
        let window = &entry.info.windows[index];
        let obj = entry.windows[index].clone();
        let cache = match entry.quirks.items_cache() {
            true => AppCache::fetch(&self.conn, &entry.root).await,
            false => AppCache::default(),
        };
        tracing::debug!(cached = cache.len(), "cache fetched");
        let walker = Walker::new(&self.conn, entry.quirks, options, cache);
        let raw = walker.read(obj, true).await.map_err(|aborted| {
            axsight_atspi::Error::from_failure(
                &entry.info.name,
                aborted.failure,
                aborted.method,
                aborted.error,
            )
        })?;
        let origin = match self.window_relative(entry.quirks) {
            true => {
                let frame = frame_of(raw.extents);
                self.window_origin(entry.info.pid, window, frame, &entry.window_ids())
                    .await
            }
            false => Some((0, 0)),
        };
        tracing::debug!(app = %entry.info.name, "window walked");
        Ok(CachedWindow {
            bookmark,
            options,
            raw: Arc::new(raw),
            origin,
            gaps: walker.into_gaps(),
            mark,
            read: next_read(),
        })
    }
}

/// A window's frame from its extents as read (window-relative where the
/// toolkit reports so); `None` for a frame without real extents (Java's -1s).
fn frame_of(extents: Option<(i32, i32, i32, i32)>) -> Option<Bounds> {
    extents.and_then(|(x, y, width, height)| Bounds::from_extents(x, y, width, height))
}

/// Whether the app listing can be reused after `events` (`None`: some were lost):
/// no window came or went, no event came from an app not listed (one registering),
/// and none touched an app or window root (names, states, bounds).
fn listing_unchanged(entries: &[AppEntry], events: Option<Vec<Event>>) -> bool {
    let Some(events) = events else { return false };
    let unchanged = |event: &Event| {
        let Some(app) = entries.iter().find(|e| e.root.bus == event.sender) else {
            return false;
        };
        event.change != Change::Windows
            && app.root.path.as_str() != event.path
            && app.windows.iter().all(|w| w.path.as_str() != event.path)
    };
    events.iter().all(unchanged)
}

impl LinuxEngine {
    /// Listing apps with this engine's bus, and its screen for where windows sit.
    fn listing(&self) -> Listing<'_, LinuxEngine> {
        Listing {
            conn: &self.conn,
            stuck: &self.stuck,
            places: self,
        }
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

    /// Where the content of `window` (one whose extents are window-relative)
    /// starts on screen; `None` when the screen cannot say, so that its boxes
    /// are no screen boxes and must not pass for them (GNOME without axsight's
    /// extension, a window the compositor does not list). `siblings` are the
    /// ids of its app's current windows: each is matched to a display window of
    /// its own (see [`screen::matching::Matches::find`]). Replies are waited
    /// for off the runtime, within [`SCREEN_DEADLINE`]: a stopped display
    /// server must not stall the runtime that also serves D-Bus.
    async fn window_origin(
        &self,
        pid: Option<u32>,
        window: &Window,
        frame: Option<Bounds>,
        siblings: &[ElementId],
    ) -> Option<(i32, i32)> {
        // A frame without extents (Java's) has no boxes to move.
        let Some(frame) = frame else {
            return Some((0, 0));
        };
        let screen = self.screen.clone()?;
        let inset = match self.every_window_relative {
            true => self.frame_inset(window, frame).await,
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
            Ok(Some(origin)) => Some((origin.x, origin.y)),
            // An untitled one is often no window at all (GNOME Shell's own).
            Ok(None) if title.is_empty() => {
                tracing::debug!("no display window for an untitled window");
                Some((0, 0))
            }
            Ok(None) => {
                tracing::warn!("no display window for {title:?}: its boxes are left out");
                None
            }
            // A screen that places no window at all (the desktop portals).
            Err(error @ axsight_screen::Error::NoWindowControl(_)) => {
                tracing::debug!(%error, "no origin for {title:?}: its boxes are left out");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "no origin for {title:?}: its boxes are left out");
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
        match options.watch_events {
            true => LinuxEngine::connect_watching().await,
            false => LinuxEngine::connect().await,
        }
    }

    async fn applications(&self) -> Result<Vec<Application>> {
        LinuxEngine::applications(self).await
    }

    async fn window_tree(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<WindowSnapshot> {
        LinuxEngine::window_tree(self, query, options).await
    }

    async fn window_tree_listed(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<(WindowSnapshot, Vec<Application>)> {
        LinuxEngine::window_tree_listed(self, query, options).await
    }

    async fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> Result<Vec<WindowSnapshot>> {
        LinuxEngine::window_trees(self, app, options).await
    }

    async fn perform(&self, element: &ElementId, operation: &Operation) -> Result<Performed> {
        LinuxEngine::perform(self, element, operation).await
    }

    async fn send_input(&self, input: &Input) -> Result<()> {
        LinuxEngine::send_input(self, input).await
    }

    async fn input_reaches(&self, window: &ElementId, point: Point) -> Result<bool> {
        LinuxEngine::input_reaches(self, window, point).await
    }

    async fn activate_window(&self, window: &ElementId) -> Result<()> {
        LinuxEngine::activate_window(self, window).await
    }

    async fn screen_windows(&self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        LinuxEngine::screen_windows(self, pid).await
    }

    async fn activate_window_at(&self, point: Point) -> Result<()> {
        LinuxEngine::activate_window_at(self, point).await
    }

    async fn close_window_titled(&self, title: &str) -> Result<bool> {
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
        LinuxEngine::clipboard_text(self).await
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

    async fn launch(&self, app: &str) -> Result<Launched> {
        LinuxEngine::launch(self, app).await
    }

    fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        LinuxEngine::add_witness(self, pid, witness);
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
