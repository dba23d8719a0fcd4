//! The key grammar: what `press_key` and typed text's trailing `{Enter}` accept.
//!
//! ```text
//! keys   = chord { (" " | ",") chord }      ctrl+a Delete,  shift+Tab Return
//! chord  = { modifier "+" } key | "{" chord "}"
//! modifier = ctrl | control | alt | shift | super | win | meta | cmd   (any case)
//! key    = a key name (Return, Enter, Tab, Escape, F4, PageUp, Left, space, …)
//!        | one character (a, 7, +, é)
//! ```
//!
//! Names match case-insensitively and canonicalise to X keysym names (`Enter` →
//! `Return`, `PgUp` → `Prior`), which every Linux tool and agent prompt knows.

use std::fmt;

/// A key held while another is pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Modifier {
    Ctrl,
    Alt,
    Shift,
    Super,
}

impl Modifier {
    /// The modifier `word` names, if it names one.
    pub fn from_name(word: &str) -> Option<Modifier> {
        match word.to_ascii_lowercase().as_str() {
            "ctrl" | "control" | "ctl" => Some(Modifier::Ctrl),
            "alt" | "option" | "opt" => Some(Modifier::Alt),
            "shift" => Some(Modifier::Shift),
            "super" | "win" | "windows" | "meta" | "cmd" | "command" | "logo" => {
                Some(Modifier::Super)
            }
            _ => None,
        }
    }

    /// Modifiers written as `ctrl+shift`, `ctrl, alt` or `alt shift`, without
    /// repeats, in the order given.
    ///
    /// ```
    /// use axsight_core::Modifier;
    /// assert_eq!(Modifier::parse_list("Ctrl+shift+ctrl").unwrap(), vec![Modifier::Ctrl, Modifier::Shift]);
    /// assert!(Modifier::parse_list("hyper").is_err());
    /// ```
    pub fn parse_list(text: &str) -> Result<Vec<Modifier>, String> {
        let mut out = Vec::new();
        for word in text.split(['+', ',', ' ']).filter(|w| !w.is_empty()) {
            let modifier = Modifier::from_name(word).ok_or_else(|| {
                format!("unknown modifier '{word}'; use ctrl, alt, shift or super")
            })?;
            if !out.contains(&modifier) {
                out.push(modifier);
            }
        }
        Ok(out)
    }

    /// The left-hand key's keysym name.
    pub fn key_name(self) -> &'static str {
        match self {
            Modifier::Ctrl => "Control_L",
            Modifier::Alt => "Alt_L",
            Modifier::Shift => "Shift_L",
            Modifier::Super => "Super_L",
        }
    }
}

impl fmt::Display for Modifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Modifier::Ctrl => "ctrl",
            Modifier::Alt => "alt",
            Modifier::Shift => "shift",
            Modifier::Super => "super",
        })
    }
}

/// One key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// A named key, by its canonical keysym name (`Return`, `F4`, `Prior`).
    Named(&'static str),
    /// The key that types this character.
    Char(char),
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Named(name) => f.write_str(name),
            Key::Char(c) => write!(f, "{c}"),
        }
    }
}

/// Modifiers held while one key is pressed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyChord {
    pub modifiers: Vec<Modifier>,
    pub key: Key,
}

impl KeyChord {
    /// Whether pressing `self` is pressing `other`: the same modifiers in any
    /// order, and the same key, a letter in either case (a watcher reports
    /// `Q` where `ctrl+q` was written).
    ///
    /// ```
    /// use axsight_core::parse_keys;
    /// let chord = |text| parse_keys(text).unwrap().remove(0);
    /// assert!(chord("alt+ctrl+End").presses_as(&chord("ctrl+alt+End")));
    /// assert!(chord("ctrl+Q").presses_as(&chord("ctrl+q")));
    /// assert!(!chord("ctrl+End").presses_as(&chord("ctrl+alt+End")));
    /// ```
    pub fn presses_as(&self, other: &KeyChord) -> bool {
        let held = |chord: &KeyChord| {
            let mut modifiers = chord.modifiers.clone();
            modifiers.sort();
            modifiers
        };
        let same_key = match (&self.key, &other.key) {
            (Key::Char(a), Key::Char(b)) => a.to_lowercase().eq(b.to_lowercase()),
            (a, b) => a == b,
        };
        same_key && held(self) == held(other)
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for modifier in &self.modifiers {
            write!(f, "{modifier}+")?;
        }
        write!(f, "{}", self.key)
    }
}

/// A key description that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad key `{token}`: {why}. Write chords like `ctrl+s`, `alt+F4`, `shift+Tab`, `Return`, separated by spaces")]
pub struct KeyError {
    pub token: String,
    pub why: String,
}

/// Names and their aliases, lower case → canonical keysym name.
const NAMES: &[(&str, &str)] = &[
    ("return", "Return"),
    ("enter", "Return"),
    ("tab", "Tab"),
    ("escape", "Escape"),
    ("esc", "Escape"),
    ("backspace", "BackSpace"),
    ("delete", "Delete"),
    ("del", "Delete"),
    ("insert", "Insert"),
    ("ins", "Insert"),
    ("home", "Home"),
    ("end", "End"),
    ("pageup", "Prior"),
    ("page_up", "Prior"),
    ("pgup", "Prior"),
    ("prior", "Prior"),
    ("pagedown", "Next"),
    ("page_down", "Next"),
    ("pgdn", "Next"),
    ("next", "Next"),
    ("up", "Up"),
    ("down", "Down"),
    ("left", "Left"),
    ("right", "Right"),
    ("space", "space"),
    ("spacebar", "space"),
    ("menu", "Menu"),
    ("apps", "Menu"),
    ("print", "Print"),
    ("printscreen", "Print"),
    ("pause", "Pause"),
    ("capslock", "Caps_Lock"),
    ("caps_lock", "Caps_Lock"),
    ("numlock", "Num_Lock"),
    ("num_lock", "Num_Lock"),
    ("scrolllock", "Scroll_Lock"),
    ("scroll_lock", "Scroll_Lock"),
    ("plus", "plus"),
    ("minus", "minus"),
    ("comma", "comma"),
    ("period", "period"),
    // The names a lone modifier is printed with, so a printed chord parses back.
    ("control_l", "Control_L"),
    ("alt_l", "Alt_L"),
    ("shift_l", "Shift_L"),
    ("super_l", "Super_L"),
];

const FUNCTION_KEYS: [&str; 24] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13", "F14", "F15",
    "F16", "F17", "F18", "F19", "F20", "F21", "F22", "F23", "F24",
];

impl Key {
    /// The key `word` names: a known name (any case) or a single character.
    pub fn from_name(word: &str) -> Option<Key> {
        let mut chars = word.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Some(Key::Char(c));
        }
        let lower = word.to_ascii_lowercase();
        if let Some((_, name)) = NAMES.iter().find(|(alias, _)| *alias == lower) {
            return Some(Key::Named(name));
        }
        FUNCTION_KEYS
            .iter()
            .find(|name| name.eq_ignore_ascii_case(word))
            .map(|name| Key::Named(name))
    }
}

/// Parses one chord such as `ctrl+shift+t`, `{Enter}` or `ctrl++`.
fn parse_chord(token: &str) -> Result<KeyChord, KeyError> {
    // Cut as a line shows text: a key list can be as long as a caller likes.
    let bad = |why: &str| KeyError {
        token: crate::bare(token),
        why: why.to_string(),
    };
    // A lone `{` is the brace key itself (as a chord prints it), as `+` is.
    let inner = match token.strip_prefix('{') {
        Some(rest) if !rest.is_empty() => rest
            .strip_suffix('}')
            .ok_or_else(|| bad("an opening `{` needs its `}`"))?,
        _ => token,
    };
    if inner.is_empty() {
        return Err(bad("no key given"));
    }
    // A chord that ends in "+" ends in the plus key itself: `ctrl++`, `+`.
    let (head, last) = match inner.strip_suffix("++") {
        Some(head) => (head, "+"),
        None if inner == "+" => ("", "+"),
        None => match inner.rsplit_once('+') {
            Some((head, last)) => (head, last),
            None => ("", inner),
        },
    };
    if last.is_empty() {
        return Err(bad("a `+` must be followed by a key"));
    }
    let mut modifiers = Vec::new();
    for word in head
        .split('+')
        .filter(|w| !head.is_empty() || !w.is_empty())
    {
        let modifier = Modifier::from_name(word).ok_or_else(|| {
            bad(&format!(
                "`{}` is not a modifier (ctrl, alt, shift, super)",
                crate::bare(word)
            ))
        })?;
        if !modifiers.contains(&modifier) {
            modifiers.push(modifier);
        }
    }
    let key = match Modifier::from_name(last) {
        // A lone modifier (`{Shift}`) is pressed as a key of its own.
        Some(modifier) => Key::Named(modifier.key_name()),
        None => Key::from_name(last).ok_or_else(|| {
            bad(&format!(
                "`{}` is not a key name (Return, Tab, Escape, BackSpace, Delete, Home, End, PageUp, PageDown, Up, Down, Left, Right, space, F1–F24) or a single character",
                crate::bare(last)
            ))
        })?,
    };
    Ok(KeyChord { modifiers, key })
}

/// Parses a key sequence: chords separated by spaces or commas.
///
/// ```
/// use axsight_core::{parse_keys, Key, Modifier};
/// let chords = parse_keys("ctrl+s, shift+Tab {Enter}").unwrap();
/// assert_eq!(chords.len(), 3);
/// assert_eq!(chords[0].modifiers, vec![Modifier::Ctrl]);
/// assert_eq!(chords[0].key, Key::Char('s'));
/// assert_eq!(chords[2].key, Key::Named("Return"));
/// assert!(parse_keys("ctrl+").is_err());
/// ```
pub fn parse_keys(text: &str) -> Result<Vec<KeyChord>, KeyError> {
    let tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    // A lone "," is the comma key, not a separator between nothing.
    let tokens = if tokens.is_empty() && text.trim() == "," {
        vec![","]
    } else {
        tokens
    };
    if tokens.is_empty() {
        return Err(KeyError {
            token: text.to_string(),
            why: "no key given".into(),
        });
    }
    tokens.into_iter().map(parse_chord).collect()
}

/// Splits text to type from the keys to press after it: trailing `{Enter}`,
/// `{Tab}`, `{Escape}` (any braced chord) come off the end; braces that do not
/// name a key stay text.
///
/// ```
/// use axsight_core::{split_trailing_keys, Key};
/// let (text, keys) = split_trailing_keys("hello{Tab}{Enter}");
/// assert_eq!(text, "hello");
/// assert_eq!(keys.iter().map(|k| k.key.clone()).collect::<Vec<_>>(),
///            vec![Key::Named("Tab"), Key::Named("Return")]);
/// assert_eq!(split_trailing_keys("a {b c}").0, "a {b c}");
/// ```
pub fn split_trailing_keys(text: &str) -> (&str, Vec<KeyChord>) {
    let mut rest = text;
    let mut keys = Vec::new();
    while rest.ends_with('}') {
        let Some(open) = rest.rfind('{') else { break };
        let Ok(chord) = parse_chord(&rest[open..]) else {
            break;
        };
        keys.push(chord);
        rest = &rest[..open];
    }
    keys.reverse();
    (rest, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(text: &str) -> KeyChord {
        parse_chord(text).unwrap()
    }

    #[test]
    fn names_and_aliases_canonicalise() {
        assert_eq!(chord("Enter").key, Key::Named("Return"));
        assert_eq!(chord("RETURN").key, Key::Named("Return"));
        assert_eq!(chord("esc").key, Key::Named("Escape"));
        assert_eq!(chord("PgUp").key, Key::Named("Prior"));
        assert_eq!(chord("f4").key, Key::Named("F4"));
        assert_eq!(chord("é").key, Key::Char('é'));
    }

    #[test]
    fn chords_carry_modifiers_in_order_without_repeats() {
        let c = chord("ctrl+shift+ctrl+t");
        assert_eq!(c.modifiers, vec![Modifier::Ctrl, Modifier::Shift]);
        assert_eq!(c.key, Key::Char('t'));
        assert_eq!(chord("alt+F4").to_string(), "alt+F4");
        assert_eq!(chord("Win+r").modifiers, vec![Modifier::Super]);
    }

    #[test]
    fn a_long_bad_key_is_named_by_its_start() {
        let long = "q".repeat(100_000);
        let error = parse_keys(&long).unwrap_err().to_string();
        assert!(error.len() < 600, "{} bytes", error.len());
        let error = parse_keys(&format!("{long}+a")).unwrap_err().to_string();
        assert!(error.len() < 600, "{} bytes", error.len());
    }

    #[test]
    fn plus_is_a_key_where_it_ends_a_chord() {
        assert_eq!(chord("ctrl++").key, Key::Char('+'));
        assert_eq!(chord("ctrl++").modifiers, vec![Modifier::Ctrl]);
        assert_eq!(chord("+").key, Key::Char('+'));
        assert!(chord("+").modifiers.is_empty());
    }

    #[test]
    fn a_lone_modifier_is_a_key() {
        assert_eq!(chord("{Shift}").key, Key::Named("Shift_L"));
        assert!(chord("{Shift}").modifiers.is_empty());
    }

    #[test]
    fn sequences_split_on_spaces_and_commas() {
        let keys = parse_keys("ctrl+a Delete,{Enter}").unwrap();
        let shown: Vec<String> = keys.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["ctrl+a", "Delete", "Return"]);
        assert_eq!(parse_keys(",").unwrap()[0].key, Key::Char(','));
    }

    #[test]
    fn bad_keys_name_the_token_and_the_fix() {
        let error = parse_keys("ctrl+s hyper+x").unwrap_err();
        assert_eq!(error.token, "hyper+x");
        assert!(error.why.contains("not a modifier"), "{error}");
        let error = parse_keys("ctrl+Enterr").unwrap_err();
        assert!(error.to_string().contains("not a key name"), "{error}");
        assert!(parse_keys("  ").is_err());
        assert!(parse_keys("{Enter").is_err());
        assert!(parse_keys("ctrl+").is_err());
    }

    #[test]
    fn trailing_keys_come_off_typed_text() {
        let (text, keys) = split_trailing_keys("user@example.com{Enter}");
        assert_eq!(text, "user@example.com");
        assert_eq!(keys, vec![chord("Return")]);
        let (text, keys) = split_trailing_keys("{not a key}");
        assert_eq!((text, keys.len()), ("{not a key}", 0));
        let (text, keys) = split_trailing_keys("x{Escape}y");
        assert_eq!((text, keys.len()), ("x{Escape}y", 0));
    }
}

/// Arbitrary input: the key grammar never panics, and what it prints of a chord
/// it parsed parses back to the same chord.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "ctrl", "alt", "shift", "super", "+", "a", "Z", "5", "Return", "F4", "F25", "Tab", "é",
        "ctrl+", "+a", " ", ",", "space", "Prior", "{", "}", "",
    ];

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in any::<String>()) {
            let _ = parse_keys(&text);
        }

        #[test]
        fn printed_chords_parse_back(pieces in prop::collection::vec(proptest::sample::select(PIECES), 0..8)) {
            if let Ok(chords) = parse_keys(&pieces.concat()) {
                let printed = chords.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ");
                prop_assert_eq!(parse_keys(&printed).ok(), Some(chords), "{}", printed);
            }
        }
    }
}
