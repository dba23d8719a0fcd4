//! Windows that other apps open because of an action: a desktop portal's file
//! chooser (Firefox's Save As, in the portal's process), a polkit or keyring
//! prompt, a helper program's dialog.
//!
//! Settling watches the acting app's events only, and such a window comes from
//! another process, often a second or more later (the portal starts, registers on
//! the bus, then shows). So the desktop's windows are noted before acting and
//! listed again after; when the keyboard focus left every window on the bus
//! during the action (the new window has it but is not yet listed), the answer
//! waits a little longer, on events, for a window to show up. This module only
//! finds those windows: reading and printing them is the answer's.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use axsight_core::{Application, ElementId, Engine, EventMark, Window};

/// The longest an answer waits for another app's window after the focus left
/// every window on the bus: a portal's dialog took about a second here.
const FOCUS_GRACE: Duration = Duration::from_millis(2500);

/// The desktop's windows just before an action, outside the acting app.
#[derive(Clone, Debug, Default)]
pub(crate) struct Desktop {
    /// Every window listed then, of every app.
    seen: HashSet<ElementId>,
    /// Whether some listed window was active: only then does a focus that
    /// left every listed window mean a window came that is not yet listed.
    focus_listed: bool,
}

impl Desktop {
    /// Notes the windows of `apps`.
    pub(crate) fn noted(apps: &[Application]) -> Desktop {
        let windows = || apps.iter().flat_map(|app| &app.windows);
        Desktop {
            seen: windows().map(|w| w.id.clone()).collect(),
            focus_listed: windows().any(Window::is_active),
        }
    }

    /// The windows of `apps` (other than the app with `pid`) that were not
    /// there before, with the app each belongs to, as the diff names it.
    pub(crate) fn new_elsewhere<'a>(
        &self,
        apps: &'a [Application],
        pid: Option<u32>,
    ) -> Vec<(&'a Window, String)> {
        apps.iter()
            .filter(|app| pid.is_none() || app.pid != pid)
            .flat_map(|app| app.windows.iter().map(move |w| (w, app)))
            .filter(|(w, _)| !self.seen.contains(&w.id))
            .map(|(w, app)| (w, app_label(app)))
            .collect()
    }

    /// Whether the focus left every listed window during the action and no
    /// window came that may hold it: the window that took it is not listed yet.
    /// A new window of any app (a menu's popup of the acting app's own, which
    /// need not say it is active) is where the focus went.
    fn focus_went_unlisted(&self, apps: &[Application]) -> bool {
        let windows = || apps.iter().flat_map(|app| &app.windows);
        self.focus_listed
            && !windows().any(Window::is_active)
            && windows().all(|w| self.seen.contains(&w.id))
    }
}

/// The line an answer gives a window another app opened after the last
/// answer, before this action.
pub(crate) fn meanwhile_line(window: &Window, app: &str) -> String {
    let title = axsight_core::quote(&window.title);
    format!(
        "meanwhile, before this action, another app opened a window: {title} ({app}){}; \
         get_window_tree with window: {title} reads it",
        if window.is_active() {
            ", which has the focus"
        } else {
            ""
        }
    )
}

/// How a diff names another app: its name and pid.
fn app_label(app: &Application) -> String {
    match app.pid {
        Some(pid) => format!("{}, pid {pid}", app.name),
        None => app.name.clone(),
    }
}

/// The apps as listed after an action, waiting (on events, up to
/// [`FOCUS_GRACE`] and `deadline`) while the focus is in a window no listing
/// has yet and no window came. `None` when the bus cannot be listed.
pub(crate) async fn listed_after<E: Engine>(
    engine: &E,
    desktop: &Desktop,
    deadline: Instant,
) -> Option<Vec<Application>> {
    let mut apps = engine.applications().await.ok()?;
    let grace_ends = (Instant::now() + FOCUS_GRACE).min(deadline);
    let mut mark: EventMark = engine.mark().await;
    while desktop.focus_went_unlisted(&apps) {
        let left = grace_ends.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        mark = engine
            .next_event(mark, left.min(Duration::from_millis(250)))
            .await;
        match engine.applications().await {
            Ok(now) => apps = now,
            Err(_) => break,
        }
    }
    Some(apps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Role, State, StateSet};

    fn window(id: &str, active: bool) -> Window {
        let mut states = StateSet::default();
        if active {
            states.insert(State::Active);
        }
        Window {
            id: ElementId(id.into()),
            title: id.into(),
            role: Role::Window,
            bounds: None,
            states,
        }
    }

    fn app(name: &str, pid: u32, windows: Vec<Window>) -> Application {
        Application {
            name: name.into(),
            pid: Some(pid),
            toolkit: "GTK".into(),
            windows,
            accessible: true,
        }
    }

    #[test]
    fn a_new_window_of_another_app_is_named_with_its_app() {
        let before = vec![app("firefox", 10, vec![window("w1", true)])];
        let desktop = Desktop::noted(&before);
        let after = vec![
            app(
                "firefox",
                10,
                vec![window("w1", false), window("w2", false)],
            ),
            app("xdg-desktop-portal-gtk", 20, vec![window("p1", true)]),
        ];
        let found = desktop.new_elsewhere(&after, Some(10));
        assert_eq!(
            found.len(),
            1,
            "the acting app's own new window is not elsewhere"
        );
        assert_eq!(found[0].0.title, "p1");
        assert_eq!(found[0].1, "xdg-desktop-portal-gtk, pid 20");
        assert!(!desktop.focus_went_unlisted(&after));
        // A popup of the acting app's own, not active: the focus is there.
        let popup = vec![app(
            "firefox",
            10,
            vec![window("w1", false), window("menu", false)],
        )];
        assert!(!desktop.focus_went_unlisted(&popup));
    }

    #[test]
    fn a_focus_that_left_every_listed_window_is_waited_on_only_when_one_had_it() {
        let before = vec![app("firefox", 10, vec![window("w1", true)])];
        let after = vec![app("firefox", 10, vec![window("w1", false)])];
        assert!(Desktop::noted(&before).focus_went_unlisted(&after));
        // Without a window manager no window is ever active: nothing to wait for.
        let unfocused = vec![app("firefox", 10, vec![window("w1", false)])];
        assert!(!Desktop::noted(&unfocused).focus_went_unlisted(&after));
    }
}
