//! The wlroots virtual pointer and keyboard as [`VirtualDevices`]: motion to an
//! absolute point of the output layout, buttons, wheel notches, and keys of
//! axsight's own keymap. What to send in which order is `screen/virtual_input`'s.

use axsight_core::{Input, Modifier, Point, ScrollDirection};
use wayland_client::protocol::wl_pointer::{Axis, AxisSource, ButtonState};

use super::keymap::Keymap;
use super::Wlroots;
use crate::screen::click_gap::ClickPacing;
use crate::screen::virtual_input::{self, VirtualDevices};
use crate::{Error, Result};

/// One wheel notch as a scroll distance, as libinput reports a mouse wheel.
const NOTCH: f64 = 15.0;

impl Wlroots {
    /// Sends `input` and returns once the compositor has handled it, with every
    /// key, modifier and button released again.
    pub fn send_input(&mut self, input: &Input) -> Result<()> {
        virtual_input::send(self, input)
    }

    /// `at` relative to the layout's corner, with the layout's size, when it
    /// is on an output.
    fn layout_point(&self, at: Point) -> Result<(u32, u32, u32, u32)> {
        self.state.check_on_output(at)?;
        let layout = self.layout()?;
        Ok((
            (at.x - layout.x) as u32,
            (at.y - layout.y) as u32,
            layout.width as u32,
            layout.height as u32,
        ))
    }
}

impl VirtualDevices for Wlroots {
    fn refusal(&self, why: String) -> Error {
        Error::Wayland(why)
    }

    fn check_point(&self, at: Point) -> Result<()> {
        self.layout_point(at).map(drop)
    }

    fn move_to(&mut self, at: Point) -> Result<()> {
        let (x, y, width, height) = self.layout_point(at)?;
        let time = self.now();
        self.pointer.motion_absolute(time, x, y, width, height);
        self.pointer.frame();
        Ok(())
    }

    fn button(&mut self, code: u32, down: bool) -> Result<()> {
        let time = self.now();
        let state = match down {
            true => ButtonState::Pressed,
            false => ButtonState::Released,
        };
        self.pointer.button(time, code, state);
        self.pointer.frame();
        Ok(())
    }

    fn wheel(&mut self, direction: ScrollDirection) -> Result<()> {
        let (axis, sign) = match direction.axis_and_sign() {
            (0, sign) => (Axis::VerticalScroll, sign),
            (_, sign) => (Axis::HorizontalScroll, sign),
        };
        let time = self.now();
        self.pointer.axis_source(AxisSource::Wheel);
        self.pointer
            .axis_discrete(time, axis, NOTCH * f64::from(sign), sign);
        self.pointer.frame();
        Ok(())
    }

    fn modifier(&mut self, modifier: Modifier, down: bool, held: &[Modifier]) -> Result<()> {
        self.modifier_key(modifier, down, held)
    }

    fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()> {
        self.keys_for(keysyms)
    }

    fn tap(&mut self, keysym: u32, held: &[Modifier]) -> Result<()> {
        Wlroots::tap(self, keysym, held)
    }

    fn text_parts<'k>(&self, keysyms: &'k [u32]) -> Vec<&'k [u32]> {
        parts_that_fit(keysyms)
    }

    fn sync(&mut self) -> Result<()> {
        self.round_trip()
    }

    fn flush(&mut self) -> Result<()> {
        self.conn.flush().map_err(super::wayland_error)
    }

    fn clicks(&mut self) -> &mut ClickPacing {
        &mut self.clicks
    }
}

/// `keysyms` cut into runs that each need no more keys of their own (keysyms
/// beyond the keymap's base) than a keymap holds.
fn parts_that_fit(keysyms: &[u32]) -> Vec<&[u32]> {
    let capacity = Keymap::capacity();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut distinct: Vec<u32> = Vec::new();
    for (i, keysym) in keysyms.iter().enumerate() {
        if !Keymap::in_base(*keysym) && !distinct.contains(keysym) {
            if distinct.len() == capacity {
                parts.push(&keysyms[start..i]);
                start = i;
                distinct.clear();
            }
            distinct.push(*keysym);
        }
    }
    if start < keysyms.len() {
        parts.push(&keysyms[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_with_more_characters_than_keys_is_typed_in_parts() {
        let capacity = Keymap::capacity() as u32;
        let han = |n: u32| 0x0100_4e00 + n;
        assert_eq!(parts_that_fit(&[han(1), han(2), han(1)]).len(), 1);
        // Base keys (a, Return) take no key of their own, however many.
        let long: Vec<u32> = (0..capacity + 2).map(han).chain([0x61, 0xff0d]).collect();
        let parts = parts_that_fit(&long);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].len(), capacity as usize);
        assert_eq!(
            parts[1],
            &[han(capacity), han(capacity + 1), 0x61, 0xff0d][..]
        );
        assert!(parts_that_fit(&[]).is_empty());
    }
}
