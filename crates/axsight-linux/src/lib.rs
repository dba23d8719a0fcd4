//! The Linux engine of axsight: the AT-SPI2 accessibility tree over D-Bus, on
//! the screen it is shown on, which `axsight-screen` provides: X11, or a Wayland
//! compositor (sway, GNOME, KDE, or any through the desktop portals), for where
//! windows sit, real input and the screen's pixels.
//!
//! It finds the display and buses even from a stripped environment ([`discover`]),
//! chooses the screen's backend for the session (`backends`, the one place that
//! knows them all), lists applications and windows, and reads a window's tree
//! with pipelined D-Bus calls into an [`axsight_core::Tree`]. It owns every
//! D-Bus detail of accessibility; it does not format, match selectors or know
//! about MCP.

// The screens are a crate of their own; their modules are named here as they
// were when they lived in this one.
use axsight_screen::{gnome, kde, portal, screen, sway, x11};
// So is the accessibility side.
use axsight_atspi::{apps, cache, dbus, events, normalize, operate, quirks, refresh, sync, walk};

mod acting;
mod backends;
mod desktop_session;
pub mod discover;
mod engine;
mod error;
mod launch;
mod silent_windows;

pub use desktop_session::{Compositor, DesktopSession};
pub use engine::{LinuxEngine, READ_DEADLINE};
pub use gnome::{extension_files as gnome_extension_files, EXTENSION_UUID as GNOME_EXTENSION_UUID};
pub use kde::{desktop_entry as kde_desktop_entry, DESKTOP_FILE as KDE_DESKTOP_FILE};
// The query types live in core, where the Engine trait is; re-exported for callers
// that use this engine directly.
pub use axsight_core::{ReadOptions, WindowQuery};
pub use error::{Error, Result};
pub use normalize::{class_role, clean_name, is_gtk4_role_placeholder, is_stock_description};
pub use walk::{MAX_CHILDREN, MAX_DEPTH, MAX_ELEMENTS};
