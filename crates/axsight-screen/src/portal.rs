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
