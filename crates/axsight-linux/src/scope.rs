//! The engine seen through an [`AppScope`] (`serve --scope`): only the apps in
//! scope are listed and read; input is refused where it would reach another
//! app's window (a point on one, keys while one is active), and so are a
//! capture beyond the scope's windows, the clipboard's text another app put
//! there, and watching the person's input. The session decides the scope; this
//! module keeps it, on the engine's boundary, so that no tool path can go round
//! it.

use axsight_core::{AppScope, Application, Bounds, Engine, Input, Point, WindowSnapshot};

use crate::{Error, LinuxEngine, Result};

/// How far a capture may reach past an in-scope window's box (OCR pads the
/// area it reads).
const CAPTURE_MARGIN: i32 = 32;

impl LinuxEngine {
    /// `apps` without those out of scope.
    pub(crate) fn scoped_apps(&self, apps: Vec<Application>) -> Vec<Application> {
        match &self.scope {
            Some(scope) => apps
                .into_iter()
                .filter(|app| scope.holds(&app.name))
                .collect(),
            None => apps,
        }
    }

    /// Refuses a window of an app out of scope.
    pub(crate) fn check_snapshot(&self, snapshot: &WindowSnapshot) -> Result<()> {
        match &self.scope {
            Some(scope) if !scope.holds(&snapshot.app) => Err(out_of_scope(
                scope,
                format!(
                    "the window '{}' belongs to {}",
                    snapshot.title, snapshot.app
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Refuses input that would reach a window out of scope.
    pub(crate) async fn check_input(&self, input: &Input) -> Result<()> {
        let Some(scope) = &self.scope else {
            return Ok(());
        };
        match input {
            Input::Click { at, .. } | Input::Scroll { at, .. } => {
                self.check_point(scope, *at).await
            }
            Input::Drag { from, to, .. } => {
                self.check_point(scope, *from).await?;
                self.check_point(scope, *to).await
            }
            Input::Keys(_) | Input::Text(_) => {
                let apps = LinuxEngine::applications(self).await?;
                let active = apps
                    .iter()
                    .find(|app| app.windows.iter().any(|w| w.is_active()));
                match active {
                    Some(app) if !scope.holds(&app.name) => Err(out_of_scope(
                        scope,
                        format!(
                            "keys go to the active window, which belongs to {}",
                            app.name
                        ),
                    )),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Refuses a point that lies on a window out of scope, or on no listed
    /// window at all.
    pub(crate) async fn check_scoped_point(&self, point: Point) -> Result<()> {
        match &self.scope {
            Some(scope) => self.check_point(scope, point).await,
            None => Ok(()),
        }
    }

    async fn check_point(&self, scope: &AppScope, point: Point) -> Result<()> {
        let apps = LinuxEngine::applications(self).await?;
        let mut there: Vec<(&Application, &axsight_core::Window)> = apps
            .iter()
            .flat_map(|app| app.windows.iter().map(move |w| (app, w)))
            .filter(|(_, w)| w.bounds.is_some_and(|b| b.contains(point.x, point.y)))
            .collect();
        // The active window first: it is on top wherever it is.
        there.sort_by_key(|(_, w)| !w.is_active());
        for (app, window) in there {
            if Engine::input_reaches(self, &window.id, point)
                .await
                .unwrap_or(false)
            {
                return match scope.holds(&app.name) {
                    true => Ok(()),
                    false => Err(out_of_scope(
                        scope,
                        format!(
                            "({}, {}) lies on the window '{}' of {}",
                            point.x, point.y, window.title, app.name
                        ),
                    )),
                };
            }
        }
        Err(out_of_scope(
            scope,
            format!(
                "({}, {}) lies on no window of the apps in scope",
                point.x, point.y
            ),
        ))
    }

    /// Refuses a capture beyond the windows in scope: the whole screen, or a
    /// region outside each of their boxes.
    pub(crate) async fn check_capture(&self, region: Option<Bounds>) -> Result<()> {
        let Some(scope) = &self.scope else {
            return Ok(());
        };
        let Some(region) = region else {
            return Err(out_of_scope(
                scope,
                "the whole screen shows other apps' windows: capture a window".into(),
            ));
        };
        let apps = self.scoped_apps(LinuxEngine::applications(self).await?);
        let inside = apps
            .iter()
            .flat_map(|app| &app.windows)
            .filter_map(|window| window.bounds)
            .any(|b| b.holds(&region, CAPTURE_MARGIN));
        match inside {
            true => Ok(()),
            false => Err(out_of_scope(
                scope,
                format!(
                    "the region [{},{},{},{}] is not inside a window of the apps in scope",
                    region.x, region.y, region.width, region.height
                ),
            )),
        }
    }

    /// Refuses what only the apps in scope may own: their process ids.
    pub(crate) async fn check_pid(&self, pid: u32, what: &str) -> Result<()> {
        let Some(scope) = &self.scope else {
            return Ok(());
        };
        let apps = LinuxEngine::applications(self).await?;
        let owner = apps.iter().find(|app| app.pid == Some(pid));
        match owner {
            Some(app) if scope.holds(&app.name) => Ok(()),
            Some(app) => Err(out_of_scope(
                scope,
                format!("{what} belongs to {}", app.name),
            )),
            None => Err(out_of_scope(
                scope,
                format!("{what} belongs to a process that is none of the apps in scope"),
            )),
        }
    }

    /// Refuses a window named by its title alone unless an app in scope
    /// lists it.
    pub(crate) async fn check_title(&self, title: &str) -> Result<()> {
        let Some(scope) = &self.scope else {
            return Ok(());
        };
        let apps = self.scoped_apps(LinuxEngine::applications(self).await?);
        match apps
            .iter()
            .flat_map(|app| &app.windows)
            .any(|w| w.title == title)
        {
            true => Ok(()),
            false => Err(out_of_scope(
                scope,
                format!("no app in scope has a window titled '{title}'"),
            )),
        }
    }

    /// Refuses watching the person's input: it is every app's.
    pub(crate) fn check_watch(&self) -> Result<()> {
        match &self.scope {
            Some(scope) => Err(out_of_scope(
                scope,
                "a recording watches the input to every app".into(),
            )),
            None => Ok(()),
        }
    }
}

fn out_of_scope(scope: &AppScope, what: String) -> Error {
    Error::OutOfScope {
        what,
        apps: scope.listed(),
    }
}
