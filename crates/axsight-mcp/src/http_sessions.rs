//! How many HTTP sessions a server holds, and for how long: at most
//! [`SessionLimits::max`] at once, each ended once idle longer than
//! [`SessionLimits::idle`], and a session that never did anything after its
//! `initialize` ended first — after [`SessionLimits::bare`], or at once when a
//! new client needs its place. Ending a session drops its server, and with it
//! its handles and the browsers it started.
//!
//! rmcp keeps the sessions; this module watches the requests that name them
//! (the `Mcp-Session-Id` header) and ends them through rmcp's session manager.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager as _};

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

/// What a session has done, as its requests show.
#[derive(Debug, Clone, Copy)]
struct Activity {
    began: Instant,
    last: Instant,
    /// Requests after the `initialize` that began it.
    requests: u32,
}

impl Activity {
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
    sessions: Arc<LocalSessionManager>,
    activity: Mutex<HashMap<String, Activity>>,
    /// Sessions ended here, kept a while to say why to a client that comes back.
    ended: Mutex<HashMap<String, (Ended, Instant)>>,
    /// One new session at a time: the count and the creation agree.
    creating: tokio::sync::Mutex<()>,
}

/// How long an ended session's reason is kept.
const REMEMBER_ENDED: Duration = Duration::from_secs(600);

impl SessionGuard {
    pub(crate) fn new(limits: SessionLimits, sessions: Arc<LocalSessionManager>) -> SessionGuard {
        SessionGuard {
            limits,
            sessions,
            activity: Mutex::default(),
            ended: Mutex::default(),
            creating: tokio::sync::Mutex::new(()),
        }
    }

    /// Room for one more session: a bare one is ended to make it, else the
    /// refusal to answer with.
    pub(crate) async fn make_room(&self) -> Result<tokio::sync::MutexGuard<'_, ()>, String> {
        let creating = self.creating.lock().await;
        let held = self.sessions.sessions.read().await.len();
        if held < self.limits.max {
            return Ok(creating);
        }
        let oldest_bare = {
            let activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
            activity
                .iter()
                .filter(|(_, a)| a.is_bare())
                .min_by_key(|(_, a)| a.began)
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

    /// A session began.
    pub(crate) fn began(&self, id: &str) {
        let now = Instant::now();
        let mut activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
        activity.insert(
            id.to_string(),
            Activity {
                began: now,
                last: now,
                requests: 0,
            },
        );
    }

    /// A request named session `id`: `None` when it is live, else why it is
    /// not (for a 404 the client can act on).
    pub(crate) async fn touched(&self, id: &str) -> Option<String> {
        if self
            .sessions
            .has_session(&SessionId::from(id))
            .await
            .unwrap_or(false)
        {
            let mut activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(activity) = activity.get_mut(id) {
                activity.last = Instant::now();
                activity.requests = activity.requests.saturating_add(1);
            }
            return None;
        }
        let ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        let why = match ended.get(id).map(|(why, _)| *why) {
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
        Some(format!(
            "this MCP session has ended: {why}; initialize a new one\n"
        ))
    }

    /// The session was ended by its client (or by rmcp).
    pub(crate) fn forget(&self, id: &str) {
        let mut activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
        activity.remove(id);
    }

    /// Ends the sessions idle too long, and the bare ones past their grace.
    pub(crate) async fn reap(&self) {
        let now = Instant::now();
        let due: Vec<(String, Ended)> = {
            let activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
            activity
                .iter()
                .filter_map(|(id, a)| {
                    let why = if a.is_bare() && now.duration_since(a.began) >= self.limits.bare {
                        Ended::Bare
                    } else if now.duration_since(a.last) >= self.limits.idle {
                        Ended::Idle
                    } else {
                        return None;
                    };
                    Some((id.clone(), why))
                })
                .collect()
        };
        for (id, why) in due {
            self.end(&id, why).await;
        }
        // Sessions rmcp ended itself (a client's DELETE, a dropped stream).
        let live: Vec<String> = self
            .sessions
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect();
        {
            let mut activity = self.activity.lock().unwrap_or_else(|e| e.into_inner());
            activity.retain(|id, _| live.contains(id));
        }
        let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
        ended.retain(|_, (_, at)| now.duration_since(*at) < REMEMBER_ENDED);
    }

    /// How often [`Self::reap`] should run.
    pub(crate) fn reap_every(&self) -> Duration {
        (self.limits.bare.min(self.limits.idle) / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(10))
    }

    async fn end(&self, id: &str, why: Ended) {
        tracing::debug!(session = id, ?why, "HTTP session ended");
        self.forget(id);
        {
            let mut ended = self.ended.lock().unwrap_or_else(|e| e.into_inner());
            ended.insert(id.to_string(), (why, Instant::now()));
        }
        if let Err(error) = self.sessions.close_session(&SessionId::from(id)).await {
            tracing::debug!(%error, session = id, "session not closed");
        }
    }
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
        let now = Instant::now();
        let mut activity = Activity {
            began: now,
            last: now,
            requests: 0,
        };
        assert!(activity.is_bare());
        activity.requests = 1; // notifications/initialized
        assert!(activity.is_bare());
        activity.requests = 2; // tools/list
        assert!(!activity.is_bare());
    }
}
