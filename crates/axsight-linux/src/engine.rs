//! [`LinuxEngine`]: the AT-SPI2 engine — applications, windows and window trees.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axsight_core::{Application, Bounds, ElementId, Role, Window, WindowSnapshot};
use futures_util::future::join_all;
use zbus::Connection;

use crate::cache::AppCache;
use crate::dbus::{self, Failure, ObjRef};
use crate::discover::{self, Discovery};
use crate::events::{Change, EventWatch};
use crate::normalize::{build_tree, clean_name, role_name};
use crate::refresh;
use crate::walk::{Quirks, RawNode, ReadOptions, Walker};
use crate::x11::X11;
use crate::{states, Error, Result};

/// The longest one whole tree read may take, whatever its calls do.
pub const READ_DEADLINE: Duration = Duration::from_secs(8);

/// Which window to read. Both parts match case-insensitively by substring; `app` also
/// matches a process id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowQuery {
    /// Application name or pid; `None` means the active window's app.
    pub app: Option<String>,
    /// Window title; `None` means the app's active window, else its first.
    pub window: Option<String>,
    /// The window's identity, as a snapshot's root element carries it; wins over the rest.
    pub window_id: Option<ElementId>,
}

/// An application as found on the bus, with what reading it needs.
#[derive(Debug, Clone)]
struct AppEntry {
    root: ObjRef,
    info: Application,
    windows: Vec<ObjRef>,
    quirks: Quirks,
}

/// A window read kept for reuse while its app sends no event.
struct CachedWindow {
    /// The event log's bookmark when the read started: later events are replayed.
    bookmark: u64,
    options: ReadOptions,
    raw: RawNode,
    origin: (i32, i32),
    gaps: Vec<String>,
}

/// The Linux engine: one connection to the accessibility bus, and X11 for geometry.
pub struct LinuxEngine {
    conn: Connection,
    discovery: Discovery,
    x11: Option<Mutex<X11>>,
    /// With a watch, unchanged windows and app lists are served from memory.
    watch: Option<EventWatch>,
    windows: Mutex<HashMap<ElementId, Arc<CachedWindow>>>,
    /// The last app listing and the event bookmark taken before it.
    listing: Mutex<Option<(u64, Vec<AppEntry>)>>,
}

impl LinuxEngine {
    /// Finds the buses (see [`discover`]) and connects to the accessibility bus.
    pub async fn connect() -> Result<LinuxEngine> {
        let discovery = discover::discover().await?;
        let conn = discover::connect_to(&discovery.a11y_bus).await?;
        crate::cache::wake_app_caches(&conn).await;
        let x11 = discovery
            .display
            .as_deref()
            .and_then(|display| X11::connect(display).ok())
            .map(Mutex::new);
        tracing::debug!(bus = %discovery.a11y_bus, via = discovery.a11y_bus_source, "connected");
        Ok(LinuxEngine {
            conn,
            discovery,
            x11,
            watch: None,
            windows: Mutex::default(),
            listing: Mutex::default(),
        })
    }

    /// Connects like [`LinuxEngine::connect`] and watches events, so that reading a
    /// window nothing changed in since its last read costs one call instead of a
    /// walk. For long-lived users such as the MCP server.
    pub async fn connect_watching() -> Result<LinuxEngine> {
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

    /// The applications on the accessibility bus and their top-level windows.
    pub async fn applications(&self) -> Result<Vec<Application>> {
        Ok(self
            .app_entries()
            .await?
            .into_iter()
            .map(|e| e.info)
            .collect())
    }

    async fn app_entries(&self) -> Result<Vec<AppEntry>> {
        let Some(watch) = &self.watch else {
            return self.list_apps().await;
        };
        let bookmark = watch.bookmark().await;
        if let Some((seen, entries)) = lock(&self.listing).as_ref() {
            if listing_unchanged(entries, watch.since(*seen, None)) {
                return Ok(entries.clone());
            }
        }
        let entries = self.list_apps().await?;
        *lock(&self.listing) = Some((bookmark, entries.clone()));
        Ok(entries)
    }

    async fn list_apps(&self) -> Result<Vec<AppEntry>> {
        let registry = ObjRef::new(dbus::REGISTRY, dbus::ROOT_PATH);
        let apps: Vec<ObjRef> =
            dbus::call(&self.conn, &registry, dbus::ACCESSIBLE, "GetChildren", ())
                .await
                .map_err(|source| Error::Call {
                    method: "GetChildren on the registry",
                    source: Box::new(source),
                })?;
        let reads = apps
            .iter()
            .filter(|app| !app.is_null())
            .map(|app| self.read_app(app));
        let mut entries = Vec::new();
        for (result, app) in join_all(reads).await.into_iter().zip(&apps) {
            match result {
                Ok(entry) => entries.push(entry),
                // An app that exits or hangs while listed is left out, not fatal.
                Err(error) => tracing::warn!(bus = %app.bus, %error, "application skipped"),
            }
        }
        tracing::debug!(apps = entries.len(), "applications listed");
        Ok(entries)
    }

    async fn read_app(&self, app: &ObjRef) -> Result<AppEntry> {
        let conn = &self.conn;
        let gone = |method| move |e| Error::from_call(&app.bus, method, e);
        let daemon = ObjRef::new("org.freedesktop.DBus", "/org/freedesktop/DBus");
        // Properties one by one: at-spi2-atk (GTK3) answers no GetAll on Application.
        let (props, windows, pid, toolkit_name, version) = futures_util::join!(
            dbus::all_properties(conn, app, dbus::ACCESSIBLE),
            dbus::call::<_, Vec<ObjRef>>(conn, app, dbus::ACCESSIBLE, "GetChildren", ()),
            dbus::call::<_, u32>(
                conn,
                &daemon,
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                (app.bus.as_str(),)
            ),
            dbus::property::<String>(conn, app, dbus::APPLICATION, "ToolkitName"),
            dbus::property::<String>(conn, app, dbus::APPLICATION, "Version"),
        );
        let props = props.map_err(gone("GetAll"))?;
        let windows = windows.map_err(gone("GetChildren"))?;
        let toolkit_name = toolkit_name.unwrap_or_default();
        let version = version.unwrap_or_default();
        let gtk = toolkit_name.eq_ignore_ascii_case("gtk");
        let quirks = Quirks {
            gtk4: gtk && version.starts_with("4."),
            exports_ids: !gtk,
        };
        let name = dbus::string_of(&props, "Name");
        let pid = pid.ok();
        let window_reads = windows
            .iter()
            .map(|w| self.read_window_info(w, quirks, pid));
        let infos = join_all(window_reads).await;
        let mut kept = Vec::new();
        let mut refs = Vec::new();
        for (info, obj) in infos.into_iter().zip(windows) {
            if let Some(info) = info {
                kept.push(info);
                refs.push(obj);
            }
        }
        Ok(AppEntry {
            root: app.clone(),
            info: Application {
                name,
                pid,
                toolkit: format!("{toolkit_name} {version}").trim().to_string(),
                windows: kept,
            },
            windows: refs,
            quirks,
        })
    }

    /// Reads a window's title, role, states and screen bounds; `None` if it vanished.
    async fn read_window_info(
        &self,
        obj: &ObjRef,
        quirks: Quirks,
        pid: Option<u32>,
    ) -> Option<Window> {
        let conn = &self.conn;
        let coords: u32 = if quirks.gtk4 { 1 } else { 0 };
        let (props, role, state, extents) = futures_util::join!(
            dbus::all_properties(conn, obj, dbus::ACCESSIBLE),
            dbus::call::<_, u32>(conn, obj, dbus::ACCESSIBLE, "GetRole", ()),
            dbus::call::<_, Vec<u32>>(conn, obj, dbus::ACCESSIBLE, "GetState", ()),
            dbus::call::<_, (i32, i32, i32, i32)>(
                conn,
                obj,
                dbus::COMPONENT,
                "GetExtents",
                (coords,)
            ),
        );
        let title = clean_name(&dbus::string_of(&props.ok()?, "Name"), quirks.gtk4);
        let mut bounds = extents
            .ok()
            .and_then(|(x, y, w, h)| Bounds::from_extents(x, y, w, h));
        if quirks.gtk4 {
            bounds = bounds.map(|b| {
                let (dx, dy) = self.window_origin(pid, &title, b);
                b.offset(dx, dy)
            });
        }
        Some(Window {
            id: obj.element_id(),
            title,
            role: Role::from_atspi_name(role_name(role.ok()?)),
            bounds,
            states: states::state_set(states::mask_of(&state.ok()?)),
        })
    }

    /// Where a GTK4 window's content starts on screen; (0, 0) when X11 cannot say.
    fn window_origin(&self, pid: Option<u32>, title: &str, frame: Bounds) -> (i32, i32) {
        let Some(x11) = &self.x11 else { return (0, 0) };
        let x11 = lock(x11);
        match x11.content_origin(pid, title, (frame.width, frame.height)) {
            Ok(Some(origin)) => (origin.x, origin.y),
            Ok(None) => (0, 0),
            Err(error) => {
                tracing::debug!(%error, "no X11 origin for {title:?}");
                (0, 0)
            }
        }
    }

    /// Reads the tree of the window `query` names.
    pub async fn window_tree(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> Result<WindowSnapshot> {
        let entries = self.app_entries().await?;
        let (entry, index) = pick_window(&entries, query)?;
        self.read_window(entry, index, options).await
    }

    /// Reads the trees of every window of every app whose name contains `app` (all
    /// apps when `None`), concurrently. Apps that fail are left out.
    pub async fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> Result<Vec<WindowSnapshot>> {
        let entries = self.app_entries().await?;
        let chosen = match app {
            Some(want) => apps_matching(&entries, want)?,
            None => entries.iter().collect(),
        };
        let reads = chosen
            .into_iter()
            .flat_map(|e| (0..e.windows.len()).map(move |i| self.read_window(e, i, options)));
        let mut snapshots = Vec::new();
        for result in join_all(reads).await {
            match result {
                Ok(snapshot) => snapshots.push(snapshot),
                Err(error) => tracing::warn!(%error, "window skipped"),
            }
        }
        Ok(snapshots)
    }

    async fn read_window(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
    ) -> Result<WindowSnapshot> {
        let window = &entry.info.windows[index];
        let read = match &self.watch {
            None => Arc::new(self.walk_window(entry, index, options, 0).await?),
            Some(watch) => {
                let bookmark = watch.bookmark().await;
                let read = match self.refreshed(entry, index, options, bookmark).await {
                    Some(read) => read,
                    None => Arc::new(self.walk_window(entry, index, options, bookmark).await?),
                };
                lock(&self.windows).insert(window.id.clone(), read.clone());
                read
            }
        };
        Ok(WindowSnapshot {
            app: entry.info.name.clone(),
            pid: entry.info.pid,
            title: window.title.clone(),
            tree: build_tree(&read.raw, entry.quirks, read.origin),
            gaps: read.gaps.clone(),
        })
    }

    /// The last read of a window brought up to date with the events since, or
    /// `None` when it should be walked afresh (no earlier read, the window moved,
    /// too much changed). `bookmark` was taken before any call made here.
    async fn refreshed(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
    ) -> Option<Arc<CachedWindow>> {
        let watch = self.watch.as_ref()?;
        let window = &entry.info.windows[index];
        let obj = &entry.windows[index];
        let cached = lock(&self.windows).get(&window.id).cloned()?;
        // A partial read is read again whole: its gaps may have filled.
        if !cached.options.covers(&options) || !cached.gaps.is_empty() {
            return None;
        }
        // One call to the app: its reply comes after every event the app sent before
        // it, so after it (and a turn for the recorder) the log holds them all.
        let coords: u32 = if entry.quirks.gtk4 { 1 } else { 0 };
        let extents = dbus::call::<_, (i32, i32, i32, i32)>(
            &self.conn,
            obj,
            dbus::COMPONENT,
            "GetExtents",
            (coords,),
        )
        .await
        .ok();
        if extents != cached.raw.extents {
            return None;
        }
        if entry.quirks.gtk4
            && self.window_origin(entry.info.pid, &window.title, window.bounds?) != cached.origin
        {
            return None;
        }
        watch.bookmark().await;
        let plan = refresh::plan(&watch.since(cached.bookmark, Some(&obj.bus))?)?;
        if plan.is_empty() {
            return Some(cached);
        }
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
        let gaps = walker.into_gaps();
        if !gaps.is_empty() {
            return None;
        }
        Some(Arc::new(CachedWindow {
            bookmark,
            options: cached.options,
            raw,
            origin: cached.origin,
            gaps,
        }))
    }

    /// Reads a window's tree from the app.
    async fn walk_window(
        &self,
        entry: &AppEntry,
        index: usize,
        options: ReadOptions,
        bookmark: u64,
    ) -> Result<CachedWindow> {
        let window = &entry.info.windows[index];
        let obj = entry.windows[index].clone();
        let app = entry.info.name.clone();
        let cache = AppCache::fetch(&self.conn, &entry.root).await;
        tracing::debug!(cached = cache.len(), "cache fetched");
        let walker = Walker::new(&self.conn, entry.quirks, options, cache);
        let read = tokio::time::timeout(READ_DEADLINE, walker.read(obj, true)).await;
        let raw = match read {
            Err(_) => {
                return Err(Error::Timeout {
                    app,
                    ms: READ_DEADLINE.as_millis() as u64,
                })
            }
            Ok(Err(aborted)) => {
                return Err(match aborted.failure {
                    Failure::NoReply => Error::Timeout {
                        app,
                        ms: dbus::CALL_TIMEOUT.as_millis() as u64,
                    },
                    Failure::PeerGone | Failure::ObjectGone => Error::AppGone { app },
                    Failure::Other => Error::Call {
                        method: aborted.method,
                        source: Box::new(aborted.error),
                    },
                })
            }
            Ok(Ok(raw)) => raw,
        };
        let origin = match (entry.quirks.gtk4, window.bounds) {
            (true, Some(bounds)) => self.window_origin(entry.info.pid, &window.title, bounds),
            _ => (0, 0),
        };
        tracing::debug!(app = %entry.info.name, "window walked");
        Ok(CachedWindow {
            bookmark,
            options,
            raw,
            origin,
            gaps: walker.into_gaps(),
        })
    }
}

/// Whether the app listing can be reused after `events`: no window came or went,
/// and no app or window root changed its name, states or bounds. `None` (events lost) is
/// a change.
fn listing_unchanged(entries: &[AppEntry], events: Option<Vec<crate::events::Event>>) -> bool {
    let Some(events) = events else { return false };
    let touches_a_root = |event: &crate::events::Event| {
        entries.iter().any(|e| {
            e.root.bus == event.sender
                && (e.root.path.as_str() == event.path
                    || e.windows.iter().any(|w| w.path.as_str() == event.path))
        })
    };
    events
        .iter()
        .all(|event| event.change != Change::Windows && !touches_a_root(event))
}

/// Locks a mutex, taking the data even if a panic elsewhere poisoned it.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Chooses the window `query` names among the listed apps: by app (exact name, then
/// substring, then pid) and title (substring); without an app, the active window.
/// The names of the apps that have windows, quoted, for error messages.
fn app_names(entries: &[AppEntry]) -> String {
    let names: Vec<String> = entries
        .iter()
        .filter(|e| !e.info.windows.is_empty())
        .map(|e| format!("'{}'", e.info.name))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The apps `want` names: those named exactly so (ignoring case), else those whose
/// name contains it, else the one with that pid; an error naming the running apps
/// when none is.
fn apps_matching<'e>(entries: &'e [AppEntry], want: &str) -> Result<Vec<&'e AppEntry>> {
    let want_lower = want.trim().to_lowercase();
    let exact = |e: &&AppEntry| e.info.name.to_lowercase() == want_lower;
    let partial = |e: &&AppEntry| e.info.name.to_lowercase().contains(&want_lower);
    let by_pid = |e: &&AppEntry| e.info.pid.is_some_and(|pid| pid.to_string() == want_lower);
    let rules: [&dyn Fn(&&AppEntry) -> bool; 3] = [&exact, &partial, &by_pid];
    rules
        .iter()
        .map(|rule| entries.iter().filter(|e| rule(e)).collect::<Vec<_>>())
        .find(|found| !found.is_empty())
        .ok_or_else(|| Error::AppNotFound {
            query: want.to_string(),
            available: app_names(entries),
        })
}

/// Chooses the window `query` names among the listed apps: by app (see
/// [`apps_matching`]) and title (substring); without either, the active window.
fn pick_window<'e>(entries: &'e [AppEntry], query: &WindowQuery) -> Result<(&'e AppEntry, usize)> {
    if entries.iter().all(|e| e.info.windows.is_empty()) {
        return Err(Error::NoApplications);
    }
    let candidates: Vec<&AppEntry> = match &query.app {
        None => entries.iter().collect(),
        Some(want) => apps_matching(entries, want)?,
    };
    let windows = || {
        candidates.iter().flat_map(|e| {
            e.info
                .windows
                .iter()
                .enumerate()
                .map(move |(i, w)| (*e, i, w))
        })
    };
    if let Some(id) = &query.window_id {
        return windows()
            .find(|(_, _, w)| &w.id == id)
            .map(|(e, i, _)| (e, i))
            .ok_or(Error::WindowGone);
    }
    if let Some(title) = &query.window {
        let want = title.trim().to_lowercase();
        return windows()
            .find(|(_, _, w)| w.title.to_lowercase().contains(&want))
            .map(|(e, i, _)| (e, i))
            .ok_or_else(|| Error::WindowNotFound {
                app: query.app.clone().unwrap_or_else(|| "any app".into()),
                query: title.clone(),
                available: windows()
                    .map(|(_, _, w)| format!("'{}'", w.title))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
    }
    if let Some((e, i, _)) = windows().find(|(_, _, w)| w.is_active()) {
        return Ok((e, i));
    }
    match (&query.app, windows().next()) {
        (Some(_), Some((e, i, _))) => Ok((e, i)),
        (Some(app), None) => Err(Error::WindowNotFound {
            app: app.clone(),
            query: "any window".into(),
            available: "none".into(),
        }),
        (None, _) => Err(Error::NoActiveWindow {
            available: app_names(entries),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::StateSet;

    fn entry(name: &str, pid: u32, titles: &[(&str, bool)]) -> AppEntry {
        let windows = titles
            .iter()
            .map(|(title, active)| Window {
                id: ElementId(format!("{name}/{title}")),
                title: title.to_string(),
                role: Role::Window,
                bounds: None,
                states: if *active {
                    StateSet::from_iter([axsight_core::State::Active])
                } else {
                    StateSet::EMPTY
                },
            })
            .collect::<Vec<_>>();
        AppEntry {
            root: ObjRef::new(":1.1", "/org/a11y/atspi/accessible/root"),
            windows: windows.iter().map(|_| ObjRef::new(":1.1", "/w")).collect(),
            info: Application {
                name: name.into(),
                pid: Some(pid),
                toolkit: String::new(),
                windows,
            },
            quirks: Quirks::default(),
        }
    }

    fn query(app: Option<&str>, window: Option<&str>) -> WindowQuery {
        WindowQuery {
            app: app.map(str::to_string),
            window: window.map(str::to_string),
            window_id: None,
        }
    }

    fn picked<'e>(entries: &'e [AppEntry], q: &WindowQuery) -> Result<(&'e str, &'e str)> {
        pick_window(entries, q)
            .map(|(e, i)| (e.info.name.as_str(), e.info.windows[i].title.as_str()))
    }

    #[test]
    fn windows_are_picked_by_name_then_substring_then_pid() {
        let entries = [
            entry("gedit", 10, &[("Doc 1", false), ("Doc 2", true)]),
            entry("gedit-helper", 11, &[("Helper", false)]),
            entry("calc", 12, &[("Calculator", false)]),
        ];
        assert_eq!(
            picked(&entries, &query(Some("GEDIT"), None)).unwrap(),
            ("gedit", "Doc 2")
        );
        assert_eq!(
            picked(&entries, &query(Some("help"), None)).unwrap(),
            ("gedit-helper", "Helper")
        );
        assert_eq!(
            picked(&entries, &query(Some("12"), None)).unwrap(),
            ("calc", "Calculator")
        );
        assert_eq!(
            picked(&entries, &query(None, Some("doc 1"))).unwrap(),
            ("gedit", "Doc 1")
        );
        assert_eq!(
            picked(&entries, &query(None, None)).unwrap(),
            ("gedit", "Doc 2")
        );
        let error = picked(&entries, &query(Some("nope"), None)).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("running: 'gedit', 'gedit-helper', 'calc'"),
            "{error}"
        );
        let error = picked(&entries, &query(Some("calc"), Some("Doc"))).unwrap_err();
        assert!(matches!(error, Error::WindowNotFound { .. }), "{error}");
    }

    #[test]
    fn no_active_window_and_no_apps_are_told_apart() {
        let entries = [
            entry("calc", 12, &[("Calculator", false)]),
            entry("editor", 13, &[("Notes", false)]),
        ];
        assert!(matches!(
            picked(&entries, &query(None, None)),
            Err(Error::NoActiveWindow { .. })
        ));
        let windowless = [entry("daemon", 14, &[])];
        assert!(matches!(
            picked(&windowless, &query(None, None)),
            Err(Error::NoApplications)
        ));
        assert!(matches!(
            picked(&[], &query(Some("x"), None)),
            Err(Error::NoApplications)
        ));
    }
}
