//! Recording a person's work as a plan (`axsight record`). The engine watches
//! the pointer and keyboard ([`Engine::watch_input`]); this module finds what
//! each press landed on, in the tree the person saw, and which element had the
//! focus at each key, and core's [`Recording`] folds those moments into steps.
//! [`plan`] writes them as `execute_sequence`'s JSON.
//!
//! **The tree the person saw.** The windows of the app in front are read
//! whenever its events have been quiet for [`QUIET`], at least every 60 ms
//! while they are not, and once whole after the app went quiet; a press is
//! looked up in the last such read (the one before it, when the press came
//! during a read): by the time the press is seen the click may already have
//! closed the menu it chose from. A press where that read names nothing is
//! looked up in a read made then, with the element's check mark and text as
//! read before. Keys go to the element the latest read says has the focus,
//! read again first at the first character after a click or another key
//! (Tab moved it). Where input cannot be watched (Wayland), the steps come
//! from what consecutive reads show changed.
//!
//! It never reads a secret field's text: a password typed is a parameter.

mod plan;
mod recorder;
mod view;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axsight_core::{ConnectOptions, Engine, Recording, WatchEnded};

use crate::{Session, ToolError};
pub use plan::{Plan, PLAN_VERSION};
use recorder::Recorder;

/// How long an app's events must be quiet before its windows are read again.
const QUIET: Duration = Duration::from_millis(40);
/// How a recording made without watching input says so, and what it misses.
const EVENTS_ONLY: &str = "accessibility events alone: a field's text, a check box, a combo \
     box's choice, a radio button or tab picked, windows opening, and a click only where a \
     control took the focus as something changed; chords, drags and the wheel are not seen";

/// How often the input forwarder looks whether the recording still listens.
const FORWARD_POLL: Duration = Duration::from_millis(200);
/// How a recording is made.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// Every typed text becomes a parameter of the plan (secrets always are).
    pub every_text_a_parameter: bool,
    /// A chord that ends the recording when the person presses it, itself no
    /// step (`Pause`): the person need not go back to a terminal, whose click
    /// and Ctrl+C would be steps.
    pub stop_key: Option<axsight_core::KeyChord>,
}

/// What a recording tells while it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordNews {
    /// Input is being watched (how), and the person may begin.
    Watching(String),
    /// A step was written, as a person reads it.
    Step(String),
}

/// A recording running in the background (the `record` tool's): how to stop
/// it, and the task that ends with its plan.
pub(crate) struct Running {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<Plan, ToolError>>,
}

impl<E: Engine> Session<E> {
    /// Starts recording in the background, for [`Session::stop_recording`];
    /// answers once input is being watched, with how.
    pub async fn start_recording(
        self: &Arc<Self>,
        options: RecordOptions,
    ) -> Result<String, ToolError> {
        let mut running = self.recording.lock().await;
        if running.as_ref().is_some_and(|r| !r.task.is_finished()) {
            return Err(ToolError::BadArguments(
                "a recording is already under way: stop it first (record with stop: true)".into(),
            ));
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, watching) = tokio::sync::oneshot::channel::<String>();
        let session = Arc::clone(self);
        let task = tokio::spawn(async move {
            let mut ready = Some(ready);
            let stopped = async {
                let _ = stopped.await;
            };
            session
                .record(options, stopped, move |news| {
                    if let (RecordNews::Watching(how), Some(ready)) = (news, ready.take()) {
                        let _ = ready.send(how);
                    }
                })
                .await
        });
        match watching.await {
            Ok(how) => {
                *running = Some(Running { stop, task });
                Ok(how)
            }
            // It ended before it watched anything: its error says why.
            Err(_) => match task.await {
                Ok(Err(error)) => Err(error),
                _ => Err(ToolError::BadArguments(
                    "the recording could not start".into(),
                )),
            },
        }
    }

    /// Stops the recording [`Session::start_recording`] began, and returns
    /// its plan.
    pub async fn stop_recording(&self) -> Result<Plan, ToolError> {
        let running = self.recording.lock().await.take().ok_or_else(|| {
            ToolError::BadArguments(
                "no recording is under way: start one first (record without stop)".into(),
            )
        })?;
        let _ = running.stop.send(());
        match running.task.await {
            Ok(plan) => plan,
            Err(error) => Err(ToolError::BadArguments(format!(
                "the recording failed: {error}"
            ))),
        }
    }

    /// Records what the person does until `stop` resolves (or the input
    /// watch ends), telling `news` as it goes, and returns the plan.
    pub async fn record(
        &self,
        options: RecordOptions,
        stop: impl Future<Output = ()>,
        mut news: impl FnMut(RecordNews),
    ) -> Result<Plan, ToolError> {
        if self.policy.scope.is_some() {
            return Err(ToolError::NotAllowed(
                "a recording watches the person's work in every app, and this server shows                  only some (serve --scope)"
                    .into(),
            ));
        }
        let engine = self.engine().await?;
        let (sender, mut inputs) = tokio::sync::mpsc::unbounded_channel();
        // Kept while input cannot be watched, so that the channel stays open.
        let mut unwatched = None;
        let watched = match engine.watch_input().await {
            Ok(watch) => {
                let watched = watch.source.clone();
                // The watch blocks: a thread hands its input over until nobody
                // listens.
                std::thread::Builder::new()
                    .name("axsight-record".into())
                    .spawn(move || loop {
                        match watch.next(FORWARD_POLL) {
                            Ok(input) => {
                                if sender.send(input).is_err() {
                                    return;
                                }
                            }
                            Err(WatchEnded::Quiet) if sender.is_closed() => return,
                            Err(WatchEnded::Quiet) => {}
                            Err(WatchEnded::Closed) => return,
                        }
                    })
                    .map_err(|e| ToolError::BadArguments(format!("cannot start recording: {e}")))?;
                watched
            }
            Err(why) => {
                unwatched = Some(sender);
                format!("{EVENTS_ONLY} ({why})")
            }
        };
        let fresh = E::connect(ConnectOptions::default())
            .await
            .map_err(ToolError::engine)?;
        let mut recorder = Recorder::new(
            self,
            &*engine,
            fresh,
            Recording::new(options.every_text_a_parameter),
            unwatched.is_some(),
        )
        .await;
        recorder.look().await;
        let mut told = 0;
        news(RecordNews::Watching(watched.clone()));
        tokio::pin!(stop);
        loop {
            tokio::select! {
                biased;
                () = &mut stop => break,
                input = inputs.recv() => match input {
                    Some(input) if is_stop_key(&input.what, options.stop_key.as_ref()) => break,
                    Some(input) => recorder.take(input).await,
                    None => break,
                },
                next = engine.next_event(recorder.mark, QUIET) => {
                    recorder.events_until(next).await;
                    // Input that came while the windows were read may show
                    // its effect in that read already (a dialog its click
                    // opened, to be waited for after the click).
                    recorder.raced = !inputs.is_empty();
                    if !recorder.raced {
                        recorder.write_waits();
                    }
                }
            }
            for step in &recorder.recording().steps()[told..] {
                news(RecordNews::Step(step.described()));
            }
            told = recorder.recording().steps().len();
        }
        drop(inputs);
        let (steps, parameters) = recorder.finish();
        for step in steps.iter().skip(told) {
            news(RecordNews::Step(step.described()));
        }
        Ok(Plan::new(&steps, &parameters, watched))
    }
}

/// Whether `what` is the chord `stop`.
fn is_stop_key(what: &axsight_core::Observed, stop: Option<&axsight_core::KeyChord>) -> bool {
    match (what, stop) {
        (axsight_core::Observed::Key(chord), Some(stop)) => chord.presses_as(stop),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{parse_keys, Observed};

    #[test]
    fn the_stop_key_is_its_chord_whatever_the_order_of_its_modifiers() {
        let stop = parse_keys("ctrl+alt+End").unwrap().remove(0);
        let pressed = |keys: &str| Observed::Key(parse_keys(keys).unwrap().remove(0));
        assert!(is_stop_key(&pressed("alt+ctrl+End"), Some(&stop)));
        assert!(!is_stop_key(&pressed("ctrl+End"), Some(&stop)));
        assert!(!is_stop_key(&pressed("ctrl+alt+Home"), Some(&stop)));
        assert!(!is_stop_key(&pressed("ctrl+alt+End"), None));
    }
}
