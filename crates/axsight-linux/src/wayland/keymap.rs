//! The XKB keymap axsight's virtual keyboard types with: the four modifier keys,
//! then one key per keysym it has been asked to type, each on a single level.
//!
//! A Wayland client chooses its virtual keyboard's keymap, so any character is
//! typed by giving it a key of its own, not by finding it in a layout (which is
//! how XTest has to do it on X11). Pure text: the compositor compiles it with
//! libxkbcommon (`include "complete"` resolves there) and hands its own copy to
//! the apps. It does not send keys; `keyboard` does.

/// The first keycode (XKB numbering, evdev + 8) given to a typed keysym.
const FIRST_FREE: u32 = 13;
/// The highest keycode used: X11-era clients (XWayland) take no higher.
const LAST: u32 = 255;

/// A modifier key: its keycode, its keysym name and the real modifier it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModifierKey {
    pub keycode: u32,
    keysym: &'static str,
    /// The XKB real modifier (`Shift`, `Control`, `Mod1`, `Mod4`).
    real: &'static str,
    /// Its bit in a `modifiers` request's mask.
    pub mask: u32,
}

/// Shift, Control, Alt and Super, on keycodes 9 to 12.
pub const SHIFT: ModifierKey = ModifierKey {
    keycode: 9,
    keysym: "Shift_L",
    real: "Shift",
    mask: 1,
};
pub const CONTROL: ModifierKey = ModifierKey {
    keycode: 10,
    keysym: "Control_L",
    real: "Control",
    mask: 1 << 2,
};
pub const ALT: ModifierKey = ModifierKey {
    keycode: 11,
    keysym: "Alt_L",
    real: "Mod1",
    mask: 1 << 3,
};
pub const SUPER: ModifierKey = ModifierKey {
    keycode: 12,
    keysym: "Super_L",
    real: "Mod4",
    mask: 1 << 6,
};
const MODIFIERS: [ModifierKey; 4] = [SHIFT, CONTROL, ALT, SUPER];

/// The keysyms with a key of their own, in keycode order from [`FIRST_FREE`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Keymap {
    keysyms: Vec<u32>,
}

impl Keymap {
    /// The keycode that types `keysym`, if it has one.
    pub fn keycode_of(&self, keysym: u32) -> Option<u32> {
        let index = self.keysyms.iter().position(|&k| k == keysym)?;
        Some(FIRST_FREE + index as u32)
    }

    /// A keymap holding every keysym in `wanted`: this one grown by those it
    /// lacks, or, when they do not all fit, one of `wanted` alone. `None` when
    /// this one already holds them all (nothing to send), or when `wanted` alone
    /// needs more keys than there are (the caller types it in parts).
    pub fn with(&self, wanted: &[u32]) -> Option<Keymap> {
        let mut missing: Vec<u32> = Vec::new();
        for &keysym in wanted {
            if self.keycode_of(keysym).is_none() && !missing.contains(&keysym) {
                missing.push(keysym);
            }
        }
        if missing.is_empty() {
            return None;
        }
        let room = (LAST - FIRST_FREE + 1) as usize;
        if self.keysyms.len() + missing.len() <= room {
            let mut keysyms = self.keysyms.clone();
            keysyms.extend(missing);
            return Some(Keymap { keysyms });
        }
        let mut keysyms: Vec<u32> = Vec::new();
        for &keysym in wanted {
            if !keysyms.contains(&keysym) {
                keysyms.push(keysym);
            }
        }
        (keysyms.len() <= room).then_some(Keymap { keysyms })
    }

    /// How many distinct keysyms fit in one keymap.
    pub fn capacity() -> usize {
        (LAST - FIRST_FREE + 1) as usize
    }

    /// The keymap in XKB's text format, NUL-terminated as the protocol wants.
    ///
    /// ```ignore
    /// let text = Keymap::default().with(&[0x61]).unwrap().to_xkb();
    /// assert!(text.contains("key <K13> { [ 0x00000061 ] };"));
    /// ```
    pub fn to_xkb(&self) -> String {
        let mut keycodes = String::new();
        let mut symbols = String::new();
        for modifier in MODIFIERS {
            keycodes.push_str(&format!("    <K{0}> = {0};\n", modifier.keycode));
            symbols.push_str(&format!(
                "    key <K{}> {{ [ {} ] }};\n    modifier_map {} {{ <K{}> }};\n",
                modifier.keycode, modifier.keysym, modifier.real, modifier.keycode
            ));
        }
        for (index, keysym) in self.keysyms.iter().enumerate() {
            let keycode = FIRST_FREE + index as u32;
            keycodes.push_str(&format!("    <K{keycode}> = {keycode};\n"));
            // A number, not a name: every keysym has one, and XKB reads numbers of
            // ten and over as keysym values. A letter's key has its capital on
            // the shifted level, so that `shift+i` types an I.
            let levels = match shifted(*keysym) {
                Some(upper) => format!("{keysym:#010x}, {upper:#010x}"),
                None => format!("{keysym:#010x}"),
            };
            symbols.push_str(&format!("    key <K{keycode}> {{ [ {levels} ] }};\n"));
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

/// The keysym of a lower-case letter's capital (`i` → `I`), when it is one
/// other character.
fn shifted(keysym: u32) -> Option<u32> {
    let c = match keysym {
        0x20..=0x7e | 0xa0..=0xff => char::from_u32(keysym)?,
        0x0100_0100..=0x0110_ffff => char::from_u32(keysym - 0x0100_0000)?,
        _ => return None,
    };
    if !c.is_lowercase() {
        return None;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u != c => crate::screen::keysyms::of_char(u),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_get_keys_in_order_and_only_once() {
        let map = Keymap::default()
            .with(&[0x61, 0x20ac_u32 | 0x0100_0000, 0x61])
            .unwrap();
        assert_eq!(map.keycode_of(0x61), Some(FIRST_FREE));
        assert_eq!(map.keycode_of(0x0100_20ac), Some(FIRST_FREE + 1));
        assert_eq!(map.keycode_of(0x62), None);
        // Nothing new: no keymap to send.
        assert_eq!(map.with(&[0x61]), None);
        // Grown, keeping the keys it had.
        let grown = map.with(&[0x62]).unwrap();
        assert_eq!(grown.keycode_of(0x61), Some(FIRST_FREE));
        assert_eq!(grown.keycode_of(0x62), Some(FIRST_FREE + 2));
    }

    #[test]
    fn a_full_keymap_starts_again_with_what_is_wanted() {
        let full = Keymap::default()
            .with(
                &(0..Keymap::capacity() as u32)
                    .map(|k| 0x100 + k)
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        let fresh = full.with(&[0x41]).unwrap();
        assert_eq!(fresh.keycode_of(0x41), Some(FIRST_FREE));
        assert_eq!(fresh.keycode_of(0x100), None);
        // More keysyms than keys: typed in parts by the caller.
        let too_many: Vec<u32> = (0..=Keymap::capacity() as u32).collect();
        assert_eq!(Keymap::default().with(&too_many), None);
    }

    #[test]
    fn letters_have_their_capital_on_the_shifted_level() {
        assert_eq!(shifted(0x69), Some(0x49)); // i → I
        assert_eq!(shifted(0xe9), Some(0xc9)); // é → É
        assert_eq!(shifted(0x0100_03b1), Some(0x0100_0391)); // α → Α
        assert_eq!(shifted(0x49), None); // already a capital
        assert_eq!(shifted(0x31), None); // a digit
        assert_eq!(shifted(0xdf), None); // ß capitalises to two letters
        assert_eq!(shifted(0xff0d), None); // Return
        let text = Keymap::default().with(&[0x69]).unwrap().to_xkb();
        assert!(
            text.contains("key <K13> { [ 0x00000069, 0x00000049 ] };"),
            "{text}"
        );
    }

    #[test]
    fn the_text_names_every_key_and_the_modifier_map() {
        let text = Keymap::default()
            .with(&[0xff0d, 0x0100_00e9])
            .unwrap()
            .to_xkb();
        assert!(text.contains("<K13> = 13;"), "{text}");
        assert!(text.contains("key <K13> { [ 0x0000ff0d ] };"), "{text}");
        assert!(text.contains("key <K14> { [ 0x010000e9 ] };"), "{text}");
        assert!(text.contains("modifier_map Control { <K10> };"), "{text}");
        assert!(text.ends_with("};\n\0"));
    }
}
