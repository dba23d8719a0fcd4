//! The acting half of [`LinuxEngine`]: accessible operations, real input through
//! the screen (XTest, or a Wayland compositor's virtual devices), window
//! activation and closing, launching, and waiting for the UI to settle.
//!
//! Everything here is held to a deadline: screen work runs off the runtime (see
//! [`screen::off_thread`]), D-Bus calls carry their own timeouts, and an action
//! that does not answer is reported, not waited for.

use std::time::Duration;

use axsight_core::{
    Bounds, Capture, ClipboardText, ElementId, EventMark, Input, InputWatch, Launch, Launched,
    Operation, Performed, Placement, Point, SettleEnd, SettlePolicy, Settled,
};

use crate::apps::AppEntry;
use crate::engine::LinuxEngine;
use crate::screen::{self, matching::Wanted, WindowId};
use crate::sync::lock;
use crate::{launch, Error, Result};

/// The longest one piece of input may take to send (a long text is many events).
const INPUT_DEADLINE: Duration = Duration::from_secs(10);

/// The longest a screen capture may take (a whole 4K screen is 33 MB).
const CAPTURE_DEADLINE: Duration = Duration::from_secs(5);

/// More time per character of typed text.
const PER_CHARACTER: Duration = Duration::from_millis(10);

/// The longest a window look-up, raise or close may take.
const WINDOW_DEADLINE: Duration = Duration::from_secs(2);

/// The longest a clipboard read or hold may take: the holder's own deadline to
/// hand its text over (2 s), and the requests around it.
const CLIPBOARD_DEADLINE: Duration = Duration::from_secs(4);
/// How long the registry and the display get to answer a liveness check.
const ALIVE_DEADLINE: Duration = Duration::from_secs(2);

/// The longest a window placement may take: the display's own wait for it to
/// show (2 s), and the requests around it.
const PLACE_CALL_DEADLINE: Duration = Duration::from_secs(4);

impl LinuxEngine {
    /// Does `operation` to the element `id` through its accessible interfaces.
    /// Text edits are refused for a toolkit that answers them and changes
    /// nothing (Gecko), so the caller types with keys instead.
    pub async fn perform(&self, id: &ElementId, operation: &Operation) -> Result<Performed> {
        if crate::silent_windows::window_of(id).is_some() {
            return Err(Error::Refused {
                what: "take an accessible operation: its window has no accessibility, so \
                       only real input reaches it"
                    .into(),
            });
        }
        Ok(self.a11y.perform(self, id, operation).await?)
    }

    /// Element `id`'s text with its caret, selection and formatting; `None`
    /// for an element of a window without accessibility.
    pub async fn text_detail(
        &self,
        id: &ElementId,
        runs: bool,
    ) -> Result<Option<axsight_core::TextDetail>> {
        if crate::silent_windows::window_of(id).is_some() {
            return Ok(None);
        }
        Ok(self.a11y.text_detail(id, runs).await?)
    }

    /// Sends pointer or keyboard input through the screen.
    ///
    /// The first input through devices the screen made itself waits until
    /// the apps have run their main loops since: a toolkit starts listening
    /// to a new pointer or keyboard when its loop reads that the seat has one.
    pub async fn send_input(&self, input: &Input) -> Result<()> {
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        if self
            .devices_unconfirmed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            self.a11y.await_main_loops(self).await;
        }
        let input = input.clone();
        // A long text takes longer: GTK reads a key in 2-3 ms, and each round of
        // keys bound to spare keycodes waits for the app to have read them.
        let deadline = match &input {
            Input::Text(text) => INPUT_DEADLINE + PER_CHARACTER * text.chars().count() as u32,
            _ => INPUT_DEADLINE,
        };
        screen::off_thread(deadline, move || lock(&screen).send_input(&input))
            .await
            .map_err(Error::from)
    }

    /// Watches what a person does with the pointer and keyboard, for a
    /// recording: through the X display's RECORD extension. A Wayland
    /// compositor shows no client the input of others, so there is nothing to
    /// watch there but the accessibility events.
    pub async fn watch_input(&self) -> Result<InputWatch> {
        if let crate::DesktopSession::Wayland { compositor, .. } = crate::DesktopSession::current()
        {
            return Err(Error::Screen(format!(
                "{} is a Wayland compositor, which lets no program see another's clicks and \
                 keys: input cannot be watched here",
                compositor.name()
            )));
        }
        let display = self.discovery().display.clone().ok_or_else(|| {
            Error::Screen("no X display was found, and watching input needs one".into())
        })?;
        screen::off_thread(WINDOW_DEADLINE, move || {
            axsight_screen::x11::watch_input(&display)
        })
        .await
        .map_err(Error::from)
    }

    /// For each of `points`, whether pointer input there lands in `window`:
    /// the window is found on the display once, and the screen asked once.
    /// (One point: `Engine::input_reaches`.)
    pub async fn input_reaches_each(
        &self,
        window: &ElementId,
        points: &[Point],
    ) -> Result<Vec<bool>> {
        let Some(shown) = self.display_window(window).await? else {
            return Ok(vec![false; points.len()]);
        };
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        let points: Vec<(i32, i32)> = points.iter().map(|p| (p.x, p.y)).collect();
        screen::off_thread(WINDOW_DEADLINE, move || {
            lock(&screen).reaches_each(shown, &points)
        })
        .await
        .map_err(Error::from)
    }

    /// Raises `window` and gives it the keyboard focus.
    pub async fn activate_window(&self, window: &ElementId) -> Result<()> {
        let shown = self
            .display_window(window)
            .await?
            .ok_or(Error::WindowGone)?;
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(WINDOW_DEADLINE, move || lock(&screen).activate(shown))
            .await
            .map_err(Error::from)
    }

    /// The screen's pixels in `region`, or the whole screen.
    pub async fn capture(&self, region: Option<Bounds>) -> Result<Capture> {
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(CAPTURE_DEADLINE, move || lock(&screen).capture(region))
            .await
            .map_err(Error::from)
    }

    /// The windows process `pid` shows on the display, with their titles.
    pub async fn screen_windows(&self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(WINDOW_DEADLINE, move || lock(&screen).windows_of_pid(pid))
            .await
            .map_err(Error::from)
    }

    /// Asks the window titled `title` to close through the screen alone.
    /// Only a window of a listed app that does not answer a ping is closed: any
    /// other window can be closed the usual way, and a title alone must never
    /// close another app's window.
    pub async fn close_window_titled(&self, title: &str) -> Result<bool> {
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        let entries = self.a11y.listed_entries(self).await?;
        for entry in entries {
            let Some(pid) = entry.info.pid else { continue };
            if self.a11y.answers_ping(&entry.root).await {
                continue;
            }
            let screen = screen.clone();
            let title = title.to_string();
            let closed = screen::off_thread(WINDOW_DEADLINE, move || {
                let mut screen = lock(&screen);
                match screen.toplevel_of(Some(pid), &title)? {
                    Some(window) => screen.close(window).map(|()| true),
                    None => Ok(false),
                }
            })
            .await?;
            if closed {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Raises and focuses the window under `point`.
    pub async fn activate_window_at(&self, point: Point) -> Result<()> {
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(WINDOW_DEADLINE, move || {
            lock(&screen).activate_at(point.x, point.y)
        })
        .await
        .map_err(Error::from)
    }

    /// Asks `window` to close, as its close button would.
    pub async fn close_window(&self, window: &ElementId) -> Result<()> {
        let shown = self
            .display_window(window)
            .await?
            .ok_or(Error::WindowGone)?;
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(WINDOW_DEADLINE, move || lock(&screen).close(shown))
            .await
            .map_err(Error::from)
    }

    /// Moves, resizes, maximizes or minimizes the window (see [`screen::Screen::place`]).
    pub async fn place_window(
        &self,
        window: &ElementId,
        placement: Placement,
    ) -> Result<Option<Bounds>> {
        let shown = self
            .display_window(window)
            .await?
            .ok_or(Error::WindowGone)?;
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        // The screen gets its own deadline to show the placement; this one
        // bounds the whole call.
        screen::off_thread(PLACE_CALL_DEADLINE, move || {
            lock(&screen).place(shown, placement)
        })
        .await
        .map_err(Error::from)
    }

    /// Whether the desktop still answers: the accessibility registry a ping,
    /// and the display (where there is one) a round trip. A bus or display
    /// gone is an error that makes the session connect again.
    pub async fn check_alive(&self) -> Result<()> {
        self.a11y.check_alive().await?;
        match self.screen.clone() {
            Some(screen) => {
                screen::off_thread(ALIVE_DEADLINE, move || lock(&screen).round_trip()).await?
            }
            None if self.discovery().display.is_some() => return Err(self.no_display()),
            None => {}
        }
        Ok(())
    }

    /// The clipboard's text and who holds it; `None` when it holds no text.
    pub async fn clipboard_text(&self) -> Result<Option<ClipboardText>> {
        let clipboard = self.clipboard.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(CLIPBOARD_DEADLINE, move || clipboard.read())
            .await
            .map_err(Error::from)
    }

    /// Holds `text` on the clipboard until another client copies something.
    pub async fn set_clipboard_text(&self, text: String) -> Result<()> {
        let clipboard = self.clipboard.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(CLIPBOARD_DEADLINE, move || clipboard.hold(text))
            .await
            .map_err(Error::from)
    }

    /// Who holds the clipboard now (an X window, or a digest of its text on
    /// Wayland), if anyone.
    pub async fn clipboard_owner(&self) -> Result<Option<u32>> {
        let clipboard = self.clipboard.clone().ok_or_else(|| self.no_display())?;
        screen::off_thread(CLIPBOARD_DEADLINE, move || clipboard.owner())
            .await
            .map_err(Error::from)
    }

    /// What the desktop file `app` names runs (see `launch::desktop_launch`).
    /// Reading desktop files runs off the runtime, which also carries the
    /// event recorder.
    pub async fn desktop_launch(&self, app: &str) -> Result<Option<Launch>> {
        let app = app.to_string();
        tokio::task::spawn_blocking(move || launch::desktop_launch(&app))
            .await
            .map_err(|error| Error::Launch {
                command: String::new(),
                why: error.to_string(),
            })
    }

    /// Starts an application (see `launch`); forking runs off the runtime.
    pub async fn launch(&self, what: &Launch) -> Result<Launched> {
        let what = what.clone();
        let discovery = self.discovery().clone();
        tokio::task::spawn_blocking(move || launch::launch(&what, &discovery))
            .await
            .map_err(|error| Error::Launch {
                command: String::new(),
                why: error.to_string(),
            })?
    }

    /// The current place in the event stream.
    pub async fn mark(&self) -> EventMark {
        self.a11y.mark().await
    }

    /// Waits for the app owning `window` (any app when `None`) to settle after
    /// `mark`; a window only the screen shows sends no events to wait for.
    pub async fn settle(
        &self,
        window: Option<&ElementId>,
        mark: EventMark,
        policy: SettlePolicy,
    ) -> Settled {
        if window.is_some_and(|w| crate::silent_windows::window_of(w).is_some()) {
            return Settled {
                waited: Duration::ZERO,
                events: 0,
                end: SettleEnd::Silent,
            };
        }
        self.a11y.settle(self, window, mark, policy).await
    }

    /// Waits for an event after `mark`, or `timeout`; without a watch, waits out
    /// the timeout (the caller then polls).
    pub async fn next_event(&self, mark: EventMark, timeout: Duration) -> EventMark {
        self.a11y.next_event(mark, timeout).await
    }

    /// The display window that shows the accessible window `window`, found by
    /// its app's pid, its title and size, and kept apart from its app's other
    /// windows' (see [`screen::matching::Matches::find`]).
    ///
    /// The last listing is asked first, without a call to any app: a stopped app
    /// elsewhere on the bus must not slow every click.
    async fn display_window(&self, window: &ElementId) -> Result<Option<WindowId>> {
        if let Some(shown) = crate::silent_windows::window_of(window) {
            return Ok(Some(shown));
        }
        let find = |entries: &[AppEntry]| {
            entries.iter().find_map(|entry| {
                let found = entry.info.windows.iter().find(|w| &w.id == window)?;
                let wanted = Wanted {
                    title: found.title.clone(),
                    size: found.bounds.map(|b| (b.width, b.height)),
                    pid: entry.info.pid,
                    inset: None,
                };
                Some((wanted, entry.window_ids()))
            })
        };
        let known = self.a11y.in_last_listing(find);
        let (wanted, siblings) = match known {
            Some(known) => known,
            None => find(&self.a11y.app_entries(self).await?).ok_or(Error::WindowGone)?,
        };
        let screen = self.screen.clone().ok_or_else(|| self.no_display())?;
        let id = window.clone();
        screen::off_thread(WINDOW_DEADLINE, move || {
            lock(&screen).toplevel_for(&id, &siblings, &wanted)
        })
        .await
        .map_err(Error::from)
    }
}

impl LinuxEngine {
    /// Why there is no screen, for the calls that need one.
    fn no_display(&self) -> Error {
        if let crate::DesktopSession::Wayland { .. } = crate::DesktopSession::current() {
            return Error::NoScreen {
                detail: self
                    .screen_problem
                    .clone()
                    .unwrap_or_else(|| "no backend answered".into()),
            };
        }
        // A display was named but could not be opened when connecting (its X
        // server was down, or starting): a lost connection, which makes the
        // session connect afresh on the next call.
        if let Some(display) = &self.discovery().display {
            return Error::DisplayLost(format!(
                "display {display} could not be opened when axsight connected"
            ));
        }
        let detail = match &self.discovery().display_problem {
            Some(problem) => format!("axsight has no X11 connection, which real input and window control need: {problem}"),
            None => "axsight has no X11 connection, which real input and window control need".into(),
        };
        Error::NoDisplay { detail }
    }
}
