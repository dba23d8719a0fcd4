//! The monitors an X display spans (RandR 1.5's monitors), and the scale X
//! resources ask of the apps that follow them.
//!
//! On X11 the screen is one space of device pixels across every monitor; no
//! monitor has a scale of its own. Apps scale themselves: GTK by `GDK_SCALE`
//! (or the settings daemon's window scaling factor), Qt 6 and Chromium by
//! `Xft.dpi` in the root's `RESOURCE_MANAGER`, which is what an output's scale
//! is taken from here. Nothing here changes the display.

use axsight_core::Bounds;
use x11rb::protocol::randr::ConnectionExt as _;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

use super::{x11_error, X11};
use crate::screen::Output;
use crate::Result;

/// The DPI X resources mean by scale 1.
const BASE_DPI: f64 = 96.0;

impl X11 {
    /// The monitors, each with the scale `Xft.dpi` asks for; the whole root
    /// as one output where RandR lists none (or is missing).
    pub fn outputs(&mut self) -> Result<Vec<Output>> {
        let scale = self.resource_dpi()?.map_or(1.0, |dpi| dpi / BASE_DPI);
        let monitors = self
            .conn
            .randr_get_monitors(self.root, true)
            .ok()
            .and_then(|cookie| cookie.reply().ok());
        let mut outputs = Vec::new();
        for monitor in monitors.map(|m| m.monitors).unwrap_or_default() {
            let name = self
                .conn
                .get_atom_name(monitor.name)
                .map_err(x11_error)?
                .reply()
                .map_err(x11_error)?
                .name;
            let bounds = Bounds::from_extents(
                i32::from(monitor.x),
                i32::from(monitor.y),
                i32::from(monitor.width),
                i32::from(monitor.height),
            );
            if let Some(bounds) = bounds {
                outputs.push(Output {
                    name: String::from_utf8_lossy(&name).into_owned(),
                    bounds,
                    scale,
                    primary: monitor.primary,
                });
            }
        }
        let mut outputs = physical(outputs);
        if outputs.is_empty() {
            let (_, _, width, height) = self.placement(self.root)?;
            outputs.push(Output {
                name: "screen".into(),
                bounds: Bounds {
                    x: 0,
                    y: 0,
                    width,
                    height,
                },
                scale,
                primary: true,
            });
        }
        Ok(outputs)
    }

    /// `Xft.dpi` from the root's `RESOURCE_MANAGER`, where it is set.
    fn resource_dpi(&mut self) -> Result<Option<f64>> {
        let resources = self
            .conn
            .get_property(
                false,
                self.root,
                AtomEnum::RESOURCE_MANAGER,
                AtomEnum::STRING,
                0,
                1 << 16,
            )
            .map_err(x11_error)?
            .reply()
            .map_err(x11_error)?;
        Ok(xft_dpi(&String::from_utf8_lossy(&resources.value)))
    }
}

/// The monitors that are monitors: one that holds another is the server's
/// own monitor of an output that monitors were set over (`xrandr
/// --setmonitor` on one wide output), not a screen of its own.
fn physical(outputs: Vec<Output>) -> Vec<Output> {
    let holds = |outer: &Output, inner: &Output| {
        outer.bounds != inner.bounds
            && outer.bounds.intersection(&inner.bounds) == Some(inner.bounds)
    };
    outputs
        .iter()
        .filter(|outer| !outputs.iter().any(|inner| holds(outer, inner)))
        .cloned()
        .collect()
}

/// The `Xft.dpi` value of X resources `text` (`Xft.dpi:\t192`), if set.
fn xft_dpi(text: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "Xft.dpi")
            .then(|| value.trim().parse::<f64>().ok())
            .flatten()
            .filter(|dpi| *dpi > 0.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitor_that_holds_others_is_no_monitor() {
        let output = |name: &str, x, width| Output {
            name: name.into(),
            bounds: Bounds {
                x,
                y: 0,
                width,
                height: 800,
            },
            scale: 1.0,
            primary: false,
        };
        let set = vec![
            output("LEFT", 0, 1280),
            output("RIGHT", 1280, 1280),
            output("screen", 0, 2560),
        ];
        let names: Vec<String> = physical(set).into_iter().map(|o| o.name).collect();
        assert_eq!(names, ["LEFT", "RIGHT"]);
        // Side by side, none holds another.
        let apart = vec![output("A", 0, 1280), output("B", 1280, 1920)];
        assert_eq!(physical(apart.clone()), apart);
    }

    #[test]
    fn the_dpi_is_read_from_the_resources() {
        assert_eq!(xft_dpi("Xft.antialias:\t1\nXft.dpi:\t192\n"), Some(192.0));
        assert_eq!(xft_dpi("Xft.dpi: 120"), Some(120.0));
        assert_eq!(xft_dpi("Xcursor.size:\t24\n"), None);
        assert_eq!(xft_dpi("Xft.dpi:\tlots\n"), None);
        assert_eq!(xft_dpi(""), None);
    }
}
