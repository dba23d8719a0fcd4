//! Questions put to the client's model in a call's result, waiting for the
//! call that brings the answer back: each is known by a state string the
//! client echoes, and keeps how its picture maps to the window.

use axsight_core::Engine;

use super::{Geometry, VisionAnswer, VisionQuestion};
use crate::session::Session;

/// At most this many questions wait for a client's answer; older ones are
/// forgotten (a client that never answers must not grow the server).
const MAX_WAITING: usize = 16;

/// The questions waiting, oldest first.
#[derive(Debug, Default)]
pub(crate) struct WaitingLooks {
    next: u64,
    waiting: std::collections::VecDeque<(String, Geometry)>,
}

impl<E: Engine> Session<E> {
    /// Parks `question` until its answer comes back; the state string the
    /// client is to echo with it.
    pub fn await_client_answer(&self, question: &VisionQuestion) -> String {
        let mut looks = self.waiting_looks.lock().unwrap_or_else(|e| e.into_inner());
        looks.next += 1;
        // The process id keeps a restarted server from taking an old answer
        // for a new question.
        let state = format!("look-{}-{}", std::process::id(), looks.next);
        if looks.waiting.len() >= MAX_WAITING {
            looks.waiting.pop_front();
        }
        looks.waiting.push_back((state.clone(), question.geometry));
        state
    }

    /// The answer `reply` to the question parked under `state`, which stops
    /// waiting; `None` when no question waits under it.
    pub fn client_answered(&self, state: &str, reply: String) -> Option<VisionAnswer> {
        let mut looks = self.waiting_looks.lock().unwrap_or_else(|e| e.into_inner());
        let at = looks.waiting.iter().position(|(s, _)| s == state)?;
        let (_, geometry) = looks.waiting.remove(at)?;
        Some(VisionAnswer { reply, geometry })
    }
}
