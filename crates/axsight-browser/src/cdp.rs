//! One DevTools-protocol connection: JSON-RPC over a WebSocket, with replies
//! matched to calls by id and events handed to whoever listens.
//!
//! Calls may run concurrently; each waits for its own reply, with a deadline.
//! Sessions (`sessionId`) are flat: one connection to the browser reaches
//! every page target attached with `flatten: true`. WebDriver BiDi ([`crate::bidi`])
//! frames its commands the same way (`id`, `method`, `params`), so it talks
//! over this connection too, without session ids.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use crate::BrowserError;

/// An event the browser sent: its method, params and session.
#[derive(Debug, Clone)]
pub struct Event {
    pub method: String,
    pub params: Value,
    pub session: Option<String>,
}

type Waiting = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// A live connection; cheap to clone.
#[derive(Debug, Clone)]
pub struct Connection {
    outgoing: mpsc::UnboundedSender<String>,
    waiting: Waiting,
    next_id: Arc<AtomicU64>,
    events: broadcast::Sender<Event>,
    url: Arc<str>,
}

impl Connection {
    /// Connects to a DevTools WebSocket (`ws://127.0.0.1:PORT/devtools/browser/…`).
    pub async fn connect(url: &str, deadline: Duration) -> Result<Connection, BrowserError> {
        let connected = tokio::time::timeout(deadline, tokio_tungstenite::connect_async(url))
            .await
            .map_err(|_| BrowserError::Unreachable {
                endpoint: url.to_string(),
                why: format!("no answer within {} ms", deadline.as_millis()),
            })?
            .map_err(|error| BrowserError::Unreachable {
                endpoint: url.to_string(),
                why: error.to_string(),
            })?;
        let (mut sink, mut stream) = connected.0.split();
        let (outgoing, mut to_send) = mpsc::unbounded_channel::<String>();
        let waiting: Waiting = Arc::default();
        let (events, _) = broadcast::channel(256);
        tokio::spawn(async move {
            while let Some(text) = to_send.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
        });
        let replies = waiting.clone();
        let event_sender = events.clone();
        tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let Message::Text(text) = message else {
                    continue;
                };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                dispatch(value, &replies, &event_sender);
            }
            // The browser went away: every waiting call fails now, not at its deadline.
            replies
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain()
                .for_each(|(_, reply)| {
                    let _ = reply.send(Err("the browser closed the connection".into()));
                });
        });
        Ok(Connection {
            outgoing,
            waiting,
            next_id: Arc::new(AtomicU64::new(1)),
            events,
            url: url.into(),
        })
    }

    /// The WebSocket this connection talks to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Calls `method` (in `session`, for a page) and waits for its result.
    pub async fn call(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
        deadline: Duration,
    ) -> Result<Value, BrowserError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let (reply, answer) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, reply);
        if self.outgoing.send(message.to_string()).is_err() {
            self.forget(id);
            return Err(BrowserError::Closed);
        }
        match tokio::time::timeout(deadline, answer).await {
            Ok(Ok(Ok(result))) => Ok(result),
            Ok(Ok(Err(error))) => Err(BrowserError::Protocol {
                method: method.to_string(),
                error,
            }),
            Ok(Err(_)) => Err(BrowserError::Closed),
            Err(_) => {
                self.forget(id);
                Err(BrowserError::TimedOut {
                    method: method.to_string(),
                    after: deadline,
                })
            }
        }
    }

    /// Events from now on.
    pub fn events(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    fn forget(&self, id: u64) {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

/// A message from the browser: a reply to the call with its id, or an event.
fn dispatch(value: Value, waiting: &Waiting, events: &broadcast::Sender<Event>) {
    if let Some(id) = value.get("id").and_then(Value::as_u64) {
        let reply = waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        if let Some(reply) = reply {
            // The DevTools protocol nests the message in `error`; BiDi names
            // the error in `error` and puts the message beside it.
            let outcome = match value.get("error") {
                Some(error) => Err(error
                    .get("message")
                    .or_else(|| value.get("message"))
                    .and_then(Value::as_str)
                    .or_else(|| error.as_str())
                    .unwrap_or("an error without a message")
                    .to_string()),
                None => Ok(value.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = reply.send(outcome);
        }
        return;
    }
    if let Some(method) = value.get("method").and_then(Value::as_str) {
        // Nobody listening is fine: events are only for those who asked.
        let _ = events.send(Event {
            method: method.to_string(),
            params: value.get("params").cloned().unwrap_or(Value::Null),
            session: value
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reply carrying `value` (with id 1) gives its waiting call.
    fn outcome(value: Value) -> Result<Value, String> {
        let waiting: Waiting = Arc::default();
        let (reply, mut answer) = oneshot::channel();
        waiting.lock().unwrap().insert(1, reply);
        let (events, _) = broadcast::channel(1);
        dispatch(value, &waiting, &events);
        answer.try_recv().expect("the call got its reply")
    }

    #[test]
    fn errors_are_read_in_both_protocols_shapes() {
        let devtools = json!({"id": 1, "error": {"code": -32000, "message": "No target"}});
        assert_eq!(outcome(devtools), Err("No target".to_string()));
        let bidi = json!({"type": "error", "id": 1, "error": "no such history entry",
                          "message": "History entry with delta -1 not found"});
        assert_eq!(
            outcome(bidi),
            Err("History entry with delta -1 not found".to_string())
        );
        let bare = json!({"type": "error", "id": 1, "error": "unknown error"});
        assert_eq!(outcome(bare), Err("unknown error".to_string()));
        let fine = json!({"type": "success", "id": 1, "result": {"ready": true}});
        assert_eq!(outcome(fine), Ok(json!({"ready": true})));
    }
}
