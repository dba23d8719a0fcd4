//! The screen of a KDE Plasma (KWin) Wayland session: input through KWin's fake
//! input (`input`) and screenshots through KWin's ScreenShot2
//! (`screenshot`), both only for an executable a `.desktop` file authorises
//! (`authorization`), else through the desktop portals; windows (where each
//! is, focus, move, close) through scripts run in KWin (`scripting`,
//! `windows`), which any session client may load.
//!
//! Unauthorised, KDE's RemoteDesktop portal sends the input (Plasma 5.27 lets
//! an unsandboxed program in without a dialog, with a notification) and the
//! Screenshot portal takes the screenshots; its pointer is moved by relative
//! motion from where KWin says it is (`cursor`), so no screen cast runs.
//! Without either, input and screenshots say what to run. Keys go through the
//! session's layout, taken to be US.
//!
//! # KDE in detail
//!
//! `kde::Kde` holds a blocking zbus connection that serves
//! `/io/github/axsight/KWin` (`io.github.axsight.KWinReply.Reply`, given to the
//! connection builder so it is served from the start) and a Wayland connection.
//!
//! - **Windows** (`kde/scripting.rs`, `kde/windows.rs`, `kde/windows.js`): KWin gives a
//!   session client no window list but runs any script it is asked to load. Each
//!   question writes a script (the library `windows.js` and one call) under
//!   `XDG_RUNTIME_DIR`, loads it (`org.kde.kwin.Scripting.loadScript`), runs it
//!   (`/<id>` on KWin 5, `/Scripting/Script<id>` on KWin 6), waits for its answer, a
//!   JSON string carrying the question's token (KWin passes JavaScript numbers as
//!   doubles, so the token rides in the JSON), then unloads it and removes the file:
//!   15 ms in all. Window ids are 52 bits of KWin's window UUID.
//! - **Input** (`kde/input.rs`): `org_kde_kwin_fake_input` v4, which KWin lists only to
//!   an executable a `.desktop` file authorises (`X-KDE-Wayland-Interfaces`):
//!   `authenticate`, `pointer_motion_absolute` in layout coordinates, `button`, `axis`
//!   (15 per notch), `keyboard_key` with evdev codes of a US keyboard
//!   (`wayland::us_key`); KWin runs them through the session's layout and works the
//!   modifiers out itself. Through the same `VirtualDevices` driver as sway and GNOME.
//! - **Screenshots** (`kde/screenshot.rs`): `org.kde.KWin.ScreenShot2.CaptureArea` into
//!   a pipe: raw 32-bit pixels (QImage formats 4 to 6: B, G, R, A in memory) with their
//!   width, height and stride in the reply, read to the end within 3 s (`screen/pipe`). KWin
//!   answers only an authorised executable (`X-KDE-DBUS-Restricted-Interfaces`); connect
//!   tries a 1×1 capture to tell doctor.
//! - **Authorisation** (`kde/authorization.rs`, `axsight kde-authorize`): the entry
//!   `io.github.axsight.desktop` naming this binary's real path and both interfaces,
//!   then `kbuildsycoca6` or `5`. KWin finds the new entry within seconds. It hashes an
//!   authorised client's executable at each Wayland connection (about 20 ms per MB,
//!   blocking the compositor meanwhile), so connecting gets 8 s, not 2.
//! - **Unauthorised** (`kde.rs`, `kde/cursor.rs`): where KWin lists no fake input,
//!   input goes through the RemoteDesktop portal (`portal::start_input` with
//!   `Pointing::FromCursor`: relative motion from `workspace.cursorPos`, asked by a
//!   script on a connection of its own); where the 1×1 capture is refused,
//!   screenshots go through the Screenshot portal. KDE's portal backend sends both
//!   through KWin's fake input and its old `org.kde.kwin.Screenshot` itself, under
//!   its own `.desktop` authorisation. `AXSIGHT_SCREEN=portal` (`kde::Through::Portals`)
//!   takes the portals for both even where KWin authorised axsight. Windows stay
//!   KWin scripts' either way.
//! - **Clipboard**: data-control, which KWin offers, as on sway.

mod authorization;
mod cursor;
mod input;
mod screenshot;
mod scripting;
mod windows;

pub use authorization::{desktop_entry, DESKTOP_FILE};

use axsight_core::{Bounds, Capture, ElementId, Input, Placement};
use zbus::blocking::Connection;

use crate::screen::compositor_window::{ScriptedWindows, WindowScript};
use crate::screen::matching::Wanted;
use crate::screen::portals::Pointing;
use crate::screen::remote_input::RemoteInput;
use crate::screen::virtual_input;
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use input::KwinInput;
use windows::KwinWindows;

/// Which interfaces a KDE screen takes input and screenshots through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Through {
    /// KWin's own where KWin authorised axsight, else the portals.
    Kwin,
    /// The portals alone (`AXSIGHT_SCREEN=portal`).
    Portals,
}

/// Who sends a KDE screen's input.
enum Typist {
    Kwin,
    Portal(RemoteInput),
    /// Neither: why the portal failed.
    Nobody(String),
}

/// Who takes a KDE screen's screenshots.
enum Photographer {
    Kwin,
    Portal,
    Nobody,
}

/// A KDE session: the session-bus connection KWin's scripts answer on, and the
/// Wayland connection (the outputs, and fake input where KWin allows it).
pub struct Kde {
    bus: Connection,
    input: KwinInput,
    typist: Typist,
    photographer: Photographer,
    windows: ScriptedWindows<KwinWindows>,
}

impl Kde {
    /// Connects to the session bus at `address` and to KWin's Wayland socket,
    /// taking KWin's input and screenshots where KWin allows them (unless
    /// `through` the portals); what is left is the portals' to give
    /// ([`Kde::with_portals`]). KWin's part answers within a second or so;
    /// the portals may wait for the user, so they come as a step of their own.
    pub fn connect(address: &str, through: Through) -> Result<Kde> {
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
        let kwin = through == Through::Kwin;
        let typist = match kwin && input.allowed() {
            true => Typist::Kwin,
            false => Typist::Nobody("not asked".into()),
        };
        let probe = Bounds {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        };
        let photographer = match kwin && screenshot::capture(&bus, probe).is_ok() {
            true => Photographer::Kwin,
            false => Photographer::Nobody,
        };
        Ok(Kde {
            bus,
            input,
            typist,
            photographer,
            windows,
        })
    }

    /// Asks the portals for the input and screenshots KWin did not give
    /// (`address`: the session bus); what they refuse stays refused, with why.
    pub fn with_portals(mut self, address: &str) -> Result<Kde> {
        if let Typist::Nobody(_) = self.typist {
            self.typist = match portal_input(address, &self.bus, &self.input) {
                Ok(devices) => Typist::Portal(devices),
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "no input on KDE: no fake input from KWin, none through the \
                         RemoteDesktop portal. {}",
                        authorization::ADVICE
                    );
                    Typist::Nobody(error.to_string())
                }
            };
        }
        if let Photographer::Nobody = self.photographer {
            self.photographer = match crate::screen::portals::allow_screenshots(&self.bus) {
                Ok(_) => Photographer::Portal,
                Err(error) => {
                    tracing::warn!(%error, "no screenshots through the Screenshot portal");
                    Photographer::Nobody
                }
            };
        }
        Ok(self)
    }
}

/// The RemoteDesktop portal's keyboard and pointer, the pointer moved from
/// where KWin shows it.
fn portal_input(address: &str, bus: &Connection, outputs: &KwinInput) -> Result<RemoteInput> {
    let pointing = Pointing::FromCursor {
        cursor: Box::new(cursor::KwinCursor::connect(address)?),
        layout: outputs.layout()?,
    };
    let devices = crate::screen::portals::start_input(bus, pointing)?;
    devices.wake_devices()?;
    Ok(devices)
}

impl Screen for Kde {
    fn name(&self) -> String {
        let input = match &self.typist {
            Typist::Kwin => "input through KWin's fake input",
            Typist::Portal(_) => "input through the RemoteDesktop portal",
            Typist::Nobody(_) => "no input (KWin offers axsight no fake input and the RemoteDesktop portal none: run `axsight kde-authorize`)",
        };
        let screenshots = match self.photographer {
            Photographer::Kwin => "screenshots through KWin's ScreenShot2",
            Photographer::Portal => "screenshots through the Screenshot portal",
            Photographer::Nobody => "no screenshots (KWin refuses ScreenShot2 and the Screenshot portal gave none: run `axsight kde-authorize`)",
        };
        format!("KDE (KWin): {input}, {screenshots}, window places from KWin scripts")
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        !matches!(self.typist, Typist::Nobody(_))
    }

    /// KWin offers wlroots' data-control protocol.
    fn clipboard(&self) -> Option<Box<dyn crate::screen::clipboard::Clipboard>> {
        Some(Box::new(crate::screen::wayland::clipboard::DataControl))
    }

    fn round_trip(&mut self) -> Result<()> {
        crate::screen::session_bus::ping(&self.bus)
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        match &mut self.typist {
            Typist::Kwin => virtual_input::send(&mut self.input, input),
            Typist::Portal(devices) => devices.send(input),
            Typist::Nobody(portal) => Err(Error::Wayland(format!(
                "KWin offers axsight no fake input and the RemoteDesktop portal none \
                 ({portal}). {}",
                authorization::ADVICE
            ))),
        }
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        let layout = self.input.layout()?;
        let area = crate::screen::capture_area(layout, region)?;
        match self.photographer {
            Photographer::Portal => crate::screen::portals::capture(&self.bus, layout, area),
            // KWin's own refusal says what to run.
            Photographer::Kwin | Photographer::Nobody => screenshot::capture(&self.bus, area),
        }
    }

    fn outputs(&mut self) -> Result<Vec<crate::screen::Output>> {
        self.input.outputs()
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

    fn toplevels(&mut self) -> Result<Vec<crate::screen::Toplevel>> {
        self.windows.toplevels()
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
