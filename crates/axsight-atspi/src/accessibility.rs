//! [`Accessibility`]: the accessibility half of the Linux engine. One
//! connection to the AT-SPI bus, and what it does with it: list the apps, read
//! their windows (walked afresh, or kept and patched from the events since —
//! see `reading`), act through the elements' interfaces, and wait for the UI
//! to settle after an action.
//!
//! It knows no screen. Where windows sit is asked of the [`WindowPlaces`]
//! each call that needs it is given, and the windows only the screen shows
//! are the engine's to add.

mod reading;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axsight_core::{
    ChangeWitness, ElementId, EventMark, Operation, Performed, SettleEnd, SettlePolicy, Settled,
};
use futures_util::future::join_all;
use zbus::Connection;

use crate::apps::{AppEntry, Listing, WindowPlaces};
use crate::dbus::{self, ObjRef};
use crate::events::{Change, Event, EventWatch};
use crate::quirks::Quirks;
use crate::sync::lock;
use crate::{operate, Error, Result};

pub use reading::{EarlyExtents, READ_DEADLINE};

/// How long an app may take to answer a ping before it counts as stuck.
pub const PING_DEADLINE: Duration = Duration::from_millis(300);

/// How long the apps and the registry get to answer an accessibility call
/// when waiting for their main loops, or a liveness check.
const ALIVE_DEADLINE: Duration = Duration::from_secs(2);

/// The accessibility bus as the Linux engine uses it, and what it keeps from
/// one call to the next: the last app listing, the kept window reads, the apps
/// that stopped answering.
pub struct Accessibility {
    conn: Connection,
    /// With a watch, unchanged windows and app lists are served from memory,
    /// and actions wait for the UI to settle.
    watch: Option<EventWatch>,
    /// Where each window's content starts inside its frame (see
    /// [`Accessibility::frame_inset`]).
    insets: Mutex<HashMap<reading::FrameKey, (i32, i32)>>,
    windows: Mutex<HashMap<reading::WindowKey, Arc<reading::KeptWindow>>>,
    /// The last app listing and the event bookmark taken before it.
    listing: Mutex<Option<(u64, Vec<AppEntry>)>>,
    /// Apps (by bus name) that did not answer a listing, and since when.
    stuck: Mutex<HashMap<String, Instant>>,
    /// What vouches for the windows of apps (by pid) that miss events.
    witnesses: Mutex<HashMap<u32, Arc<dyn ChangeWitness>>>,
    /// The process of each connection to the accessibility bus seen so far,
    /// by its unique name (names are never reused).
    bus_pids: Mutex<HashMap<String, Option<u32>>>,
}

impl Accessibility {
    /// The accessibility side of an engine on `conn`, watching nothing yet.
    pub fn new(conn: Connection) -> Accessibility {
        Accessibility {
            conn,
            watch: None,
            insets: Mutex::default(),
            windows: Mutex::default(),
            listing: Mutex::default(),
            stuck: Mutex::default(),
            witnesses: Mutex::default(),
            bus_pids: Mutex::default(),
        }
    }

    /// Starts watching the bus's events, so that a window nothing changed in
    /// is answered from memory and actions can wait for the UI to settle.
    ///
    /// The watch relies on the event recorder running whenever a read yields,
    /// which a current-thread tokio runtime guarantees; on another runtime
    /// this fails with [`Error::Runtime`].
    pub async fn watch_events(&mut self) -> Result<()> {
        let flavor = tokio::runtime::Handle::current().runtime_flavor();
        if flavor != tokio::runtime::RuntimeFlavor::CurrentThread {
            return Err(Error::Runtime);
        }
        self.watch = Some(EventWatch::start(&self.conn).await?);
        Ok(())
    }

    /// The connection to the accessibility bus.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// When the last tree-changing event arrived, if events are watched.
    pub fn last_event(&self) -> Option<Instant> {
        self.watch.as_ref().and_then(EventWatch::last_event)
    }

    /// Listing apps on this bus, with `places` for where windows sit.
    fn listing<'a, P: WindowPlaces>(&'a self, places: &'a P) -> Listing<'a, P> {
        Listing {
            conn: &self.conn,
            stuck: &self.stuck,
            places,
        }
    }

    /// The app listing: fresh, or the last one when no event since touched an
    /// app or window root and no app came or went.
    pub async fn app_entries<P: WindowPlaces>(&self, places: &P) -> Result<Vec<AppEntry>> {
        let Some(watch) = &self.watch else {
            return self.listing(places).list_apps(&[]).await;
        };
        let bookmark = watch.bookmark().await;
        let last = lock(&self.listing).clone();
        if let Some((seen, entries)) = &last {
            // A call to each app orders its earlier events before the check; one
            // to the registry tells that the bus itself still answers (a bus that
            // died sends no event, and with no app listed nothing else is asked).
            let pings = entries.iter().map(|e| dbus::ping(&self.conn, &e.root));
            let registry = ObjRef::new(dbus::REGISTRY, dbus::ROOT_PATH);
            let bus_alive = dbus::answers_ping(&self.conn, &registry, dbus::CALL_TIMEOUT);
            let (_, bus_alive) = futures_util::join!(join_all(pings), bus_alive);
            watch.settle().await;
            if bus_alive && listing_unchanged(entries, watch.since(*seen, None)) {
                *lock(&self.listing) = Some((bookmark, entries.clone()));
                return Ok(entries.clone());
            }
        }
        let previous = last.map(|(_, entries)| entries).unwrap_or_default();
        let entries = self.listing(places).list_apps(&previous).await?;
        *lock(&self.listing) = Some((bookmark, entries.clone()));
        // Forget the reads of windows that are gone.
        lock(&self.windows).retain(|(id, _), _| {
            entries
                .iter()
                .any(|e| e.info.windows.iter().any(|w| &w.id == id))
        });
        Ok(entries)
    }

    /// What `find` finds in the last app listing, without a call to any app;
    /// `None` when nothing was listed yet or it finds nothing.
    pub fn in_last_listing<T>(&self, find: impl FnOnce(&[AppEntry]) -> Option<T>) -> Option<T> {
        lock(&self.listing)
            .as_ref()
            .and_then(|(_, entries)| find(entries))
    }

    /// The last app listing, without a call to any app; a fresh one when there
    /// is none yet.
    pub async fn listed_entries<P: WindowPlaces>(&self, places: &P) -> Result<Vec<AppEntry>> {
        match self.in_last_listing(|entries| Some(entries.to_vec())) {
            Some(entries) => Ok(entries),
            None => self.app_entries(places).await,
        }
    }

    /// Whether the app at `root` answers a ping within [`PING_DEADLINE`]:
    /// cheaper than any accessibility call, and answered by a busy app's main
    /// loop alone.
    pub async fn answers_ping(&self, root: &ObjRef) -> bool {
        dbus::answers_ping(&self.conn, root, PING_DEADLINE).await
    }

    /// The processes connected to the accessibility bus: every app with a
    /// bridge connects when it starts, before it is listed, and stays
    /// connected while it hangs. One call to the bus, and one more per new
    /// connection.
    pub async fn connected_pids(&self) -> HashSet<u32> {
        let daemon = ObjRef::new("org.freedesktop.DBus", "/org/freedesktop/DBus");
        let names: Vec<String> =
            match dbus::call(&self.conn, &daemon, "org.freedesktop.DBus", "ListNames", ()).await {
                Ok(names) => names,
                Err(error) => {
                    tracing::debug!(%error, "the accessibility bus did not list its connections");
                    return HashSet::new();
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

    /// Does `operation` to the element `id` through its accessible interfaces.
    /// Text edits are refused for a toolkit that answers them and changes
    /// nothing (Gecko), so the caller types with keys instead.
    pub async fn perform<P: WindowPlaces>(
        &self,
        places: &P,
        id: &ElementId,
        operation: &Operation,
    ) -> Result<Performed> {
        let quirks = self.quirks_of(places, id).await;
        let edits_text = matches!(
            operation,
            Operation::SetText(_) | Operation::InsertText(_) | Operation::TypeOver(_)
        );
        if edits_text && quirks.ignores_editable_text {
            return Err(Error::Refused {
                what: "take text through EditableText (its toolkit answers it and changes \
                       nothing)"
                    .into(),
            });
        }
        operate::perform(&self.conn, id, operation, quirks).await
    }

    /// Element `id`'s text with its caret, selection and formatting (see
    /// [`crate::text_reading`]).
    pub async fn text_detail(
        &self,
        id: &ElementId,
        runs: bool,
    ) -> Result<Option<axsight_core::TextDetail>> {
        crate::text_reading::text_detail(&self.conn, id, runs).await
    }

    /// The quirks of the app that owns element `id`, from the app listing; the
    /// careful defaults when no listed app owns it.
    pub async fn quirks_of<P: WindowPlaces>(&self, places: &P, id: &ElementId) -> Quirks {
        let Ok(obj) = ObjRef::from_element_id(id) else {
            return Quirks::default();
        };
        let owned_by = |entries: &[AppEntry]| {
            entries
                .iter()
                .find(|e| e.root.bus == obj.bus)
                .map(|e| e.quirks)
        };
        match self.in_last_listing(owned_by) {
            Some(quirks) => quirks,
            None => self
                .app_entries(places)
                .await
                .ok()
                .and_then(|entries| owned_by(&entries))
                .unwrap_or_default(),
        }
    }

    /// Waits (within 2 s) for each listed app to answer an
    /// accessibility call, which its main loop answers: its loop has then run
    /// since the call was sent. A ping would not do: GDBus answers pings on a
    /// thread of its own.
    pub async fn await_main_loops<P: WindowPlaces>(&self, places: &P) {
        let entries = self.listed_entries(places).await.unwrap_or_default();
        let calls = entries.iter().map(|entry| {
            let role =
                dbus::call::<_, u32>(&self.conn, &entry.root, dbus::ACCESSIBLE, "GetRole", ());
            tokio::time::timeout(ALIVE_DEADLINE, role)
        });
        join_all(calls).await;
    }

    /// Whether the registry answers a ping: a bus gone is [`Error::BusLost`],
    /// one that does not answer [`Error::NotAnswering`].
    pub async fn check_alive(&self) -> Result<()> {
        let registry = ObjRef::new(dbus::REGISTRY, dbus::ROOT_PATH);
        match dbus::ping_within(&self.conn, &registry, ALIVE_DEADLINE).await {
            Ok(()) => Ok(()),
            Err(Some(source)) => Err(Error::BusLost {
                source: Box::new(source),
            }),
            Err(None) => Err(Error::NotAnswering),
        }
    }

    /// The current place in the event stream.
    pub async fn mark(&self) -> EventMark {
        match &self.watch {
            Some(watch) => EventMark(watch.bookmark().await),
            None => EventMark(0),
        }
    }

    /// Waits for the app owning `window` (any app when `None`) to settle
    /// after `mark`.
    pub async fn settle<P: WindowPlaces>(
        &self,
        places: &P,
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
        // What the action predicts shortens the wait only where the toolkit
        // is known to finish in one burst.
        let prompt = match window {
            Some(window) => self.quirks_of(places, window).await.settles_in_one_burst,
            None => false,
        };
        let policy = match prompt {
            true => policy,
            false => policy.expecting(axsight_core::Expecting::Unknown),
        };
        watch.settle_after(mark.0, sender.as_deref(), policy).await
    }

    /// Waits for an event after `mark`, or `timeout`; without a watch, waits
    /// out the timeout (the caller then polls).
    pub async fn next_event(&self, mark: EventMark, timeout: Duration) -> EventMark {
        match &self.watch {
            Some(watch) => EventMark(watch.next_event(mark.0, timeout).await),
            None => {
                tokio::time::sleep(timeout).await;
                mark
            }
        }
    }

    /// See [`axsight_core::Engine::add_witness`]: the windows of `pid` are then
    /// refreshed from events while the witness's mark holds, though their
    /// toolkit misses some.
    pub fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        lock(&self.witnesses).insert(pid, witness);
    }

    /// Lets go of the witness of `pid`'s windows (they are read whole again);
    /// the witness, if there was one.
    pub fn take_witness(&self, pid: u32) -> Option<Arc<dyn ChangeWitness>> {
        lock(&self.witnesses).remove(&pid)
    }
}

/// Whether the app listing can be reused after `events` (`None`: some were
/// lost): no window came or went, no event came from an app not listed (one
/// registering), and none touched an app or window root (names, states,
/// bounds).
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
