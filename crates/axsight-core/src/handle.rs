//! Handles (`#u14`, `#o7`) and the registry that hands them out.
//!
//! A `u` handle names one live object for the whole session: the registry remembers
//! each [`ElementId`] it has numbered and gives it the same number in every later
//! capture. The registry does not know whether an object is still alive; whoever
//! resolves a handle checks that against the engine.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use crate::{ElementId, Role};

/// Where a handle's element came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The accessibility tree.
    Tree,
    /// The browser DOM.
    Dom,
    /// A UI-element detector model.
    Detector,
    /// A vision model.
    Vision,
    /// OCR.
    Ocr,
}

impl Source {
    /// The handle letter.
    pub fn letter(self) -> char {
        match self {
            Source::Tree => 'u',
            Source::Dom => 'd',
            Source::Detector => 'm',
            Source::Vision => 'v',
            Source::Ocr => 'o',
        }
    }

    fn from_letter(letter: char) -> Option<Source> {
        Some(match letter {
            'u' => Source::Tree,
            'd' => Source::Dom,
            'm' => Source::Detector,
            'v' => Source::Vision,
            'o' => Source::Ocr,
            _ => return None,
        })
    }

    /// Parses the `vision_type` names Windows-era agents send with a numeric index.
    pub fn from_vision_type(name: &str) -> Option<Source> {
        Some(match name.to_ascii_lowercase().as_str() {
            "ui_tree" | "tree" | "uia" | "u" => Source::Tree,
            "dom" | "browser_dom" | "d" => Source::Dom,
            "omniparser" | "detector" | "m" => Source::Detector,
            "gemini" | "vision" | "v" => Source::Vision,
            "ocr" | "o" => Source::Ocr,
            _ => return None,
        })
    }
}

/// A source letter and a number, printed `#u14`.
///
/// ```
/// use axsight_core::{Handle, Source};
/// let handle: Handle = "#u14".parse().unwrap();
/// assert_eq!(handle, Handle { source: Source::Tree, number: 14 });
/// assert_eq!("u14".parse::<Handle>().unwrap().to_string(), "#u14");
/// assert!("x1".parse::<Handle>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle {
    pub source: Source,
    pub number: u32,
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}{}", self.source.letter(), self.number)
    }
}

/// A handle that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{text}' is not a handle: expected a source letter (u, d, m, v, o) and a number, like #u14"
)]
pub struct HandleParseError {
    pub text: String,
}

impl FromStr for Handle {
    type Err = HandleParseError;

    fn from_str(text: &str) -> Result<Handle, HandleParseError> {
        let err = || HandleParseError {
            text: text.to_string(),
        };
        let body = text.trim();
        let body = body.strip_prefix('#').unwrap_or(body);
        let mut chars = body.chars();
        let source = chars.next().and_then(Source::from_letter).ok_or_else(err)?;
        let digits = chars.as_str();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let number = digits.parse().map_err(|_| err())?;
        Ok(Handle { source, number })
    }
}

/// What the registry remembers of a tree element, to resolve and re-check a handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandleEntry {
    pub id: ElementId,
    /// Role and name when last seen: the fingerprint a stale-handle check compares.
    pub role: Role,
    pub name: String,
}

/// What a handle number stands for now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// A live entry.
    Entry(&'a HandleEntry),
    /// Its element's window closed and the registry let it go (see
    /// [`HandleRegistry::expire`]): the number is never given again.
    Expired,
}

/// Hands out `u` numbers, one per live object, stable for the session.
#[derive(Debug, Default, Clone)]
pub struct HandleRegistry {
    by_id: HashMap<ElementId, u32>,
    /// By number (from 1); `None` once expired, so numbers stay unique.
    entries: Vec<Option<HandleEntry>>,
}

impl HandleRegistry {
    /// An empty registry; the first handle is `#u1`.
    pub fn new() -> HandleRegistry {
        HandleRegistry::default()
    }

    /// The handle of the element with `id`, numbering it if it is new. Role and name
    /// are refreshed so later checks compare against what the agent last saw.
    pub fn assign(&mut self, id: &ElementId, role: Role, name: &str) -> Handle {
        let known = self.by_id.get(id).copied();
        let number = match known.and_then(|n| Some((n, self.entries[n as usize - 1].as_mut()?))) {
            Some((number, entry)) => {
                entry.role = role;
                if entry.name != name {
                    entry.name = name.to_string();
                }
                number
            }
            None => {
                self.entries.push(Some(HandleEntry {
                    id: id.clone(),
                    role,
                    name: name.to_string(),
                }));
                let number = self.entries.len() as u32;
                self.by_id.insert(id.clone(), number);
                number
            }
        };
        Handle {
            source: Source::Tree,
            number,
        }
    }

    /// Gives the handle of `from` to `to`, an element the app made anew just as
    /// `from` was: the agent's handle goes on naming it. Nothing happens where
    /// `from` has no handle or `to` has one already.
    ///
    /// ```
    /// use axsight_core::{ElementId, HandleRegistry, Role};
    /// let mut handles = HandleRegistry::new();
    /// let old = ElementId(":1.2/old".into());
    /// let new = ElementId(":1.2/new".into());
    /// let given = handles.assign(&old, Role::ToolBar, "Properties");
    /// handles.carry(&old, &new);
    /// assert_eq!(handles.handle_of(&new), Some(given));
    /// assert_eq!(handles.handle_of(&old), None);
    /// ```
    pub fn carry(&mut self, from: &ElementId, to: &ElementId) {
        if self.by_id.contains_key(to) {
            return;
        }
        let Some(number) = self.by_id.remove(from) else {
            return;
        };
        if let Some(entry) = self.entries[number as usize - 1].as_mut() {
            entry.id = to.clone();
        }
        self.by_id.insert(to.clone(), number);
    }

    /// The handle already given to `id`, if any.
    pub fn handle_of(&self, id: &ElementId) -> Option<Handle> {
        self.by_id.get(id).map(|&number| Handle {
            source: Source::Tree,
            number,
        })
    }

    /// What `handle` was given to, if this registry gave it and it is live.
    pub fn resolve(&self, handle: Handle) -> Option<&HandleEntry> {
        match self.lookup(handle)? {
            Resolved::Entry(entry) => Some(entry),
            Resolved::Expired => None,
        }
    }

    /// What `handle` stands for, if this registry gave it: live or expired.
    pub fn lookup(&self, handle: Handle) -> Option<Resolved<'_>> {
        if handle.source != Source::Tree || handle.number == 0 {
            return None;
        }
        let slot = self.entries.get(handle.number as usize - 1)?;
        Some(slot.as_ref().map_or(Resolved::Expired, Resolved::Entry))
    }

    /// Lets go of the entries whose element `gone` says is gone for good (its
    /// window closed): their numbers answer "expired" and are never reused.
    /// Returns how many expired.
    pub fn expire(&mut self, gone: impl Fn(&ElementId) -> bool) -> usize {
        let mut expired = 0;
        for slot in &mut self.entries {
            if slot.as_ref().is_some_and(|entry| gone(&entry.id)) {
                *slot = None;
                expired += 1;
            }
        }
        self.by_id.retain(|id, _| !gone(id));
        expired
    }

    /// How many handles are live (given out and not expired).
    pub fn live(&self) -> usize {
        self.by_id.len()
    }

    /// How many handles have been given out.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no handle has been given out yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_object_keeps_its_number() {
        let mut registry = HandleRegistry::new();
        let a = ElementId("a".into());
        let b = ElementId("b".into());
        let first = registry.assign(&a, Role::Button, "Save");
        let second = registry.assign(&b, Role::Button, "Open");
        assert_eq!(first.to_string(), "#u1");
        assert_eq!(second.to_string(), "#u2");
        assert_eq!(registry.assign(&a, Role::Button, "Saved"), first);
        assert_eq!(registry.resolve(first).unwrap().name, "Saved");
        assert!(registry.resolve("#u3".parse().unwrap()).is_none());
        assert!(registry.resolve("#u0".parse().unwrap()).is_none());
        assert!(registry.resolve("#o1".parse().unwrap()).is_none());
    }

    #[test]
    fn expired_handles_say_so_and_their_numbers_are_not_reused() {
        let mut registry = HandleRegistry::new();
        let dialog = ElementId("dialog/ok".into());
        let main = ElementId("main/save".into());
        let ok = registry.assign(&dialog, Role::Button, "OK");
        let save = registry.assign(&main, Role::Button, "Save");
        assert_eq!(registry.expire(|id| id.0.starts_with("dialog/")), 1);
        assert_eq!(registry.lookup(ok), Some(Resolved::Expired));
        assert!(registry.resolve(ok).is_none());
        assert!(registry.resolve(save).is_some());
        assert_eq!(registry.live(), 1);
        // The same object again (it cannot be, once gone) would get a new number.
        let again = registry.assign(&dialog, Role::Button, "OK");
        assert_ne!(again, ok);
        assert_eq!(registry.len(), 3);
    }

    #[test]
    fn handle_parsing_rejects_junk() {
        for bad in ["", "#", "u", "#u", "u-1", "u1x", "q3", "#u99999999999"] {
            assert!(bad.parse::<Handle>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(" #o7 ".parse::<Handle>().unwrap().source, Source::Ocr);
        assert_eq!(Source::from_vision_type("ui_tree"), Some(Source::Tree));
    }
}
