//! The screen of a sway session: windows, their places and focus through sway's
//! IPC (`get_tree`, `[con_id=…] focus|kill|move`), input and pixels through the
//! wlroots protocols ([`crate::screen::wayland::Wlroots`]).
//!
//! Native Wayland apps report accessible extents relative to their own window,
//! so each window's origin comes from here (see [`crate::screen::frame_origin`]).
//! Minimizing sends a window to the scratchpad (sway has no icons); maximizing
//! is sway's fullscreen. It runs no external tool (`swaymsg`, `grim`, `wtype`).
//!
//! # sway in detail
//!
//! `sway::Sway` holds a `swayipc` connection and a `wayland::Wlroots` (one Wayland
//! connection with a virtual pointer, a virtual keyboard and the screencopy manager,
//! made at connect and kept: a client binds a new device only once its loop reads the
//! seat's capabilities, and input before that is lost). Nothing runs an external tool.
//!
//! - **Windows.** `get_tree` becomes views in stacking order (`sway/views.rs`, unit
//!   tested on a plain tree): each workspace's tiled views, then its floating ones in
//!   their order, then a fullscreen one. A view's content is `rect` + `window_rect`'s
//!   offset, `window_rect`'s size (title bars and borders outside it). The same
//!   `Matches` pick a view for an accessible window (title, content size, pid).
//! - **Origins.** A native Wayland app reports extents relative to its own window. The
//!   frame starts at the content, unless the frame is larger than the content by more
//!   than 2 px: then it holds a client-side shadow (GTK3 with a header bar, floating)
//!   and starts that far before the content. sway does not say how far; the app's tree
//!   does: `Accessibility::frame_inset` reads the corner of the frame's children (the
//!   header bar starts at the visible window) once per window and frame size, and
//!   passes it in `Wanted::inset`. An XWayland view's extents are already screen ones.
//! - **Input** (`screen/wayland/input.rs`): the Wayland backends share one driver,
//!   `screen/virtual_input.rs`: the order of events, click spacing
//!   (`screen/click_gap`), drags paced as on X11, which modifiers are down, a sync
//!   every 64 keys and at the end, and every key and button released whatever
//!   failed (unit-tested on a recorder of events); each backend implements
//!   `VirtualDevices` (send one motion, button, notch, modifier, key). On sway:
//!   `motion_absolute` over the layout box (outputs from xdg-output, since wlroots
//!   sends 0,0 as every `wl_output`'s place), buttons as `BTN_LEFT`…, the wheel as
//!   `axis_discrete` notches of 15, a round trip as the sync.
//! - **Keys** (`screen/wayland/keymap.rs`, `screen/wayland/keyboard.rs`): the client chooses the
//!   virtual keyboard's keymap, so axsight sends its own: a US keyboard on the standard
//!   evdev codes (letters with their capitals on the shifted level, digits,
//!   punctuation, the named keys, the four modifiers), the same in every process, plus
//!   a key of its own for each other keysym typed (`é`, `€`, `日`), appended on codes
//!   the base leaves free. Keeping the base fixed matters: while keys moved between
//!   keymaps, GTK3 stopped matching `Delete`, `BackSpace` after `End`, and `ctrl+a`
//!   (its shortcut tables are built from the keymap). A text with more distinct
//!   characters than there are free codes is typed in parts. wlroots works no
//!   modifiers out from a virtual keyboard's keys, so each change is also sent as a
//!   `modifiers` mask.
//! - **Screenshots** (`screen/wayland/screencopy.rs`): `capture_output_region` for each
//!   output the region touches, into a memfd `wl_shm` buffer, BGRX/RGBX to RGB,
//!   y-inverted where flagged, sampled to logical size on a scaled output.
//! - **Window control.** `[con_id=N] focus` (then up to 2 s until sway says it is
//!   focused), `kill`, `move absolute position` and `resize set` on a floating window
//!   (made floating first; asked once, then corrected by the decorations sway put
//!   around the content, which are measured rather than assumed), `fullscreen` for
//!   maximize, the scratchpad for minimize. `reaches` is the topmost visible view
//!   holding the point.
//! - **Clipboard** (`screen/wayland/clipboard.rs`): `zwlr_data_control_manager_v1` on a
//!   connection of its own: the selection's offer read through a pipe within 2 s; text
//!   held by a thread that serves `send` until the source is cancelled. Wayland names
//!   no holder, so `owner` is a digest of the text.

mod views;

use axsight_core::{Bounds, Capture, ElementId, Input, Placement};

use crate::screen::matching::{Candidate, Matches, Wanted};
use crate::screen::wayland::Wlroots;
use crate::screen::{Screen, WindowId, WindowOrigin};
use crate::{Error, Result};
use views::View;

/// A sway session's IPC and Wayland connections.
pub struct Sway {
    ipc: swayipc::Connection,
    wayland: Wlroots,
    matches: Matches,
}

impl Sway {
    /// Connects to sway's IPC socket (`SWAYSOCK`) and to its Wayland display
    /// (`WAYLAND_DISPLAY`).
    pub fn connect() -> Result<Sway> {
        let ipc = swayipc::Connection::new().map_err(|e| {
            Error::Wayland(format!("cannot reach sway's IPC socket (SWAYSOCK): {e}"))
        })?;
        let wayland = Wlroots::connect()?;
        Ok(Sway {
            ipc,
            wayland,
            matches: Matches::default(),
        })
    }

    fn views(&mut self) -> Result<Vec<View>> {
        let tree = self.ipc.get_tree().map_err(ipc_error)?;
        Ok(views::views(&tree))
    }

    fn view(&mut self, window: WindowId) -> Result<View> {
        self.views()?
            .into_iter()
            .find(|view| view.id as u64 == window)
            .ok_or(Error::WindowGone)
    }

    /// Runs sway commands on container `window`; a command sway refuses is an
    /// error saying why.
    fn command(&mut self, window: WindowId, commands: &str) -> Result<()> {
        let payload = format!("[con_id={window}] {commands}");
        for outcome in self.ipc.run_command(&payload).map_err(ipc_error)? {
            outcome.map_err(|e| Error::Placement(format!("sway refused `{payload}`: {e}")))?;
        }
        Ok(())
    }

    /// Looks at the view until `wanted` holds (see [`crate::screen::await_window`]).
    fn await_view(
        &mut self,
        window: WindowId,
        done: &str,
        wanted: impl Fn(&View) -> bool,
    ) -> Result<View> {
        crate::screen::await_window(done, || self.view(window), wanted, |v| v.content)
    }

    fn candidates(&mut self) -> Result<Vec<Candidate>> {
        Ok(self.views()?.iter().map(candidate).collect())
    }

    fn matched(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<View>> {
        let views = self.views()?;
        Ok(self.matches.find_in(id, siblings, wanted, views, candidate))
    }

    /// Moves the floating view's content to (`x`, `y`), with `size` if given:
    /// asked once, then corrected by what sway put around the content (title
    /// bar, borders), which it measures rather than assumes.
    fn move_content(
        &mut self,
        window: WindowId,
        (x, y): (i32, i32),
        size: Option<(i32, i32)>,
    ) -> Result<View> {
        self.command(window, "floating enable")?;
        if let Some((width, height)) = size {
            self.resize_content(window, width, height)?;
        }
        let before = self.view(window)?.content;
        self.command(window, &format!("move absolute position {x} {y}"))?;
        let asked = (x, y);
        let first = self.await_view(window, "moved", |v| {
            let at = (v.content.x, v.content.y);
            at != (before.x, before.y) || at == asked
        })?;
        let (dx, dy) = (first.content.x - asked.0, first.content.y - asked.1);
        if (dx, dy) != (0, 0) {
            self.command(
                window,
                &format!("move absolute position {} {}", x - dx, y - dy),
            )?;
        }
        self.await_view(window, "moved", move |v| {
            (v.content.x, v.content.y) == asked
        })
    }

    fn resize_content(&mut self, window: WindowId, width: i32, height: i32) -> Result<View> {
        if width < 1 || height < 1 {
            return Err(Error::Placement(format!(
                "a window cannot be {width}×{height}: width and height must be at least 1"
            )));
        }
        self.command(window, "floating enable")?;
        let before = self.view(window)?.content;
        self.command(
            window,
            &format!("resize set width {width} px height {height} px"),
        )?;
        let first = self.await_view(window, "resized", |v| {
            let size = (v.content.width, v.content.height);
            size != (before.width, before.height) || size == (width, height)
        })?;
        let (dw, dh) = (first.content.width - width, first.content.height - height);
        if (dw, dh) != (0, 0) {
            self.command(
                window,
                &format!(
                    "resize set width {} px height {} px",
                    width - dw,
                    height - dh
                ),
            )?;
        }
        self.await_view(window, "resized", move |v| {
            (v.content.width, v.content.height) == (width, height)
        })
    }
}

impl Screen for Sway {
    fn name(&self) -> String {
        "sway (wlroots): input through a virtual pointer and keyboard, screenshots through screencopy, window places from sway's IPC".into()
    }

    fn extents_are_window_relative(&self) -> bool {
        true
    }

    fn made_input_devices(&self) -> bool {
        true
    }

    fn clipboard(&self) -> Option<Box<dyn crate::screen::clipboard::Clipboard>> {
        Some(Box::new(crate::screen::wayland::clipboard::DataControl))
    }

    fn round_trip(&mut self) -> Result<()> {
        self.ipc.get_version().map_err(ipc_error)?;
        self.wayland.round_trip()
    }

    fn send_input(&mut self, input: &Input) -> Result<()> {
        self.wayland.send_input(input)
    }

    fn capture(&mut self, region: Option<Bounds>) -> Result<Capture> {
        self.wayland.capture(region)
    }

    fn toplevel_for(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowId>> {
        Ok(self
            .matched(id, siblings, wanted)?
            .map(|view| view.id as u64))
    }

    fn toplevel_of(&mut self, pid: Option<u32>, title: &str) -> Result<Option<WindowId>> {
        let wanted = Wanted {
            title: title.to_string(),
            size: None,
            pid,
            inset: None,
        };
        Ok(crate::screen::matching::best(
            &self.candidates()?,
            &wanted,
            &[],
        ))
    }

    fn content_origin(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<WindowOrigin>> {
        let Some(view) = self.matched(id, siblings, wanted)? else {
            return Ok(None);
        };
        // An X11 client's extents are already in the X screen, which XWayland
        // lays over the outputs as they are.
        if view.xwayland {
            return Ok(Some(WindowOrigin::unscaled(0, 0)));
        }
        let (x, y) = crate::screen::frame_origin(view.content, wanted.size, wanted.inset);
        Ok(Some(WindowOrigin::unscaled(x, y)))
    }

    fn window_bounds(
        &mut self,
        id: &ElementId,
        siblings: &[ElementId],
        wanted: &Wanted,
    ) -> Result<Option<Bounds>> {
        Ok(self.matched(id, siblings, wanted)?.map(|view| view.content))
    }

    fn windows_of_pid(&mut self, pid: u32) -> Result<Vec<(String, Bounds)>> {
        Ok(self
            .views()?
            .into_iter()
            .filter(|view| view.pid == Some(pid) && view.visible)
            .map(|view| (view.title, view.content))
            .collect())
    }

    fn outputs(&mut self) -> Result<Vec<crate::screen::Output>> {
        let outputs = self.ipc.get_outputs().map_err(ipc_error)?;
        Ok(outputs
            .into_iter()
            .filter(|output| output.active)
            .filter_map(|output| {
                let rect = output.rect;
                Some(crate::screen::Output {
                    bounds: Bounds::from_extents(rect.x, rect.y, rect.width, rect.height)?,
                    scale: output.scale.unwrap_or(1.0),
                    primary: output.focused,
                    name: output.name,
                })
            })
            .collect())
    }

    fn toplevels(&mut self) -> Result<Vec<crate::screen::Toplevel>> {
        Ok(self
            .views()?
            .into_iter()
            .filter(|view| view.visible)
            .map(|view| crate::screen::Toplevel {
                id: view.id as u64,
                title: view.title,
                class: view.class,
                pid: view.pid,
                bounds: view.content,
                active: view.focused,
            })
            .collect())
    }

    fn reaches(&mut self, window: WindowId, x: i32, y: i32) -> Result<bool> {
        let views = self.views()?;
        Ok(views::view_at(&views, x, y).is_some_and(|view| view.id as u64 == window))
    }

    fn activate(&mut self, window: WindowId) -> Result<()> {
        self.command(window, "focus")?;
        self.await_view(window, "focused", |view| view.focused && view.visible)
            .map(drop)
    }

    fn activate_at(&mut self, x: i32, y: i32) -> Result<()> {
        let views = self.views()?;
        let Some(view) = views::view_at(&views, x, y) else {
            return Ok(()); // nothing there to focus: the click goes to the desktop
        };
        let window = view.id as u64;
        self.activate(window)
    }

    fn close(&mut self, window: WindowId) -> Result<()> {
        self.command(window, "kill")
    }

    fn place(&mut self, window: WindowId, placement: Placement) -> Result<Option<Bounds>> {
        let before = self.view(window)?;
        let view = match placement {
            Placement::Move { x, y, size } => self.move_content(window, (x, y), size)?,
            Placement::Resize { width, height } => self.resize_content(window, width, height)?,
            Placement::Maximize(on) => {
                if before.fullscreen == on {
                    return Ok(Some(before.content));
                }
                let state = if on { "enable" } else { "disable" };
                self.command(window, &format!("fullscreen {state}"))?;
                let done = if on { "maximized" } else { "restored" };
                self.await_view(window, done, move |view| {
                    view.fullscreen == on && view.content != before.content
                })?
            }
            Placement::Minimize(true) => {
                self.command(window, "move scratchpad")?;
                self.await_view(window, "minimized", |view| !view.visible)?;
                return Ok(None);
            }
            Placement::Minimize(false) => {
                if before.visible {
                    return Ok(Some(before.content));
                }
                self.command(window, "scratchpad show")?;
                self.await_view(window, "shown", |view| view.visible)?
            }
        };
        Ok(Some(view.content))
    }
}

/// What matching weighs of a view.
fn candidate(view: &View) -> Candidate {
    Candidate {
        window: view.id as u64,
        title: view.title.clone(),
        size: Some((view.content.width, view.content.height)),
        pid: view.pid,
        mapped: view.visible,
    }
}

/// A failed IPC request: sway gone (the socket broke) or a reply it refused.
fn ipc_error(error: swayipc::Error) -> Error {
    match error {
        swayipc::Error::Io(io) => Error::DisplayLost(format!("sway's IPC connection broke: {io}")),
        other => Error::Wayland(format!("sway's IPC failed: {other}")),
    }
}
