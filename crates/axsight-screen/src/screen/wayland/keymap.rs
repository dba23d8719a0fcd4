//! The XKB keymap axsight's virtual keyboard types with: a US keyboard on the
//! standard evdev key codes (letters, digits, punctuation, the named keys and
//! the modifiers), plus one key of its own for each other keysym it is asked
//! to type.
//!
//! A Wayland client chooses its virtual keyboard's keymap, so any character can
//! be typed by giving it a key. The base stays the same in every process, so a
//! toolkit's shortcut tables, built from the keymap, stay valid (GTK3 stopped
//! matching `Delete` after its keymap was swapped for one with keys in other
//! places); only a character beyond the base grows the keymap. Pure text: the
//! compositor compiles it with libxkbcommon (`include "complete"` resolves
//! there) and hands its own copy to the apps. It does not send keys.

/// The highest XKB keycode used: X11-era clients (XWayland) take no higher.
const LAST: u32 = 255;
/// XKB keycodes are evdev codes plus 8.
const EVDEV_OFFSET: u32 = 8;

/// A key of the base: its evdev code, and its keysym names unshifted and
/// shifted (the shifted one empty for a key with one level).
type BaseKey = (u32, &'static str, &'static str);

/// A US (pc105) keyboard's keys, by evdev code (`linux/input-event-codes.h`).
const BASE: &[BaseKey] = &[
    (1, "Escape", ""),
    (2, "1", "exclam"),
    (3, "2", "at"),
    (4, "3", "numbersign"),
    (5, "4", "dollar"),
    (6, "5", "percent"),
    (7, "6", "asciicircum"),
    (8, "7", "ampersand"),
    (9, "8", "asterisk"),
    (10, "9", "parenleft"),
    (11, "0", "parenright"),
    (12, "minus", "underscore"),
    (13, "equal", "plus"),
    (14, "BackSpace", ""),
    (15, "Tab", "ISO_Left_Tab"),
    (16, "q", "Q"),
    (17, "w", "W"),
    (18, "e", "E"),
    (19, "r", "R"),
    (20, "t", "T"),
    (21, "y", "Y"),
    (22, "u", "U"),
    (23, "i", "I"),
    (24, "o", "O"),
    (25, "p", "P"),
    (26, "bracketleft", "braceleft"),
    (27, "bracketright", "braceright"),
    (28, "Return", ""),
    (29, "Control_L", ""),
    (30, "a", "A"),
    (31, "s", "S"),
    (32, "d", "D"),
    (33, "f", "F"),
    (34, "g", "G"),
    (35, "h", "H"),
    (36, "j", "J"),
    (37, "k", "K"),
    (38, "l", "L"),
    (39, "semicolon", "colon"),
    (40, "apostrophe", "quotedbl"),
    (41, "grave", "asciitilde"),
    (42, "Shift_L", ""),
    (43, "backslash", "bar"),
    (44, "z", "Z"),
    (45, "x", "X"),
    (46, "c", "C"),
    (47, "v", "V"),
    (48, "b", "B"),
    (49, "n", "N"),
    (50, "m", "M"),
    (51, "comma", "less"),
    (52, "period", "greater"),
    (53, "slash", "question"),
    (56, "Alt_L", ""),
    (57, "space", ""),
    (58, "Caps_Lock", ""),
    (59, "F1", ""),
    (60, "F2", ""),
    (61, "F3", ""),
    (62, "F4", ""),
    (63, "F5", ""),
    (64, "F6", ""),
    (65, "F7", ""),
    (66, "F8", ""),
    (67, "F9", ""),
    (68, "F10", ""),
    (69, "Num_Lock", ""),
    (70, "Scroll_Lock", ""),
    (87, "F11", ""),
    (88, "F12", ""),
    (99, "Print", ""),
    (102, "Home", ""),
    (103, "Up", ""),
    (104, "Prior", ""),
    (105, "Left", ""),
    (106, "Right", ""),
    (107, "End", ""),
    (108, "Down", ""),
    (109, "Next", ""),
    (110, "Insert", ""),
    (111, "Delete", ""),
    (119, "Pause", ""),
    (125, "Super_L", ""),
    (127, "Menu", ""),
    (183, "F13", ""),
    (184, "F14", ""),
    (185, "F15", ""),
    (186, "F16", ""),
    (187, "F17", ""),
    (188, "F18", ""),
    (189, "F19", ""),
    (190, "F20", ""),
    (191, "F21", ""),
    (192, "F22", ""),
    (193, "F23", ""),
    (194, "F24", ""),
];

/// The modifier keys: evdev code, XKB real modifier, and its bit in a
/// `modifiers` request's mask.
pub const SHIFT: ModifierKey = ModifierKey {
    evdev: 42,
    real: "Shift",
    mask: 1,
};
pub const CONTROL: ModifierKey = ModifierKey {
    evdev: 29,
    real: "Control",
    mask: 1 << 2,
};
pub const ALT: ModifierKey = ModifierKey {
    evdev: 56,
    real: "Mod1",
    mask: 1 << 3,
};
pub const SUPER: ModifierKey = ModifierKey {
    evdev: 125,
    real: "Mod4",
    mask: 1 << 6,
};
const MODIFIERS: [ModifierKey; 4] = [SHIFT, CONTROL, ALT, SUPER];
/// Caps Lock and Num Lock lock these real modifiers.
const LOCKS: [(u32, &str); 2] = [(58, "Lock"), (69, "Mod2")];

/// A modifier key of the keymap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModifierKey {
    pub evdev: u32,
    real: &'static str,
    pub mask: u32,
}

/// One key to press (its evdev code), and whether Shift must be held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stroke {
    pub evdev: u32,
    pub shift: bool,
}

/// The base, plus the keysyms given keys of their own (in evdev-code order
/// over the codes the base leaves free).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Keymap {
    extras: Vec<u32>,
}

impl Keymap {
    /// The key that types `keysym`: a base key's plain level first, then its
    /// shifted one, then a key of its own.
    pub fn stroke(&self, keysym: u32) -> Option<Stroke> {
        for shift in [false, true] {
            for &(evdev, plain, shifted) in BASE {
                let name = if shift { shifted } else { plain };
                if !name.is_empty() && base_keysym(name) == Some(keysym) {
                    return Some(Stroke { evdev, shift });
                }
            }
        }
        let index = self.extras.iter().position(|&k| k == keysym)?;
        Some(Stroke {
            evdev: free_codes().nth(index)?,
            shift: false,
        })
    }

    /// A keymap with a key for every keysym in `wanted`: this one grown by the
    /// keysyms it lacks, or, when they do not all fit, the base with `wanted`'s
    /// alone. `None` when this one types them all (nothing to send), or when
    /// `wanted` alone needs more keys than are free (the caller types it in
    /// parts of [`Keymap::capacity`]).
    pub fn with(&self, wanted: &[u32]) -> Option<Keymap> {
        let mut missing: Vec<u32> = Vec::new();
        for &keysym in wanted {
            if self.stroke(keysym).is_none() && !missing.contains(&keysym) {
                missing.push(keysym);
            }
        }
        if missing.is_empty() {
            return None;
        }
        if self.extras.len() + missing.len() <= Keymap::capacity() {
            let mut extras = self.extras.clone();
            extras.extend(missing);
            return Some(Keymap { extras });
        }
        let fresh = Keymap::default();
        let mut extras: Vec<u32> = Vec::new();
        for &keysym in wanted {
            if fresh.stroke(keysym).is_none() && !extras.contains(&keysym) {
                extras.push(keysym);
            }
        }
        (extras.len() <= Keymap::capacity()).then_some(Keymap { extras })
    }

    /// How many keysyms beyond the base one keymap holds.
    pub fn capacity() -> usize {
        free_codes().count()
    }

    /// Whether the base types `keysym` (it needs no key of its own).
    pub fn in_base(keysym: u32) -> bool {
        Keymap::default().stroke(keysym).is_some()
    }

    /// The keymap in XKB's text format, NUL-terminated as the protocol wants.
    pub fn to_xkb(&self) -> String {
        let mut keycodes = String::new();
        let mut symbols = String::new();
        let mut key = |evdev: u32, levels: String| {
            let code = evdev + EVDEV_OFFSET;
            keycodes.push_str(&format!("    <K{code}> = {code};\n"));
            symbols.push_str(&format!("    key <K{code}> {{ [ {levels} ] }};\n"));
        };
        for &(evdev, plain, shifted) in BASE {
            match shifted.is_empty() {
                true => key(evdev, plain.to_string()),
                false => key(evdev, format!("{plain}, {shifted}")),
            }
        }
        for (keysym, evdev) in self.extras.iter().zip(free_codes()) {
            // A number, not a name: every keysym has one, and XKB reads numbers
            // of ten and over as keysym values.
            key(evdev, format!("{keysym:#010x}"));
        }
        for modifier in MODIFIERS {
            symbols.push_str(&format!(
                "    modifier_map {} {{ <K{}> }};\n",
                modifier.real,
                modifier.evdev + EVDEV_OFFSET
            ));
        }
        for (evdev, real) in LOCKS {
            symbols.push_str(&format!(
                "    modifier_map {real} {{ <K{}> }};\n",
                evdev + EVDEV_OFFSET
            ));
        }
        format!(
            "xkb_keymap {{\n\
             xkb_keycodes \"axsight\" {{\n    minimum = 8;\n    maximum = {LAST};\n{keycodes}}};\n\
             xkb_types \"axsight\" {{ include \"complete\" }};\n\
             xkb_compat \"axsight\" {{ include \"complete\" }};\n\
             xkb_symbols \"axsight\" {{\n{symbols}}};\n\
             }};\n\0"
        )
    }
}

/// The evdev codes the base leaves free, lowest first.
fn free_codes() -> impl Iterator<Item = u32> {
    (1..=LAST - EVDEV_OFFSET).filter(|code| BASE.iter().all(|(used, _, _)| used != code))
}

/// The keysym of a base key's name: a digit or letter is its character; other
/// names are the canonical ones of `screen::keysyms` or XKB's for punctuation.
fn base_keysym(name: &str) -> Option<u32> {
    use crate::screen::keysyms;
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return keysyms::of_char(c);
    }
    if let Some(keysym) = keysyms::named(name) {
        return Some(keysym);
    }
    let punctuation = [
        ("exclam", '!'),
        ("at", '@'),
        ("numbersign", '#'),
        ("dollar", '$'),
        ("percent", '%'),
        ("asciicircum", '^'),
        ("ampersand", '&'),
        ("asterisk", '*'),
        ("parenleft", '('),
        ("parenright", ')'),
        ("underscore", '_'),
        ("equal", '='),
        ("bracketleft", '['),
        ("braceleft", '{'),
        ("bracketright", ']'),
        ("braceright", '}'),
        ("semicolon", ';'),
        ("colon", ':'),
        ("apostrophe", '\''),
        ("quotedbl", '"'),
        ("grave", '`'),
        ("asciitilde", '~'),
        ("backslash", '\\'),
        ("bar", '|'),
        ("less", '<'),
        ("greater", '>'),
        ("slash", '/'),
        ("question", '?'),
    ];
    if let Some((_, c)) = punctuation.iter().find(|(known, _)| *known == name) {
        return keysyms::of_char(*c);
    }
    match name {
        "ISO_Left_Tab" => Some(0xfe20),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_base_name_is_a_keysym() {
        for (_, plain, shifted) in BASE {
            assert!(base_keysym(plain).is_some(), "{plain}");
            assert!(
                shifted.is_empty() || base_keysym(shifted).is_some(),
                "{shifted}"
            );
        }
    }

    #[test]
    fn the_base_types_on_the_standard_keys() {
        let map = Keymap::default();
        let key = |evdev, shift| Some(Stroke { evdev, shift });
        assert_eq!(map.stroke(0x61), key(30, false)); // a: KEY_A
        assert_eq!(map.stroke(0x41), key(30, true)); // A: shift + KEY_A
        assert_eq!(map.stroke(0x21), key(2, true)); // !: shift + KEY_1
        assert_eq!(map.stroke(0xff0d), key(28, false)); // Return: KEY_ENTER
        assert_eq!(map.stroke(0xffff), key(111, false)); // Delete
        assert_eq!(map.stroke(0x20), key(57, false)); // space
        assert_eq!(map.stroke(0xe9), None); // é is not on a US keyboard
    }

    #[test]
    fn other_keysyms_get_free_keys_in_order_and_only_once() {
        let (e_acute, euro) = (0xe9, 0x0100_20ac);
        let map = Keymap::default()
            .with(&[e_acute, 0x61, euro, e_acute])
            .unwrap();
        let first = free_codes().next().unwrap();
        assert!(BASE.iter().all(|(code, _, _)| *code != first));
        assert_eq!(map.stroke(e_acute).map(|s| s.evdev), Some(first));
        assert_eq!(map.stroke(euro).map(|s| s.evdev), free_codes().nth(1));
        // Nothing new, or all in the base: nothing to send.
        assert_eq!(map.with(&[e_acute, 0x61]), None);
        assert_eq!(Keymap::default().with(&[0x61, 0xff0d]), None);
        // Grown, keeping the keys it had.
        let grown = map.with(&[0xdf]).unwrap();
        assert_eq!(grown.stroke(e_acute), map.stroke(e_acute));
        assert_eq!(grown.stroke(0xdf).map(|s| s.evdev), free_codes().nth(2));
    }

    #[test]
    fn a_full_keymap_starts_again_with_what_is_wanted() {
        let many: Vec<u32> = (0..Keymap::capacity() as u32)
            .map(|k| 0x0100_4e00 + k)
            .collect();
        let full = Keymap::default().with(&many).unwrap();
        let fresh = full.with(&[0xe9]).unwrap();
        assert_eq!(fresh.stroke(0xe9).map(|s| s.evdev), free_codes().next());
        assert_eq!(fresh.stroke(0x0100_4e00), None);
        let too_many: Vec<u32> = (0..=Keymap::capacity() as u32)
            .map(|k| 0x0100_4e00 + k)
            .collect();
        assert_eq!(Keymap::default().with(&too_many), None);
    }

    #[test]
    fn the_text_holds_the_base_the_extras_and_the_modifier_map() {
        let text = Keymap::default().with(&[0x0100_20ac]).unwrap().to_xkb();
        assert!(text.contains("key <K38> { [ a, A ] };"), "{text}"); // KEY_A + 8
        assert!(text.contains("key <K119> { [ Delete ] };"), "{text}");
        let euro = free_codes().next().unwrap() + EVDEV_OFFSET;
        assert!(
            text.contains(&format!("key <K{euro}> {{ [ 0x010020ac ] }};")),
            "{text}"
        );
        assert!(text.contains("modifier_map Control { <K37> };"), "{text}");
        assert!(text.ends_with("};\n\0"));
    }
}
