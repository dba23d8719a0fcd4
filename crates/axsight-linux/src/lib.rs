//! The Linux engine of axsight: the AT-SPI2 accessibility tree over D-Bus, and the
//! screen it is shown on: X11, or a Wayland compositor (sway, GNOME, KDE, or any
//! through the desktop portals), for where windows sit, real input and the
//! screen's pixels.
//!
//! It finds the display and buses even from a stripped environment ([`discover`]),
//! lists applications and windows, and reads a window's tree with pipelined D-Bus
//! calls into an [`axsight_core::Tree`]. It owns every D-Bus, X11 and Wayland detail
//! (the display servers behind one seam, `screen`); it does
//! not format, match selectors or know about MCP.

mod acting;
mod apps;
mod backends;
mod cache;
mod dbus;
mod desktop_session;
pub mod discover;
mod engine;
mod error;
mod events;
mod gnome;
mod kde;
mod launch;
mod menu_popups;
mod normalize;
mod operate;
mod portal;
mod quirks;
mod refresh;
mod roles;
mod screen;
mod silent_windows;
mod states;
mod sway;
mod sync;
mod walk;
mod web_content;
mod x11;

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
