//! The screen of a GNOME (mutter) Wayland session: input through mutter's
//! RemoteDesktop interface (`remote_desktop`), screenshots through GNOME
//! Shell's Screenshot interface (`screenshot`), and windows (where each is,
//! focus, move, close) through axsight's GNOME Shell extension (`windows`),
//! all on the session bus.
//!
//! GNOME gives a session client no window places: without the extension input
//! and screenshots still work, but boxes stay window-relative and the window
//! tools say what to install. Keys go as keysyms, which mutter types only where
//! the keyboard layout has them: other characters are refused, not dropped.
//!
//! # GNOME in detail
//!
//! `gnome::Gnome` holds a blocking zbus connection to the session bus (zbus's blocking
//! API runs its own small runtime; the calls come on blocking threads anyway) and the
//! RemoteDesktop session it made, which mutter ends when that connection closes.
//!
//! - **Input** (`gnome/remote_desktop.rs`): `RemoteDesktop.CreateSession`, a ScreenCast
//!   session tied to it with `RecordMonitor` for each logical monitor
//!   (`DisplayConfig.GetCurrentState`), `Start`. mutter adds the session's devices to
//!   the seat at their first event, and an app binds them only once its loop reads the
//!   seat's new capabilities, so the first click of a session was lost: connect sends
//!   a pointer motion by nothing and a tap of Shift (`RemoteInput::wake_devices`), then waits until
//!   a Wayland client sees a pointer and a keyboard on the seat (`screen/wayland/seat.rs`,
//!   1 s at most), and the engine's first input waits for the apps' loops as on sway.
//!   Through the same `VirtualDevices` driver as sway: motion is
//!   `NotifyPointerMotionAbsolute` relative to the stream of the monitor holding the
//!   point, in the stream's pixels (`gnome/display_config.rs`: times the monitor's
//!   scale in mutter's logical layout). mutter ends the session when the monitors
//!   change; a new one is started before the next input. Keys are
//!   `NotifyKeyboardKeysym`, which mutter types only where
//!   the session's layout has the keysym. Characters beyond a US layout are refused
//!   before anything is sent.
//! - **Monitors** (`gnome/display_config.rs`): `DisplayConfig.GetCurrentState`, read
//!   again after `MonitorsChanged`: each logical monitor's place and scale, the
//!   layout mode (logical, or physical where the screen is device pixels and an app
//!   on a monitor at 2 reports halved boxes: its windows' `app_scale`), the outputs.
//! - **Screenshots** (`gnome/screenshot.rs`): `org.gnome.Shell.Screenshot.ScreenshotArea`
//!   (the area divided by the shell's UI scale in the physical layout; the image,
//!   at the scale of the monitors it covers, sampled to the screen's pixels)
//!   into a file under `XDG_RUNTIME_DIR`, read (the `png` crate) and removed. The shell
//!   answers only a caller owning an allow-listed name: the connection asks for
//!   `org.gnome.Screenshot` with a plain `RequestName` (DO_NOT_QUEUE).
//! - **Windows** (`gnome/windows.rs`, and the extension in
//!   `crates/axsight-screen/gnome-shell/`): `io.github.axsight.Shell1` at
//!   `/io/github/axsight/Shell` of `org.gnome.Shell`: `ListWindows` (JSON: id, pid,
//!   title, mutter's frame and buffer rectangles, focus, minimized, maximized, shown,
//!   bottom first), `Activate`, `Close`, `MoveResize`, `Maximize`, `Minimize`,
//!   `GetClipboard`, `SetClipboard`. The frame rectangle is the visible window; a
//!   frame holding a shadow starts `buffer − frame` before it, or at the app's own
//!   inset where the engine read it; a frame smaller than the visible window (Qt 6
//!   draws its own title bar outside it) starts inside it, below the title bar
//!   (`screen::frame_origin`). Without the extension `toplevel_for` is an error
//!   naming `axsight gnome-extension`, and no window has an origin: the engine then
//!   leaves every box of the window out (`window_origin` is `None` for a titled
//!   window-relative window the screen cannot place, on any backend), so clicks take
//!   the accessible action and screenshots of its elements are refused, rather than
//!   window-relative boxes passing for the screen's.
//! - **Clipboard**: through the extension (St.Clipboard); the owner is a digest of the
//!   text, as on sway.
//!
//! The window half of GNOME's and KDE's screens is one piece of code,
//! `screen::compositor_window::ScriptedWindows`, on the few operations a compositor's
//! script offers (`WindowScript`: list, activate, close, move-resize, maximize,
//! minimize): matching, content origins, hit tests, and waiting until the compositor
//! shows a focus change or a placement. Both scripts list windows in one JSON shape
//! (`CompositorWindow`: frame and buffer rectangles, focus, states). A buffer inside
//! the frame is a client area under the compositor's own title bar (KWin): the
//! accessible frame starts there; otherwise the app draws its decorations and the
//! shadow or inset places it (`CompositorWindow::frame_origin`).

mod clipboard;
mod display_config;
mod remote_desktop;
mod screenshot;
mod windows;

pub use windows::{extension_files, EXTENSION_UUID};

use std::sync::Arc;

use axsight_core::{Bounds, Capture, ElementId, Input, Output, Placement};
use zbus::blocking::Connection;

use crate::screen::compositor_window::{self, CompositorWindow, ScriptedWindows, WindowScript};
use crate::screen::matching::Wanted;
use crate::screen::remote_input::RemoteInput;
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use display_config::WatchedLayout;
use remote_desktop::RemoteDesktop;

/// Which interfaces a GNOME screen takes input and screenshots through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Through {
    /// mutter's RemoteDesktop and GNOME Shell's Screenshot: no dialog.
    Mutter,
    /// The RemoteDesktop and Screenshot portals, which ask the user once.
    Portals,
}

/// A GNOME session's bus connection, with the RemoteDesktop session it holds.
pub struct Gnome {
    bus: Connection,
    through: Through,
    input: RemoteInput,
    /// mutter's monitors, where its own interfaces are used.
    monitors: Option<Arc<WatchedLayout>>,
    /// The generation of the monitor layout the input session began with:
    /// mutter ends a RemoteDesktop session when its monitors change.
    input_generation: u64,
    /// The monitors' union as the session began.
    layout: Bounds,
    windows: ScriptedWindows<ShellExtension>,
}

/// axsight's GNOME Shell extension, and whether it answers; mutter's monitors,
/// for the scale apps draw at.
struct ShellExtension {
    bus: Connection,
    enabled: bool,
    monitors: Option<Arc<WatchedLayout>>,
}

impl Gnome {
    /// Connects to the session bus at `address` and starts a remote desktop
    /// session, through mutter's own interfaces (taking the name GNOME Shell's
    /// screenshots want) or through the portals (the user allows both once).
    pub fn connect(address: &str, through: Through) -> Result<Gnome> {
        let bus = crate::screen::session_bus::connect(address)?;
        let monitors = match through {
            Through::Mutter => Some(Arc::new(WatchedLayout::start(&bus)?)),
            Through::Portals => None,
        };
        let input_generation = match &monitors {
            Some(monitors) => monitors.get()?.generation,
            None => 0,
        };
        let input = match &monitors {
            Some(monitors) => start_mutter_input(&bus, Arc::clone(monitors))?,
            None => {
                let input = crate::screen::portals::start_input(
                    &bus,
                    crate::screen::portals::Pointing::Streams,
                )?;
                crate::screen::portals::allow_screenshots(&bus)?;
                input
            }
        };
        let layout = input
            .session
            .layout()
            .ok_or_else(|| Error::Wayland("the remote desktop shows no monitor".into()))?;
        input.wake_devices()?;
        let extension = crate::screen::session_bus::call::<_, zbus::zvariant::OwnedValue>(
            &bus,
            "org.gnome.Shell",
            windows::PATH,
            "org.freedesktop.DBus.Properties",
            "Get",
            &(windows::INTERFACE, "Version"),
        )
        .is_ok();
        if !extension {
            tracing::warn!("axsight's GNOME Shell extension does not answer: no window places");
        }
        Ok(Gnome {
            windows: ScriptedWindows::new(ShellExtension {
                bus: bus.clone(),
                enabled: extension,
                monitors: monitors.clone(),
            }),
            bus,
            through,
            input,
            monitors,
            input_generation,
            layout,
        })
    }

    /// The input session, a new one where the monitors changed since it
    /// began (mutter has ended it then).
    fn input(&mut self) -> Result<&mut RemoteInput> {
        if let Some(monitors) = &self.monitors {
            let generation = monitors.get()?.generation;
            if generation != self.input_generation {
                tracing::debug!("the monitors changed: a new remote desktop session");
                let input = start_mutter_input(&self.bus, Arc::clone(monitors))?;
                input.wake_devices()?;
                self.input = input;
                self.input_generation = generation;
            }
        }
        Ok(&mut self.input)
    }

    fn extension(&self) -> bool {
        self.windows.script.enabled
    }
}

impl ShellExtension {
    fn call<B, R>(&self, method: &str, body: &B) -> Result<R>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
    {
        if !self.enabled {
            return Err(no_extension());
        }
        crate::screen::session_bus::call(
            &self.bus,
            "org.gnome.Shell",
            windows::PATH,
            windows::INTERFACE,
            method,
            body,
        )
    }
}

impl WindowScript for ShellExtension {
    fn list(&mut self) -> Result<Vec<CompositorWindow>> {
        let json: String = self.call("ListWindows", &())?;
        compositor_window::parse(&json, "the extension").map_err(Error::Wayland)
    }

    fn activate(&mut self, id: WindowId) -> Result<()> {
        self.call("Activate", &(id,))
    }

    fn close(&mut self, id: WindowId) -> Result<()> {
        self.call("Close", &(id,))
    }

    fn move_resize(&mut self, id: WindowId, b: Bounds) -> Result<()> {
        self.call("MoveResize", &(id, b.x, b.y, b.width, b.height))
    }

    fn maximize(&mut self, id: WindowId, on: bool) -> Result<()> {
        self.call("Maximize", &(id, on))
    }

    fn minimize(&mut self, id: WindowId, on: bool) -> Result<()> {
        self.call("Minimize", &(id, on))
    }

    /// In mutter's physical layout an app draws at its monitor's scale and
    /// reports its boxes divided by it.
    fn app_scale(&self, frame: Bounds) -> f64 {
        let Some(layout) = self.monitors.as_ref().and_then(|m| m.get().ok()) else {
            return 1.0;
        };
        let (x, y) = (frame.x + frame.width / 2, frame.y + frame.height / 2);
        layout.app_scale_at(x, y)
    }
}

impl Screen for Gnome {
    fn name(&self) -> String {
        let name = match (self.through, self.extension()) {
            (Through::Mutter, true) => "GNOME (mutter): input through mutter's RemoteDesktop, screenshots through GNOME Shell, window places from axsight's Shell extension",
            (Through::Mutter, false) => "GNOME (mutter): input through mutter's RemoteDesktop, screenshots through GNOME Shell; no window places (axsight's Shell extension is not enabled: run `axsight gnome-extension`)",
            (Through::Portals, true) => "GNOME (mutter) through the desktop portals: input through the RemoteDesktop portal, screenshots through the Screenshot portal, window places from axsight's Shell extension",
            (Through::Portals, false) => "GNOME (mutter) through the desktop portals: input through the RemoteDesktop portal, screenshots through the Screenshot portal; no window places (axsight's Shell extension is not enabled: run `axsight gnome-extension`)",
        };
        name.into()
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        true
    }

    fn clipboard(&self) -> Option<Box<dyn crate::screen::clipboard::Clipboard>> {
        self.extension().then(|| {
            Box::new(clipboard::ShellClipboard::new(self.bus.clone()))
                as Box<dyn crate::screen::clipboard::Clipboard>
        })
    }

    fn round_trip(&mut self) -> Result<()> {
        crate::screen::session_bus::ping(&self.bus)
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        self.input()?.send(input)
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        let Some(monitors) = &self.monitors else {
            let area = crate::screen::capture_area(self.layout, region)?;
            return crate::screen::portals::capture(&self.bus, self.layout, area);
        };
        let layout = monitors.get()?;
        let screen = layout
            .screen()
            .ok_or_else(|| Error::Wayland("mutter reports no monitor".into()))?;
        let area = crate::screen::capture_area(screen, region)?;
        screenshot::capture(&self.bus, &layout, area)
    }

    fn outputs(&mut self) -> Result<Vec<Output>> {
        match &self.monitors {
            Some(monitors) => Ok(monitors.get()?.outputs()),
            None => Ok(Vec::new()),
        }
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
        if !self.extension() {
            return Ok(None);
        }
        self.windows.content_origin(id, siblings, wanted)
    }

    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        if !self.extension() {
            return Ok(None);
        }
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

/// mutter's own RemoteDesktop session, after taking the name GNOME Shell's
/// screenshots want.
fn start_mutter_input(bus: &Connection, monitors: Arc<WatchedLayout>) -> Result<RemoteInput> {
    // The name GNOME Shell's screenshots want, where it is free; without it
    // screenshots are refused, and say why. Asked for plainly: this
    // connection serves no objects (zbus warns of a name without them).
    const DO_NOT_QUEUE: u32 = 4;
    let _ = crate::screen::session_bus::call::<_, u32>(
        bus,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "RequestName",
        &(screenshot::ALLOWED_NAME, DO_NOT_QUEUE),
    );
    let session = RemoteDesktop::start(bus, monitors).map_err(|e| {
        Error::Wayland(format!(
            "{e}; input on GNOME needs mutter's RemoteDesktop (GNOME 40 or later) and \
             PipeWire running"
        ))
    })?;
    Ok(RemoteInput::new(
        Box::new(session),
        "GNOME's remote desktop",
    ))
}

fn no_extension() -> Error {
    Error::Wayland(
        "GNOME tells no client where windows are: enable axsight's GNOME Shell extension \
         (`axsight gnome-extension` installs it; log out and in, then `gnome-extensions \
         enable axsight@axsight.github.io`)"
            .into(),
    )
}
