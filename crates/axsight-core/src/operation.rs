//! What an engine does to one element through its accessible interfaces, and how an
//! engine reports that the UI has settled after an action.
//!
//! These are the "background" ways of acting: they need no pointer, no keyboard and
//! no raised window. Real input is [`crate::Input`].

use std::time::Duration;

/// An operation on one element through its accessible interfaces.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// Run the element's action of this name (`click`, `press`, `activate`,
    /// `toggle`…), as the element lists it.
    Action(String),
    /// Move the keyboard focus to the element.
    Focus,
    /// Replace the element's whole text.
    SetText(String),
    /// Insert text at the caret (or the end), leaving the caret after it.
    InsertText(String),
    /// Type text as the keyboard would: over the selected text when some is
    /// selected, else at the caret; the caret is left after it.
    TypeOver(String),
    /// Set the element's numeric value; out of its range is an error.
    SetValue(f64),
    /// Move the element's numeric value by this much, stopping at its range's ends
    /// (how a scroll bar is scrolled without a pointer).
    AdjustValue(f64),
    /// Select the element's child at this index (combo boxes, lists, tabs).
    SelectChild(usize),
    /// Scroll the element into view inside its scrolled parents.
    ScrollIntoView,
}

/// How an operation went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Performed {
    /// The application carried it out and answered.
    Done,
    /// The request was delivered but the application did not answer within the
    /// short deadline. GTK3 runs a modal dialog opened by an action inside the
    /// action's call, so this is often a dialog waiting for the user.
    Unanswered,
}

/// A place in the desktop's event stream: what happened after it can be waited
/// for. Engines that do not watch events hand out `EventMark(0)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventMark(pub u64);

/// How long to wait for the UI to settle after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettlePolicy {
    /// How long to wait for a change beyond focus and press feedback to begin
    /// (GTK buttons fire about 250 ms after an accessible click; dialogs later).
    pub expect: Duration,
    /// How long events must stay quiet, once changes began, to count as settled.
    pub quiet: Duration,
    /// The quiet that ends the wait once what the action predicts has come
    /// ([`SettlePolicy::expecting`]): shorter, since the effect is known.
    pub quiet_after_expected: Duration,
    /// What the action is expected to do.
    pub expecting: Expecting,
    /// The longest the whole wait may take.
    pub cap: Duration,
}

/// What an action is expected to change, so that waiting can end at the
/// first quiet gap after it rather than after the general quiet window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Expecting {
    /// Nothing is known: any change, then the general quiet window.
    #[default]
    Unknown,
    /// An effect: a name, value, state, text or children change, or a window
    /// (a click on a push button, typing).
    Effect,
    /// Only the focus moves (a click into a text field, Tab); an effect that
    /// comes anyway is waited for as when nothing is known.
    Focus,
}

impl Expecting {
    /// What a plain left click on an element of `role` is expected to do:
    /// controls that act when clicked change something of their own or open
    /// a window; a click into a text field moves the focus. Other roles (a
    /// link that navigates, a menu or combo box that fills a popup, a list's
    /// row) may go on changing for longer, so nothing is assumed.
    ///
    /// ```
    /// use axsight_core::{Expecting, Role};
    /// assert_eq!(Expecting::of_click(Role::Button), Expecting::Effect);
    /// assert_eq!(Expecting::of_click(Role::Edit), Expecting::Focus);
    /// assert_eq!(Expecting::of_click(Role::Link), Expecting::Unknown);
    /// ```
    pub fn of_click(role: crate::Role) -> Expecting {
        use crate::Role;
        match role {
            Role::Button
            | Role::ToggleButton
            | Role::CheckBox
            | Role::RadioButton
            | Role::Switch
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem => Expecting::Effect,
            Role::Edit => Expecting::Focus,
            _ => Expecting::Unknown,
        }
    }
}

impl Expecting {
    /// What pressing `chords` is expected to do: Tab and Shift+Tab, and only
    /// they, move the focus; any other key may do anything.
    ///
    /// ```
    /// use axsight_core::{parse_keys, Expecting};
    /// assert_eq!(Expecting::of_keys(&parse_keys("Tab Tab shift+Tab").unwrap()), Expecting::Focus);
    /// assert_eq!(Expecting::of_keys(&parse_keys("Tab Return").unwrap()), Expecting::Unknown);
    /// assert_eq!(Expecting::of_keys(&parse_keys("ctrl+Tab").unwrap()), Expecting::Unknown);
    /// ```
    pub fn of_keys(chords: &[crate::KeyChord]) -> Expecting {
        use crate::{Key, Modifier};
        let moves_focus = |chord: &crate::KeyChord| {
            chord.key == Key::Named("Tab") && chord.modifiers.iter().all(|m| *m == Modifier::Shift)
        };
        if !chords.is_empty() && chords.iter().all(moves_focus) {
            Expecting::Focus
        } else {
            Expecting::Unknown
        }
    }
}

impl Default for SettlePolicy {
    fn default() -> SettlePolicy {
        SettlePolicy {
            expect: Duration::from_millis(1000),
            quiet: Duration::from_millis(150),
            quiet_after_expected: Duration::from_millis(60),
            expecting: Expecting::Unknown,
            cap: Duration::from_millis(3000),
        }
    }
}

impl SettlePolicy {
    /// The policy held to `timeout` at most.
    ///
    /// ```
    /// use std::time::Duration;
    /// use axsight_core::SettlePolicy;
    /// let p = SettlePolicy::default().within(Duration::from_millis(400));
    /// assert_eq!(p.cap, Duration::from_millis(400));
    /// assert!(p.expect <= p.cap && p.quiet <= p.cap);
    /// ```
    pub fn within(self, timeout: Duration) -> SettlePolicy {
        SettlePolicy {
            expect: self.expect.min(timeout),
            quiet: self.quiet.min(timeout),
            quiet_after_expected: self.quiet_after_expected.min(timeout),
            cap: self.cap.min(timeout),
            ..self
        }
    }

    /// The policy for an action expected to do `expecting`.
    pub fn expecting(self, expecting: Expecting) -> SettlePolicy {
        SettlePolicy { expecting, ..self }
    }
}

/// Why waiting for the UI to settle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleEnd {
    /// Changes came and then stayed quiet for the quiet window.
    Quiet,
    /// The focus moved, as expected, and nothing else followed.
    FocusMoved,
    /// Nothing beyond focus or press feedback happened within the expect window.
    NoChange,
    /// Events were still coming when the cap was reached.
    Cap,
    /// The engine does not watch events; the "after" was read at once.
    NotWatched,
    /// The window's app is not on the accessibility bus: it sends no events
    /// to wait for (its pixels are what can tell).
    Silent,
}

/// How waiting for the UI to settle went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    pub waited: Duration,
    /// Events seen from the application in that time.
    pub events: usize,
    pub end: SettleEnd,
}

impl std::fmt::Display for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = self.waited.as_millis();
        match self.end {
            SettleEnd::Quiet => write!(f, "settled in {ms} ms ({} events)", self.events),
            SettleEnd::FocusMoved => write!(
                f,
                "settled in {ms} ms (the focus moved; {} events)",
                self.events
            ),
            SettleEnd::NoChange => {
                write!(f, "no event but focus or input feedback within {ms} ms")
            }
            SettleEnd::Cap => write!(
                f,
                "still changing after {ms} ms ({} events); read again to see the rest",
                self.events
            ),
            SettleEnd::NotWatched => f.write_str("read at once (events not watched)"),
            SettleEnd::Silent => f.write_str("its app sends no accessibility events"),
        }
    }
}
