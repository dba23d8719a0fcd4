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

pub use windows::{EXTENSION_FILES, EXTENSION_UUID};

use std::time::Duration;

use axsight_core::{
    Bounds, Capture, ElementId, Input, Modifier, Placement, Point, ScrollDirection,
};
use zbus::blocking::Connection;

use crate::screen::click_gap::ClickPacing;
use crate::screen::keysyms;
use crate::screen::matching::{Candidate, Matches, Wanted};
use crate::screen::virtual_input::{self, VirtualDevices};
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use remote_desktop::RemoteDesktop;
use windows::ShellWindow;

/// How long the seat gets to show the RemoteDesktop session's devices.
const SEAT_DEADLINE: Duration = Duration::from_secs(1);

/// A GNOME session's bus connection, with the RemoteDesktop session it holds.
pub struct Gnome {
    bus: Connection,
    input: RemoteDesktop,
    /// axsight's Shell extension answers.
    extension: bool,
    matches: Matches,
    clicks: ClickPacing,
}

impl Gnome {
    /// Connects to the session bus at `address`, starts a RemoteDesktop
    /// session, and takes the name GNOME Shell's screenshots want.
    pub fn connect(address: &str) -> Result<Gnome> {
        let bus = zbus::blocking::connection::Builder::address(address)
            .and_then(|builder| builder.build())
            .map_err(|e| Error::Wayland(format!("cannot reach the session bus: {e}")))?;
        // The name GNOME Shell's screenshots want, where it is free; without it
        // screenshots are refused, and say why. Asked for plainly: this
        // connection serves no objects (zbus warns of a name without them).
        const DO_NOT_QUEUE: u32 = 4;
        let _ = remote_desktop::call::<_, u32>(
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
        let extension = remote_desktop::call::<_, zbus::zvariant::OwnedValue>(
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
            bus,
            input,
            extension,
            matches: Matches::default(),
            clicks: ClickPacing::default(),
        })
    }

    fn windows(&self) -> Result<Vec<ShellWindow>> {
        if !self.extension {
            return Err(no_extension());
        }
        let json: String = self.shell("ListWindows", &())?;
        windows::parse(&json).map_err(Error::Wayland)
    }

    fn window(&self, id: WindowId) -> Result<ShellWindow> {
        self.windows()?
            .into_iter()
            .find(|w| w.id == id)
            .ok_or(Error::WindowGone)
    }

    fn shell<B, R>(&self, method: &str, body: &B) -> Result<R>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
    {
        remote_desktop::call(
            &self.bus,
            "org.gnome.Shell",
            windows::PATH,
            windows::INTERFACE,
            method,
            body,
        )
    }

    /// Looks at the window until `wanted` holds (see [`crate::screen::await_window`]).
    fn await_window(
        &self,
        id: WindowId,
        done: &str,
        wanted: impl Fn(&ShellWindow) -> bool,
    ) -> Result<ShellWindow> {
        crate::screen::await_window(done, || self.window(id), wanted, ShellWindow::content)
    }

    fn matched(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<ShellWindow>> {
        if !self.extension {
            return Ok(None);
        }
        let all = self.windows()?;
        Ok(self.matches.find_in(id, siblings, wanted, all, candidate))
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
        let untypable: String = keysyms
            .iter()
            .filter(|k| !crate::wayland::on_a_us_keyboard(**k))
            .filter_map(|k| keysyms::char_of(*k))
            .collect();
        if untypable.is_empty() {
            return Ok(());
        }
        Err(Error::Wayland(format!(
            "GNOME's remote desktop types only what the keyboard layout has, and {untypable:?} \
             is not on it: type into the element instead (its text is set), or put the text \
             on the clipboard and paste it"
        )))
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
        match self.extension {
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
        self.extension
            .then(|| crate::clipboard::Clipboard::GnomeShell(self.bus.clone()))
    }

    fn round_trip(&mut self) -> Result<()> {
        remote_desktop::call::<_, String>(
            &self.bus,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "GetId",
            &(),
        )
        .map(drop)
        .map_err(|e| Error::DisplayLost(e.to_string()))
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
        let area = match region {
            Some(region) => region.intersection(&layout).ok_or_else(|| {
                Error::Wayland(format!(
                    "the region [{},{},{},{}] lies off the screen",
                    region.x, region.y, region.width, region.height
                ))
            })?,
            None => layout,
        };
        screenshot::capture(&self.bus, area)
    }

    fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>> {
        if !self.extension {
            return Err(no_extension());
        }
        Ok(self.matched(id, siblings, wanted)?.map(|w| w.id))
    }

    fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>> {
        let wanted = Wanted {
            title: title.to_string(),
            size: None,
            pid,
            inset: None,
        };
        let candidates: Vec<Candidate> = self.windows()?.iter().map(candidate).collect();
        Ok(crate::screen::matching::best(&candidates, &wanted, &[]))
    }

    fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        let Some(window) = self.matched(id, siblings, wanted)? else {
            return Ok(None);
        };
        if window.xwayland {
            return Ok(Some(WindowOrigin { x: 0, y: 0 }));
        }
        // The shell knows the shadow exactly (buffer rect against frame rect).
        let inset = wanted.inset.or(Some(window.shadow()));
        let (x, y) = crate::screen::frame_origin(window.content(), wanted.size, inset);
        Ok(Some(WindowOrigin { x, y }))
    }

    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        Ok(self.matched(id, siblings, wanted)?.map(|w| w.content()))
    }

    fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        Ok(self
            .windows()?
            .into_iter()
            .filter(|w| w.pid() == Some(pid) && w.shown)
            .map(|w| (w.title.clone(), w.content()))
            .collect())
    }

    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        let all = self.windows()?;
        Ok(windows::window_at(&all, x, y).is_some_and(|w| w.id == window))
    }

    fn activate(&mut self, window: WindowId) -> Result<()> {
        let () = self.shell("Activate", &(window,))?;
        self.await_window(window, "focused", |w| w.focused)
            .map(drop)
    }

    fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        let all = self.windows()?;
        match windows::window_at(&all, x, y) {
            Some(window) => {
                let id = window.id;
                self.activate(id)
            }
            None => Ok(()),
        }
    }

    fn close(&mut self, window: WindowId) -> Result<()> {
        self.shell("Close", &(window,))
    }

    fn place(&mut self, window: WindowId, placement: Placement) -> Result<Option<Bounds>> {
        let before = self.window(window)?;
        let [bx, by, bw, bh] = before.frame;
        let placed = match placement {
            Placement::Move { x, y, size } => {
                let (width, height) = size.unwrap_or((bw, bh));
                let () = self.shell("MoveResize", &(window, x, y, width, height))?;
                self.await_window(window, "moved", move |w| w.frame == [x, y, width, height])?
            }
            Placement::Resize { width, height } => {
                let () = self.shell("MoveResize", &(window, bx, by, width, height))?;
                self.await_window(window, "resized", move |w| {
                    (w.frame[2], w.frame[3]) == (width, height)
                })?
            }
            Placement::Maximize(on) => {
                if before.maximized == on {
                    return Ok(Some(before.content()));
                }
                let () = self.shell("Maximize", &(window, on))?;
                let done = if on { "maximized" } else { "restored" };
                self.await_window(window, done, move |w| {
                    w.maximized == on && w.frame != before.frame
                })?
            }
            Placement::Minimize(on) => {
                let () = self.shell("Minimize", &(window, on))?;
                let done = if on { "minimized" } else { "shown" };
                let shown = self.await_window(window, done, move |w| w.minimized == on)?;
                if on {
                    return Ok(None);
                }
                shown
            }
        };
        Ok(Some(placed.content()))
    }
}

/// The clipboard's text through axsight's Shell extension, its owner a digest
/// of it (Wayland names no holder); `None` when it holds none.
pub(crate) fn clipboard_read(bus: &Connection) -> Result<Option<axsight_core::ClipboardText>> {
    let text: String = remote_desktop::call(
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
    remote_desktop::call(
        bus,
        "org.gnome.Shell",
        windows::PATH,
        windows::INTERFACE,
        "SetClipboard",
        &(text,),
    )
    .map_err(|e| Error::Clipboard(e.to_string()))
}

/// What matching weighs of a shell window.
fn candidate(window: &ShellWindow) -> Candidate {
    Candidate {
        window: window.id,
        title: window.title.clone(),
        size: Some((window.frame[2], window.frame[3])),
        pid: window.pid(),
        mapped: window.shown,
    }
}

fn no_extension() -> Error {
    Error::Wayland(
        "GNOME tells no client where windows are: enable axsight's GNOME Shell extension \
         (`axsight gnome-extension` installs it; log out and in, then `gnome-extensions \
         enable axsight@axsight.github.io`)"
            .into(),
    )
}
