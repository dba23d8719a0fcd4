//! Windows the display server shows whose app is not on the accessibility bus
//! (an X11 program of Athena, Motif or Tk widgets; an app started with its
//! bridge off): listed as apps of their own, read as a tree of one element,
//! the window, whose content the session reads from its pixels.
//!
//! A window counts as accessible when an app on the bus has its process, or,
//! where the display does not know the process, a window of its title. The
//! rest are grouped into apps by process (else by class) and named by class,
//! else by the process's command, else by title. Their identities
//! (`screen:<id>`) are the screen's own window ids, which the engine hands
//! back to the screen to raise, hit-test, place or close them; no
//! accessibility call is ever made for them.
//!
//! # Windows off the bus
//!
//! **Windows off the bus** (`axsight-linux`: `silent_windows.rs`; `axsight-screen`: `screen::Toplevel`,
//! `x11/toplevels.rs`). Every screen lists its top-level windows (`Screen::toplevels`:
//! X11's `_NET_CLIENT_LIST_STACKING`, or the root's viewable input-output children of
//! 16×16 or more with a class or title when no window manager runs, docks, desktops
//! and splash windows left out, each window's pid
//! from `_NET_WM_PID` else X-Resource's `QueryClientIds`; sway's views; the GNOME
//! extension's and the KWin script's lists, which carry the window's class since
//! 0.2; none through the portals). `LinuxEngine::silent_apps` keeps those whose
//! process is neither a listed app's nor connected to the accessibility bus at all
//! (`connected_pids`: `ListNames` on the bus and each new unique name's pid, kept by
//! name), and `silent_windows::silent_apps` groups them by pid (else class) into
//! `Application`s with `accessible: false`. `applications()` appends them;
//! `window_tree` falls back to them only when picking among the bus's apps fails
//! (`apps::screen_may_have_it`), with one `apps::pick` over both lists so that errors
//! list every app; `window_trees` reads both. A silent window's identity is
//! `screen:<the screen's id>`, which `display_window` hands straight back to the
//! screen (raise, hit-test, place, close), `perform` refuses, and `settle` answers at
//! once with `SettleEnd::Silent`. Its snapshot is the window alone,
//! `WindowSnapshot::accessible` false, read afresh each time (a screen query: about a
//! millisecond on X11).

use std::collections::HashSet;

use axsight_core::{
    Application, Element, ElementId, Role, State, StateSet, Window, WindowSnapshot,
};

use crate::screen::{Toplevel, WindowId};

/// What a silent window's identity starts with.
const PREFIX: &str = "screen:";

/// The identity of the screen's window `window`.
pub fn element_id(window: WindowId) -> ElementId {
    ElementId(format!("{PREFIX}{window}"))
}

/// The screen's window a silent window's identity stands for; `None` for any
/// other identity (an accessible element's).
pub fn window_of(id: &ElementId) -> Option<WindowId> {
    id.0.strip_prefix(PREFIX)?.parse().ok()
}

/// What is known of the apps on the bus: their processes and their windows'
/// titles.
#[derive(Debug, Default)]
pub struct OnTheBus<'a> {
    pub pids: HashSet<u32>,
    pub titles: HashSet<&'a str>,
}

/// The apps of the windows in `toplevels` (bottom first) that no app on the
/// bus shows, in the order their first windows stack. `command_of` names a
/// process (its command), for a window without a class.
pub fn silent_apps(
    toplevels: &[Toplevel],
    bus: &OnTheBus<'_>,
    command_of: impl Fn(u32) -> Option<String>,
) -> Vec<Application> {
    let mut apps: Vec<Application> = Vec::new();
    for toplevel in toplevels {
        let accessible = match toplevel.pid {
            Some(pid) => bus.pids.contains(&pid),
            None => bus.titles.contains(toplevel.title.as_str()),
        };
        if accessible || !toplevel.bounds.has_area() {
            continue;
        }
        let window = window_of_toplevel(toplevel);
        let same_app = |app: &&mut Application| match toplevel.pid {
            Some(pid) => app.pid == Some(pid),
            None => app.pid.is_none() && !toplevel.class.is_empty() && app.name == toplevel.class,
        };
        if let Some(app) = apps.iter_mut().find(same_app) {
            app.windows.push(window);
            continue;
        }
        let name = Some(toplevel.class.clone())
            .filter(|class| !class.is_empty())
            .or_else(|| toplevel.pid.and_then(&command_of))
            .unwrap_or_else(|| toplevel.title.clone());
        apps.push(Application {
            name,
            pid: toplevel.pid,
            toolkit: String::new(),
            windows: vec![window],
            accessible: false,
        });
    }
    apps
}

/// A silent window as an app's window.
fn window_of_toplevel(toplevel: &Toplevel) -> Window {
    let mut states: StateSet = [State::Showing, State::Visible].into_iter().collect();
    if toplevel.active {
        states.insert(State::Active);
    }
    Window {
        id: element_id(toplevel.id),
        title: toplevel.title.clone(),
        role: Role::Window,
        bounds: Some(toplevel.bounds),
        states,
    }
}

/// The tree of `app`'s window `index`: the window alone.
pub fn snapshot(app: &Application, index: usize) -> WindowSnapshot {
    let window = &app.windows[index];
    let mut element = Element::new(window.id.0.clone(), Role::Window, "frame");
    element.name = window.title.clone();
    element.bounds = window.bounds;
    element.states = window.states;
    WindowSnapshot {
        app: app.name.clone(),
        pid: app.pid,
        title: window.title.clone(),
        tree: axsight_core::Tree::new(element),
        gaps: Vec::new(),
        read: None,
        accessible: false,
        unplaced: false,
    }
}

/// A process's command name, as the kernel keeps it.
pub fn command_of(pid: u32) -> Option<String> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(comm.trim().to_string()).filter(|c| !c.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::Bounds;

    fn toplevel(id: u64, title: &str, class: &str, pid: Option<u32>) -> Toplevel {
        Toplevel {
            id,
            title: title.into(),
            class: class.into(),
            pid,
            bounds: Bounds {
                x: 10,
                y: 20,
                width: 300,
                height: 200,
            },
            active: id == 3,
        }
    }

    #[test]
    fn windows_no_app_on_the_bus_shows_become_apps_of_their_own() {
        let toplevels = [
            toplevel(1, "files - Thunar", "thunar", Some(100)),
            toplevel(2, "Calculator", "xcalc", None),
            toplevel(3, "Editor", "xedit", Some(200)),
            toplevel(4, "Find", "xedit", Some(200)),
            toplevel(5, "Book1 - Gnumeric", "", None),
            toplevel(6, "wish", "", Some(300)),
        ];
        let bus = OnTheBus {
            pids: [100].into_iter().collect(),
            titles: ["Book1 - Gnumeric"].into_iter().collect(),
        };
        let apps = silent_apps(&toplevels, &bus, |pid| {
            (pid == 300).then(|| "wish8.6".to_string())
        });
        let listed: Vec<(&str, Option<u32>, Vec<&str>)> = apps
            .iter()
            .map(|a| {
                let titles = a.windows.iter().map(|w| w.title.as_str()).collect();
                (a.name.as_str(), a.pid, titles)
            })
            .collect();
        assert_eq!(
            listed,
            [
                ("xcalc", None, vec!["Calculator"]),
                ("xedit", Some(200), vec!["Editor", "Find"]),
                ("wish8.6", Some(300), vec!["wish"]),
            ]
        );
        assert!(apps.iter().all(|a| !a.accessible));
        let editor = &apps[1].windows[0];
        assert!(editor.is_active());
        assert_eq!(window_of(&editor.id), Some(3));
    }

    #[test]
    fn a_silent_window_reads_as_the_window_alone() {
        let apps = silent_apps(
            &[toplevel(9, "Calculator", "xcalc", Some(7))],
            &OnTheBus::default(),
            |_| None,
        );
        let snapshot = snapshot(&apps[0], 0);
        assert_eq!(snapshot.tree.len(), 1);
        assert!(!snapshot.accessible);
        assert_eq!(snapshot.window_id(), element_id(9));
        let root = snapshot.tree.element(snapshot.tree.root());
        assert_eq!(
            (root.role, root.name.as_str()),
            (Role::Window, "Calculator")
        );
        assert_eq!(
            window_of(&ElementId(":1.5/org/a11y/atspi/accessible/1".into())),
            None
        );
    }
}
