//! Watching AT-SPI events, so that a window read twice with nothing changed in
//! between is served from memory, and so that actions can wait for the UI to settle.
//!
//! GTK3 sends events only for kinds some client registered with the registry
//! (`Registry.RegisterEvent`); a match rule alone receives nothing. So the watch
//! registers the kinds that change a tree, then logs each event's sender, object and
//! kind of [`Change`]: a reader that bookmarked the log can tell exactly which
//! objects changed since.
//!
//! # Settling
//!
//! An action's answer is only as good as the moment of its second read. Too early, and
//! the dialog is not there yet. A fixed sleep is too early for slow apps and wastes time
//! on fast ones. So the wait is driven by events (`EventWatch::settle_after` in
//! `axsight-atspi/src/events.rs`):
//!
//! - The recorder marks each event `incidental` when it is only feedback of input:
//!   `state-changed` for `focused`, `armed`, `pressed`, `active` and `focusable`;
//!   window `activate` and `deactivate`; and every `bounds-changed`. Everything else
//!   (children, names, values, text, other states, windows created or destroyed) is an
//!   effect.
//! - From the mark, counting only events from the acted window's app (its bus name),
//!   the wait:
//!   1. waits up to `expect` (1000 ms) for the first effect; none means `NoChange`;
//!   2. then waits until `quiet` (150 ms) has passed since the last effect: `Quiet`;
//!   3. never goes past `cap` (3000 ms): `Cap`, and the answer says to read again.
//!
//!   What the action predicts shortens it (`SettlePolicy::expecting`, an `Expecting`
//!   the session sets on `Before` from `Expecting::of_click`): a plain click on a
//!   button, toggle, check box, radio button, switch or menu item expects an
//!   `Effect`, and once one has come the quiet is `quiet_after_expected` (60 ms); a
//!   click into a text field expects only `Focus`, and a focus event followed by 60 ms
//!   with no effect ends the wait (`FocusMoved`) instead of running out the expect
//!   window. The engine honours a prediction only for toolkits whose effects come in
//!   one burst (`Quirks::settles_in_one_burst`: GTK 3 and 4, as measured; Gecko,
//!   LibreOffice and the unmeasured keep the general rule, see `quirks.rs`).
//!   An effect after a focus-only prediction falls back to the 150 ms quiet;
//!   other actions and roles (links, menus and combo boxes that fill a popup, list
//!   rows) keep the general rule. The decision is `settle_step`, a function of the
//!   events, the start, the time and the policy, unit-tested on plain data; `axsight
//!   bench settle` checks it against a slow reference (each click's answer against
//!   the same click's diff a second later).
//!
//!   `SettlePolicy::within` lowers the durations to the caller's `timeout_ms`. The waiter
//!   sleeps on a `tokio::sync::watch` of the newest event number, so it wakes on each
//!   event or at the next deadline; it does not poll.
//! - Why an `expect` window: effects start late. GTK4 runs an accessible click about
//!   250 ms after the call (gnome-calculator). The fixture's "Open dialog later" opens
//!   its dialog 500 ms after the click. A quiet window alone would end before either
//!   began.
//! - Why ignore focus, press and bounds, and count quiet from the last effect: GTK3
//!   re-lays out a whole window when it gains the focus, so a click in an inactive
//!   window brings a storm of `bounds-changed`; and gtk3-widget-factory's spinners move
//!   boxes ten times a second, forever. Counted, they would keep every wait running to
//!   the cap. The new bounds still reach the diff, since the second read gets them.
//! - The short waits inside an action (typing's read-back, scrolling into view) use the
//!   same rule with `expect` at 300 ms.
//! - An engine without a watch answers `NotWatched` at once. This is why the acting
//!   CLI commands use a watching session.
//!
//! **Why the pointer by default.** at-spi2-atk (2.46) answers `DoAction` on a GTK3 menu
//! item at once and then runs the item inside the same D-Bus handler; a handler that
//! runs a modal dialog (`gtk_dialog_run`) returns only when the dialog closes, and until
//! then the app answers no accessible call. A key press sent meanwhile can deadlock the
//! app for good (its key snooper calls the registry from inside that handler). Other
//! toolkits may hold the reply itself, so `operate::do_action` waits `ACTION_DEADLINE`
//! (400 ms), then reports `Performed::Unanswered` and drops the reply if it ever comes.
//! If the read after settling fails as not answering, the answer lists the app's windows
//! as the display shows them (`Engine::screen_windows`, from `_NET_WM_PID`) and tells
//! the agent to close the dialog with `close_window` and its title, which falls back to
//! `Engine::close_window_titled` (WM_DELETE_WINDOW through X11, no call to the app), or
//! with a click by coordinates; never with keys. The fixture test does exactly this and
//! sees the app answer again. A real click goes through
//! the X server and the app's main loop instead, and the app keeps answering while the
//! dialog runs: the fixture test opens a modal dialog from a menu by pointer, types into
//! it and confirms it. So the accessible way is kept for what the pointer cannot reach
//! (a covered window, no box on screen) and for `background: true`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axsight_core::{Expecting, SettleEnd, SettlePolicy, Settled};

use futures_util::StreamExt;
use zbus::message::Type as MessageType;
use zbus::{Connection, MatchRule, MessageStream};

use crate::dbus::{self, ObjRef};
use crate::{Error, Result};

/// Event kinds that change what a tree read returns. Caret moves and redraw
/// notices are left out: they change nothing we print and come often.
const EVENTS: &[&str] = &[
    "object:children-changed",
    "object:state-changed",
    "object:property-change",
    "object:bounds-changed",
    "object:text-changed",
    "object:selection-changed",
    "object:active-descendant-changed",
    "object:value-changed",
    "window:create",
    "window:destroy",
    "window:activate",
    "window:deactivate",
    "window:minimize",
    "window:restore",
];

/// Signal interfaces those events arrive on, plus the bus daemon's own
/// `NameOwnerChanged` for apps that leave without a word.
const INTERFACES: &[&str] = &[
    "org.a11y.atspi.Event.Object",
    "org.a11y.atspi.Event.Window",
    "org.freedesktop.DBus",
];

/// How much of the tree an event may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Only the object's bounds.
    Bounds,
    /// The object's own name, states, value or text.
    Node,
    /// The object's children, or anything below it.
    Subtree,
    /// The app's windows: the whole listing and every window of the app.
    Windows,
}

impl Change {
    /// What an event of `interface`/`member` changes.
    fn of(interface: &str, member: &str) -> Change {
        match (interface, member) {
            (_, "BoundsChanged") => Change::Bounds,
            // Selection and active-descendant changes announce states that live on
            // the children, which rarely send events of their own. A text change
            // may be one of children: Gecko holds them as embedded-object
            // characters of their parent's text, and closing a panel of its
            // window sends only the deletion of one (measured on Firefox 153).
            (
                _,
                "ChildrenChanged" | "SelectionChanged" | "ActiveDescendantChanged" | "TextChanged",
            ) => Change::Subtree,
            ("org.a11y.atspi.Event.Window", _) | ("org.freedesktop.DBus", _) => Change::Windows,
            _ => Change::Node,
        }
    }
}

/// One event as remembered: who sent it, about which object, what it changes.
#[derive(Debug, Clone)]
pub struct Event {
    pub sequence: u64,
    pub sender: String,
    pub path: String,
    pub change: Change,
    /// Whether the event is only feedback of input itself (focus moving, a button
    /// looking pressed, a window becoming active), not an effect of it.
    pub incidental: bool,
    /// Whether it says the focus moved (an object gained or lost it).
    pub focus: bool,
    pub at: Instant,
}

/// The most events remembered; a reader further behind than this re-reads.
const LOG_LENGTH: usize = 20_000;

/// Events seen: a bounded log with a running sequence number.
#[derive(Debug, Default)]
struct Log {
    next: u64,
    events: std::collections::VecDeque<Event>,
    last: Option<Instant>,
}

/// A running event watch; dropping it stops the watch.
pub struct EventWatch {
    log: Arc<Mutex<Log>>,
    /// The sequence number the next event will get, for waiters.
    newest: tokio::sync::watch::Receiver<u64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EventWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl EventWatch {
    /// Subscribes to tree-changing events and registers them with the registry.
    pub async fn start(conn: &Connection) -> Result<EventWatch> {
        let subscribe_error = |source: zbus::Error| Error::Call {
            method: "AddMatch",
            source: Box::new(source),
        };
        // Listen first, then register: no event can fall between the two.
        let mut streams = Vec::new();
        for interface in INTERFACES {
            let rule = MatchRule::builder()
                .msg_type(MessageType::Signal)
                .interface(*interface)
                .map_err(subscribe_error)?
                .build();
            streams.push(
                MessageStream::for_match_rule(rule, conn, Some(4096))
                    .await
                    .map_err(subscribe_error)?,
            );
        }
        for event in EVENTS {
            register_event(conn, event)
                .await
                .map_err(|source| Error::Call {
                    method: "RegisterEvent",
                    source: Box::new(source),
                })?;
        }
        let log = Arc::new(Mutex::new(Log::default()));
        let (tell, newest) = tokio::sync::watch::channel(0);
        let task = tokio::spawn(record_events(
            futures_util::stream::select_all(streams),
            log.clone(),
            tell,
        ));
        Ok(EventWatch { log, newest, task })
    }

    /// The sequence number the next event will get, after letting queued ones in:
    /// a bookmark for [`EventWatch::since`].
    pub async fn bookmark(&self) -> u64 {
        self.settle().await;
        self.log.lock().unwrap_or_else(|e| e.into_inner()).next
    }

    /// Lets the recorder take the events already delivered to its queue. A reply
    /// from an app comes after every signal that app sent before it, so after a
    /// call to the app its earlier events are queued; on a current-thread runtime
    /// yielding runs the recorder, which takes them before the log is read.
    pub async fn settle(&self) {
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
    }

    /// The events from `sender` (every sender when `None`) since `bookmark`, or
    /// `None` when some of them were already dropped from the log.
    pub fn since(&self, bookmark: u64, sender: Option<&str>) -> Option<Vec<Event>> {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = log.events.front().map_or(log.next, |e| e.sequence);
        if bookmark < oldest {
            return None;
        }
        Some(
            log.events
                .iter()
                .filter(|e| e.sequence >= bookmark && sender.is_none_or(|s| e.sender == s))
                .cloned()
                .collect(),
        )
    }

    /// When the last event arrived.
    pub fn last_event(&self) -> Option<Instant> {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).last
    }

    /// Waits until an event numbered `mark` or later arrives, or `timeout` passes;
    /// returns the next bookmark.
    pub async fn next_event(&self, mark: u64, timeout: Duration) -> u64 {
        let mut newest = self.newest.clone();
        let arrived = newest.wait_for(|&next| next > mark);
        let _ = tokio::time::timeout(timeout, arrived).await;
        self.bookmark().await
    }

    /// Waits for the UI to settle after `mark`, counting the events of `sender`
    /// (every sender when `None`): first for a change beyond input feedback (up
    /// to `policy.expect`), then until no further such change comes for
    /// `policy.quiet`; never longer than `policy.cap`.
    pub async fn settle_after(
        &self,
        mark: u64,
        sender: Option<&str>,
        policy: SettlePolicy,
    ) -> Settled {
        let start = Instant::now();
        let mut newest = self.newest.clone();
        loop {
            self.settle().await;
            // Seen now: the wait below is for events after these.
            newest.borrow_and_update();
            let now = Instant::now();
            let waited = now - start;
            let Some(events) = self.since(mark, sender) else {
                // So many events that the log dropped some: still changing.
                return Settled {
                    waited,
                    events: LOG_LENGTH,
                    end: SettleEnd::Cap,
                };
            };
            let settled = |end| Settled {
                waited,
                events: events.len(),
                end,
            };
            let wake_at = match settle_step(&events, start, now, &policy) {
                Step::Done(end) => return settled(end),
                Step::WakeAt(at) => at,
            };
            if let Ok(Err(_)) = tokio::time::timeout_at(wake_at.into(), newest.changed()).await {
                // The recorder stopped (its connection closed): no event will come.
                tokio::time::sleep_until(wake_at.into()).await;
            }
        }
    }
}

/// What waiting does next, on the events seen since the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Done(SettleEnd),
    WakeAt(Instant),
}

/// Decides, at `now`, whether the wait that began at `start` is over: quiet
/// counts from the last effect (some apps re-lay out or animate without end —
/// gtk3-widget-factory's spinners move boxes ten times a second — and the read
/// after settling gets the boxes anyway). Once what the policy expects has
/// come, the shorter quiet ends it; a focus move that was all the action was
/// expected to do ends it when no effect follows.
fn settle_step(events: &[Event], start: Instant, now: Instant, policy: &SettlePolicy) -> Step {
    let waited = now - start;
    let last_effect = events.iter().filter(|e| !e.incidental).map(|e| e.at).max();
    let last_focus = events.iter().filter(|e| e.focus).map(|e| e.at).max();
    let wake_at = match (last_effect, last_focus, policy.expecting) {
        (Some(last), _, expecting) => {
            let quiet = if expecting == Expecting::Effect {
                policy.quiet_after_expected
            } else {
                policy.quiet
            };
            if now >= last + quiet {
                return Step::Done(SettleEnd::Quiet);
            }
            last + quiet
        }
        (None, Some(focus), Expecting::Focus) => {
            if now >= focus + policy.quiet_after_expected {
                return Step::Done(SettleEnd::FocusMoved);
            }
            focus + policy.quiet_after_expected
        }
        (None, _, _) => {
            if waited >= policy.expect {
                return Step::Done(SettleEnd::NoChange);
            }
            start + policy.expect
        }
    };
    if waited >= policy.cap {
        return Step::Done(SettleEnd::Cap);
    }
    Step::WakeAt(wake_at.min(start + policy.cap))
}

/// Whether an event of `member` with `detail` is only feedback of input: focus and
/// press states, windows turning active, and bounds (GTK re-lays out whole windows
/// when one gains the focus; a real effect comes with more than moved boxes).
fn is_incidental(interface: &str, member: &str, detail: &str) -> bool {
    match (interface, member) {
        ("org.a11y.atspi.Event.Window", "Activate" | "Deactivate") => true,
        (_, "BoundsChanged") => true,
        (_, "StateChanged") => matches!(
            detail,
            "focused" | "armed" | "pressed" | "active" | "focusable"
        ),
        _ => false,
    }
}

/// The first string of an AT-SPI event's body: the event's detail (`focused` of
/// `state-changed:focused`). Empty when the body has another shape.
fn detail_of(message: &zbus::Message) -> String {
    type Current = (
        String,
        i32,
        i32,
        zbus::zvariant::OwnedValue,
        std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
    );
    let body = message.body();
    if let Ok(full) = body.deserialize::<Current>() {
        return full.0;
    }
    // Older bridges send (siiv(so)).
    body.deserialize::<(
        String,
        i32,
        i32,
        zbus::zvariant::OwnedValue,
        (String, zbus::zvariant::OwnedObjectPath),
    )>()
    .map(|old| old.0)
    .unwrap_or_default()
}

/// Asks the registry to have apps send `event` to this connection's listeners; the
/// registration lasts as long as the connection.
pub async fn register_event(conn: &Connection, event: &str) -> zbus::Result<()> {
    let registry = ObjRef::new(dbus::REGISTRY, "/org/a11y/atspi/registry");
    // at-spi2-core 2.46 takes (event, properties, app); older ones take (event).
    let current = dbus::call::<_, ()>(
        conn,
        &registry,
        dbus::REGISTRY,
        "RegisterEvent",
        (event, Vec::<String>::new(), ""),
    )
    .await;
    match current {
        Ok(()) => Ok(()),
        Err(_) => {
            dbus::call::<_, ()>(conn, &registry, dbus::REGISTRY, "RegisterEvent", (event,)).await
        }
    }
}

async fn record_events(
    mut events: impl futures_util::Stream<Item = zbus::Result<zbus::Message>> + Unpin,
    log: Arc<Mutex<Log>>,
    tell: tokio::sync::watch::Sender<u64>,
) {
    while let Some(message) = events.next().await {
        let Ok(message) = message else { continue };
        let header = message.header();
        let (Some(interface), Some(member)) = (header.interface(), header.member()) else {
            continue;
        };
        let change = Change::of(interface.as_str(), member.as_str());
        let detail = match member.as_str() {
            "StateChanged" => detail_of(&message),
            _ => String::new(),
        };
        let event = Event {
            sequence: 0,
            sender: header.sender().map(|s| s.to_string()).unwrap_or_default(),
            path: header.path().map(|p| p.to_string()).unwrap_or_default(),
            change,
            incidental: is_incidental(interface.as_str(), member.as_str(), &detail),
            focus: member.as_str() == "StateChanged" && detail == "focused",
            at: Instant::now(),
        };
        tracing::trace!(?event, %member, %detail, "event");
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        let sequence = log.next;
        log.next += 1;
        log.events.push_back(Event { sequence, ..event });
        if log.events.len() > LOG_LENGTH {
            log.events.pop_front();
        }
        log.last = Some(Instant::now());
        let next = log.next;
        drop(log);
        tell.send_replace(next);
    }
}

#[cfg(test)]
mod tests {
    use super::{is_incidental, settle_step, Change, Event, Step};
    use axsight_core::{Expecting, SettleEnd, SettlePolicy};
    use std::time::{Duration, Instant};

    /// An event `ms` after `start`: an effect, or focus feedback.
    fn event(start: Instant, ms: u64, effect: bool) -> Event {
        Event {
            sequence: 0,
            sender: ":1.1".into(),
            path: "/a".into(),
            change: Change::Node,
            incidental: !effect,
            focus: !effect,
            at: start + Duration::from_millis(ms),
        }
    }

    fn step(events: &[Event], start: Instant, at_ms: u64, expecting: Expecting) -> Step {
        let policy = SettlePolicy::default().expecting(expecting);
        settle_step(events, start, start + Duration::from_millis(at_ms), &policy)
    }

    #[test]
    fn an_expected_effect_ends_the_wait_after_the_short_quiet() {
        let start = Instant::now();
        let effect = [event(start, 10, true)];
        // 60 ms after the effect when it was expected; 150 ms when not.
        assert_eq!(
            step(&effect, start, 71, Expecting::Effect),
            Step::Done(SettleEnd::Quiet)
        );
        assert_eq!(
            step(&effect, start, 71, Expecting::Unknown),
            Step::WakeAt(start + Duration::from_millis(160))
        );
        assert_eq!(
            step(&effect, start, 40, Expecting::Effect),
            Step::WakeAt(start + Duration::from_millis(70))
        );
        // Nothing yet: the expect window, whatever is expected.
        assert_eq!(
            step(&[], start, 500, Expecting::Effect),
            Step::WakeAt(start + Duration::from_millis(1000))
        );
        assert_eq!(
            step(&[], start, 1000, Expecting::Effect),
            Step::Done(SettleEnd::NoChange)
        );
    }

    #[test]
    fn a_focus_move_ends_a_focus_only_wait_unless_an_effect_follows() {
        let start = Instant::now();
        let focus = [event(start, 5, false)];
        assert_eq!(
            step(&focus, start, 70, Expecting::Focus),
            Step::Done(SettleEnd::FocusMoved)
        );
        // Not expected to be all: feedback alone waits out the expect window.
        assert_eq!(
            step(&focus, start, 70, Expecting::Unknown),
            Step::WakeAt(start + Duration::from_millis(1000))
        );
        assert_eq!(
            step(&focus, start, 70, Expecting::Effect),
            Step::WakeAt(start + Duration::from_millis(1000))
        );
        // An effect after the focus: the general quiet after it.
        let both = [event(start, 5, false), event(start, 40, true)];
        assert_eq!(
            step(&both, start, 120, Expecting::Focus),
            Step::WakeAt(start + Duration::from_millis(190))
        );
    }

    #[test]
    fn the_cap_ends_a_wait_that_keeps_changing() {
        let start = Instant::now();
        let busy: Vec<Event> = (0..=150).map(|i| event(start, i * 20, true)).collect();
        assert_eq!(
            step(&busy, start, 3000, Expecting::Effect),
            Step::Done(SettleEnd::Cap)
        );
    }

    #[test]
    fn input_feedback_is_incidental() {
        let object = "org.a11y.atspi.Event.Object";
        assert!(is_incidental(object, "StateChanged", "focused"));
        assert!(is_incidental(object, "StateChanged", "armed"));
        assert!(!is_incidental(object, "StateChanged", "checked"));
        assert!(!is_incidental(object, "StateChanged", "showing"));
        assert!(!is_incidental(object, "PropertyChange", "accessible-name"));
        assert!(!is_incidental(object, "ChildrenChanged", "add"));
        assert!(is_incidental("org.a11y.atspi.Event.Window", "Activate", ""));
        assert!(is_incidental(object, "BoundsChanged", ""));
        assert!(!is_incidental("org.a11y.atspi.Event.Window", "Create", ""));
    }

    #[test]
    fn events_map_to_changes() {
        assert_eq!(
            Change::of("org.a11y.atspi.Event.Object", "SelectionChanged"),
            Change::Subtree
        );
        assert_eq!(
            Change::of("org.a11y.atspi.Event.Object", "BoundsChanged"),
            Change::Bounds
        );
        assert_eq!(
            Change::of("org.a11y.atspi.Event.Object", "ChildrenChanged"),
            Change::Subtree
        );
        assert_eq!(
            Change::of("org.a11y.atspi.Event.Object", "StateChanged"),
            Change::Node
        );
        assert_eq!(
            Change::of("org.a11y.atspi.Event.Window", "Create"),
            Change::Windows
        );
        assert_eq!(
            Change::of("org.freedesktop.DBus", "NameOwnerChanged"),
            Change::Windows
        );
        assert!(Change::Subtree > Change::Node && Change::Node > Change::Bounds);
    }
}
