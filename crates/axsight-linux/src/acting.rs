//! The acting half of [`LinuxEngine`]: accessible operations, real input through
//! XTest, window activation and closing, launching, and waiting for the UI to settle.
//!
//! Everything here is held to a deadline: X11 work runs off the runtime (see
//! [`x11::off_thread`]), D-Bus calls carry their own timeouts, and an action that
//! does not answer is reported, not waited for.

use std::time::Duration;

use axsight_core::{
    Bounds, ElementId, EventMark, Input, Launched, Operation, Performed, Point, SettleEnd,
    SettlePolicy, Settled,
};

use crate::dbus::ObjRef;
use crate::engine::{lock, LinuxEngine};
use crate::{launch, operate, x11, Error, Result};

/// The longest one piece of input may take to send (a long text is many events).
const INPUT_DEADLINE: Duration = Duration::from_secs(10);

/// The longest a window look-up, raise or close may take.
const WINDOW_DEADLINE: Duration = Duration::from_secs(2);

impl LinuxEngine {
    /// Does `operation` to the element `id` through its accessible interfaces.
    pub async fn perform(&self, id: &ElementId, operation: &Operation) -> Result<Performed> {
        operate::perform(&self.conn, id, operation).await
    }

    /// Sends pointer or keyboard input through XTest.
    pub async fn send_input(&self, input: &Input) -> Result<()> {
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        let input = input.clone();
        x11::off_thread(INPUT_DEADLINE, move || lock(&x11).send_input(&input)).await
    }

    /// Whether pointer input at `point` lands in `window`.
    pub async fn input_reaches(&self, window: &ElementId, point: Point) -> Result<bool> {
        let Some(xid) = self.x_window(window).await? else {
            return Ok(false);
        };
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || {
            lock(&x11).reaches(xid, point.x, point.y)
        })
        .await
    }

    /// Raises `window` and gives it the keyboard focus.
    pub async fn activate_window(&self, window: &ElementId) -> Result<()> {
        let xid = self.x_window(window).await?.ok_or(Error::WindowGone)?;
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || lock(&x11).activate(xid)).await
    }

    /// The windows process `pid` shows on the display, with their titles.
    pub async fn screen_windows(&self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || lock(&x11).windows_of_pid(pid)).await
    }

    /// Asks the window titled `title` to close through the display alone.
    pub async fn close_window_titled(&self, title: &str) -> Result<bool> {
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        let title = title.to_string();
        x11::off_thread(WINDOW_DEADLINE, move || {
            let mut x11 = lock(&x11);
            match x11.toplevel_of(None, &title, None)? {
                Some(window) => x11.close(window).map(|()| true),
                None => Ok(false),
            }
        })
        .await
    }

    /// Raises and focuses the window under `point`.
    pub async fn activate_window_at(&self, point: Point) -> Result<()> {
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || {
            lock(&x11).activate_at(point.x, point.y)
        })
        .await
    }

    /// Asks `window` to close, as its close button would.
    pub async fn close_window(&self, window: &ElementId) -> Result<()> {
        let xid = self.x_window(window).await?.ok_or(Error::WindowGone)?;
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || lock(&x11).close(xid)).await
    }

    /// Starts an application (see [`launch`]).
    pub fn launch(&self, app: &str) -> Result<Launched> {
        launch::launch(app, self.discovery())
    }

    /// The current place in the event stream.
    pub async fn mark(&self) -> EventMark {
        match &self.watch {
            Some(watch) => EventMark(watch.bookmark().await),
            None => EventMark(0),
        }
    }

    /// Waits for the app owning `window` (any app when `None`) to settle after
    /// `mark`.
    pub async fn settle(
        &self,
        window: Option<&ElementId>,
        mark: EventMark,
        policy: SettlePolicy,
    ) -> Settled {
        let Some(watch) = &self.watch else {
            return Settled {
                waited: Duration::ZERO,
                events: 0,
                end: SettleEnd::NotWatched,
            };
        };
        let sender = window
            .and_then(|w| ObjRef::from_element_id(w).ok())
            .map(|obj| obj.bus);
        watch.settle_after(mark.0, sender.as_deref(), policy).await
    }

    /// Waits for an event after `mark`, or `timeout`; without a watch, waits out
    /// the timeout (the caller then polls).
    pub async fn next_event(&self, mark: EventMark, timeout: Duration) -> EventMark {
        match &self.watch {
            Some(watch) => EventMark(watch.next_event(mark.0, timeout).await),
            None => {
                tokio::time::sleep(timeout).await;
                mark
            }
        }
    }

    /// The X window that shows the accessible window `window`, found by its app's
    /// pid and its title.
    async fn x_window(&self, window: &ElementId) -> Result<Option<u32>> {
        let entries = self.app_entries().await?;
        let (pid, title, size) = entries
            .iter()
            .find_map(|entry| {
                let found = entry.info.windows.iter().find(|w| &w.id == window)?;
                let size = found.bounds.map(|b| (b.width, b.height));
                Some((entry.info.pid, found.title.clone(), size))
            })
            .ok_or(Error::WindowGone)?;
        let x11 = self.x11.clone().ok_or_else(no_display)?;
        x11::off_thread(WINDOW_DEADLINE, move || {
            lock(&x11).toplevel_of(pid, &title, size)
        })
        .await
    }
}

fn no_display() -> Error {
    Error::NoDisplay {
        detail: "axsight has no X11 connection, which real input and window control need".into(),
    }
}
