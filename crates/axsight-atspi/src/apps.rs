//! Listing applications and their windows, and choosing the window a query names.
//!
//! Listing reads the bus; where windows sit on screen (window-relative extents,
//! frames without extents) it asks a [`WindowPlaces`], which the engine answers
//! through its screen: this module knows no screen.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Instant;

use axsight_core::{Application, Bounds, ElementId, ScreenMapping, State, Window};
use futures_util::future::join_all;
use zbus::Connection;

use crate::dbus::{self, Failure, ObjRef};
use axsight_core::WindowQuery;

use crate::normalize::top_level_role;
use crate::roles::role_name;
use crate::sync::lock;
use crate::walk::Quirks;
use crate::{states, Error, Result};

/// An application as found on the bus, with what reading it needs.
#[derive(Debug, Clone)]
pub struct AppEntry {
    pub root: ObjRef,
    pub info: Application,
    /// The window objects, in the order of `info.windows`.
    pub windows: Vec<ObjRef>,
    pub quirks: Quirks,
    /// The scale the app draws at where its extents leave it out (screen
    /// pixels per reported pixel), as the screen showed it for one of its
    /// windows: what its windows the screen does not show are scaled by.
    pub scale: f64,
}

impl AppEntry {
    /// The ids of the app's windows, in its order.
    pub fn window_ids(&self) -> Vec<ElementId> {
        self.info.windows.iter().map(|w| w.id.clone()).collect()
    }
}

/// How long an app that did not answer is left out of listings before it is
/// asked again.
const STUCK_MEMORY: std::time::Duration = std::time::Duration::from_secs(5);

/// Where an app's windows sit on screen, for the listing: what the bus cannot
/// say (the engine answers through its screen).
pub trait WindowPlaces: Sync {
    /// Whether windows of an app with `quirks` report window-relative extents.
    fn window_relative(&self, quirks: Quirks) -> bool;

    /// How `window`'s reported boxes become the screen's: moved by where its
    /// window sits when they are window-relative (`relative`), and scaled where
    /// its app draws at a scale it does not report. `frame` is its frame as
    /// reported (for a frame without extents, its content's box); `siblings`
    /// are its app's windows, to tell alike windows apart. `None` when
    /// the screen shows no such window (see [`unplaced`] for what the caller
    /// does then).
    fn window_mapping(
        &self,
        pid: Option<u32>,
        window: &Window,
        frame: Option<Bounds>,
        siblings: &[ElementId],
        relative: bool,
    ) -> impl Future<Output = Option<ScreenMapping>> + Send;

    /// The bounds of the display window that shows `window`, for a window
    /// without extents of its own.
    fn display_window_bounds(
        &self,
        pid: Option<u32>,
        window: &Window,
        siblings: &[ElementId],
    ) -> impl Future<Output = Option<Bounds>> + Send;
}

/// The scale an app draws at, from the mappings of its windows that the
/// screen placed: where its boxes are the screen's (not `relative`), the
/// first placed window's; 1 otherwise.
fn app_scale(mappings: &[Option<ScreenMapping>], relative: bool) -> f64 {
    match relative {
        true => 1.0,
        false => mappings
            .iter()
            .flatten()
            .map(|m| m.scale)
            .next()
            .unwrap_or(1.0),
    }
}

/// The mapping of a window the screen did not place: none for window-relative
/// boxes (they must not pass for the screen's), else the app's `scale` from
/// the screen's origin (an app that reports screen coordinates reports them
/// all at one scale).
pub fn unplaced(relative: bool, scale: f64) -> Option<ScreenMapping> {
    (!relative).then_some(ScreenMapping::scaled(scale))
}

/// What listing apps reads with: the bus, the apps that did not answer lately,
/// and where windows sit.
pub struct Listing<'a, P> {
    pub conn: &'a Connection,
    pub stuck: &'a Mutex<HashMap<String, Instant>>,
    pub places: &'a P,
}

impl<P: WindowPlaces> Listing<'_, P> {
    /// Lists the apps on the bus. An app of `previous` that does not answer now
    /// keeps its earlier entry, so reading its windows fails as "not answering"
    /// rather than as "closed".
    pub async fn list_apps(&self, previous: &[AppEntry]) -> Result<Vec<AppEntry>> {
        let registry = ObjRef::new(dbus::REGISTRY, dbus::ROOT_PATH);
        let apps: Vec<ObjRef> =
            dbus::call(self.conn, &registry, dbus::ACCESSIBLE, "GetChildren", ())
                .await
                .map_err(|source| Error::BusLost {
                    source: Box::new(source),
                })?;
        let apps: Vec<ObjRef> = apps.into_iter().filter(|app| !app.is_null()).collect();
        // An app that did not answer lately is not asked again for a while: one
        // stopped app must not cost every listing a call's full timeout.
        let recently_stuck = |app: &ObjRef| {
            lock(self.stuck)
                .get(&app.bus)
                .is_some_and(|since| since.elapsed() < STUCK_MEMORY)
        };
        let reads = apps.iter().map(|app| async move {
            if recently_stuck(app) {
                return Err(Error::Timeout {
                    app: app.bus.clone(),
                    ms: dbus::CALL_TIMEOUT.as_millis() as u64,
                });
            }
            self.read_app(app).await
        });
        let mut entries = Vec::new();
        for (result, app) in join_all(reads).await.into_iter().zip(&apps) {
            match result {
                Ok(entry) => {
                    lock(self.stuck).remove(&app.bus);
                    entries.push(entry)
                }
                Err(Error::Timeout { .. }) => {
                    lock(self.stuck)
                        .entry(app.bus.clone())
                        .or_insert_with(std::time::Instant::now);
                    if let Some(known) = previous.iter().find(|e| e.root.bus == app.bus) {
                        tracing::warn!(bus = %app.bus, "application not answering: kept as listed before");
                        entries.push(known.clone());
                    }
                }
                // An app that exits while listed is left out, not fatal.
                Err(error) => tracing::warn!(bus = %app.bus, %error, "application skipped"),
            }
        }
        tracing::debug!(apps = entries.len(), "applications listed");
        Ok(entries)
    }

    async fn read_app(&self, app: &ObjRef) -> Result<AppEntry> {
        let conn = self.conn;
        let gone = |method| move |e| Error::from_call(&app.bus, method, e);
        let daemon = ObjRef::new("org.freedesktop.DBus", "/org/freedesktop/DBus");
        // The toolkit first, one property per call (at-spi2-atk answers no GetAll on
        // Application, Qt crashes on any GetAll): what may be asked next depends on it.
        let (toolkit_name, version, pid) = futures_util::join!(
            dbus::property::<String>(conn, app, dbus::APPLICATION, "ToolkitName"),
            dbus::property::<String>(conn, app, dbus::APPLICATION, "Version"),
            dbus::call::<_, u32>(
                conn,
                &daemon,
                "org.freedesktop.DBus",
                "GetConnectionUnixProcessID",
                (app.bus.as_str(),)
            ),
        );
        // A bridge without the Application interface is read with the careful
        // defaults; one that does not answer at all is hung or gone.
        let toolkit_name = match toolkit_name {
            Ok(name) => name,
            Err(e) => match dbus::failure_kind(&e) {
                Failure::Other | Failure::ObjectGone => String::new(),
                Failure::PeerGone | Failure::NoReply => return Err(gone("Get ToolkitName")(e)),
            },
        };
        let version = version.unwrap_or_default();
        let quirks = Quirks::of_toolkit(&toolkit_name, &version);
        // Where the bridge answers it, the root is asked in bulk: Chromium turns on
        // its page's accessibility only once a client reads its root that way.
        let (props, windows) = futures_util::join!(
            dbus::accessible_properties(conn, app, quirks.bulk_properties),
            dbus::call::<_, Vec<ObjRef>>(conn, app, dbus::ACCESSIBLE, "GetChildren", ()),
        );
        let name = props.map_err(|(method, e)| gone(method)(e))?.name;
        // What its windows' reads may ask depends on the app too: LibreOffice
        // says it is GTK 3.
        let quirks = Quirks::of_application(&name, &toolkit_name, &version);
        let windows = windows.map_err(gone("GetChildren"))?;
        let pid = pid.ok();
        let window_reads = windows.iter().map(|w| self.read_window_info(w, quirks));
        let infos = join_all(window_reads).await;
        let mut kept = Vec::new();
        let mut refs = Vec::new();
        for (info, obj) in infos.into_iter().zip(windows) {
            if let Some(info) = info.filter(is_on_screen) {
                kept.push(info);
                refs.push(obj);
            }
        }
        // Window-relative extents (GTK4's, and every app's on Wayland) get
        // their display window's origin, and an app that draws at a scale its
        // extents leave out gets its scale. One after the other, in the app's
        // order: windows that look alike (same title and size) are then
        // matched to display windows in creation order.
        let ids: Vec<ElementId> = kept.iter().map(|w| w.id.clone()).collect();
        let relative = self.places.window_relative(quirks);
        let mut mappings = Vec::new();
        for window in &kept {
            let mapping = match window.bounds {
                Some(frame) => {
                    self.places
                        .window_mapping(pid, window, Some(frame), &ids, relative)
                        .await
                }
                None => None,
            };
            mappings.push(mapping);
        }
        let scale = app_scale(&mappings, relative);
        for (window, mapping) in kept.iter_mut().zip(mappings) {
            let mapping = mapping.or_else(|| unplaced(relative, scale));
            window.bounds = mapping.and_then(|m| window.bounds.map(|b| m.bounds(b)));
        }
        // A window without extents (Java's frames answer -1s) is where its
        // display window is.
        for window in kept.iter_mut().filter(|w| w.bounds.is_none()) {
            window.bounds = self.places.display_window_bounds(pid, window, &ids).await;
        }
        Ok(AppEntry {
            root: app.clone(),
            info: Application {
                name,
                pid,
                toolkit: format!("{toolkit_name} {version}").trim().to_string(),
                windows: kept,
                accessible: true,
            },
            windows: refs,
            quirks,
            scale,
        })
    }

    /// Reads a window's title, role, states and bounds (as the app reports them:
    /// GTK4's are window-relative); `None` if it vanished.
    async fn read_window_info(&self, obj: &ObjRef, quirks: Quirks) -> Option<Window> {
        let conn = self.conn;
        let coords = quirks.extent_coords();
        let (title, role, state, extents) = futures_util::join!(
            dbus::property::<String>(conn, obj, dbus::ACCESSIBLE, "Name"),
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
        // Titles are kept as the app sets them (GTK4 cleaning would eat underscores
        // in file names), and matched against X11's title as such.
        let title = title.ok()?;
        let bounds = extents
            .ok()
            .and_then(|(x, y, w, h)| Bounds::from_extents(x, y, w, h));
        Some(Window {
            id: obj.element_id(),
            title,
            role: top_level_role(role_name(role.ok()?)),
            bounds,
            states: states::state_set(states::mask_of(&state.ok()?)),
        })
    }
}

/// Whether a top-level is a window on screen: shown, visible or with an area. Qt
/// keeps a closed dialog among its top-levels, hidden and without an area; it is
/// no window until it opens again.
fn is_on_screen(window: &Window) -> bool {
    window.states.contains(State::Showing)
        || window.states.contains(State::Visible)
        || window.bounds.is_some_and(|b| b.has_area())
}

/// The names of the apps that have windows, quoted, for error messages.
fn app_names(apps: &[&Application]) -> String {
    let names: Vec<String> = apps
        .iter()
        .filter(|app| !app.windows.is_empty())
        .map(|app| format!("'{}'", app.name))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The apps `want` names, as indices in `apps`: those named exactly so
/// (ignoring case), else those whose name contains it, else the one with that
/// pid; an error naming the running apps when none is.
pub fn matching(apps: &[&Application], want: &str) -> Result<Vec<usize>> {
    let want_lower = want.trim().to_lowercase();
    let exact = |a: &Application| a.name.to_lowercase() == want_lower;
    let partial = |a: &Application| a.name.to_lowercase().contains(&want_lower);
    let by_pid = |a: &Application| a.pid.is_some_and(|pid| pid.to_string() == want_lower);
    let rules: [&dyn Fn(&Application) -> bool; 3] = [&exact, &partial, &by_pid];
    rules
        .iter()
        .map(|rule| {
            (0..apps.len())
                .filter(|&i| rule(apps[i]))
                .collect::<Vec<_>>()
        })
        .find(|found| !found.is_empty())
        .ok_or_else(|| Error::AppNotFound {
            query: want.to_string(),
            available: app_names(apps),
        })
}

/// Chooses the window `query` names among the listed apps: by identity, else by app
/// (see [`matching`]) and title (substring). An app named without a title
/// gives its newest modal dialog, else its active window, else its first; with
/// neither, the active window.
pub fn pick_window<'e>(
    entries: &'e [AppEntry],
    query: &WindowQuery,
) -> Result<(&'e AppEntry, usize)> {
    let infos: Vec<&Application> = entries.iter().map(|e| &e.info).collect();
    let (app, window) = pick(&infos, query)?;
    Ok((&entries[app], window))
}

/// [`pick_window`] over any apps: the index of the app in `apps` and of the
/// window in the app's.
pub fn pick(apps: &[&Application], query: &WindowQuery) -> Result<(usize, usize)> {
    // A window named by identity is found whatever else is asked, or it is gone.
    if let Some(id) = &query.window_id {
        return apps
            .iter()
            .enumerate()
            .find_map(|(a, app)| Some((a, app.windows.iter().position(|w| &w.id == id)?)))
            .ok_or(Error::WindowGone);
    }
    if apps.iter().all(|app| app.windows.is_empty()) {
        return Err(Error::NoApplications);
    }
    let candidates: Vec<usize> = match &query.app {
        None => (0..apps.len()).collect(),
        Some(want) => matching(apps, want)?,
    };
    let windows = || {
        candidates.iter().flat_map(|&a| {
            apps[a]
                .windows
                .iter()
                .enumerate()
                .map(move |(i, w)| (a, i, w))
        })
    };
    if let Some(title) = &query.window {
        let want = title.trim().to_lowercase();
        return windows()
            .find(|(_, _, w)| w.title.to_lowercase().contains(&want))
            .map(|(a, i, _)| (a, i))
            .ok_or_else(|| Error::WindowNotFound {
                app: query.app.clone().unwrap_or_else(|| "any app".into()),
                query: title.clone(),
                available: windows()
                    .map(|(_, _, w)| format!("'{}'", w.title))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
    }
    // An app's modal dialog is where its input goes: the newest one shown wins,
    // even where the toolkit leaves the window beneath it marked active (GTK4).
    if query.app.is_some() {
        let modal = windows().rfind(|(_, _, w)| w.states.contains(State::Modal) && is_on_screen(w));
        if let Some((a, i, _)) = modal {
            return Ok((a, i));
        }
    }
    if let Some((a, i, _)) = windows().find(|(_, _, w)| w.is_active()) {
        return Ok((a, i));
    }
    match (&query.app, windows().next()) {
        (Some(_), Some((a, i, _))) => Ok((a, i)),
        (Some(app), None) => Err(Error::WindowNotFound {
            app: app.clone(),
            query: "any window".into(),
            available: "none".into(),
        }),
        (None, _) => Err(Error::NoActiveWindow {
            available: app_names(apps),
        }),
    }
}

/// Whether a failure to pick a window among the apps on the bus may be
/// answered by a window only the screen shows.
pub fn screen_may_have_it(error: &Error) -> bool {
    matches!(
        error,
        Error::NoApplications
            | Error::AppNotFound { .. }
            | Error::WindowNotFound { .. }
            | Error::NoActiveWindow { .. }
            | Error::WindowGone
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{ElementId, Role, StateSet};

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
                accessible: true,
            },
            quirks: Quirks::default(),
            scale: 1.0,
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
    fn an_apps_modal_dialog_is_chosen_over_its_active_window() {
        let mut editor = entry(
            "editor",
            20,
            &[("Doc", true), ("Find", false), ("Ask", false)],
        );
        for i in [1, 2] {
            editor.info.windows[i].states =
                StateSet::from_iter([axsight_core::State::Modal, axsight_core::State::Showing]);
        }
        let entries = [editor];
        assert_eq!(
            picked(&entries, &query(Some("editor"), None)).unwrap(),
            ("editor", "Ask")
        );
        // A title still picks that window; no app picks the active one.
        assert_eq!(
            picked(&entries, &query(Some("editor"), Some("doc"))).unwrap(),
            ("editor", "Doc")
        );
        assert_eq!(
            picked(&entries, &query(None, None)).unwrap(),
            ("editor", "Doc")
        );
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
