//! The screen of a GNOME (mutter) Wayland session: input through mutter's
//! RemoteDesktop interface ([`remote_desktop`]), screenshots through GNOME
//! Shell's Screenshot interface ([`screenshot`]), and windows (where each is,
//! focus, move, close) through axsight's GNOME Shell extension ([`windows`]),
//! all on the session bus.
//!
//! GNOME gives a session client no window places: without the extension input
//! and screenshots still work, but boxes stay window-relative and the window
//! tools say what to install. Keys go as keysyms, which mutter types only where
//! the keyboard layout has them: other characters are refused, not dropped.

mod remote_desktop;
mod screenshot;
mod windows;

pub use windows::{extension_files, EXTENSION_UUID};

use std::time::Duration;

use axsight_core::{
    Bounds, Capture, ElementId, Input, Modifier, Placement, Point, ScrollDirection,
};
use zbus::blocking::Connection;

use crate::screen::click_gap::ClickPacing;
use crate::screen::compositor_window::{self, CompositorWindow, ScriptedWindows, WindowScript};
use crate::screen::keysyms;
use crate::screen::matching::Wanted;
use crate::screen::virtual_input::{self, VirtualDevices};
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use remote_desktop::RemoteDesktop;

/// How long the seat gets to show the RemoteDesktop session's devices.
const SEAT_DEADLINE: Duration = Duration::from_secs(1);

/// A GNOME session's bus connection, with the RemoteDesktop session it holds.
pub struct Gnome {
    bus: Connection,
    input: RemoteDesktop,
    windows: ScriptedWindows<ShellExtension>,
    clicks: ClickPacing,
}

/// axsight's GNOME Shell extension, and whether it answers.
struct ShellExtension {
    bus: Connection,
    enabled: bool,
}

impl Gnome {
    /// Connects to the session bus at `address`, starts a RemoteDesktop
    /// session, and takes the name GNOME Shell's screenshots want.
    pub fn connect(address: &str) -> Result<Gnome> {
        let bus = crate::compositor_bus::connect(address)?;
        // The name GNOME Shell's screenshots want, where it is free; without it
        // screenshots are refused, and say why. Asked for plainly: this
        // connection serves no objects (zbus warns of a name without them).
        const DO_NOT_QUEUE: u32 = 4;
        let _ = crate::compositor_bus::call::<_, u32>(
            &bus,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "RequestName",
            &(screenshot::ALLOWED_NAME, DO_NOT_QUEUE),
        );
        let input = RemoteDesktop::start(&bus).map_err(|e| {
            Error::Wayland(format!(
                "{e}; input on GNOME needs mutter's RemoteDesktop (GNOME 40 or later) and \
                 PipeWire running"
            ))
        })?;
        // mutter adds the session's devices to the seat at their first event,
        // and apps bind them only then: input before is lost.
        input.wake_devices()?;
        match crate::wayland::seat::await_pointer_and_keyboard(SEAT_DEADLINE) {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!("the seat has no pointer and keyboard yet: input may be lost")
            }
            Err(error) => tracing::warn!(%error, "cannot watch the seat: input may be lost"),
        }
        let extension = crate::compositor_bus::call::<_, zbus::zvariant::OwnedValue>(
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
            }),
            bus,
            input,
            clicks: ClickPacing::default(),
        })
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
        crate::compositor_bus::call(
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
}

impl VirtualDevices for Gnome {
    fn refusal(&self, why: String) -> Error {
        Error::Wayland(why)
    }

    fn check_point(&self, at: Point) -> Result<()> {
        self.input.monitor_of(at.x, at.y).map(drop)
    }

    fn move_to(&mut self, at: Point) -> Result<()> {
        self.input.move_to(at.x, at.y)
    }

    fn button(&mut self, code: u32, down: bool) -> Result<()> {
        self.input.button(code as i32, down)
    }

    fn wheel(&mut self, direction: ScrollDirection) -> Result<()> {
        let (axis, steps) = match direction {
            ScrollDirection::Up => (0, -1),
            ScrollDirection::Down => (0, 1),
            ScrollDirection::Left => (1, -1),
            ScrollDirection::Right => (1, 1),
        };
        self.input.wheel(axis, steps)
    }

    fn modifier(&mut self, modifier: Modifier, down: bool, _held: &[Modifier]) -> Result<()> {
        let keysym = keysyms::named(modifier.key_name())
            .ok_or_else(|| Error::Wayland(format!("no keysym for {modifier}")))?;
        self.input.keysym(keysym, down)
    }

    /// mutter types a keysym only where the keyboard layout has it, and drops
    /// others: refused before anything is typed, so that nothing is half typed.
    fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()> {
        virtual_input::refuse_beyond_us_layout("GNOME's remote desktop", keysyms)
    }

    /// mutter adds Shift where the keysym's level needs it.
    fn tap(&mut self, keysym: u32, _held: &[Modifier]) -> Result<()> {
        self.input.keysym(keysym, true)?;
        self.input.keysym(keysym, false)
    }

    /// Each event is a method call mutter has handled when it answers.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn clicks(&mut self) -> &mut ClickPacing {
        &mut self.clicks
    }
}

impl Screen for Gnome {
    fn name(&self) -> &'static str {
        match self.extension() {
            true => "GNOME (mutter): input through mutter's RemoteDesktop, screenshots through GNOME Shell, window places from axsight's Shell extension",
            false => "GNOME (mutter): input through mutter's RemoteDesktop, screenshots through GNOME Shell; no window places (axsight's Shell extension is not enabled: run `axsight gnome-extension`)",
        }
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        true
    }

    fn clipboard(&self) -> Option<crate::clipboard::Clipboard> {
        self.extension()
            .then(|| crate::clipboard::Clipboard::GnomeShell(self.bus.clone()))
    }

    fn round_trip(&mut self) -> Result<()> {
        crate::compositor_bus::ping(&self.bus)
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        virtual_input::send(self, input)
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        let layout = self
            .input
            .monitors
            .iter()
            .map(|m| m.bounds)
            .reduce(|a, b| a.union(&b))
            .ok_or_else(|| Error::Wayland("mutter reports no monitor".into()))?;
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

/// The clipboard's text through axsight's Shell extension, its owner a digest
/// of it (Wayland names no holder); `None` when it holds none.
pub(crate) fn clipboard_read(bus: &Connection) -> Result<Option<axsight_core::ClipboardText>> {
    let text: String = crate::compositor_bus::call(
        bus,
        "org.gnome.Shell",
        windows::PATH,
        windows::INTERFACE,
        "GetClipboard",
        &(),
    )
    .map_err(|e| Error::Clipboard(e.to_string()))?;
    if text.is_empty() {
        return Ok(None);
    }
    let owner = crate::wayland::clipboard::digest(&text);
    Ok(Some(axsight_core::ClipboardText { text, owner }))
}

/// Puts `text` on GNOME Shell's clipboard, which holds it itself.
pub(crate) fn clipboard_hold(bus: &Connection, text: &str) -> Result<()> {
    crate::compositor_bus::call(
        bus,
        "org.gnome.Shell",
        windows::PATH,
        windows::INTERFACE,
        "SetClipboard",
        &(text,),
    )
    .map_err(|e| Error::Clipboard(e.to_string()))
}

fn no_extension() -> Error {
    Error::Wayland(
        "GNOME tells no client where windows are: enable axsight's GNOME Shell extension \
         (`axsight gnome-extension` installs it; log out and in, then `gnome-extensions \
         enable axsight@axsight.github.io`)"
            .into(),
    )
}
