//! [`Input`] as events of virtual devices, for the backends that make devices of
//! their own and send their events one by one: a wlroots virtual pointer and
//! keyboard, and mutter's RemoteDesktop session. The order of events, the pause
//! between clicks, the pacing of drags, which modifiers are down, and releasing
//! every key and button whatever failed, are decided here once; a backend only
//! says how to send each event. (XTest has a keyboard map to look keys up in, so
//! X11 keeps its own.)

use std::time::Duration;

use axsight_core::{Input, Modifier, Point, ScrollDirection};

use super::click_gap::ClickPacing;
use super::keysyms;
use crate::{Error, Result};

/// More notches than any page needs; a bigger number is a caller's mistake.
const MAX_SCROLL: u32 = 1000;
/// Pointer positions between a drag's press and its release, and the pauses
/// that let a drag-and-drop target follow (measured on X11, see `x11/input.rs`).
const DRAG_STEPS: i32 = 10;
const DRAG_STEP_PAUSE: Duration = Duration::from_millis(5);
const DROP_PAUSE: Duration = Duration::from_millis(50);
/// Keys sent before the server is asked to catch up: a long text must not fill
/// its socket.
const KEYS_PER_SYNC: usize = 64;

/// How a backend sends each event of its virtual devices.
pub trait VirtualDevices {
    /// The error for input the backend cannot send, saying why.
    fn refusal(&self, why: String) -> Error;
    /// Whether `at` is on the screen; an error naming the screen when not.
    fn check_point(&self, at: Point) -> Result<()>;
    /// Moves the pointer to `at`, a point of the screen.
    fn move_to(&mut self, at: Point) -> Result<()>;
    /// Presses or releases a pointer button (`BTN_LEFT`…).
    fn button(&mut self, code: u32, down: bool) -> Result<()>;
    /// Turns the wheel one notch.
    fn wheel(&mut self, direction: ScrollDirection) -> Result<()>;
    /// Presses or releases a modifier key; `held` are the modifiers down after.
    fn modifier(&mut self, modifier: Modifier, down: bool, held: &[Modifier]) -> Result<()>;
    /// Readies keys for `keysyms` before they are typed, or refuses them all.
    fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()>;
    /// Presses and releases the key of `keysym` with `held` down (adding Shift
    /// where its level needs it, and leaving the modifiers as they were).
    fn tap(&mut self, keysym: u32, held: &[Modifier]) -> Result<()>;
    /// `keysyms` in the runs that [`VirtualDevices::prepare_keys`] can take at
    /// once: all of them, unless keys are a scarce resource.
    fn text_parts<'k>(&self, keysyms: &'k [u32]) -> Vec<&'k [u32]> {
        vec![keysyms]
    }
    /// Returns once the server has handled every event sent.
    fn sync(&mut self) -> Result<()>;
    /// Sends what is queued now (before a pause).
    fn flush(&mut self) -> Result<()>;
    /// The last click, for the pause before the next.
    fn clicks(&mut self) -> &mut ClickPacing;
}

/// Refuses `keysyms` when some are not on a US keyboard, naming them and what
/// to do instead: for backends that press the session's own keys (`who` types
/// them), where only the layout's characters can be typed.
pub fn refuse_beyond_us_layout(who: &str, keysyms: &[u32]) -> Result<()> {
    let untypable: String = keysyms
        .iter()
        .filter(|k| !crate::screen::wayland::on_a_us_keyboard(**k))
        .filter_map(|k| keysyms::char_of(*k))
        .collect();
    if untypable.is_empty() {
        return Ok(());
    }
    Err(Error::Wayland(format!(
        "{who} types only what the keyboard layout has, and {untypable:?} is not on it: type \
         into the element instead (its text is set), or put the text on the clipboard and \
         paste it"
    )))
}

/// What is down, so that any exit releases it.
#[derive(Default)]
struct Down {
    modifiers: Vec<Modifier>,
    buttons: Vec<u32>,
}

/// Sends `input` and returns once the server has handled it, with every key,
/// modifier and button released again.
pub fn send(devices: &mut impl VirtualDevices, input: &Input) -> Result<()> {
    let mut down = Down::default();
    let result = perform(devices, input, &mut down);
    let mut released = hold(devices, &[], &mut down);
    for code in std::mem::take(&mut down.buttons) {
        released = released.and(devices.button(code, false));
    }
    let synced = devices.sync();
    result.and(released).and(synced)
}

fn perform(devices: &mut impl VirtualDevices, input: &Input, down: &mut Down) -> Result<()> {
    match input {
        Input::Click {
            at,
            button,
            count,
            modifiers,
            control,
        } => {
            devices.move_to(*at)?;
            devices.clicks().await_gap(*count, *control);
            hold(devices, modifiers, down)?;
            let code = super::evdev_button(*button);
            for _ in 0..*count {
                press(devices, code, down)?;
                release(devices, code, down)?;
            }
            Ok(())
        }
        Input::Scroll {
            at,
            direction,
            amount,
        } => {
            if *amount > MAX_SCROLL {
                return Err(devices.refusal(format!(
                    "cannot scroll {amount} notches at once; {MAX_SCROLL} at most"
                )));
            }
            devices.move_to(*at)?;
            for _ in 0..*amount {
                devices.wheel(*direction)?;
            }
            Ok(())
        }
        Input::Drag { from, to, button } => {
            devices.check_point(*to)?; // before anything is pressed
            devices.move_to(*from)?;
            devices.clicks().await_gap(1, None);
            let code = super::evdev_button(*button);
            press(devices, code, down)?;
            for step in 1..=DRAG_STEPS {
                devices.flush()?;
                std::thread::sleep(DRAG_STEP_PAUSE);
                let between = |a: i32, b: i32| a + (b - a) * step / DRAG_STEPS;
                devices.move_to(Point {
                    x: between(from.x, to.x),
                    y: between(from.y, to.y),
                })?;
            }
            devices.flush()?;
            std::thread::sleep(DROP_PAUSE);
            release(devices, code, down)
        }
        Input::Keys(chords) => {
            let keysyms = chords
                .iter()
                .map(|chord| keysyms::of_chord(chord).map_err(|why| devices.refusal(why)))
                .collect::<Result<Vec<u32>>>()?;
            devices.prepare_keys(&keysyms)?;
            for (chord, keysym) in chords.iter().zip(keysyms) {
                hold(devices, &chord.modifiers, down)?;
                devices.tap(keysym, &down.modifiers)?;
                hold(devices, &[], down)?;
            }
            Ok(())
        }
        Input::Text(text) => {
            let keysyms =
                keysyms::of_text(text).map_err(|c| devices.refusal(keysyms::no_key_for(c)))?;
            let parts: Vec<Vec<u32>> = devices
                .text_parts(&keysyms)
                .into_iter()
                .map(<[u32]>::to_vec)
                .collect();
            for part in parts {
                devices.prepare_keys(&part)?;
                for (n, &keysym) in part.iter().enumerate() {
                    devices.tap(keysym, &down.modifiers)?;
                    if (n + 1) % KEYS_PER_SYNC == 0 {
                        devices.sync()?;
                    }
                }
                // The keys of one part reach the app before the next's keys.
                devices.sync()?;
            }
            Ok(())
        }
    }
}

/// Makes `modifiers` the ones down, releasing and pressing what differs.
fn hold(devices: &mut impl VirtualDevices, modifiers: &[Modifier], down: &mut Down) -> Result<()> {
    for modifier in down.modifiers.clone() {
        if !modifiers.contains(&modifier) {
            down.modifiers.retain(|m| *m != modifier);
            devices.modifier(modifier, false, &down.modifiers)?;
        }
    }
    for &modifier in modifiers {
        if !down.modifiers.contains(&modifier) {
            down.modifiers.push(modifier);
            devices.modifier(modifier, true, &down.modifiers)?;
        }
    }
    Ok(())
}

fn press(devices: &mut impl VirtualDevices, code: u32, down: &mut Down) -> Result<()> {
    devices.button(code, true)?;
    down.buttons.push(code);
    Ok(())
}

fn release(devices: &mut impl VirtualDevices, code: u32, down: &mut Down) -> Result<()> {
    down.buttons.retain(|b| *b != code);
    devices.button(code, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axsight_core::{Key, KeyChord, MouseButton};

    /// Devices that write down what they were asked to send.
    #[derive(Default)]
    struct Recorder {
        events: Vec<String>,
        clicks: ClickPacing,
        refuse_keysym: Option<u32>,
    }

    impl VirtualDevices for Recorder {
        fn refusal(&self, why: String) -> Error {
            Error::Wayland(why)
        }
        fn check_point(&self, at: Point) -> Result<()> {
            match at.x < 0 {
                true => Err(Error::Wayland("off the screen".into())),
                false => Ok(()),
            }
        }
        fn move_to(&mut self, at: Point) -> Result<()> {
            self.check_point(at)?;
            self.events.push(format!("move {},{}", at.x, at.y));
            Ok(())
        }
        fn button(&mut self, code: u32, down: bool) -> Result<()> {
            self.events.push(format!("button {code:#x} {down}"));
            Ok(())
        }
        fn wheel(&mut self, direction: ScrollDirection) -> Result<()> {
            self.events.push(format!("wheel {direction}"));
            Ok(())
        }
        fn modifier(&mut self, modifier: Modifier, down: bool, held: &[Modifier]) -> Result<()> {
            self.events
                .push(format!("{modifier} {down} ({} held)", held.len()));
            Ok(())
        }
        fn prepare_keys(&mut self, keysyms: &[u32]) -> Result<()> {
            match self.refuse_keysym.filter(|k| keysyms.contains(k)) {
                Some(_) => Err(Error::Wayland("not on the layout".into())),
                None => Ok(()),
            }
        }
        fn tap(&mut self, keysym: u32, held: &[Modifier]) -> Result<()> {
            self.events
                .push(format!("tap {keysym:#x} ({} held)", held.len()));
            Ok(())
        }
        fn sync(&mut self) -> Result<()> {
            self.events.push("sync".into());
            Ok(())
        }
        fn flush(&mut self) -> Result<()> {
            Ok(())
        }
        fn clicks(&mut self) -> &mut ClickPacing {
            &mut self.clicks
        }
    }

    #[test]
    fn a_ctrl_click_holds_ctrl_around_the_presses_and_lets_it_go() {
        let mut devices = Recorder::default();
        let click = Input::Click {
            at: Point { x: 5, y: 6 },
            button: MouseButton::Left,
            count: 2,
            modifiers: vec![Modifier::Ctrl],
            control: None,
        };
        send(&mut devices, &click).unwrap();
        assert_eq!(
            devices.events,
            [
                "move 5,6",
                "ctrl true (1 held)",
                "button 0x110 true",
                "button 0x110 false",
                "button 0x110 true",
                "button 0x110 false",
                "ctrl false (0 held)",
                "sync"
            ]
        );
    }

    #[test]
    fn chords_press_their_modifiers_and_nothing_stays_down() {
        let mut devices = Recorder::default();
        let chords = vec![
            KeyChord {
                modifiers: vec![Modifier::Ctrl, Modifier::Shift],
                key: Key::Char('T'),
            },
            KeyChord {
                modifiers: vec![],
                key: Key::Named("Return"),
            },
        ];
        send(&mut devices, &Input::Keys(chords)).unwrap();
        assert_eq!(
            devices.events,
            [
                "ctrl true (1 held)",
                "shift true (2 held)",
                "tap 0x74 (2 held)",
                "ctrl false (1 held)",
                "shift false (0 held)",
                "tap 0xff0d (0 held)",
                "sync"
            ]
        );
    }

    #[test]
    fn a_drag_to_nowhere_presses_nothing_and_a_refused_text_types_nothing() {
        let mut devices = Recorder::default();
        let drag = Input::Drag {
            from: Point { x: 1, y: 1 },
            to: Point { x: -5, y: 1 },
            button: MouseButton::Left,
        };
        assert!(send(&mut devices, &drag).is_err());
        assert_eq!(devices.events, ["sync"]);
        let mut devices = Recorder {
            refuse_keysym: Some(0x0100_20ac),
            ..Recorder::default()
        };
        assert!(send(&mut devices, &Input::Text("a€".into())).is_err());
        assert!(!devices.events.iter().any(|e| e.starts_with("tap")));
    }
}
