//! `wait_for_element`: waits until an element exists, goes, shows, is enabled, has
//! the focus or holds a value. It re-checks whenever the desktop sends an event,
//! and at least every half second (events can be missed), until the deadline,
//! which a slow read does not stretch by more than half a second.
//! A silent surface (a window without accessibility, a canvas, a sheet without
//! cells) holds what OCR reads in it: `has_value` waits for its pixels to show
//! the text, read anew only when they changed.
//!
//! # Waiting on pixels
//!
//! **Waiting on pixels** (`acting/wait.rs`). `wait_for_element` with `has_value` on an
//! element that is or lies in a silent surface takes what `read_surfaces` reads there
//! as its value (the surface memory makes an unchanged surface one capture), and a
//! timed-out wait quotes it.

use std::time::{Duration, Instant};

use axsight_core::{quote_at_most, Element, Engine, State};

use super::Session;
use crate::target::{Aimed, Target};
use crate::ToolError;

/// What to wait for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    Exists,
    Gone,
    Visible,
    Enabled,
    Focused,
    /// Its value (or name, for elements without one) contains this text.
    HasValue(String),
}

impl Condition {
    /// Parses `condition` (with `value` for `has_value`).
    pub fn parse(condition: Option<&str>, value: Option<&str>) -> Result<Condition, String> {
        let word = condition.unwrap_or(if value.is_some() {
            "has_value"
        } else {
            "exists"
        });
        match word.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "exists" | "exist" | "present" => Ok(Condition::Exists),
            "gone" | "not_exists" | "removed" | "hidden" => Ok(Condition::Gone),
            "visible" | "shown" => Ok(Condition::Visible),
            "enabled" => Ok(Condition::Enabled),
            "focused" => Ok(Condition::Focused),
            "has_value" | "value" => value
                .map(|v| Condition::HasValue(v.to_string()))
                .ok_or_else(|| "condition has_value needs `value`".to_string()),
            other => Err(format!(
                "unknown condition '{other}'; use exists, gone, visible, enabled, focused or has_value"
            )),
        }
    }

    /// Whether the element (or its absence) meets the condition.
    fn met_by(&self, element: Option<&Element>) -> bool {
        match (self, element) {
            // Hidden counts as gone: a toolkit may keep a closed page's
            // elements alive (Qt's unlock view of KeePassXC), which no tree
            // prints any longer.
            (Condition::Gone, found) => found.is_none_or(|e| !e.is_shown()),
            (_, None) => false,
            (Condition::Exists, Some(_)) => true,
            (Condition::Visible, Some(e)) => e.is_shown() && e.bounds.is_some(),
            (Condition::Enabled, Some(e)) => e.states.is_enabled(),
            (Condition::Focused, Some(e)) => e.states.contains(State::Focused),
            (Condition::HasValue(want), Some(e)) => {
                !e.is_secret()
                    && e.value
                        .as_deref()
                        .unwrap_or(&e.name)
                        .to_lowercase()
                        .contains(&want.to_lowercase())
            }
        }
    }
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Condition::Exists => f.write_str("exists"),
            Condition::Gone => f.write_str("is gone"),
            Condition::Visible => f.write_str("is visible"),
            Condition::Enabled => f.write_str("is enabled"),
            Condition::Focused => f.write_str("is focused"),
            Condition::HasValue(v) => write!(f, "has value {v:?}"),
        }
    }
}

/// How often the condition is checked when no event comes.
const POLL: Duration = Duration::from_millis(500);

/// How long a read that began before the deadline may run past it.
const LAST_READ_GRACE: Duration = Duration::from_millis(500);

/// Characters of a silent surface's text quoted in a timed-out answer, at most.
const MAX_READ: usize = 200;

impl<E: Engine> Session<E> {
    /// What OCR reads in the silent surface `aimed` is or lies in, its lines in
    /// reading order joined by spaces; `None` where it is no silent surface.
    async fn shown_in_silence(&self, engine: &E, aimed: &Aimed) -> Option<String> {
        let surface = aimed.silent_surface()?;
        let reads = self.read_surfaces(engine, &aimed.snapshot, surface).await;
        let words: Vec<&str> = reads
            .sightings
            .iter()
            .map(|s| s.found.text.trim())
            .filter(|t| !t.is_empty())
            .collect();
        Some(words.join(" "))
    }

    /// Waits until `target` meets `condition`, at most `timeout`.
    pub async fn wait_for(
        &self,
        target: &Target,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<String, ToolError> {
        self.recover(self.do_wait_for(target, condition, timeout).await)
            .await
    }

    async fn do_wait_for(
        &self,
        target: &Target,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<String, ToolError> {
        if matches!(target, Target::Point(_)) {
            return Err(ToolError::BadArguments(
                "wait_for_element needs a selector or a handle, not a point".into(),
            ));
        }
        let engine = self.engine().await?;
        let start = Instant::now();
        let deadline = start + timeout;
        loop {
            let mark = engine.mark().await;
            // What OCR read in a silent surface, for the answer.
            let mut read = None;
            // A read still going at the deadline (an app answering slowly)
            // ends the wait there: the caller's timeout is kept.
            let left = deadline.saturating_duration_since(Instant::now()) + LAST_READ_GRACE;
            let Ok(located) = tokio::time::timeout(left, self.locate(&engine, target)).await else {
                return Err(ToolError::TimedOut(format!(
                    "waited {} ms and the element never {condition}; the last read had not finished \
                     at the deadline (the app is slow to answer: a page still loading, a long \
                     job, or it is stopped)",
                    start.elapsed().as_millis()
                )));
            };
            let (element, line) = match located {
                Ok(aimed) => {
                    let mut element = aimed.element().cloned();
                    if let (Condition::HasValue(_), Some(element)) = (condition, element.as_mut()) {
                        if let Some(shown) = self.shown_in_silence(&engine, &aimed).await {
                            read = Some(quote_at_most(&shown, MAX_READ));
                            element.value = Some(shown);
                        }
                    }
                    (element, Some(self.describe(&aimed)))
                }
                Err(
                    ToolError::NoMatch { .. }
                    | ToolError::StaleHandle { .. }
                    | ToolError::StaleButFound { .. }
                    | ToolError::ExpiredHandle { .. }
                    | ToolError::StaleSighting { .. },
                ) => (None, None),
                Err(error) => return Err(error),
            };
            let waited = start.elapsed().as_millis();
            if condition.met_by(element.as_ref()) {
                let by = if read.is_some() { ", read by OCR" } else { "" };
                return Ok(match line {
                    Some(line) => format!("{line} {condition} (after {waited} ms{by})\n"),
                    None => format!("the element {condition} (after {waited} ms)\n"),
                });
            }
            let now = Instant::now();
            if now >= deadline {
                let seen = match (line, read) {
                    (Some(line), Some(read)) => {
                        format!("last seen: {line}, where OCR reads {read}")
                    }
                    (Some(line), None) => format!("last seen: {line}"),
                    (None, _) => "it was not found".into(),
                };
                return Err(ToolError::TimedOut(format!(
                    "waited {waited} ms and the element never {condition}; {seen}"
                )));
            }
            engine.next_event(mark, POLL.min(deadline - now)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Role, StateSet};

    #[test]
    fn conditions_parse_with_their_value() {
        assert_eq!(Condition::parse(None, None), Ok(Condition::Exists));
        assert_eq!(
            Condition::parse(None, Some("84")),
            Ok(Condition::HasValue("84".into()))
        );
        assert_eq!(
            Condition::parse(Some("Not-Exists"), None),
            Ok(Condition::Gone)
        );
        assert!(Condition::parse(Some("has_value"), None).is_err());
        assert!(Condition::parse(Some("blue"), None)
            .unwrap_err()
            .contains("unknown condition"));
    }

    #[test]
    fn conditions_judge_elements_and_absence() {
        let mut e = Element::new("x", Role::Edit, "text");
        e.states = StateSet::from_iter([State::Enabled]);
        e.value = Some("Total: 84".into());
        assert!(Condition::Enabled.met_by(Some(&e)));
        assert!(!Condition::Focused.met_by(Some(&e)));
        assert!(Condition::HasValue("84".into()).met_by(Some(&e)));
        assert!(Condition::Gone.met_by(None));
        assert!(!Condition::Exists.met_by(None));
        e.states.insert(State::Showing);
        assert!(
            !Condition::Gone.met_by(Some(&e)),
            "a shown element is not gone"
        );
        e.states.remove(State::Showing);
        assert!(Condition::Gone.met_by(Some(&e)), "a hidden element is gone");
        e.raw_role = "password text".into();
        assert!(
            !Condition::HasValue("84".into()).met_by(Some(&e)),
            "secrets never match"
        );
    }
}
