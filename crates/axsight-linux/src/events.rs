//! Watching AT-SPI events, so that a window read twice with nothing changed in
//! between is served from memory, and (later) so that actions can wait for the UI to
//! settle.
//!
//! GTK3 sends events only for kinds some client registered with the registry
//! (`Registry.RegisterEvent`); a match rule alone receives nothing. So the watch
//! registers the kinds that change a tree, then counts every event per sender: a
//! count that has not moved since a read means that app changed nothing since.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

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

/// Event counts, overall and per sender.
#[derive(Debug, Default)]
struct Counts {
    all: u64,
    by_sender: HashMap<String, u64>,
    last: Option<Instant>,
}

/// A running event watch; dropping it stops the watch.
pub struct EventWatch {
    counts: Arc<Mutex<Counts>>,
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
        let registry = ObjRef::new(dbus::REGISTRY, "/org/a11y/atspi/registry");
        for event in EVENTS {
            // at-spi2-core 2.46 takes (event, properties, app); older ones (event).
            let three = dbus::call::<_, ()>(
                conn,
                &registry,
                dbus::REGISTRY,
                "RegisterEvent",
                (*event, Vec::<String>::new(), ""),
            )
            .await;
            if three.is_err() {
                dbus::call::<_, ()>(conn, &registry, dbus::REGISTRY, "RegisterEvent", (*event,))
                    .await
                    .map_err(|source| Error::Call {
                        method: "RegisterEvent",
                        source: Box::new(source),
                    })?;
            }
        }
        let counts = Arc::new(Mutex::new(Counts::default()));
        let task = tokio::spawn(count_events(
            futures_util::stream::select_all(streams),
            counts.clone(),
        ));
        Ok(EventWatch { counts, task })
    }

    /// Events seen so far from `sender` (a bus name), after letting queued ones in.
    pub async fn count_from(&self, sender: &str) -> u64 {
        settle_queue().await;
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.by_sender.get(sender).copied().unwrap_or(0)
    }

    /// Events seen so far from anyone, after letting queued ones in.
    pub async fn count_all(&self) -> u64 {
        settle_queue().await;
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).all
    }

    /// When the last event arrived.
    pub fn last_event(&self) -> Option<Instant> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).last
    }
}

/// Lets the counting task take the events already delivered to its queue. A reply
/// from an app comes after every signal that app sent before it, so after a call
/// to the app its earlier events are in the queue; yielding lets the counter (on
/// the same runtime) take them before a count is read.
async fn settle_queue() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}

async fn count_events(
    mut events: impl futures_util::Stream<Item = zbus::Result<zbus::Message>> + Unpin,
    counts: Arc<Mutex<Counts>>,
) {
    while let Some(message) = events.next().await {
        let Ok(message) = message else { continue };
        let header = message.header();
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.all += 1;
        *counts.by_sender.entry(sender).or_default() += 1;
        counts.last = Some(Instant::now());
    }
}
