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
//!
//! # Real input and windows
//!
//! The engine asks everything of the display server through one trait,
//! `screen::Screen`: send input, capture pixels, find the display window of an
//! accessible window (`toplevel_for`), its content's origin (`content_origin`) and
//! bounds, hit-test (`reaches`), activate, close and place windows, and the
//! clipboard it brings (`screen::clipboard::Clipboard`, a trait each backend
//! implements for its own). The seam names no backend: `backends::connect`, the one
//! place that knows them all, picks the backend from the session (`DesktopSession`): sway's on a sway session,
//! GNOME's on a GNOME one (through mutter's interfaces, else through the portals),
//! KDE's on a KDE one (through KWin's interfaces where KWin authorised axsight, else
//! through the portals), the portals' on any other Wayland compositor (`portal::Portal`;
//! `AXSIGHT_SCREEN=portal` asks for the portals on GNOME and KDE too), else X11 (on
//! X, or an XWayland display named by `DISPLAY` where no Wayland backend serves the
//! compositor: on Wayland the only X socket found may be another desktop's), each connected
//! within 2 s (KDE's 8 s: KWin hashes an authorised client's binary first; through
//! the portals 100 s, the user answering the desktop's dialog: KDE's portals are a
//! second step, `Kde::with_portals`, so a KWin that never answers still fails in 8 s) by `screen::backend`, which notes why
//! one failed for doctor; the engine holds it as `Arc<Mutex<dyn Screen>>` and never asks which it is. All of it is
//! blocking work on `spawn_blocking`, held to a deadline (`screen::off_thread`): 10 s
//! for one piece of input, 2 s for a window look-up, raise or close. A backend also
//! says whether every app's extents are window-relative (Wayland: then every window,
//! not only GTK4's, gets its origin added, see `LinuxEngine`'s `WindowPlaces::window_relative`), whether
//! it made input devices of its own (Wayland's virtual devices: the first input then
//! waits for each listed app to answer an accessibility call, so that its main loop has
//! read that the seat has a pointer and keyboard), and which clipboard it brings.

mod error;
pub mod gnome;
pub mod kde;
pub mod portal;
pub mod screen;
pub mod sway;
pub mod x11;

pub use error::{Error, Result};
