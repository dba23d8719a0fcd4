//! The screens of axsight: what shows the apps on a Linux desktop, behind one
//! seam, [`screen::Screen`] — real input, the screen's pixels, where each app
//! window sits and what shows there, raising, closing and placing windows,
//! every top-level window, and the clipboard.
//!
//! Each display server is a backend of its own, depending on the seam alone:
//! [`x11`] on an X display, [`sway`] on a sway (wlroots) Wayland session,
//! [`gnome`] on GNOME, [`kde`] on KDE, and [`portal`] (the desktop portals) on
//! any other Wayland compositor. What they share lives in the seam's modules
//! (keysyms, click pacing, window matching, virtual input devices, the
//! portals' client, Wayland's client protocols, session-bus calls).
//!
//! It knows nothing of accessibility, and never chooses a backend: the Linux
//! engine (`axsight-linux`) does, in one place, and holds the screen it chose.
//! Its calls block; the engine makes them on blocking threads
//! ([`screen::off_thread`]).

mod error;
pub mod gnome;
pub mod kde;
pub mod portal;
pub mod screen;
pub mod sway;
pub mod x11;

pub use error::{Error, Result};
