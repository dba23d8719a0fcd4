//! KWin's windows through axsight's KWin script library (`kde/windows.js`):
//! each operation is one script run ([`super::scripting`]) that calls the
//! library and answers, in the JSON of [`crate::screen::compositor_window`].
//! A window already listed is looked up alone through KWin's own
//! `getWindowInfo` (its frame and states by its UUID, one D-Bus call), which
//! spares a tree read the script (15 ms) while the window keeps its size.

use std::collections::HashMap;

use axsight_core::Bounds;
use zbus::zvariant::OwnedValue;

use super::scripting::Scripting;
use crate::screen::compositor_window::{self, CompositorWindow, WindowScript};
use crate::screen::WindowId;
use crate::{Error, Result};

/// The script library every question loads first.
const LIBRARY: &str = include_str!("windows.js");

/// KWin's windows, asked through scripts.
pub struct KwinWindows {
    pub scripting: Scripting,
    /// Each window of the last list, by id, with KWin's UUID for it.
    listed: HashMap<WindowId, (String, CompositorWindow)>,
}

impl KwinWindows {
    pub fn new(scripting: Scripting) -> KwinWindows {
        KwinWindows {
            scripting,
            listed: HashMap::new(),
        }
    }

    /// Runs `line` (a call of the library) and answers with its value.
    fn ask(&mut self, line: &str) -> Result<serde_json::Value> {
        self.scripting
            .ask(LIBRARY, &format!("axsightAnswer({line});"))
    }

    /// Runs `line` for what it does.
    fn tell(&mut self, line: &str) -> Result<()> {
        self.scripting
            .ask(LIBRARY, &format!("{line};\naxsightAnswer(true);"))
            .map(drop)
    }
}

impl WindowScript for KwinWindows {
    fn list(&mut self) -> Result<Vec<CompositorWindow>> {
        let value = self.ask("axsightList()")?;
        let windows = compositor_window::parse(&value.to_string(), "KWin's script")
            .map_err(Error::Wayland)?;
        let uuids = value
            .as_array()
            .into_iter()
            .flatten()
            .map(|w| w["uuid"].as_str());
        self.listed = windows
            .iter()
            .zip(uuids)
            .filter_map(|(w, uuid)| Some((w.id, (uuid?.to_string(), w.clone()))))
            .collect();
        Ok(windows)
    }

    fn look_up(&mut self, id: WindowId) -> Result<Option<CompositorWindow>> {
        let Some((uuid, listed)) = self.listed.get(&id) else {
            return Ok(None);
        };
        let info: HashMap<String, OwnedValue> = match crate::screen::session_bus::call(
            self.scripting.bus(),
            "org.kde.KWin",
            "/KWin",
            "org.kde.KWin",
            "getWindowInfo",
            &(uuid.as_str(),),
        ) {
            Ok(info) => info,
            // An older KWin without it, or a bus hiccup: the list tells.
            Err(_) => return Ok(None),
        };
        Ok(refreshed(listed, &info))
    }

    fn activate(&mut self, id: WindowId) -> Result<()> {
        self.tell(&format!("axsightActivate({id})"))
    }

    fn close(&mut self, id: WindowId) -> Result<()> {
        self.tell(&format!("axsightClose({id})"))
    }

    fn move_resize(&mut self, id: WindowId, b: Bounds) -> Result<()> {
        self.tell(&format!(
            "axsightMoveResize({id}, {}, {}, {}, {})",
            b.x, b.y, b.width, b.height
        ))
    }

    fn maximize(&mut self, id: WindowId, on: bool) -> Result<()> {
        self.tell(&format!("axsightMaximize({id}, {on})"))
    }

    fn minimize(&mut self, id: WindowId, on: bool) -> Result<()> {
        self.tell(&format!("axsightMinimize({id}, {on})"))
    }
}

/// `listed` as `getWindowInfo`'s answer `info` has it now: moved, minimized or
/// retitled; `None` when KWin no longer knows it or it changed size (its
/// surface's margins may have changed with it: the list tells).
fn refreshed(
    listed: &CompositorWindow,
    info: &HashMap<String, OwnedValue>,
) -> Option<CompositorWindow> {
    let number = |key: &str| -> Option<i32> {
        let value = info.get(key)?;
        let number = f64::try_from(value).ok()?;
        Some(number.round() as i32)
    };
    let flag = |key: &str| info.get(key).and_then(|v| bool::try_from(v).ok());
    let frame = [
        number("x")?,
        number("y")?,
        number("width")?,
        number("height")?,
    ];
    if frame[2..] != listed.frame[2..] {
        return None;
    }
    let (dx, dy) = (frame[0] - listed.frame[0], frame[1] - listed.frame[1]);
    let mut window = listed.clone();
    window.frame = frame;
    window.buffer[0] += dx;
    window.buffer[1] += dy;
    if let Some(minimized) = flag("minimized") {
        // Shown unless minimized (a window listed minimized was hidden for that).
        window.shown = !minimized && (listed.shown || listed.minimized);
        window.minimized = minimized;
    }
    if let Some(fullscreen) = flag("fullscreen") {
        window.fullscreen = fullscreen;
    }
    if let Some(title) = info
        .get("caption")
        .and_then(|v| String::try_from(v.clone()).ok())
    {
        window.title = title;
    }
    Some(window)
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::Value;

    fn info(pairs: &[(&str, Value)]) -> HashMap<String, OwnedValue> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.try_to_owned().unwrap()))
            .collect()
    }

    fn listed() -> CompositorWindow {
        compositor_window::parse(
            r#"[{"id": 7, "pid": 40, "title": "axsight fixture", "frame": [560, 221, 800, 637],
                "buffer": [560, 258, 800, 600], "focused": true, "minimized": false,
                "maximized": false, "fullscreen": false, "shown": true, "xwayland": false}]"#,
            "test",
        )
        .unwrap()
        .remove(0)
    }

    #[test]
    fn a_moved_window_keeps_its_surface_where_it_was_in_it() {
        let moved = info(&[
            ("x", Value::F64(300.0)),
            ("y", Value::F64(200.0)),
            ("width", Value::F64(800.0)),
            ("height", Value::F64(637.0)),
            ("minimized", Value::Bool(false)),
            ("caption", Value::from("renamed")),
        ]);
        let now = refreshed(&listed(), &moved).unwrap();
        assert_eq!(now.frame, [300, 200, 800, 637]);
        assert_eq!(now.buffer, [300, 237, 800, 600]);
        assert_eq!(now.title, "renamed");
        assert!(now.shown && !now.minimized);
    }

    #[test]
    fn a_resized_or_unknown_window_is_listed_again() {
        let resized = info(&[
            ("x", Value::F64(560.0)),
            ("y", Value::F64(221.0)),
            ("width", Value::F64(900.0)),
            ("height", Value::F64(637.0)),
        ]);
        assert_eq!(refreshed(&listed(), &resized), None);
        assert_eq!(refreshed(&listed(), &HashMap::new()), None);
        let minimized = info(&[
            ("x", Value::F64(560.0)),
            ("y", Value::F64(221.0)),
            ("width", Value::F64(800.0)),
            ("height", Value::F64(637.0)),
            ("minimized", Value::Bool(true)),
        ]);
        let now = refreshed(&listed(), &minimized).unwrap();
        assert!(now.minimized && !now.shown);
    }
}
