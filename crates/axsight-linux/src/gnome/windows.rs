//! GNOME's windows, through axsight's GNOME Shell extension
//! (`crates/axsight-linux/gnome-shell/axsight@axsight.github.io`, object `/io/github/axsight/Shell`
//! of `org.gnome.Shell`): GNOME Shell gives a session client no window places
//! otherwise. The reply's JSON becomes plain data here, tested without a shell.

use axsight_core::Bounds;
use serde::Deserialize;

/// The extension's id, as GNOME names it (`gnome-extensions enable …`).
pub const EXTENSION_UUID: &str = "axsight@axsight.github.io";

/// The extension's files (name, text), for `axsight gnome-extension` to install.
pub const EXTENSION_FILES: &[(&str, &str)] = &[
    (
        "metadata.json",
        include_str!("../../gnome-shell/axsight@axsight.github.io/metadata.json"),
    ),
    (
        "extension.js",
        include_str!("../../gnome-shell/axsight@axsight.github.io/extension.js"),
    ),
];

/// The extension's D-Bus object and interface.
pub const PATH: &str = "/io/github/axsight/Shell";
pub const INTERFACE: &str = "io.github.axsight.Shell1";

/// One window as the extension reports it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ShellWindow {
    pub id: u64,
    #[serde(default)]
    pub pid: Option<i64>,
    #[serde(default)]
    pub title: String,
    /// The visible window (mutter's frame rect), in the layout.
    pub frame: [i32; 4],
    /// The client's whole surface, shadow included (mutter's buffer rect).
    pub buffer: [i32; 4],
    pub focused: bool,
    pub minimized: bool,
    pub maximized: bool,
    pub fullscreen: bool,
    /// Not minimized, and on the active workspace.
    pub shown: bool,
    pub xwayland: bool,
}

impl ShellWindow {
    /// The visible window's bounds.
    pub fn content(&self) -> Bounds {
        let [x, y, width, height] = self.frame;
        Bounds {
            x,
            y,
            width,
            height,
        }
    }

    /// Where the client-side shadow around the visible window starts: how far
    /// the surface reaches out left and up.
    pub fn shadow(&self) -> (i32, i32) {
        (
            (self.frame[0] - self.buffer[0]).max(0),
            (self.frame[1] - self.buffer[1]).max(0),
        )
    }

    /// The process, when the shell knows it.
    pub fn pid(&self) -> Option<u32> {
        self.pid.and_then(|pid| u32::try_from(pid).ok())
    }
}

/// The windows of a `ListWindows` reply, bottom first.
pub fn parse(json: &str) -> Result<Vec<ShellWindow>, String> {
    serde_json::from_str(json)
        .map_err(|e| format!("the extension's window list does not parse: {e}"))
}

/// The topmost shown window whose visible window holds (`x`, `y`).
pub fn window_at(windows: &[ShellWindow], x: i32, y: i32) -> Option<&ShellWindow> {
    windows
        .iter()
        .rev()
        .find(|w| w.shown && w.content().contains(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = r#"[
        {"id": 11, "pid": 40, "title": "axsight fixture", "frame": [160, 168, 852, 689],
         "buffer": [134, 145, 904, 741], "focused": false, "minimized": false,
         "maximized": false, "fullscreen": false, "shown": true, "xwayland": false},
        {"id": 12, "pid": 41, "title": "Calculator", "frame": [57, 73, 360, 503],
         "buffer": [-4, 18, 482, 613], "focused": true, "minimized": false,
         "maximized": false, "fullscreen": false, "shown": true, "xwayland": false},
        {"id": 13, "pid": -1, "title": "hidden", "frame": [0, 0, 10, 10],
         "buffer": [0, 0, 10, 10], "focused": false, "minimized": true,
         "maximized": false, "fullscreen": false, "shown": false, "xwayland": true}
    ]"#;

    #[test]
    fn a_reply_becomes_windows_bottom_first() {
        let windows = parse(REPLY).unwrap();
        assert_eq!(windows.len(), 3);
        assert_eq!(
            windows[0].content(),
            Bounds {
                x: 160,
                y: 168,
                width: 852,
                height: 689
            }
        );
        assert_eq!(windows[0].shadow(), (26, 23));
        assert_eq!(windows[2].pid(), None);
        assert!(parse("{").is_err());
    }

    #[test]
    fn the_point_belongs_to_the_topmost_shown_window() {
        let windows = parse(REPLY).unwrap();
        assert_eq!(window_at(&windows, 200, 200).map(|w| w.id), Some(12));
        assert_eq!(window_at(&windows, 900, 800).map(|w| w.id), Some(11));
        assert_eq!(window_at(&windows, 5, 5), None); // only the minimized one is there
    }
}
