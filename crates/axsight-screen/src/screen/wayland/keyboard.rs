//! The virtual keyboard: its keymap (see [`super::keymap`]) sent as a memfd when
//! it must grow, and key presses (evdev codes, as the protocol carries them)
//! with the modifier mask the compositor passes on.
//!
//! wlroots does not work modifiers out from a virtual keyboard's keys, so each
//! change of the held modifiers is also sent as a `modifiers` request.

use std::io::Write as _;
use std::os::fd::AsFd as _;

use axsight_core::Modifier;
use wayland_client::protocol::wl_keyboard::KeymapFormat;
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1;

use super::keymap::{self, Keymap, ModifierKey};
use super::Wlroots;
use crate::{Error, Result};

/// `wl_keyboard` key states.
const RELEASED: u32 = 0;
const PRESSED: u32 = 1;

/// The modifier key of `modifier`.
pub(super) fn modifier_key(modifier: Modifier) -> ModifierKey {
    match modifier {
        Modifier::Shift => keymap::SHIFT,
        Modifier::Ctrl => keymap::CONTROL,
        Modifier::Alt => keymap::ALT,
        Modifier::Super => keymap::SUPER,
    }
}

impl Wlroots {
    /// Makes sure the keyboard's keymap has a key for each of `keysyms`,
    /// sending a grown keymap when it lacks some.
    pub(super) fn keys_for(&mut self, keysyms: &[u32]) -> Result<()> {
        let (keyboard, current) = &mut self.keyboard;
        if let Some(next) = current.with(keysyms) {
            send_keymap(keyboard, &next)?;
            *current = next;
        }
        Ok(())
    }

    /// Presses and releases the key of `keysym` (one the keymap has: see
    /// [`Wlroots::keys_for`]) with `held` down, adding Shift where its level
    /// needs it; the modifiers are as before when it returns.
    pub(super) fn tap(&mut self, keysym: u32, held: &[Modifier]) -> Result<()> {
        let stroke = self
            .keyboard
            .1
            .stroke(keysym)
            .ok_or_else(|| Error::Wayland(format!("no key holds keysym {keysym:#x}")))?;
        let add_shift = stroke.shift && !held.contains(&Modifier::Shift);
        if add_shift {
            let mut shifted = held.to_vec();
            shifted.push(Modifier::Shift);
            self.modifier_key(Modifier::Shift, true, &shifted)?;
        }
        self.key(stroke.evdev, PRESSED)?;
        self.key(stroke.evdev, RELEASED)?;
        if add_shift {
            self.modifier_key(Modifier::Shift, false, held)?;
        }
        Ok(())
    }

    /// Presses or releases `modifier`'s key, and tells the compositor that
    /// `held` are down now.
    pub(super) fn modifier_key(
        &mut self,
        modifier: Modifier,
        down: bool,
        held: &[Modifier],
    ) -> Result<()> {
        let state = if down { PRESSED } else { RELEASED };
        self.key(modifier_key(modifier).evdev, state)?;
        let mask = held
            .iter()
            .map(|m| modifier_key(*m).mask)
            .fold(0, |a, b| a | b);
        self.keyboard.0.modifiers(mask, 0, 0, 0);
        Ok(())
    }

    fn key(&mut self, evdev: u32, state: u32) -> Result<()> {
        let time = self.now();
        self.keyboard.0.key(time, evdev, state);
        Ok(())
    }
}

/// Sends `map` as the keyboard's keymap, through a memfd.
pub(super) fn send_keymap(keyboard: &ZwpVirtualKeyboardV1, map: &Keymap) -> Result<()> {
    let text = map.to_xkb();
    let fd = rustix::fs::memfd_create("axsight-keymap", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| Error::Wayland(format!("cannot make the keymap's memfd: {e}")))?;
    let mut file = std::fs::File::from(fd);
    file.write_all(text.as_bytes())
        .map_err(|e| Error::Wayland(format!("cannot write the keymap: {e}")))?;
    keyboard.keymap(KeymapFormat::XkbV1 as u32, file.as_fd(), text.len() as u32);
    // The request holds a duplicate of the fd until it is sent.
    Ok(())
}
