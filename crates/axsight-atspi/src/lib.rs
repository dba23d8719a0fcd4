//! Reading and acting on Linux desktops through AT-SPI2, the accessibility bus:
//! the mechanics of axsight's Linux engine that know nothing of screens.
//!
//! - [`bus`]: reaching the accessibility bus; [`dbus`]: pipelined calls on one
//!   connection to it, the interface names, and what a failed call means;
//! - [`accessibility`]: the engine's accessibility half, [`Accessibility`]:
//!   one connection, the last listing, the kept reads, settling;
//! - [`apps`]: listing the applications and their windows, and choosing the
//!   window a query names (where windows sit is asked of a [`apps::WindowPlaces`]);
//! - [`walk`]: reading a window's tree as raw nodes, with [`cache`] (the bridge's
//!   own `Cache.GetItems`, as an accelerator), [`normalize`] into
//!   `axsight_core::Tree` ([`roles`], [`states`], and per-toolkit [`quirks`],
//!   with [`menu_popups`] and [`web_content`] reshaping what toolkits get wrong);
//! - [`events`]: watching the bus's events, settling after an action, and
//!   [`refresh`]: patching a kept tree from the events since it was read;
//! - [`operate`]: acting through the elements' interfaces (actions, values,
//!   text, selection).
//!
//! It knows no display server and chooses nothing: `axsight-linux` composes it
//! with the screens (`axsight-screen`) into the engine.

pub mod accessibility;
pub mod apps;
pub mod bus;
pub mod cache;
pub mod dbus;
mod error;
pub mod events;
pub mod menu_popups;
pub mod normalize;
pub mod operate;
pub mod quirks;
pub mod refresh;
pub mod roles;
pub mod states;
pub mod sync;
pub mod walk;
pub mod web_content;

pub use accessibility::Accessibility;
pub use error::{Error, Result};
