//! The keys of `key:value` atoms and how each reads its value: role and state names,
//! booleans, `nth:` integers. Errors are plain messages; the parser adds positions.

use super::ast::{Atom, RoleMatch};
use super::suggest::{close_matches, did_you_mean};
use crate::{Role, State};

/// The key of a `key:value` atom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    Role,
    Name,
    Text,
    Id,
    Desc,
    Value,
    State,
    App,
    Window,
    Visible,
    Enabled,
    Focused,
    Checked,
    Nth,
}

/// Every key with its spelling, in the order error messages list them.
const KEYS: &[(&str, Key)] = &[
    ("role", Key::Role),
    ("name", Key::Name),
    ("text", Key::Text),
    ("id", Key::Id),
    ("desc", Key::Desc),
    ("value", Key::Value),
    ("state", Key::State),
    ("app", Key::App),
    ("window", Key::Window),
    ("visible", Key::Visible),
    ("enabled", Key::Enabled),
    ("focused", Key::Focused),
    ("checked", Key::Checked),
    ("nth", Key::Nth),
];

/// What a `key:value` pair means.
pub(super) enum Reading {
    Atom(Atom),
    /// `nth:N`, which is not a test on an element but picks among a step's matches.
    Nth(i64),
}

/// Looks up a key, ignoring ASCII case; returns its canonical spelling too.
pub(super) fn lookup(key: &str) -> Result<(&'static str, Key), String> {
    if let Some(&known) = KEYS.iter().find(|(name, _)| name.eq_ignore_ascii_case(key)) {
        return Ok(known);
    }
    let names = || KEYS.iter().map(|&(name, _)| name);
    let valid = names().collect::<Vec<_>>().join(", ");
    if key.is_empty() {
        return Err(format!(
            "expected a key before ':' (one of {valid}); quote text that has a colon"
        ));
    }
    let hint = did_you_mean(&close_matches(key, names()));
    Err(format!(
        "unknown key '{key}'{hint}: expected one of {valid}; quote text that has a colon"
    ))
}

/// Reads the non-empty `value` given to `key`, spelt `name`.
pub(super) fn read(name: &str, key: Key, value: String) -> Result<Reading, String> {
    let flag = || match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!(
            "expected true or false after '{name}:', found '{value}'"
        )),
    };
    let atom = match key {
        Key::Role => Atom::Role(role(&value)?),
        Key::Name => Atom::Name(value),
        Key::Text => Atom::Text(value),
        Key::Id => Atom::Id(value),
        Key::Desc => Atom::Desc(value),
        Key::Value => Atom::Value(value),
        Key::State => Atom::State(state(&value)?),
        Key::App => Atom::App(value),
        Key::Window => Atom::Window(value),
        Key::Visible => Atom::Visible(flag()?),
        Key::Enabled => Atom::Enabled(flag()?),
        Key::Focused => Atom::Focused(flag()?),
        Key::Checked => Atom::Checked(flag()?),
        Key::Nth => {
            return value.parse().map(Reading::Nth).map_err(|_| {
                format!(
                    "expected an integer after 'nth:' (0 is the first match, -1 the last), \
                     found '{value}'"
                )
            })
        }
    };
    Ok(Reading::Atom(atom))
}

/// A normalised role name, or else a raw AT-SPI role name that axsight knows.
fn role(value: &str) -> Result<RoleMatch, String> {
    if let Some(role) = Role::parse(value) {
        return Ok(RoleMatch::Normalised(role));
    }
    let raw = value.to_lowercase();
    if Role::from_atspi_name(&raw) != Role::Unknown {
        return Ok(RoleMatch::Raw(raw));
    }
    let hint = did_you_mean(&close_matches(value, Role::ALL.iter().map(|r| r.as_str())));
    Err(format!(
        "unknown role '{value}'{hint}: expected a role such as Button, Edit, MenuItem, \
         or an AT-SPI role name such as \"push button\""
    ))
}

fn state(value: &str) -> Result<State, String> {
    State::parse(value).ok_or_else(|| {
        let names: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        let hint = did_you_mean(&close_matches(value, names.iter().copied()));
        format!(
            "unknown state '{value}'{hint}: expected one of {}",
            names.join(", ")
        )
    })
}
