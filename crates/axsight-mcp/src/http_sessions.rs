//! How many HTTP sessions a server holds, for how long, and what one costs
//! before it is used.
//!
//! - At most [`SessionLimits::max`] sessions at once; each is ended once idle
//!   longer than [`SessionLimits::idle`], and one that never did anything after
//!   its `initialize` is ended first — after [`SessionLimits::bare`], or at once
//!   when a new client needs its place. Ending a session drops its server, and
//!   with it its handles and the browsers it started.
//! - A session that has done nothing since its `initialize` is *parked*: rmcp's
//!   session worker and the session's server are let go (about 54 KB of
//!   channels), and only the client's `initialize` parameters are kept, as a few
//!   hundred bytes of JSON. Its first real request wakes it: this guard is
//!   rmcp's [`SessionStore`], so rmcp's own session restore starts a worker and a
//!   server again and replays the handshake with those parameters. The client's
//!   `notifications/initialized` is answered without waking it
//!   ([`is_initialized_notification`]).
//!
//! rmcp keeps the live sessions; this module watches the requests that name them
//! (the `Mcp-Session-Id` header) and ends them through rmcp's session manager.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, InitializedNotification};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    SessionId, SessionManager as _, SessionState, SessionStore, SessionStoreError,
};

/// The limits on a server's HTTP sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions held at once.
    pub max: usize,
    /// A session that sends nothing for this long is ended.
    pub idle: Duration,
    /// A session that sent nothing after its `initialize` (and the
    /// notification that follows it) is ended this soon.
    pub bare: Duration,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            max: 16,
            idle: Duration::from_secs(30 * 60),
            bare: Duration::from_secs(60),
        }
    }
}

/// Where a session's server is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// rmcp runs it.
    Live,
    /// Let go until its first real request.
    Parked,
    /// Its first real request is being handed to a server started for it.
    Waking,
}

/// A session this server holds, as its requests show.
#[derive(Debug)]
struct Held {
    began: Instant,
    last: Instant,
    /// Requests after the `initialize` that began it.
    requests: u32,
    /// The client's `initialize` parameters, as JSON: what wakes it when parked.
    initialize: Option<Box<str>>,
    stage: Stage,
}

impl Held {
    fn new() -> Held {
        let now = Instant::now();
        Held {
            began: now,
            last: now,
            requests: 0,
            initialize: None,
            stage: Stage::Live,
        }
    }

    /// Nothing after `initialize` but the notification that it was taken.
    fn is_bare(&self) -> bool {
        self.requests <= 1
    }
}

/// Why a session is ended, for the client that names it afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Idle,
    Bare,
    Evicted,
}

/// The sessions of one server, watched.
pub(crate) struct SessionGuard {
    limits: SessionLimits,
    /// rmcp's live sessions.
    live: Arc<LocalSessionManager>,
    held: Mutex<HashMap<String, Held>>,
    /// Sessions ended here, kept a while to say why to a client that comes back.
    ended: Mutex<HashMap<String, (Ended, Instant)>>,
    /// One new session at a time: the count and the creation agree.
    creating: tokio::sync::Mutex<()>,
}

/// How long an ended session's reason is kept.
const REMEMBER_ENDED: Duration = Duration::from_secs(600);

impl SessionGuard {
    pub(crate) fn new(limits: SessionLimits, live: Arc<LocalSessionManager>) -> SessionGuard {
        SessionGuard {
            limits,
            live,
            held: Mutex::default(),
            ended: Mutex::default(),
            creating: tokio::sync::Mutex::new(()),
        }
    }

    fn held(&self) -> MutexGuard<'_, HashMap<String, Held>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn ended(&self) -> MutexGuard<'_, HashMap<String, (Ended, Instant)>> {
        self.ended.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Room for one more session: a bare one is ended to make it, else the
    /// refusal to answer with.
    pub(crate) async fn make_room(&self) -> Result<tokio::sync::MutexGuard<'_, ()>, String> {
        let creating = self.creating.lock().await;
        let oldest_bare = {
            let held = self.held();
            if held.len() < self.limits.max {
                return Ok(creating);
            }
            held.iter()
                .filter(|(_, session)| session.is_bare())
                .min_by_key(|(_, session)| session.began)
                .map(|(id, _)| id.clone())
        };
        match oldest_bare {
            Some(id) => {
                self.end(&id, Ended::Evicted).await;
                Ok(creating)
            }
            None => Err(format!(
                "this server holds its most sessions ({}) and each is in use; end one (DELETE \
                 /mcp with its Mcp-Session-Id) or wait until one has been idle {} (serve \
                 --max-sessions, --idle-timeout)",
                self.limits.max,
                words(self.limits.idle)
            )),
        }
    }

    /// Session `id` began: it is parked until its first real request.
    pub(crate) async fn began(&self, id: &str) {
        {
            let mut held = self.held();
            let session = held.entry(id.to_string()).or_insert_with(Held::new);
            if session.initialize.is_none() {
                // Nothing to wake it with: it stays live.
                return;
            }
            session.stage = Stage::Parked;
        }
        let id = SessionId::from(id);
        // The notification its client is about to send, so that the server
        // finishes its handshake and ends quietly when its worker is closed
        // (the worker hands messages on in order, the close last).
        let initialized = ClientJsonRpcMessage::notification(
            ClientNotification::InitializedNotification(InitializedNotification::default()),
        );
        if let Err(error) = self.live.accept_message(&id, initialized).await {
            tracing::debug!(%error, session = %id, "parking: no notification");
        }
        if let Err(error) = self.live.close_session(&id).await {
            tracing::debug!(%error, session = %id, "parking: not closed");
        }
    }

    /// A request named session `id`: where its server is, else why the
    /// session is not held (for a 404 the client can act on).
    pub(crate) fn touched(&self, id: &str) -> Result<Stage, String> {
        if let Some(session) = self.held().get_mut(id) {
            session.last = Instant::now();
            session.requests = session.requests.saturating_add(1);
            return Ok(session.stage);
        }
        let why = match self.ended().get(id).map(|(why, _)| *why) {
            Some(Ended::Idle) => format!(
                "it was idle longer than {} (serve --idle-timeout)",
                words(self.limits.idle)
            ),
            Some(Ended::Bare) => format!(
                "it did nothing for {} after its initialize",
                words(self.limits.bare)
            ),
            Some(Ended::Evicted) => {
                "it had done nothing since its initialize when a new client needed its place \
                 (serve --max-sessions)"
                    .to_string()
            }
            None => "the server does not know it (it may have restarted)".to_string(),
        };
        Err(format!(
            "this MCP session has ended: {why}; initialize a new one\n"
        ))
    }

    /// A request that woke session `id` has been answered: rmcp runs it.
    pub(crate) fn woke(&self, id: &str) {
        if let Some(session) = self.held().get_mut(id) {
            session.stage = Stage::Live;
        }
    }

    /// The session was ended by its client (or by rmcp).
    pub(crate) fn forget(&self, id: &str) {
        self.held().remove(id);
    }

    /// Ends the sessions idle too long, and the bare ones past their grace.
    pub(crate) async fn reap(&self) {
        let now = Instant::now();
        let due: Vec<(String, Ended)> = self
            .held()
            .iter()
            .filter_map(|(id, session)| {
                let why =
                    if session.is_bare() && now.duration_since(session.began) >= self.limits.bare {
                        Ended::Bare
                    } else if now.duration_since(session.last) >= self.limits.idle {
                        Ended::Idle
                    } else {
                        return None;
                    };
                Some((id.clone(), why))
            })
            .collect();
        for (id, why) in due {
            self.end(&id, why).await;
        }
        // Sessions rmcp ended itself (its keep-alive, a dropped stream); a
        // parked or waking one is not in rmcp's hands.
        let live: Vec<String> = self
            .live
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect();
        self.held()
            .retain(|id, session| session.stage != Stage::Live || live.contains(id));
        self.ended()
            .retain(|_, (_, at)| now.duration_since(*at) < REMEMBER_ENDED);
    }

    /// How often [`Self::reap`] should run.
    pub(crate) fn reap_every(&self) -> Duration {
        (self.limits.bare.min(self.limits.idle) / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(10))
    }

    async fn end(&self, id: &str, why: Ended) {
        tracing::debug!(session = id, ?why, "HTTP session ended");
        self.forget(id);
        self.ended().insert(id.to_string(), (why, Instant::now()));
        if let Err(error) = self.live.close_session(&SessionId::from(id)).await {
            tracing::debug!(%error, session = id, "session not closed");
        }
    }
}

/// What rmcp keeps of a session to restore it: here, what wakes a parked one.
#[async_trait::async_trait]
impl SessionStore for SessionGuard {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let initialize = match self.held().get_mut(id) {
            Some(session) if session.stage == Stage::Parked => {
                session.stage = Stage::Waking;
                session.initialize.clone()
            }
            _ => None,
        };
        match initialize {
            Some(json) => Ok(Some(SessionState::new(serde_json::from_str(&json)?))),
            None => Ok(None),
        }
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let json = serde_json::to_string(&state.initialize_params)?;
        self.held()
            .entry(id.to_string())
            .or_insert_with(Held::new)
            .initialize = Some(json.into());
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.forget(id);
        Ok(())
    }
}

/// Whether a request's body is the `notifications/initialized` a client sends
/// after its `initialize`: a parked session answers it without waking.
pub(crate) fn is_initialized_notification(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
        id: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Message>(body).is_ok_and(|message| {
        message.id.is_none() && message.method.as_deref() == Some("notifications/initialized")
    })
}

/// A duration as a person says it: `90 s`, `30 min`.
fn words(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0 => format!("{} ms", duration.as_millis()),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 && s >= 120 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// Reads a duration as `serve` takes it: seconds (`90`), or with a unit
/// (`500ms`, `90s`, `30m`, `2h`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: write 90, 90s, 30m or 500ms"))?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" | "min" => number * 60.0,
        "h" => number * 3600.0,
        _ => {
            return Err(format!(
                "`{text}` is not a duration: write 90, 90s, 30m or 500ms"
            ))
        }
    };
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(format!("`{text}` is not a duration above zero"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_or_without_a_unit_and_are_said_plainly() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert!(parse_duration("0").is_err() && parse_duration("soon").is_err());
        assert!(parse_duration("5d").is_err());
        assert_eq!(words(Duration::from_secs(1800)), "30 min");
        assert_eq!(words(Duration::from_secs(90)), "90 s");
        assert_eq!(words(Duration::from_millis(500)), "500 ms");
    }

    #[test]
    fn a_session_is_bare_until_it_asks_for_more_than_its_notification() {
        let mut session = Held::new();
        assert!(session.is_bare());
        session.requests = 1; // notifications/initialized
        assert!(session.is_bare());
        session.requests = 2; // tools/list
        assert!(!session.is_bare());
    }

    /// The client's `initialize` parameters as rmcp hands them to the store.
    fn initialize_params() -> SessionState {
        SessionState::new(
            serde_json::from_value(serde_json::json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "raw", "version": "1"},
            }))
            .unwrap(),
        )
    }

    #[tokio::test]
    async fn a_parked_session_wakes_once_with_its_clients_initialize() {
        let guard = SessionGuard::new(SessionLimits::default(), Arc::default());
        guard.store("s1", &initialize_params()).await.unwrap();
        guard.began("s1").await;
        // Nothing to wake a session with that rmcp never stored: it stays live.
        guard.began("s2").await;
        assert_eq!(guard.touched("s1"), Ok(Stage::Parked));
        assert_eq!(guard.touched("s2"), Ok(Stage::Live));
        let woken = guard
            .load("s1")
            .await
            .unwrap()
            .expect("a parked session wakes");
        assert_eq!(woken.initialize_params.client_info.name, "raw");
        assert!(woken.initialize_params.capabilities.elicitation.is_some());
        // Waking is done once; a live session is rmcp's, not the store's.
        assert!(guard.load("s1").await.unwrap().is_none());
        assert!(guard.load("s2").await.unwrap().is_none());
        assert_eq!(guard.touched("s1"), Ok(Stage::Waking));
        // A reap while it wakes keeps it; once woken, rmcp must hold it.
        guard.reap().await;
        assert_eq!(guard.touched("s1"), Ok(Stage::Waking));
        guard.woke("s1");
        guard.reap().await;
        assert!(guard
            .touched("s1")
            .unwrap_err()
            .contains("does not know it"));
        // A client's DELETE reaches the store.
        guard.store("s3", &initialize_params()).await.unwrap();
        guard.began("s3").await;
        guard.delete("s3").await.unwrap();
        assert!(guard.load("s3").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn parked_sessions_count_and_give_their_places() {
        let limits = SessionLimits {
            max: 2,
            ..SessionLimits::default()
        };
        let guard = SessionGuard::new(limits, Arc::default());
        for id in ["old", "new"] {
            guard.store(id, &initialize_params()).await.unwrap();
            guard.began(id).await;
        }
        drop(
            guard
                .make_room()
                .await
                .expect("a bare session gives its place"),
        );
        assert!(guard
            .touched("old")
            .unwrap_err()
            .contains("a new client needed its place"));
        assert_eq!(guard.touched("new"), Ok(Stage::Parked));
    }

    #[test]
    fn only_the_initialized_notification_is_answered_for_a_parked_session() {
        assert!(is_initialized_notification(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        ));
        assert!(is_initialized_notification(
            br#"{"method":"notifications\/initialized","jsonrpc":"2.0","params":{}}"#
        ));
        // A request of that name, another notification, a batch, not JSON.
        assert!(!is_initialized_notification(
            br#"{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}"#
        ));
        assert!(!is_initialized_notification(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#
        ));
        assert!(!is_initialized_notification(
            br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#
        ));
        assert!(!is_initialized_notification(b"notifications/initialized"));
    }
}
