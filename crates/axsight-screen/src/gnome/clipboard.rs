//! GNOME Shell's clipboard, through axsight's Shell extension (Wayland lets no
//! other client read or set it): its text, and a digest of the text as its
//! holder's identity, since Wayland names no holder.

use axsight_core::ClipboardText;
use zbus::blocking::Connection;

use super::windows;
use crate::screen::clipboard::digest;
use crate::screen::clipboard::Clipboard;
use crate::{Error, Result};

/// The Shell's clipboard on one session bus.
#[derive(Debug)]
pub struct ShellClipboard {
    bus: Connection,
}

impl ShellClipboard {
    pub fn new(bus: Connection) -> ShellClipboard {
        ShellClipboard { bus }
    }

    fn call<B, R>(&self, method: &str, body: &B) -> Result<R>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
    {
        crate::screen::session_bus::call(
            &self.bus,
            "org.gnome.Shell",
            windows::PATH,
            windows::INTERFACE,
            method,
            body,
        )
        .map_err(|e| Error::Clipboard(e.to_string()))
    }
}

impl Clipboard for ShellClipboard {
    fn read(&self) -> Result<Option<ClipboardText>> {
        let text: String = self.call("GetClipboard", &())?;
        if text.is_empty() {
            return Ok(None);
        }
        let owner = digest(&text);
        Ok(Some(ClipboardText { text, owner }))
    }

    fn hold(&self, text: String) -> Result<()> {
        self.call("SetClipboard", &(text.as_str(),))
    }

    fn owner(&self) -> Result<Option<u32>> {
        Ok(self.read()?.map(|held| held.owner))
    }
}
