//! Input an engine sends as a person would: pointer clicks, wheel turns, drags, key
//! chords and typed text, in screen pixels. The key grammar agents write
//! (`ctrl+s`, `alt+F4`, `shift+Tab Return`, `{Enter}`) is parsed here, once.
//!
//! What a person does at the devices comes back the same way, as
//! [`ObservedInput`], for recordings.
//!
//! Platform key codes are not this module's business: an engine maps [`Key`]
//! names and characters onto its own keyboard (X11 keysyms on Linux).

mod keys;
mod observed;

pub use keys::{parse_keys, split_trailing_keys, Key, KeyChord, KeyError, Modifier};
pub use observed::{InputWatch, Observed, ObservedInput, WatchEnded};

/// A point on screen, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// A pointer button.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MouseButton {
    #[default]
    Left,
    Middle,
    Right,
}

impl std::str::FromStr for MouseButton {
    type Err = String;

    fn from_str(text: &str) -> Result<MouseButton, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "left" | "" => Ok(MouseButton::Left),
            "middle" => Ok(MouseButton::Middle),
            "right" => Ok(MouseButton::Right),
            other => Err(format!(
                "unknown button '{other}'; use left, right or middle"
            )),
        }
    }
}

/// Which way to scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScrollDirection {
    /// The wheel axis this turns (0 vertical, 1 horizontal, as Wayland's
    /// `wl_pointer` numbers them) and the sign of one notch (-1 up or left).
    ///
    /// ```
    /// use axsight_core::ScrollDirection;
    /// assert_eq!(ScrollDirection::Up.axis_and_sign(), (0, -1));
    /// assert_eq!(ScrollDirection::Right.axis_and_sign(), (1, 1));
    /// ```
    pub fn axis_and_sign(self) -> (u32, i32) {
        match self {
            ScrollDirection::Up => (0, -1),
            ScrollDirection::Down => (0, 1),
            ScrollDirection::Left => (1, -1),
            ScrollDirection::Right => (1, 1),
        }
    }
}

impl std::fmt::Display for ScrollDirection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ScrollDirection::Up => "up",
            ScrollDirection::Down => "down",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
        })
    }
}

impl std::str::FromStr for ScrollDirection {
    type Err = String;

    fn from_str(text: &str) -> Result<ScrollDirection, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "up" => Ok(ScrollDirection::Up),
            "down" => Ok(ScrollDirection::Down),
            "left" => Ok(ScrollDirection::Left),
            "right" => Ok(ScrollDirection::Right),
            other => Err(format!(
                "unknown direction '{other}'; use up, down, left or right"
            )),
        }
    }
}

/// One piece of input, as a person would give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Move the pointer to `at` and click `count` times (2: a double click), with
    /// `modifiers` held.
    Click {
        at: Point,
        button: MouseButton,
        count: u8,
        modifiers: Vec<Modifier>,
        /// The control clicked, when it is one that counts its own clicks
        /// ([`crate::Role::counts_own_clicks`]), as a key equal only for the
        /// same control. Clicks on two different such controls need no pause
        /// between them; any other click waits out the toolkit's double-click
        /// time since the last, so that it is not taken for part of one.
        control: Option<u64>,
    },
    /// Turn the wheel `amount` notches over `at`.
    Scroll {
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    },
    /// Press at `from`, move to `to` in steps, release.
    Drag {
        from: Point,
        to: Point,
        button: MouseButton,
    },
    /// Press the chords one after another.
    Keys(Vec<KeyChord>),
    /// Type the text, character by character, whatever the keyboard map holds.
    Text(String),
}
