//! Input on KDE through KWin's fake input (`org_kde_kwin_fake_input`), which
//! KWin offers only to an authorised executable ([`super::authorization`]):
//! absolute pointer motion in the output layout, buttons, wheel, and keys as
//! evdev codes that KWin runs through the session's own keyboard layout. Keys
//! are the US layout's ([`crate::screen::wayland::us_key`]); other characters are
//! refused, not dropped. The Wayland connection also follows the outputs.

use axsight_core::{Modifier, Point, ScrollDirection};
use wayland_client::{Connection, EventQueue};
use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;

use crate::screen::click_gap::ClickPacing;
use crate::screen::virtual_input::{self, VirtualDevices};
use crate::screen::wayland::{self, State};
use crate::{Error, Result};

/// Button and key states as the protocol takes them.
const RELEASED: u32 = 0;
const PRESSED: u32 = 1;
/// One wheel notch as a scroll distance, as libinput reports a mouse wheel.
const NOTCH: f64 = 15.0;

/// A Wayland connection to KWin, with fake input where KWin allows it.
pub struct KwinInput {
    conn: Connection,
    queue: EventQueue<State>,
    state: State,
    /// `None` where KWin does not offer fake input to this executable.
    device: Option<OrgKdeKwinFakeInput>,
    clicks: ClickPacing,
}

impl KwinInput {
    /// Connects to KWin and, where it offers fake input (version 4, with
    /// keys), authenticates as axsight.
    pub fn connect() -> Result<KwinInput> {
        let (conn, globals, mut queue, mut state) = wayland::connect_following_outputs()?;
        let qh = queue.handle();
        let device: Option<OrgKdeKwinFakeInput> = globals.bind(&qh, 4..=5, ()).ok();
        if let Some(device) = &device {
            device.authenticate("axsight".into(), "an AI agent operates the desktop".into());
        }
        queue
            .roundtrip(&mut state)
            .map_err(wayland::wayland_error)?;
        Ok(KwinInput {
            conn,
            queue,
            state,
            device,
            clicks: ClickPacing::default(),
        })
    }

    /// Whether KWin lets axsight send input.
    pub fn allowed(&self) -> bool {
        self.device.is_some()
    }

    /// The box around every output.
    pub fn layout(&self) -> Result<axsight_core::Bounds> {
        self.state.layout()
    }

    /// The outputs, with their places and scales as KWin last said (a round
    /// trip first: a scale changed since is then known).
    pub fn outputs(&mut self) -> Result<Vec<axsight_core::Output>> {
        self.queue
            .roundtrip(&mut self.state)
            .map_err(wayland::wayland_error)?;
        Ok(self.state.named_outputs())
    }

    fn device(&self) -> Result<&OrgKdeKwinFakeInput> {
        self.device.as_ref().ok_or_else(|| {
            Error::Wayland(format!(
                "KWin offers axsight no fake input. {}",
                super::authorization::ADVICE
            ))
        })
    }

    fn key(&self, code: u32, down: bool) -> Result<()> {
        self.device()?
            .keyboard_key(code, if down { PRESSED } else { RELEASED });
        Ok(())
    }
}

impl VirtualDevices for KwinInput {
    fn refusal(&self, why: String) -> Error {
        Error::Wayland(why)
    }

    fn check_point(&self, at: Point) -> Result<()> {
        self.state.check_on_output(at)
    }

    fn move_to(&mut self, at: Point) -> Result<()> {
        self.state.check_on_output(at)?;
        self.device()?
            .pointer_motion_absolute(f64::from(at.x), f64::from(at.y));
        Ok(())
    }

    fn button(&mut self, code: u32, down: bool) -> Result<()> {
        self.device()?
            .button(code, if down { PRESSED } else { RELEASED });
        Ok(())
    }

    fn wheel(&mut self, direction: ScrollDirection) -> Result<()> {
        let (axis, sign) = direction.axis_and_sign();
        self.device()?.axis(axis, NOTCH * f64::from(sign));
        Ok(())
    }

    /// KWin works the modifiers out from the keys, as from a real keyboard.
    fn modifier(&mut self, modifier: Modifier, down: bool, _held: &[Modifier]) -> Result<()> {
        self.key(wayland::modifier_code(modifier), down)
    }

    /// Keys go through the session's layout, taken to be US: other characters
    /// are refused before anything is typed.
    fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()> {
        self.device()?;
        virtual_input::refuse_beyond_us_layout("KWin's fake input", keysyms)
    }

    fn tap(&mut self, keysym: u32, held: &[Modifier]) -> Result<()> {
        let (code, shift) = wayland::us_key(keysym)
            .ok_or_else(|| Error::Wayland(format!("no key of a US keyboard types {keysym:#x}")))?;
        let add_shift = shift && !held.contains(&Modifier::Shift);
        let shift_code = wayland::modifier_code(Modifier::Shift);
        if add_shift {
            self.key(shift_code, true)?;
        }
        self.key(code, true)?;
        self.key(code, false)?;
        if add_shift {
            self.key(shift_code, false)?;
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.queue
            .roundtrip(&mut self.state)
            .map(drop)
            .map_err(wayland::wayland_error)
    }

    fn flush(&mut self) -> Result<()> {
        self.conn.flush().map_err(wayland::wayland_error)
    }

    fn clicks(&mut self) -> &mut ClickPacing {
        &mut self.clicks
    }
}

wayland_client::delegate_noop!(State: OrgKdeKwinFakeInput);
