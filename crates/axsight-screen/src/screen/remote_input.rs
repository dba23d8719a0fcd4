//! Input through a remote-desktop session: mutter's own
//! (`crate::gnome::remote_desktop`) or the RemoteDesktop portal's
//! (`crate::screen::portals::remote_desktop`). Both take the same events — keysyms,
//! absolute motion relative to a monitor's stream, buttons, discrete wheel
//! notches — so one [`VirtualDevices`] serves both; a session only sends them.
//! Keysyms are typed only where the session's keyboard layout has them, so
//! other characters are refused before anything is typed.

use axsight_core::{Bounds, Modifier, Point, ScrollDirection};

use super::click_gap::ClickPacing;
use super::keysyms;
use super::virtual_input::{self, VirtualDevices};
use crate::{Error, Result};

/// How long the seat gets to show the session's devices.
const SEAT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// A started remote-desktop session's events.
pub trait RemoteDesktopSession: Send {
    /// Whether (`x`, `y`) is on a monitor the session can point at; an error
    /// saying so when not.
    fn check_point(&self, x: i32, y: i32) -> Result<()>;
    /// Moves the pointer by nothing: the compositor adds the session's
    /// pointer to the seat at its first event, and apps bind it only then.
    fn wake(&self) -> Result<()>;
    /// Moves the pointer to (`x`, `y`) of the layout.
    fn move_to(&self, x: i32, y: i32) -> Result<()>;
    /// Presses or releases a pointer button (`BTN_LEFT`…).
    fn button(&self, code: i32, down: bool) -> Result<()>;
    /// Turns the wheel `steps` notches on `axis` (0 vertical, 1 horizontal).
    fn wheel(&self, axis: u32, steps: i32) -> Result<()>;
    /// Presses or releases the key of `keysym`.
    fn keysym(&self, keysym: u32, down: bool) -> Result<()>;
    /// Returns once the events sent before were passed on.
    fn sync(&self) -> Result<()>;
    /// The monitors' union: the screen the session points at.
    fn layout(&self) -> Option<Bounds>;
}

/// A remote-desktop session as virtual devices, with its click pacing.
pub struct RemoteInput {
    pub session: Box<dyn RemoteDesktopSession>,
    /// Who types, for refusals ("GNOME's remote desktop").
    who: &'static str,
    clicks: ClickPacing,
}

impl RemoteInput {
    pub fn new(session: Box<dyn RemoteDesktopSession>, who: &'static str) -> RemoteInput {
        RemoteInput {
            session,
            who,
            clicks: ClickPacing::default(),
        }
    }

    /// Makes the compositor add the session's pointer and keyboard to the
    /// seat, which it does at their first event, and waits (briefly) until the
    /// seat shows them: apps bind them only then, and input before is lost. A
    /// pointer motion by nothing and a tap of Shift move and type nothing.
    pub fn wake_devices(&self) -> Result<()> {
        self.session.wake()?;
        let shift = keysyms::named("Shift_L").unwrap_or(0xffe1);
        self.session.keysym(shift, true)?;
        self.session.keysym(shift, false)?;
        self.session.sync()?;
        match crate::screen::wayland::seat::await_pointer_and_keyboard(SEAT_DEADLINE) {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!("the seat has no pointer and keyboard yet: input may be lost")
            }
            Err(error) => tracing::warn!(%error, "cannot watch the seat: input may be lost"),
        }
        Ok(())
    }

    /// Sends `input` (see [`virtual_input::send`]).
    pub fn send(&mut self, input: &axsight_core::Input) -> Result<()> {
        virtual_input::send(self, input)
    }
}

impl VirtualDevices for RemoteInput {
    fn refusal(&self, why: String) -> Error {
        Error::Wayland(why)
    }

    fn check_point(&self, at: Point) -> Result<()> {
        self.session.check_point(at.x, at.y)
    }

    fn move_to(&mut self, at: Point) -> Result<()> {
        self.session.move_to(at.x, at.y)
    }

    fn button(&mut self, code: u32, down: bool) -> Result<()> {
        self.session.button(code as i32, down)
    }

    fn wheel(&mut self, direction: ScrollDirection) -> Result<()> {
        let (axis, steps) = direction.axis_and_sign();
        self.session.wheel(axis, steps)
    }

    fn modifier(&mut self, modifier: Modifier, down: bool, _held: &[Modifier]) -> Result<()> {
        let keysym = keysyms::named(modifier.key_name())
            .ok_or_else(|| Error::Wayland(format!("no keysym for {modifier}")))?;
        self.session.keysym(keysym, down)
    }

    fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()> {
        virtual_input::refuse_beyond_us_layout(self.who, keysyms)
    }

    /// The compositor adds Shift where the keysym's level needs it.
    fn tap(&mut self, keysym: u32, _held: &[Modifier]) -> Result<()> {
        self.session.keysym(keysym, true)?;
        self.session.keysym(keysym, false)
    }

    fn sync(&mut self) -> Result<()> {
        self.session.sync()
    }

    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn clicks(&mut self) -> &mut ClickPacing {
        &mut self.clicks
    }
}
