//! The desktop portals' client (xdg-desktop-portal), for any screen that
//! reaches a compositor through them: input through the RemoteDesktop portal
//! ([`remote_desktop`]), screenshots through the Screenshot portal
//! ([`screenshot`]), each allowed by the user once in the desktop's own dialog,
//! and the restore token that lets later runs in without it
//! ([`restore_token`]). The portal screen, GNOME's and KDE's use it; it names
//! no backend.

pub mod remote_desktop;
pub mod request;
pub mod restore_token;
pub mod screenshot;

use std::time::Duration;

use axsight_core::{Bounds, Capture, Point};
use zbus::blocking::Connection;

use crate::screen::remote_input::RemoteInput;
use crate::Result;
use remote_desktop::PortalRemoteDesktop;
pub use remote_desktop::{Cursor, Pointing};

/// How long the user has to answer the desktop's dialog.
pub const APPROVAL_DEADLINE: Duration = Duration::from_secs(90);
/// How long a screenshot may take once they are allowed.
const SHOT_DEADLINE: Duration = Duration::from_secs(4);

/// Who types through the portal, for refusals.
const TYPIST: &str = "the RemoteDesktop portal";

/// Whether `AXSIGHT_SCREEN` asks for the portals on any Wayland desktop.
///
/// ```text
/// AXSIGHT_SCREEN=portal   the portals, even where the compositor has its own interfaces
/// ```
pub fn wanted(var: impl Fn(&str) -> Option<String>) -> bool {
    match var("AXSIGHT_SCREEN").as_deref().map(str::trim) {
        Some("portal") => true,
        None | Some("") | Some("auto") => false,
        Some(other) => {
            tracing::warn!(
                value = other,
                "AXSIGHT_SCREEN is `portal` or `auto`: taken as auto"
            );
            false
        }
    }
}

/// Starts the RemoteDesktop portal's session (asking the user unless a kept
/// restore token lets it in) as virtual devices placing the pointer as
/// `pointing` says.
pub fn start_input(bus: &Connection, pointing: Pointing) -> Result<RemoteInput> {
    let token = restore_token::path(|name| std::env::var(name).ok());
    let session = PortalRemoteDesktop::start(bus, token, APPROVAL_DEADLINE, pointing)?;
    Ok(RemoteInput::new(Box::new(session), TYPIST))
}

/// Takes a first screenshot through the portal, which asks the user whether
/// apps may take them (once: the portal keeps the answer); its size, so that
/// a screen without input knows the layout.
pub fn allow_screenshots(bus: &Connection) -> Result<Capture> {
    screenshot::capture(bus, Point { x: 0, y: 0 }, APPROVAL_DEADLINE)
}

/// The pixels of `area` of `layout` through the Screenshot portal.
pub fn capture(bus: &Connection, layout: Bounds, area: Bounds) -> Result<Capture> {
    screenshot::capture_area(bus, layout, area, SHOT_DEADLINE)
}
