//! The seam of a screen's clipboard: reading its text, holding text of
//! axsight's own, and naming who holds it now. Each display server brings its
//! own (the X11 CLIPBOARD selection, a wlroots compositor's data-control,
//! GNOME Shell's through axsight's extension); the engine holds whichever its
//! screen gave, or the X display's.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use axsight_core::ClipboardText;

use crate::Result;

/// A screen's clipboard. Its calls block: the engine makes them off its
/// async threads.
pub trait Clipboard: Send + Sync + std::fmt::Debug {
    /// The clipboard's text and an identity of its holder (an X window, or on
    /// Wayland a digest of the text); `None` when it holds no text.
    fn read(&self) -> Result<Option<ClipboardText>>;

    /// Holds `text` until another client copies something.
    fn hold(&self, text: String) -> Result<()>;

    /// Who holds the clipboard now: an X window, or on Wayland (where holders
    /// have no name) a digest of the text held.
    fn owner(&self) -> Result<Option<u32>>;
}

/// A digest of `text`, the same in every process (SipHash with fixed keys): on
/// Wayland, which names no holder, it stands for the clipboard's owner.
pub fn digest(text: &str) -> u32 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_the_texts_own() {
        assert_eq!(digest("hunter2"), digest("hunter2"));
        assert_ne!(digest("hunter2"), digest("hunter3"));
    }
}
