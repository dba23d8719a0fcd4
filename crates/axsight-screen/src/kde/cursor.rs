//! Where KWin's pointer is, asked through a script (KWin tells a session
//! client no other way): where the RemoteDesktop portal's relative motion
//! starts from when KWin does not let axsight send input itself.

use std::sync::Mutex;

use axsight_core::Point;

use super::scripting::Scripting;
use crate::screen::portals::Cursor;
use crate::{Error, Result};

/// The question: `workspace.cursorPos` (a point, fractional on KWin 6).
const QUESTION: &str = "axsightAnswer({x: workspace.cursorPos.x, y: workspace.cursorPos.y});";

/// KWin's pointer, over a session-bus connection of its own (the portal's
/// session asks from its own thread, apart from the window questions).
pub struct KwinCursor {
    scripting: Mutex<Scripting>,
}

impl KwinCursor {
    /// Connects to the session bus at `address`.
    pub fn connect(address: &str) -> Result<KwinCursor> {
        Ok(KwinCursor {
            scripting: Mutex::new(Scripting::connect(address)?),
        })
    }
}

impl Cursor for KwinCursor {
    fn position(&self) -> Result<Point> {
        let mut scripting = self.scripting.lock().unwrap_or_else(|e| e.into_inner());
        point(&scripting.ask("", QUESTION)?)
    }
}

/// The point a script answered, rounded to whole pixels.
fn point(value: &serde_json::Value) -> Result<Point> {
    let coordinate = |name: &str| {
        value[name]
            .as_f64()
            .map(|c| c.round() as i32)
            .ok_or_else(|| Error::Wayland(format!("KWin told no pointer position: {value}")))
    };
    Ok(Point {
        x: coordinate("x")?,
        y: coordinate("y")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fractional_position_is_rounded_and_a_missing_one_is_an_error() {
        let at = point(&serde_json::json!({"x": 959.6, "y": 12})).unwrap();
        assert_eq!(at, Point { x: 960, y: 12 });
        assert!(point(&serde_json::json!({"x": 3})).is_err());
        assert!(point(&serde_json::Value::Null).is_err());
    }
}
