//! The one diff of a sequence: the windows of the app the sequence starts in,
//! noted before its first step, compared with what they show after its last.

use std::sync::Arc;

use axsight_core::Engine;

use super::{ActOptions, Before, Session};
use crate::target::Target;
use crate::ToolError;

/// What a sequence started from, for [`Session::sequence_end`] to compare
/// with what is there after its last step.
pub struct SequenceStart<E: Engine> {
    engine: Arc<E>,
    before: Before,
}

impl<E: Engine> Session<E> {
    /// Notes what a sequence starts from: every window of the app its first
    /// target is in (the active window's app when it names none, or that target
    /// cannot be found yet).
    pub async fn sequence_start(
        &self,
        first_target: Option<&Target>,
    ) -> Result<SequenceStart<E>, ToolError> {
        let engine = self.engine().await?;
        let snapshot = match first_target {
            Some(target) => match self.aim(&engine, target).await {
                Ok(aimed) => Some(aimed.snapshot),
                Err(_) => None,
            },
            None => None,
        };
        let snapshot = match snapshot {
            Some(snapshot) => Some(snapshot),
            None => self.named_window(&engine, None, None).await.ok(),
        };
        let before = self.before(&engine, snapshot, &ActOptions::default()).await;
        Ok(SequenceStart { engine, before })
    }

    /// The sequence's answer: `head` and the step lines, then what changed in
    /// the windows noted by [`Session::sequence_start`] once the UI settled, and
    /// the first of them as it is now when `include_tree` asks.
    pub async fn sequence_end(
        &self,
        start: SequenceStart<E>,
        head: String,
        include_tree: bool,
    ) -> Result<String, ToolError> {
        let SequenceStart { engine, before } = start;
        let answered = self
            .answer(&engine, head, before, &ActOptions::default())
            .await?;
        let mut out = answered.text();
        if include_tree {
            if let Some(snapshot) = &answered.after {
                out.push_str("tree now:\n");
                out.push_str(&self.tree_text(snapshot, snapshot.tree.root(), None));
            }
        }
        Ok(out)
    }
}
