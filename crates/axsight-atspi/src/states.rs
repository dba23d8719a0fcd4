//! AT-SPI2 state bits mapped onto axsight's [`StateSet`].
//!
//! The bit numbers are those of the `AtspiStateType` enumeration in the AT-SPI2
//! specification; `GetState` sends them as two 32-bit words.

use axsight_core::{State, StateSet};

/// (AT-SPI bit number, axsight state) for every state axsight keeps.
const BITS: &[(u32, State)] = &[
    (1, State::Active),
    (3, State::Busy),
    (4, State::Checked),
    (5, State::Collapsed),
    (6, State::Defunct),
    (7, State::Editable),
    (8, State::Enabled),
    (9, State::Expandable),
    (10, State::Expanded),
    (11, State::Focusable),
    (12, State::Focused),
    (14, State::Horizontal),
    (15, State::Iconified),
    (16, State::Modal),
    (17, State::MultiLine),
    (18, State::Multiselectable),
    (20, State::Pressed),
    (22, State::Selectable),
    (23, State::Selected),
    (24, State::Sensitive),
    (25, State::Showing),
    (29, State::Vertical),
    (30, State::Visible),
    (32, State::Indeterminate),
    (33, State::Required),
    (36, State::InvalidEntry),
    (40, State::Visited),
    (41, State::Checkable),
    (42, State::HasPopup),
    (43, State::ReadOnly),
];

/// AT-SPI state bits the engine reads by number.
pub const EDITABLE: u32 = 7;
pub const FOCUSED: u32 = 12;
pub const SELECTED: u32 = 23;
pub const SHOWING: u32 = 25;
pub const VISIBLE: u32 = 30;
/// Such a container's children are not all exported (nor cached).
pub const MANAGES_DESCENDANTS: u32 = 31;

/// Joins the two words of a `GetState` reply into one 64-bit mask; extra words and
/// a short reply are tolerated.
pub fn mask_of(words: &[u32]) -> u64 {
    let low = words.first().copied().unwrap_or(0) as u64;
    let high = words.get(1).copied().unwrap_or(0) as u64;
    low | high << 32
}

/// Converts an AT-SPI state mask to axsight's states; unknown bits are ignored.
pub fn state_set(mask: u64) -> StateSet {
    BITS.iter()
        .filter(|(bit, _)| mask & (1 << bit) != 0)
        .map(|(_, state)| *state)
        .collect()
}

/// Whether bit number `bit` is set in `mask`.
pub fn has_bit(mask: u64, bit: u32) -> bool {
    mask & (1 << bit) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_join_and_map() {
        // SHOWING (25) in the low word, INDETERMINATE (32) in the high word, plus an
        // unknown bit 63 that must be ignored.
        let mask = mask_of(&[1 << 25, 1 | 1 << 31]);
        let states = state_set(mask);
        assert!(states.contains(State::Showing));
        assert!(states.contains(State::Indeterminate));
        assert_eq!(states.iter().count(), 2);
        assert_eq!(mask_of(&[]), 0);
    }
}
