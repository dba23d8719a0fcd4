//! The desktop portals (xdg-desktop-portal) as a screen: input through the
//! RemoteDesktop portal and screenshots through the Screenshot portal
//! (their client is the seam's `portals`), each allowed by the user once in the
//! desktop's own dialog. They serve a Wayland compositor axsight has no
//! backend of its own for, and GNOME when mutter's interfaces are not
//! reachable or `AXSIGHT_SCREEN=portal` asks for them.
//!
//! The portals tell no window's place: boxes are left out of the tree (as for
//! any window the screen cannot place), clicks on elements take their
//! accessible action, and a point read off a whole-screen screenshot is
//! clicked with the pointer, blind (no window is known there).
//!
//! Asking: RemoteDesktop version 2 (xdg-desktop-portal 1.18) gives a restore
//! token, kept under `$XDG_STATE_HOME/axsight`, so later
//! runs are let in without the dialog; version 1 asks at every connection.
//! Screenshots are asked for once, and the portal keeps the answer.
//!
//! # The portals in detail
//!
//! `portal` speaks to xdg-desktop-portal on the session bus (blocking zbus, as GNOME's
//! screen does). A portal method answers at once with a request object, and its result
//! comes later as that object's `Response` signal, perhaps after a dialog:
//! `screen/portals/request.rs` picks the `handle_token`, subscribes to the response before the
//! call (a match rule on the request's path), and waits with a deadline on the tokio
//! runtime the blocking thread belongs to; a request unanswered in time is closed,
//! which takes its dialog down.
//!
//! - **Input** (`screen/portals/remote_desktop.rs`): `RemoteDesktop.CreateSession`,
//!   `SelectDevices` (keyboard and pointer; on version 2, `persist_mode` 2 and the kept
//!   `restore_token`), `ScreenCast.SelectSources` (monitors) on the same session, then
//!   `Start`, which waits up to 90 s for the user. The streams it lists give each
//!   monitor's place and size: `NotifyPointerMotionAbsolute` is relative to the stream
//!   of the monitor holding the point, keys are `NotifyKeyboardKeysym`. That is
//!   `Pointing::Streams`; `Pointing::FromCursor` (KDE's) selects no sources, so no
//!   screen cast runs (and no PipeWire is needed), and moves the pointer with
//!   `NotifyPointerMotion` by the distance from where a `Cursor` (KWin's, asked
//!   through a script) says it is, asked before every move, then asked again until
//!   it shows the pointer there: a mouse moved by a person or another program
//!   meanwhile is no matter, and motion the portal has passed on but KWin not yet
//!   shown is never sent twice. The portal
//!   passes events on without waiting, so a sync is a property read of the portal
//!   (answered after everything sent before). The same `RemoteInput`
//!   (`screen/remote_input.rs`) drives mutter's session and this one: both take
//!   keysyms, absolute motion per stream, buttons and discrete wheel notches, and wake
//!   the seat's devices the same way.
//! - **Restore token** (`screen/portals/restore_token.rs`): `$XDG_STATE_HOME/axsight/
//!   remote-desktop-portal.token`, written 0600 through a rename, replaced after every
//!   `Start` (a token is good once), removed when the portal gives none.
//! - **Screenshots** (`screen/portals/screenshot.rs`): `Screenshot.Screenshot`, not
//!   interactive; the portal asks once whether apps may take screenshots (its
//!   permission store keeps the answer, so connect takes one to have it asked then),
//!   writes a PNG and names it by a `file://` URI, read, cut to the region
//!   (`Capture::cropped`) and removed (`screen/png_file.rs`, shared with GNOME Shell's).
//! - **Windows**: none; the portals tell no window's place. `portal::Portal` refuses
//!   every window question (`Error::NoWindowControl`, a `Refused` failure): the engine
//!   leaves every window's boxes out, titled or not (an untitled one is otherwise
//!   taken to be where it says), the session skips raising a window before input
//!   (`Session::bring_forward`), and a point lies in no known window, so it is
//!   clicked blind (with the pointer, no diff). GNOME through the portals still has its
//!   extension's windows.

use axsight_core::{Bounds, Capture, ElementId, Input, Placement};
use zbus::blocking::Connection;

use crate::screen::matching::Wanted;
use crate::screen::portals::{allow_screenshots, capture, start_input, Pointing};
use crate::screen::remote_input::RemoteInput;
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};

/// A Wayland session served through the portals alone.
pub struct Portal {
    bus: Connection,
    /// `Err` with why when the desktop offers or allows no remote desktop.
    input: std::result::Result<RemoteInput, String>,
    /// `Err` with why when screenshots are not offered or not allowed.
    screenshots: std::result::Result<(), String>,
    layout: Bounds,
}

impl Portal {
    /// Connects to the session bus at `address` and asks the portals for input
    /// and screenshots (the user answers the desktop's dialogs); an error when
    /// neither is had.
    pub fn connect(address: &str) -> Result<Portal> {
        let bus = crate::screen::session_bus::connect(address)?;
        let input = start_input(&bus, Pointing::Streams)
            .and_then(|input| input.wake_devices().map(|()| input))
            .map_err(|e| e.to_string());
        let first_shot = allow_screenshots(&bus);
        let shared = input.as_ref().ok().and_then(|i| i.session.layout());
        let layout = shared.or_else(|| first_shot.as_ref().ok().map(Capture::bounds));
        let screenshots = first_shot.map(drop).map_err(|e| e.to_string());
        let (Some(layout), true) = (layout, input.is_ok() || screenshots.is_ok()) else {
            return Err(Error::Wayland(format!(
                "the desktop's portals gave neither input ({}) nor screenshots ({}); they need \
                 xdg-desktop-portal and the portal backend of the desktop",
                input.err().unwrap_or_default(),
                screenshots.err().unwrap_or_default()
            )));
        };
        if let Err(why) = &input {
            tracing::warn!(%why, "no input through the RemoteDesktop portal");
        }
        if let Err(why) = &screenshots {
            tracing::warn!(%why, "no screenshots through the Screenshot portal");
        }
        Ok(Portal {
            bus,
            input,
            screenshots,
            layout,
        })
    }
}

impl Screen for Portal {
    fn name(&self) -> String {
        let name = match (self.input.is_ok(), self.screenshots.is_ok()) {
            (true, true) => "Wayland through the desktop portals: input through the RemoteDesktop portal, screenshots through the Screenshot portal; no window places (the portals tell none)",
            (true, false) => "Wayland through the desktop portals: input through the RemoteDesktop portal; no screenshots (the Screenshot portal is missing or was not allowed); no window places",
            _ => "Wayland through the desktop portals: screenshots through the Screenshot portal; no input (the RemoteDesktop portal is missing or was not allowed); no window places",
        };
        name.into()
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        self.input.is_ok()
    }

    fn round_trip(&mut self) -> Result<()> {
        crate::screen::session_bus::ping(&self.bus)
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        match &mut self.input {
            Ok(devices) => devices.send(input),
            Err(why) => Err(Error::Wayland(format!(
                "no input on this desktop: {why} (allow axsight in the desktop's remote desktop \
                 dialog, which opens when axsight starts)"
            ))),
        }
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        if let Err(why) = &self.screenshots {
            return Err(Error::Wayland(format!(
                "no screenshots on this desktop: {why}"
            )));
        }
        let area = crate::screen::capture_area(self.layout, region)?;
        capture(&self.bus, self.layout, area)
    }

    fn toplevel_for(
        &mut self,
        _: &ElementId,
        _: &[ElementId],
        _: &Wanted,
    ) -> Result<Option<WindowId>> {
        Err(no_windows())
    }

    fn toplevel_of(&mut self, _: Option<u32>, _: &str) -> Result<Option<WindowId>> {
        Ok(None)
    }

    /// Refused, not `None`: an untitled window (GNOME Shell's own stage) is
    /// otherwise taken to be where it says, which here nothing can tell.
    fn content_origin(
        &mut self,
        _: &ElementId,
        _: &[ElementId],
        _: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        Err(no_windows())
    }

    fn window_bounds(
        &mut self,
        _: &ElementId,
        _: &[ElementId],
        _: &Wanted,
    ) -> Result<Option<Bounds>> {
        Ok(None)
    }

    fn windows_of_pid(&mut self, _: u32) -> Result<Vec<(String, Bounds)>> {
        Ok(Vec::new())
    }

    fn toplevels(&mut self) -> Result<Vec<crate::screen::Toplevel>> {
        Ok(Vec::new())
    }

    fn reaches(&mut self, _: WindowId, _: i32, _: i32) -> Result<bool> {
        Err(no_windows())
    }

    fn activate(&mut self, _: WindowId) -> Result<()> {
        Err(no_windows())
    }

    fn activate_at(&mut self, _: i32, _: i32) -> Result<()> {
        Err(no_windows())
    }

    fn close(&mut self, _: WindowId) -> Result<()> {
        Err(no_windows())
    }

    fn place(&mut self, _: WindowId, _: Placement) -> Result<Option<Bounds>> {
        Err(no_windows())
    }
}

fn no_windows() -> Error {
    Error::NoWindowControl(
        "the desktop portals tell no client where windows are, nor raise, move or close them"
            .into(),
    )
}
