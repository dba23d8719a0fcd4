//! KWin's windows through axsight's KWin script library (`kde/windows.js`):
//! each operation is one script run ([`super::scripting`]) that calls the
//! library and answers, in the JSON of [`crate::screen::compositor_window`].

use axsight_core::Bounds;

use super::scripting::Scripting;
use crate::screen::compositor_window::{self, CompositorWindow, WindowScript};
use crate::screen::WindowId;
use crate::{Error, Result};

/// The script library every question loads first.
const LIBRARY: &str = include_str!("windows.js");

/// KWin's windows, asked through scripts.
pub struct KwinWindows {
    pub scripting: Scripting,
}

impl KwinWindows {
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
        compositor_window::parse(&value.to_string(), "KWin's script").map_err(Error::Wayland)
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
