//! Input a person gave, as the display server saw it: what a recording is made
//! of. An engine watches the devices and hands over [`ObservedInput`] through an
//! [`InputWatch`]; it never reports input axsight itself sent while watching
//! apart from a person's (the display cannot tell them apart either).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use super::{KeyChord, Modifier, MouseButton, Point, ScrollDirection};

/// One thing a person did with the pointer or the keyboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// A pointer button went down at `at` (screen pixels) with `modifiers`
    /// held (a ctrl+click).
    Pressed {
        button: MouseButton,
        at: Point,
        modifiers: Vec<Modifier>,
    },
    /// A pointer button came up at `at`.
    Released { button: MouseButton, at: Point },
    /// The wheel turned one notch with the pointer at `at`.
    Scrolled {
        direction: ScrollDirection,
        at: Point,
    },
    /// A key went down with the chord's modifiers held. A modifier key's own
    /// press is not reported, and Shift is folded into the character it typed
    /// (`A`, not `shift+a`) but kept on named keys (`shift+Tab`).
    Key(KeyChord),
}

/// [`Observed`] input with the display server's clock, in milliseconds (it
/// wraps after 49 days; only differences between two events mean anything).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedInput {
    pub what: Observed,
    pub time_ms: u32,
}

/// A running watch over the input devices. Dropping it stops the watching.
pub struct InputWatch {
    events: Receiver<ObservedInput>,
    stop: Option<Box<dyn FnOnce() + Send>>,
    /// How the input is observed, for telling a person (`the X server's RECORD
    /// extension on :1`).
    pub source: String,
}

/// Why [`InputWatch::next`] returned nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEnded {
    /// Nothing came within the timeout; the watch goes on.
    Quiet,
    /// The watch is over: the display connection closed.
    Closed,
}

impl InputWatch {
    /// A watch whose input arrives on `events`; `stop` ends it, and is called
    /// once, when the watch is dropped.
    pub fn new(
        events: Receiver<ObservedInput>,
        stop: impl FnOnce() + Send + 'static,
        source: impl Into<String>,
    ) -> InputWatch {
        InputWatch {
            events,
            stop: Some(Box::new(stop)),
            source: source.into(),
        }
    }

    /// The next input, waiting at most `timeout` for it.
    pub fn next(&self, timeout: Duration) -> Result<ObservedInput, WatchEnded> {
        self.events
            .recv_timeout(timeout)
            .map_err(|error| match error {
                RecvTimeoutError::Timeout => WatchEnded::Quiet,
                RecvTimeoutError::Disconnected => WatchEnded::Closed,
            })
    }
}

impl Drop for InputWatch {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop();
        }
    }
}

impl std::fmt::Debug for InputWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputWatch")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}
