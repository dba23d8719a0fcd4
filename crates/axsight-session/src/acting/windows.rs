//! Windows as a whole: bring one forward, move, resize, maximize or minimize
//! one, close one, start an app and wait for its window.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use axsight_browser::{find_chromium, is_chromium, is_electron_app};
use axsight_core::{
    split_command, CommandLineError, ElementId, Engine, EngineError, FailureKind, Launch, Launched,
    Placement, State, WindowQuery,
};

use super::{ActOptions, Session};
use crate::browsers::hidden_page_note;
use crate::ToolError;

impl<E: Engine> Session<E> {
    /// `activate_window`: raises the window and gives it the keyboard focus.
    pub async fn activate_window(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_activate(app, window, options).await)
            .await
    }

    async fn do_activate(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let snapshot = self.named_window(&engine, app, window).await?;
        let id = snapshot.window_id();
        let title = snapshot.title.clone();
        let was_active = snapshot
            .tree
            .element(snapshot.tree.root())
            .states
            .contains(State::Active);
        let before = self.before(&engine, Some(snapshot), options).await;
        engine
            .activate_window(&id)
            .await
            .map_err(ToolError::engine)?;
        let what = format!("activated '{title}'");
        let mut answered = self.answer(&engine, what, before, options).await?;
        let active = answered
            .after
            .as_ref()
            .map(|s| s.tree.element(s.tree.root()).states.contains(State::Active));
        answered.checks.push(match (active, was_active) {
            (Some(true), true) => "check: it was already active".into(),
            (Some(true), false) => "check: it is active now".into(),
            (Some(false), _) => "check: it does not report itself active yet (a window manager may refuse to give it the focus)".into(),
            (None, _) => "check: it could not be read back".into(),
        });
        Ok(answered.text())
    }

    /// `move_window`, `resize_window`, `maximize_window`, `minimize_window`: places
    /// the window and answers with what changed and where it is now.
    pub async fn place_window(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        placement: Placement,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_place(app, window, placement, options).await)
            .await
    }

    async fn do_place(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        placement: Placement,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let snapshot = self.named_window(&engine, app, window).await?;
        let id = snapshot.window_id();
        let title = snapshot.title.clone();
        let before = self.before(&engine, Some(snapshot), options).await;
        let placed = engine
            .place_window(&id, placement)
            .await
            .map_err(ToolError::engine)?;
        let what = match placement {
            Placement::Move { x, y, size: None } => format!("moved '{title}' to ({x}, {y})"),
            Placement::Move {
                x,
                y,
                size: Some((w, h)),
            } => format!("moved '{title}' to ({x}, {y}) and resized it to {w}×{h}"),
            Placement::Resize { width, height } => {
                format!("resized '{title}' to {width}×{height}")
            }
            Placement::Maximize(true) => format!("maximized '{title}'"),
            Placement::Maximize(false) => format!("restored '{title}' from maximized"),
            Placement::Minimize(true) => format!("minimized '{title}'"),
            Placement::Minimize(false) => format!("restored '{title}' from minimized"),
        };
        let mut answered = self.answer(&engine, what, before, options).await?;
        // The display's word, not the app's: a toolkit may count a window
        // manager's frame in its window's box.
        answered.checks.push(match placed {
            None => "check: it is off the screen".into(),
            Some(b) => format!(
                "check: its content is at [{},{},{},{}] on screen",
                b.x, b.y, b.width, b.height
            ),
        });
        Ok(answered.text())
    }

    /// `close_window`: asks the window to close, as its close button would, and
    /// reports what happened (a confirmation dialog shows in the diff).
    pub async fn close_window(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        self.recover(self.do_close(app, window, options).await)
            .await
    }

    async fn do_close(
        &self,
        app: Option<&str>,
        window: Option<&str>,
        options: &ActOptions,
    ) -> Result<String, ToolError> {
        if app.is_none() && window.is_none() {
            return Err(ToolError::BadArguments(
                "name the window to close with `app` and/or `window`".into(),
            ));
        }
        let engine = self.engine().await?;
        let snapshot = match self.named_window(&engine, app, window).await {
            Ok(snapshot) => snapshot,
            Err(error) => return self.close_unreadable(&engine, window, error).await,
        };
        let id = snapshot.window_id();
        let title = snapshot.title.clone();
        let before = self.before(&engine, Some(snapshot), options).await;
        engine.close_window(&id).await.map_err(ToolError::engine)?;
        let what = format!("asked '{title}' to close");
        Ok(self.answer(&engine, what, before, options).await?.text())
    }

    /// A window that cannot be read — its app answers nothing, as while GTK3 runs
    /// a modal dialog inside an accessible action — is closed through the display
    /// by its exact title. Keys are no way out there: a key press while the app
    /// is stuck in that call can deadlock it for good.
    async fn close_unreadable(
        &self,
        engine: &E,
        window: Option<&str>,
        error: ToolError,
    ) -> Result<String, ToolError> {
        use axsight_core::FailureKind;
        let unreadable = matches!(
            error.engine_failure(),
            Some(FailureKind::NotAnswering | FailureKind::WindowGone)
        );
        let Some(title) = window.filter(|_| unreadable) else {
            return Err(error);
        };
        if !engine
            .close_window_titled(title)
            .await
            .map_err(ToolError::engine)?
        {
            return Err(error);
        }
        Ok(format!(
            "asked '{title}' to close through the display; no diff, since its app answers no accessibility call ({error})\n"
        ))
    }
}

/// How long a new window without accessibility must stay before
/// `open_application` takes it for the app's window: a splash screen is gone
/// by then, and an app's bridge has registered.
const SILENT_GRACE: Duration = Duration::from_millis(1500);

/// How long `open_application` waits for the display to place a new window
/// whose app reports boxes relative to it: a Wayland window is on the bus
/// before the compositor has placed and sized it.
const PLACE_GRACE: Duration = Duration::from_millis(2000);

impl<E: Engine> Session<E> {
    /// `open_application`: starts an app and waits for a new window of it; answers
    /// with that window's tree.
    pub async fn open_application(
        &self,
        app: &str,
        timeout: Duration,
    ) -> Result<String, ToolError> {
        let opened = self.do_open(app, timeout).await;
        if opened.is_ok() {
            self.note_desktop().await;
        }
        self.recover(opened).await
    }

    async fn do_open(&self, app: &str, timeout: Duration) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        // Without the windows there before, every window would look new.
        let known: HashSet<_> = engine
            .applications()
            .await
            .map_err(ToolError::engine)?
            .into_iter()
            .flat_map(|a| a.windows.into_iter().map(|w| w.id))
            .collect();
        let (launch, browser) = self.what_to_launch(&engine, app).await?;
        self.policy.allows(&launch)?;
        let mut mark = engine.mark().await;
        let launched = match browser {
            true => self.launch_browser(&engine, &launch).await?,
            false => engine.launch(&launch).await.map_err(ToolError::engine)?,
        };
        let start = Instant::now();
        let deadline = start + timeout;
        // When each new window without accessibility was first seen.
        let mut silent_since: std::collections::HashMap<ElementId, Instant> = Default::default();
        // When the window found was first read without a place on screen.
        let mut unplaced_since: Option<Instant> = None;
        loop {
            // Any new window will do, but the launched process's own comes first:
            // single-instance apps hand the request to a running process. A
            // window without accessibility counts once it has stayed a while
            // (a splash screen goes, an app's bridge may be late to register).
            if let Ok(apps) = engine.applications().await {
                let mut fresh: Vec<_> = apps
                    .iter()
                    .flat_map(|a| a.windows.iter().map(move |w| (a, w)))
                    .filter(|(_, w)| !known.contains(&w.id))
                    .collect();
                silent_since.retain(|id, _| fresh.iter().any(|(_, w)| &w.id == id));
                for (_, window) in fresh.iter().filter(|(a, _)| !a.accessible) {
                    silent_since
                        .entry(window.id.clone())
                        .or_insert_with(Instant::now);
                }
                let now = Instant::now();
                fresh.retain(|(a, w)| {
                    a.accessible
                        || now >= deadline
                        || silent_since
                            .get(&w.id)
                            .is_some_and(|since| now - *since >= SILENT_GRACE)
                });
                fresh.sort_by_key(|(a, _)| (!a.accessible, a.pid != Some(launched.pid)));
                if let Some((found, window)) = fresh.first() {
                    let query = WindowQuery {
                        window_id: Some(window.id.clone()),
                        ..WindowQuery::default()
                    };
                    let snapshot = match engine
                        .window_tree(&query, self.read_options(false, false))
                        .await
                    {
                        Ok(snapshot) => snapshot,
                        // A window that closes as it shows (LibreOffice replaces
                        // its first frame while it starts): the next one counts.
                        Err(error)
                            if error.kind() == FailureKind::WindowGone
                                && Instant::now() < deadline =>
                        {
                            mark = engine
                                .next_event(
                                    mark,
                                    Duration::from_millis(250).min(deadline - Instant::now()),
                                )
                                .await;
                            continue;
                        }
                        Err(error) => return Err(ToolError::engine(error)),
                    };
                    // Its boxes come once the display places it.
                    if snapshot.unplaced {
                        let since = *unplaced_since.get_or_insert_with(Instant::now);
                        let now = Instant::now();
                        if now < deadline && now - since < PLACE_GRACE {
                            mark = engine
                                .next_event(mark, Duration::from_millis(100).min(deadline - now))
                                .await;
                            continue;
                        }
                    }
                    // A browser's window comes before its page's tree: wait
                    // for the page too (until the deadline).
                    if browser && hidden_page_note(&snapshot).is_some() && Instant::now() < deadline
                    {
                        mark = engine
                            .next_event(
                                mark,
                                Duration::from_millis(250).min(deadline - Instant::now()),
                            )
                            .await;
                        continue;
                    }
                    self.remember(&snapshot);
                    let mut out = format!(
                        "opened {} (`{}`, pid {}): window '{}' after {} ms\n",
                        found.name,
                        launched.command,
                        found.pid.unwrap_or(launched.pid),
                        window.title,
                        start.elapsed().as_millis()
                    );
                    let root = snapshot.tree.root();
                    let surfaces = match self.falls_through_by_default() {
                        true => self.read_surfaces(&engine, &snapshot, root).await,
                        false => Default::default(),
                    };
                    out.push_str(&self.tree_text_with(&snapshot, root, None, &surfaces));
                    return Ok(out);
                }
            }
            let now = Instant::now();
            if now >= deadline {
                let why = match &self.policy.scope {
                    Some(scope) => format!(
                        "it may be an app outside what this server shows ({}; serve --scope), \
                         have exited, or be slow to start (raise timeout_ms)",
                        scope.listed()
                    ),
                    None => "it may have exited (check the command), hide from accessibility \
                             (run `axsight doctor`), or be slow to start (raise timeout_ms)"
                        .to_string(),
                };
                return Err(ToolError::TimedOut(format!(
                    "started `{}` (pid {}) but no new window appeared on the accessibility bus within {} ms: {why}",
                    launched.command,
                    launched.pid,
                    timeout.as_millis(),
                )));
            }
            mark = engine
                .next_event(mark, Duration::from_millis(250).min(deadline - now))
                .await;
        }
    }

    /// What `open_application` with `app` starts, and whether it is a browser
    /// the session starts itself: the desktop file `app` names, else the
    /// command line split into a program and its arguments. A line that needs
    /// a shell runs through one only where the policy allows it.
    async fn what_to_launch(&self, engine: &E, app: &str) -> Result<(Launch, bool), ToolError> {
        let app = app.trim();
        let home = std::env::var("HOME").ok();
        let split = split_command(app, home.as_deref());
        // A browser's flags are its own: no desktop file stands in for them.
        // An Electron app is Chromium inside: started the same way, but with
        // its own profile kept (see axsight_browser::electron_flags).
        if let Ok(argv) = &split {
            let program = argv[0].as_str();
            if is_chromium(program) || is_electron_app(program) {
                let launch = Launch::Program {
                    argv: argv.clone(),
                    desktop_id: None,
                };
                return Ok((launch, true));
            }
        }
        if let Some(launch) = engine
            .desktop_launch(app)
            .await
            .map_err(ToolError::engine)?
        {
            return Ok((launch, false));
        }
        let launch = match split {
            Ok(argv) => Launch::Program {
                argv,
                desktop_id: None,
            },
            Err(_) if self.policy.shell => Launch::Shell(app.to_string()),
            Err(CommandLineError::Empty) => {
                return Err(ToolError::BadArguments("name the app to open".into()))
            }
            Err(error) => {
                return Err(ToolError::BadArguments(format!(
                    "open_application starts a program with its arguments, not a shell line: \
                     {error}"
                )))
            }
        };
        Ok((launch, false))
    }

    /// Starts the browser `launch` names through the session's browsers, so
    /// its page tree and DevTools endpoint are on.
    async fn launch_browser(&self, engine: &E, launch: &Launch) -> Result<Launched, ToolError> {
        let Some((program, arguments)) = (match launch {
            Launch::Program { argv, .. } => argv.split_first(),
            Launch::Shell(_) => None,
        }) else {
            return Err(ToolError::CannotAct(
                "a browser starts from its program".into(),
            ));
        };
        let path = if program.contains('/') || !is_chromium(program) {
            std::path::PathBuf::from(program)
        } else {
            find_chromium().unwrap_or_else(|| std::path::PathBuf::from(program))
        };
        let browser = self.browsers.launch(&path, arguments, None, engine).await?;
        Ok(Launched {
            pid: browser.pid().unwrap_or_default(),
            command: launch.command(),
        })
    }
}
