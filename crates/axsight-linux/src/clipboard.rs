//! The clipboard of whichever screen the engine uses: the X11 CLIPBOARD
//! selection, a wlroots compositor's selection through data-control, or GNOME
//! Shell's through axsight's extension. Each reads text, holds text of
//! axsight's own, and names who holds it now.

use axsight_core::ClipboardText;

use crate::{x11, Result};

/// A screen's clipboard.
#[derive(Debug)]
pub enum Clipboard {
    X11(x11::Clipboard),
    /// A wlroots compositor's, at `WAYLAND_DISPLAY`.
    DataControl,
    /// GNOME Shell's, through axsight's Shell extension on this bus.
    GnomeShell(zbus::blocking::Connection),
}

impl Clipboard {
    /// The clipboard's text and an identity of its holder (an X window, or on
    /// Wayland a digest of the text); `None` when it holds no text.
    pub fn read(&self) -> Result<Option<ClipboardText>> {
        match self {
            Clipboard::X11(clipboard) => clipboard.read(),
            Clipboard::DataControl => crate::wayland::clipboard::read(),
            Clipboard::GnomeShell(bus) => crate::gnome::clipboard_read(bus),
        }
    }

    /// Holds `text` until another client copies something.
    pub fn hold(&self, text: String) -> Result<()> {
        match self {
            Clipboard::X11(clipboard) => clipboard.hold(text),
            Clipboard::DataControl => crate::wayland::clipboard::hold(text),
            Clipboard::GnomeShell(bus) => crate::gnome::clipboard_hold(bus, &text),
        }
    }

    /// Who holds the clipboard now: an X window, or on Wayland (where holders
    /// have no name) a digest of the text held.
    pub fn owner(&self) -> Result<Option<u32>> {
        match self {
            Clipboard::X11(clipboard) => clipboard.owner(),
            Clipboard::DataControl => crate::wayland::clipboard::owner(),
            Clipboard::GnomeShell(bus) => {
                Ok(crate::gnome::clipboard_read(bus)?.map(|held| held.owner))
            }
        }
    }
}
