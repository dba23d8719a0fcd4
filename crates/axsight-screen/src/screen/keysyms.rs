//! X keysym numbers (which XKB and so Wayland share) for the key names core's key
//! grammar produces, and for typed characters. Pure data and arithmetic: no
//! connection, no keyboard map (each input backend finds or makes keys for them).

/// Keysyms of the canonical names in `axsight_core`'s key grammar (values from
/// `X11/keysymdef.h`). F1–F24 are computed in [`named`].
const NAMED: &[(&str, u32)] = &[
    ("Return", 0xff0d),
    ("Tab", 0xff09),
    ("Escape", 0xff1b),
    ("BackSpace", 0xff08),
    ("Delete", 0xffff),
    ("Insert", 0xff63),
    ("Home", 0xff50),
    ("End", 0xff57),
    ("Prior", 0xff55),
    ("Next", 0xff56),
    ("Up", 0xff52),
    ("Down", 0xff54),
    ("Left", 0xff51),
    ("Right", 0xff53),
    ("space", 0x0020),
    ("Menu", 0xff67),
    ("Print", 0xff61),
    ("Pause", 0xff13),
    ("Caps_Lock", 0xffe5),
    ("Num_Lock", 0xff7f),
    ("Scroll_Lock", 0xff14),
    ("plus", 0x002b),
    ("minus", 0x002d),
    ("comma", 0x002c),
    ("period", 0x002e),
    ("Control_L", 0xffe3),
    ("Alt_L", 0xffe9),
    ("Shift_L", 0xffe1),
    ("Super_L", 0xffeb),
];

pub const RETURN: u32 = 0xff0d;
const F1: u32 = 0xffbe;

/// The keysym of a canonical key name (`Return`, `F4`, `Prior`, `Shift_L`).
pub fn named(name: &str) -> Option<u32> {
    if let Some((_, keysym)) = NAMED.iter().find(|(known, _)| *known == name) {
        return Some(*keysym);
    }
    let number: u32 = name.strip_prefix('F')?.parse().ok()?;
    (1..=24).contains(&number).then(|| F1 + number - 1)
}

/// F1 to F24 by number, for naming a function key's keysym.
const FUNCTION_KEYS: [&str; 24] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13", "F14", "F15",
    "F16", "F17", "F18", "F19", "F20", "F21", "F22", "F23", "F24",
];

/// The canonical name of a key's keysym, as the key grammar writes it: the
/// inverse of [`named`], with the keypad's Enter as `Return` and the Tab that
/// Shift gives (`ISO_Left_Tab`) as `Tab`. Modifier keys and printable
/// characters give `None` (see [`is_modifier`] and [`char_of`]).
pub fn name_of(keysym: u32) -> Option<&'static str> {
    match keysym {
        0xff8d => return Some("Return"),
        0xfe20 => return Some("Tab"),
        _ if is_modifier(keysym) || char_of(keysym).is_some() => return None,
        _ => {}
    }
    if let Some((name, _)) = NAMED.iter().find(|(_, sym)| *sym == keysym) {
        return Some(name);
    }
    let index = keysym.checked_sub(F1)?;
    FUNCTION_KEYS.get(usize::try_from(index).ok()?).copied()
}

/// Whether `keysym` is a modifier key's (Shift, Control, Alt, Super, Caps
/// Lock, the ISO level shifts): held for other keys, not a key of its own.
pub fn is_modifier(keysym: u32) -> bool {
    matches!(keysym, 0xffe1..=0xffee | 0xfe01..=0xfe13 | 0xff7e | 0xff7f)
}

/// The keysym that types `c`: Latin-1 characters are their own keysyms, others
/// are `0x01000000 + code point`. Newline is Return; the few control characters
/// with a key of their own map to it; other control characters have no keysym.
pub fn of_char(c: char) -> Option<u32> {
    let code = c as u32;
    match c {
        '\n' | '\r' => Some(RETURN),
        '\t' => Some(0xff09),
        '\u{8}' => Some(0xff08),
        '\u{1b}' => Some(0xff1b),
        '\u{7f}' => Some(0xffff),
        _ if c.is_control() => None,
        _ if (0x20..=0x7e).contains(&code) || (0xa0..=0xff).contains(&code) => Some(code),
        _ => Some(0x0100_0000 + code),
    }
}

/// The character `keysym` types, where it is one: the inverse of [`of_char`]
/// for printable characters (named keys such as Return give `None`).
pub fn char_of(keysym: u32) -> Option<char> {
    match keysym {
        0x20..=0x7e | 0xa0..=0xff => char::from_u32(keysym),
        0x0100_0100..=0x0110_ffff => char::from_u32(keysym - 0x0100_0000),
        _ => None,
    }
}

/// The keysyms that type `text`, one per character but one Return for a CRLF;
/// the first character without a keysym is the error.
pub fn of_text(text: &str) -> Result<Vec<u32>, char> {
    let mut keysyms = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue; // one line break, not two
        }
        keysyms.push(of_char(c).ok_or(c)?);
    }
    Ok(keysyms)
}

/// `c` in lower case when that is one character (`S` → `s`), else `c`: the key
/// a chord such as `ctrl+S` means, as menus write accelerators.
pub fn single_lowercase(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// The keysym a chord presses, or why it has none. `ctrl+S` means the S key,
/// as menus write accelerators; only an explicit shift adds Shift. A lone `A`
/// types an A.
pub fn of_chord(chord: &axsight_core::KeyChord) -> Result<u32, String> {
    match &chord.key {
        axsight_core::Key::Named(name) => {
            named(name).ok_or_else(|| format!("no keysym for key `{name}`"))
        }
        axsight_core::Key::Char(c) => {
            let c = match chord.modifiers.is_empty() {
                true => *c,
                false => single_lowercase(*c),
            };
            of_char(c).ok_or_else(|| no_key_for(c))
        }
    }
}

/// Why `c` cannot be typed (it has no keysym: a control character).
pub fn no_key_for(c: char) -> String {
    format!(
        "cannot type U+{:04X}: a control character has no key",
        c as u32
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms_name_their_keys_as_the_grammar_writes_them() {
        assert_eq!(name_of(0xff0d), Some("Return"));
        assert_eq!(name_of(0xff8d), Some("Return"));
        assert_eq!(name_of(0xfe20), Some("Tab"));
        assert_eq!(name_of(0xffc2), Some("F5"));
        assert_eq!(name_of(F1 + 23), Some("F24"));
        assert_eq!(name_of(F1 + 24), None);
        // Modifiers and characters are not named keys.
        assert_eq!(name_of(0xffe3), None);
        assert_eq!(name_of(0x61), None);
        assert!(is_modifier(0xffe1) && is_modifier(0xfe03) && !is_modifier(0xff0d));
        for (name, keysym) in NAMED
            .iter()
            .filter(|(_, k)| !is_modifier(*k) && char_of(*k).is_none())
        {
            assert_eq!(name_of(*keysym), Some(*name));
        }
    }

    #[test]
    fn chords_name_lowercase_keys_unless_alone() {
        use axsight_core::{Key, KeyChord, Modifier};
        let chord = |modifiers: Vec<Modifier>, c| KeyChord {
            modifiers,
            key: Key::Char(c),
        };
        assert_eq!(of_chord(&chord(vec![Modifier::Ctrl], 'S')), Ok(0x73));
        assert_eq!(of_chord(&chord(vec![], 'S')), Ok(0x53));
        let named = KeyChord {
            modifiers: vec![],
            key: Key::Named("Return"),
        };
        assert_eq!(of_chord(&named), Ok(0xff0d));
    }

    #[test]
    fn printable_keysyms_give_back_their_character() {
        for c in ['a', 'é', '€', '日'] {
            assert_eq!(of_char(c).and_then(char_of), Some(c));
        }
        assert_eq!(char_of(RETURN), None);
    }

    #[test]
    fn chord_letters_fold_to_their_key() {
        assert_eq!(single_lowercase('S'), 's');
        assert_eq!(single_lowercase('É'), 'é');
        assert_eq!(single_lowercase('+'), '+');
        // İ lowercases to two characters: kept as it is.
        assert_eq!(single_lowercase('İ'), 'İ');
    }

    #[test]
    fn characters_map_to_latin1_or_unicode_keysyms() {
        assert_eq!(of_char('a'), Some(0x61));
        assert_eq!(of_char('A'), Some(0x41));
        assert_eq!(of_char('~'), Some(0x7e));
        assert_eq!(of_char(' '), Some(0x20));
        assert_eq!(of_char('é'), Some(0xe9));
        assert_eq!(of_char('\u{a0}'), Some(0xa0));
        assert_eq!(of_char('ÿ'), Some(0xff));
        assert_eq!(of_char('€'), Some(0x0100_20ac));
        assert_eq!(of_char('日'), Some(0x0100_65e5));
        assert_eq!(of_char('😀'), Some(0x0101_f600));
        assert_eq!(of_char('\n'), Some(RETURN));
        assert_eq!(of_char('\t'), Some(0xff09));
        assert_eq!(of_char('\u{1}'), None);
        assert_eq!(of_char('\u{85}'), None);
    }

    #[test]
    fn text_maps_whole_or_names_its_first_bad_character() {
        assert_eq!(
            of_text("a\r\nb\rc\n"),
            Ok(vec![0x61, RETURN, 0x62, RETURN, 0x63, RETURN])
        );
        assert_eq!(of_text("É€"), Ok(vec![0xc9, 0x0100_20ac]));
        assert_eq!(of_text(""), Ok(vec![]));
        assert_eq!(of_text("ok\u{1}\u{2}"), Err('\u{1}'));
    }

    #[test]
    fn function_keys_run_from_f1_to_f24() {
        assert_eq!(named("F1"), Some(0xffbe));
        assert_eq!(named("F12"), Some(0xffc9));
        assert_eq!(named("F24"), Some(0xffd5));
        assert_eq!(named("F0"), None);
        assert_eq!(named("F25"), None);
        assert_eq!(named("Fx"), None);
    }

    /// Every name core's grammar can produce has a keysym: each alias word, the
    /// function keys, and the modifiers pressed as keys of their own.
    #[test]
    fn every_canonical_name_has_a_keysym() {
        use axsight_core::{Key, Modifier};
        let words = [
            "return",
            "enter",
            "tab",
            "escape",
            "esc",
            "backspace",
            "delete",
            "del",
            "insert",
            "ins",
            "home",
            "end",
            "pageup",
            "page_up",
            "pgup",
            "prior",
            "pagedown",
            "page_down",
            "pgdn",
            "next",
            "up",
            "down",
            "left",
            "right",
            "space",
            "spacebar",
            "menu",
            "apps",
            "print",
            "printscreen",
            "pause",
            "capslock",
            "caps_lock",
            "numlock",
            "num_lock",
            "scrolllock",
            "scroll_lock",
            "plus",
            "minus",
            "comma",
            "period",
        ];
        let function_keys = (1..=24).map(|n| format!("f{n}"));
        for word in words.iter().map(|w| w.to_string()).chain(function_keys) {
            match Key::from_name(&word) {
                Some(Key::Named(name)) => {
                    assert!(named(name).is_some(), "{word} → {name} has no keysym")
                }
                other => panic!("{word} is no key name in core: {other:?}"),
            }
        }
        for modifier in [
            Modifier::Ctrl,
            Modifier::Alt,
            Modifier::Shift,
            Modifier::Super,
        ] {
            assert!(named(modifier.key_name()).is_some(), "{modifier}");
        }
        // And nothing in the table is unreachable from core's grammar.
        for (name, _) in NAMED {
            let reachable = Key::from_name(name) == Some(Key::Named(name))
                || [
                    Modifier::Ctrl,
                    Modifier::Alt,
                    Modifier::Shift,
                    Modifier::Super,
                ]
                .iter()
                .any(|m| m.key_name() == *name);
            assert!(reachable, "{name}");
        }
    }
}
