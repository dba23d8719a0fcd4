//! [`Input`] as virtual-pointer and virtual-keyboard requests: motion to an
//! absolute point, buttons, wheel notches, drags, chords and typed text.
//!
//! When a call returns the compositor has handled every request (one round
//! trip), and no key, modifier or button it pressed is still down, whatever
//! failed. It does not decide where to click: callers give layout points.

use std::time::Duration;

use axsight_core::{Input, Modifier, Point, ScrollDirection};
use wayland_client::protocol::wl_pointer::{Axis, AxisSource, ButtonState};

use super::keymap::Keymap;
use super::Wlroots;
use crate::screen::keysyms;
use crate::{Error, Result};

/// More notches than any page needs (as on X11).
const MAX_SCROLL: u32 = 1000;
/// One wheel notch as a scroll distance, as libinput reports a mouse wheel.
const NOTCH: f64 = 15.0;
/// Pointer positions between a drag's press and its release, and the pauses
/// that let a drag-and-drop target follow (as on X11).
const DRAG_STEPS: i32 = 10;
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(5);
const DROP_PAUSE: Duration = Duration::from_millis(50);
/// Keys sent before the compositor is asked to catch up: a round trip keeps a
/// long text from filling the socket.
const KEYS_PER_ROUND_TRIP: usize = 64;

impl Wlroots {
    /// Sends `input` and returns once the compositor has handled it, with every
    /// key, modifier and button released again.
    pub fn send_input(&mut self, input: &Input) -> Result<()> {
        let mut held = Vec::new();
        let mut buttons = Vec::new();
        let result = self.perform(input, &mut held, &mut buttons);
        let released = self.release_all(&mut held, &mut buttons);
        let synced = self.round_trip();
        result.and(released).and(synced)
    }

    fn perform(
        &mut self,
        input: &Input,
        held: &mut Vec<Modifier>,
        buttons: &mut Vec<u32>,
    ) -> Result<()> {
        match input {
            Input::Click {
                at,
                button,
                count,
                modifiers,
                control,
            } => {
                self.move_pointer(*at)?;
                self.clicks.await_gap(*count, *control);
                if !modifiers.is_empty() {
                    self.hold(modifiers, held)?;
                }
                let code = crate::screen::evdev_button(*button);
                for _ in 0..*count {
                    self.button(code, true, buttons);
                    self.button(code, false, buttons);
                }
                Ok(())
            }
            Input::Scroll {
                at,
                direction,
                amount,
            } => {
                if *amount > MAX_SCROLL {
                    return Err(Error::Wayland(format!(
                        "cannot scroll {amount} notches at once; {MAX_SCROLL} at most"
                    )));
                }
                self.move_pointer(*at)?;
                let (axis, sign) = match direction {
                    ScrollDirection::Up => (Axis::VerticalScroll, -1),
                    ScrollDirection::Down => (Axis::VerticalScroll, 1),
                    ScrollDirection::Left => (Axis::HorizontalScroll, -1),
                    ScrollDirection::Right => (Axis::HorizontalScroll, 1),
                };
                for _ in 0..*amount {
                    let time = self.now();
                    self.pointer.axis_source(AxisSource::Wheel);
                    self.pointer
                        .axis_discrete(time, axis, NOTCH * f64::from(sign), sign);
                    self.pointer.frame();
                }
                Ok(())
            }
            Input::Drag { from, to, button } => {
                self.layout_point(*to)?; // before anything is pressed
                self.move_pointer(*from)?;
                self.clicks.await_gap(1, None);
                let code = crate::screen::evdev_button(*button);
                self.button(code, true, buttons);
                for step in 1..=DRAG_STEPS {
                    self.pause(DRAG_STEP_PAUSE)?;
                    let between = |a: i32, b: i32| a + (b - a) * step / DRAG_STEPS;
                    self.move_pointer(Point {
                        x: between(from.x, to.x),
                        y: between(from.y, to.y),
                    })?;
                }
                self.pause(DROP_PAUSE)?;
                self.button(code, false, buttons);
                Ok(())
            }
            Input::Keys(chords) => {
                let keysyms = chords
                    .iter()
                    .map(|chord| keysyms::of_chord(chord).map_err(Error::Wayland))
                    .collect::<Result<Vec<u32>>>()?;
                self.keys_for(&keysyms)?;
                for (chord, keysym) in chords.iter().zip(keysyms) {
                    self.hold(&chord.modifiers, held)?;
                    self.tap(keysym, held)?;
                    self.hold(&[], held)?;
                }
                Ok(())
            }
            Input::Text(text) => {
                let keysyms =
                    keysyms::of_text(text).map_err(|c| Error::Wayland(keysyms::no_key_for(c)))?;
                // A keymap holds so many keys: a text with more distinct
                // characters is typed in parts, each with a keymap of its own.
                for part in parts_that_fit(&keysyms) {
                    self.keys_for(part)?;
                    for (n, &keysym) in part.iter().enumerate() {
                        self.tap(keysym, held)?;
                        if (n + 1) % KEYS_PER_ROUND_TRIP == 0 {
                            self.round_trip()?;
                        }
                    }
                    // Keys typed with this keymap reach the app before the next.
                    self.round_trip()?;
                }
                Ok(())
            }
        }
    }

    /// Moves the pointer to `at`, a point of the layout.
    fn move_pointer(&mut self, at: Point) -> Result<()> {
        let (x, y, width, height) = self.layout_point(at)?;
        let time = self.now();
        self.pointer.motion_absolute(time, x, y, width, height);
        self.pointer.frame();
        Ok(())
    }

    /// `at` relative to the layout's corner, with the layout's size, when it
    /// is on an output.
    fn layout_point(&self, at: Point) -> Result<(u32, u32, u32, u32)> {
        let outputs = self.outputs();
        if !outputs.iter().any(|o| o.contains(at.x, at.y)) {
            let shown: Vec<String> = outputs
                .iter()
                .map(|o| format!("[{},{},{},{}]", o.x, o.y, o.width, o.height))
                .collect();
            return Err(Error::Wayland(format!(
                "point ({}, {}) is on no output (outputs: {})",
                at.x,
                at.y,
                shown.join(", ")
            )));
        }
        let layout = self.layout()?;
        Ok((
            (at.x - layout.x) as u32,
            (at.y - layout.y) as u32,
            layout.width as u32,
            layout.height as u32,
        ))
    }

    fn button(&mut self, code: u32, down: bool, buttons: &mut Vec<u32>) {
        let time = self.now();
        let state = match down {
            true => ButtonState::Pressed,
            false => ButtonState::Released,
        };
        self.pointer.button(time, code, state);
        self.pointer.frame();
        match down {
            true => buttons.push(code),
            false => buttons.retain(|b| *b != code),
        }
    }

    /// Sends what is queued, then waits `pause`.
    fn pause(&mut self, pause: Duration) -> Result<()> {
        self.conn.flush().map_err(super::wayland_error)?;
        std::thread::sleep(pause);
        Ok(())
    }

    fn release_all(&mut self, held: &mut Vec<Modifier>, buttons: &mut Vec<u32>) -> Result<()> {
        for code in buttons.clone() {
            self.button(code, false, buttons);
        }
        match held.is_empty() {
            true => Ok(()),
            false => self.hold(&[], held),
        }
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
