//! The Linux engine of axsight: the accessibility bus (`axsight-atspi`'s
//! [`Accessibility`](axsight_atspi::Accessibility)) composed with the screen it
//! is shown on (`axsight-screen`: X11, or a Wayland compositor — sway, GNOME,
//! KDE, or any through the desktop portals) for where windows sit, real input
//! and the screen's pixels.
//!
//! It finds the display and buses even from a stripped environment
//! ([`discover`]), chooses the screen's backend for the session (`backends`,
//! the one place that knows them all), answers for the windows that only the
//! screen shows (`silent_windows`), and starts apps (`launch`). The reading
//! and the acting through the bus are `axsight-atspi`'s, the pixels and input
//! `axsight-screen`'s; this crate only composes them. It does not format,
//! match selectors or know about MCP.

// The screens are a crate of their own; their modules are named here as they
// were when they lived in this one.
use axsight_screen::{gnome, kde, portal, screen, sway, x11};
// So is the accessibility side.
use axsight_atspi::{apps, cache, dbus, normalize, quirks, sync, walk};

mod acting;
mod backends;
mod desktop_session;
pub mod discover;
mod engine;
mod error;
mod launch;
mod scope;
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
