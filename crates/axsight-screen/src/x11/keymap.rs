//! The core keyboard map of an X display (keysyms by keycode and shift level),
//! read once and kept until the map changes: which key types a keysym, for
//! sending input, and which keysym a key typed, for watching it.

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, Keycode, Keysym};
use x11rb::rust_connection::RustConnection;

use super::x11_error;
use crate::Result;

/// The core keyboard map: `per_keycode` keysyms for each keycode from `min_keycode`.
/// Column 0 is the plain level of the first group, column 1 its shifted level.
pub(super) struct Keymap {
    pub(super) min_keycode: Keycode,
    pub(super) per_keycode: usize,
    pub(super) keysyms: Vec<Keysym>,
}

impl Keymap {
    pub(super) fn keys(&self) -> impl DoubleEndedIterator<Item = (Keycode, &[Keysym])> + '_ {
        let min = usize::from(self.min_keycode);
        self.keysyms
            .chunks(self.per_keycode.max(1))
            .enumerate()
            .filter_map(move |(i, syms)| Some((Keycode::try_from(min + i).ok()?, syms)))
    }

    /// The key that types `keysym` and whether Shift must be held: a plain level
    /// anywhere beats a shifted one (`<` has a key of its own on pc105).
    pub(super) fn find(&self, keysym: Keysym) -> Option<Stroke> {
        if keysym == 0 {
            return None; // NoSymbol marks an empty slot, not a key
        }
        (0..self.per_keycode.min(2)).find_map(|level| {
            self.keys()
                .find(|(_, syms)| syms.get(level) == Some(&keysym))
                .map(|(keycode, _)| Stroke {
                    keycode,
                    shift: level == 1,
                })
        })
    }

    /// Keycodes with no keysym at all, highest first (the top of the range is what
    /// real keyboards use least).
    pub(super) fn spare_keycodes(&self) -> Vec<Keycode> {
        self.keys()
            .rev()
            .filter(|(_, syms)| syms.iter().all(|&sym| sym == 0))
            .map(|(keycode, _)| keycode)
            .collect()
    }
}

/// One key to press, and whether it needs Shift held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stroke {
    pub(super) keycode: Keycode,
    pub(super) shift: bool,
}

impl Keymap {
    /// The display's map as it is now.
    pub(super) fn fetch(conn: &RustConnection) -> Result<Keymap> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = conn
            .get_keyboard_mapping(min, max.saturating_sub(min).saturating_add(1))
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(Keymap {
            min_keycode: min,
            per_keycode: usize::from(reply.keysyms_per_keycode),
            keysyms: reply.keysyms,
        })
    }

    /// The keysym `keycode` types, shifted or not; a key with nothing on its
    /// shifted level types its plain one shifted (a digit row's `1` on some
    /// maps), and `None` is an empty key.
    pub(super) fn keysym(&self, keycode: Keycode, shift: bool) -> Option<Keysym> {
        let index = usize::from(keycode.checked_sub(self.min_keycode)?) * self.per_keycode;
        let at = |level: usize| {
            self.keysyms
                .get(index + level)
                .copied()
                .filter(|&sym| sym != 0 && level < self.per_keycode)
        };
        match shift {
            true => at(1).or_else(|| at(0)),
            false => at(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keymap() -> Keymap {
        // Keycodes 8..=12, two columns each: a/A, 1/exclam, empty, less/greater,
        // comma/less.
        Keymap {
            min_keycode: 8,
            per_keycode: 2,
            keysyms: vec![0x61, 0x41, 0x31, 0x21, 0, 0, 0x3c, 0x3e, 0x2c, 0x3c],
        }
    }

    #[test]
    fn keysyms_resolve_to_a_key_and_a_level() {
        let map = keymap();
        let plain = |keycode| {
            Some(Stroke {
                keycode,
                shift: false,
            })
        };
        let shifted = |keycode| {
            Some(Stroke {
                keycode,
                shift: true,
            })
        };
        assert_eq!(map.find(0x61), plain(8));
        assert_eq!(map.find(0x41), shifted(8));
        assert_eq!(map.find(0x21), shifted(9));
        // A plain level on another key beats a shifted one on an earlier key.
        assert_eq!(map.find(0x3c), plain(11));
        assert_eq!(map.find(0xe9), None);
        assert_eq!(map.find(0), None);
    }

    #[test]
    fn keycodes_type_their_keysym_shifted_or_not() {
        let map = keymap();
        assert_eq!(map.keysym(8, false), Some(0x61));
        assert_eq!(map.keysym(8, true), Some(0x41));
        assert_eq!(map.keysym(10, false), None);
        assert_eq!(map.keysym(7, false), None);
        assert_eq!(map.keysym(99, true), None);
    }

    #[test]
    fn spare_keycodes_are_the_empty_ones_highest_first() {
        let mut map = keymap();
        assert_eq!(map.spare_keycodes(), vec![10]);
        map.keysyms.extend([0, 0]);
        assert_eq!(map.spare_keycodes(), vec![13, 10]);
    }
}
