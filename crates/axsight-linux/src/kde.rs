//! The screen of a KDE Plasma (KWin) Wayland session: input through KWin's fake
//! input ([`input`]), screenshots through KWin's ScreenShot2 ([`screenshot`]),
//! both only for an executable a `.desktop` file authorises
//! ([`authorization`]), and windows (where each is, focus, move, close) through
//! scripts run in KWin ([`scripting`], [`windows`]), which any session client
//! may load.
//!
//! Unauthorised, window places still work: boxes are in screen space, and
//! input and screenshots say what to run. Keys go through the session's
//! layout, taken to be US.

mod authorization;
mod input;
mod screenshot;
mod scripting;
mod windows;

pub use authorization::{desktop_entry, DESKTOP_FILE};

use axsight_core::{Bounds, Capture, ElementId, Input, Placement};
use zbus::blocking::Connection;

use crate::screen::compositor_window::{ScriptedWindows, WindowScript};
use crate::screen::matching::Wanted;
use crate::screen::virtual_input;
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use input::KwinInput;
use windows::KwinWindows;

/// A KDE session: the session-bus connection KWin's scripts answer on, and the
/// Wayland connection with fake input.
pub struct Kde {
    bus: Connection,
    input: KwinInput,
    windows: ScriptedWindows<KwinWindows>,
    /// KWin answers axsight's screenshots.
    screenshots: bool,
}

impl Kde {
    /// Connects to the session bus at `address` and to KWin's Wayland socket.
    pub fn connect(address: &str) -> Result<Kde> {
        let scripting = scripting::Scripting::connect(address)?;
        let bus = scripting.bus().clone();
        let mut windows = ScriptedWindows::new(KwinWindows::new(scripting));
        // One question first: KWin's scripting answers, or this is no KWin.
        windows.script.list().map_err(|e| match e {
            Error::Wayland(why) => {
                Error::Wayland(format!("{why}; KDE's backend needs KWin 5.27 or later"))
            }
            other => other,
        })?;
        let input = KwinInput::connect()?;
        if !input.allowed() {
            tracing::warn!("KWin offers no fake input: {}", authorization::ADVICE);
        }
        let probe = Bounds {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        };
        let screenshots = screenshot::capture(&bus, probe).is_ok();
        Ok(Kde {
            bus,
            input,
            windows,
            screenshots,
        })
    }
}

impl Screen for Kde {
    fn name(&self) -> &'static str {
        match (self.input.allowed(), self.screenshots) {
            (true, true) => "KDE (KWin): input through KWin's fake input, screenshots through KWin's ScreenShot2, window places from KWin scripts",
            (true, false) => "KDE (KWin): input through KWin's fake input, window places from KWin scripts; no screenshots (KWin refuses ScreenShot2: run `axsight kde-authorize`)",
            (false, true) => "KDE (KWin): screenshots through KWin's ScreenShot2, window places from KWin scripts; no input (KWin offers no fake input: run `axsight kde-authorize`)",
            (false, false) => "KDE (KWin): window places from KWin scripts; no input and no screenshots (axsight is not authorised: run `axsight kde-authorize`)",
        }
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        self.input.allowed()
    }

    /// KWin offers wlroots' data-control protocol.
    fn clipboard(&self) -> Option<crate::clipboard::Clipboard> {
        Some(crate::clipboard::Clipboard::DataControl)
    }

    fn round_trip(&mut self) -> Result<()> {
        crate::compositor_bus::ping(&self.bus)
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        virtual_input::send(&mut self.input, input)
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        let layout = self.input.layout()?;
        let area = crate::screen::capture_area(layout, region)?;
        screenshot::capture(&self.bus, area)
    }

    fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>> {
        self.windows.toplevel_for(id, siblings, wanted)
    }

    fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>> {
        self.windows.toplevel_of(pid, title)
    }

    fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        self.windows.content_origin(id, siblings, wanted)
    }

    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        self.windows.window_bounds(id, siblings, wanted)
    }

    fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        self.windows.windows_of_pid(pid)
    }

    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        self.windows.reaches(window, x, y)
    }

    fn activate(&mut self, window: WindowId) -> Result<()> {
        self.windows.activate(window)
    }

    fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        self.windows.activate_at(x, y)
    }

    fn close(&mut self, window: WindowId) -> Result<()> {
        self.windows.script.close(window)
    }

    fn place(&mut self, window: WindowId, placement: Placement) -> Result<Option<Bounds>> {
        self.windows.place(window, placement)
    }
}
