//! Element states as a compact bit set, and which of them are worth printing.

use std::fmt;

macro_rules! states {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// One state an element can be in. Names follow AT-SPI's, in lower case.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum State { $($variant),* }

        impl State {
            /// Every state, in declaration order.
            pub const ALL: &'static [State] = &[$(State::$variant),*];

            /// The state's name as printed and as selectors accept it.
            pub fn as_str(self) -> &'static str {
                match self { $(State::$variant => $name),* }
            }
        }
    };
}

states! {
    Active => "active",
    Checked => "checked",
    Collapsed => "collapsed",
    Editable => "editable",
    Enabled => "enabled",
    Expandable => "expandable",
    Expanded => "expanded",
    Focusable => "focusable",
    Focused => "focused",
    Indeterminate => "indeterminate",
    Modal => "modal",
    MultiLine => "multiline",
    Multiselectable => "multiselectable",
    Pressed => "pressed",
    Selectable => "selectable",
    Selected => "selected",
    Sensitive => "sensitive",
    Showing => "showing",
    Visible => "visible",
    Required => "required",
    InvalidEntry => "invalid",
    ReadOnly => "readonly",
    Busy => "busy",
    Checkable => "checkable",
    HasPopup => "haspopup",
    Defunct => "defunct",
    Iconified => "iconified",
    Visited => "visited",
    Horizontal => "horizontal",
    Vertical => "vertical",
}

impl State {
    /// Parses a state name as printed (`focused`), case-insensitively.
    pub fn parse(name: &str) -> Option<State> {
        State::ALL
            .iter()
            .copied()
            .find(|state| state.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`State`]s.
///
/// ```
/// use axsight_core::{State, StateSet};
/// let states = StateSet::from_iter([State::Enabled, State::Focused]);
/// assert!(states.contains(State::Focused));
/// assert!(!states.contains(State::Checked));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct StateSet(u64);

impl StateSet {
    /// The empty set.
    pub const EMPTY: StateSet = StateSet(0);

    /// Whether `state` is in the set.
    pub fn contains(self, state: State) -> bool {
        self.0 & (1 << state as u8) != 0
    }

    /// Adds `state`.
    pub fn insert(&mut self, state: State) {
        self.0 |= 1 << state as u8;
    }

    /// Removes `state`.
    pub fn remove(&mut self, state: State) {
        self.0 &= !(1 << state as u8);
    }

    /// The states in the set, in [`State::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = State> {
        State::ALL
            .iter()
            .copied()
            .filter(move |s| self.contains(*s))
    }

    /// Whether the element takes input. GTK3 and Chromium set both ENABLED and
    /// SENSITIVE; GTK4 sets only SENSITIVE; a disabled widget has neither.
    pub fn is_enabled(self) -> bool {
        self.contains(State::Enabled) || self.contains(State::Sensitive)
    }
}

impl FromIterator<State> for StateSet {
    fn from_iter<I: IntoIterator<Item = State>>(iter: I) -> Self {
        let mut set = StateSet::EMPTY;
        for state in iter {
            set.insert(state);
        }
        set
    }
}

impl serde::Serialize for StateSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(State::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_fits_and_round_trips() {
        assert!(State::ALL.len() <= 64);
        let all = StateSet::from_iter(State::ALL.iter().copied());
        assert_eq!(all.iter().count(), State::ALL.len());
        for state in State::ALL {
            assert_eq!(State::parse(state.as_str()), Some(*state));
        }
    }

    #[test]
    fn insert_and_remove() {
        let mut set = StateSet::EMPTY;
        set.insert(State::Checked);
        assert!(set.contains(State::Checked));
        set.remove(State::Checked);
        assert_eq!(set, StateSet::EMPTY);
    }
}
