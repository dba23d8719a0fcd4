//! mutter's monitor layout (`org.gnome.Mutter.DisplayConfig.GetCurrentState`)
//! and the one place its scales are applied: where each logical monitor lies on
//! the screen, where a screen point is in a monitor's stream (input), and what
//! area to ask GNOME Shell for a screenshot of. It reads; it never changes the
//! layout.
//!
//! mutter lays monitors out in one of two modes, and the screen axsight works
//! in is the layout's own space either way:
//!
//! - **logical** (layout mode 1; GNOME's fractional scaling, the
//!   `scale-monitor-framebuffer` experimental feature): a monitor of mode
//!   1920×1080 at scale 1.5 is 1280×720 of the layout; apps report their
//!   boxes in it. Its ScreenCast stream is the mode's pixels, so a point goes
//!   into the stream times the scale; a screenshot comes back at the largest
//!   scale the area touches and is sampled down to the area.
//! - **physical** (layout mode 2, mutter's default): the layout is device
//!   pixels; an app on a monitor at scale 2 draws at 2 and reports its boxes
//!   halved (the window's mapping scales them back), and GNOME Shell's
//!   `ScreenshotArea` takes its area in those halved units
//!   (`legacy-ui-scaling-factor`), so the area asked for is divided by it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axsight_core::{Bounds, Output};
use zbus::blocking::Connection;
use zbus::zvariant::OwnedValue;

use crate::screen::session_bus::call;
use crate::{Error, Result};

const DISPLAY_CONFIG: &str = "org.gnome.Mutter.DisplayConfig";

/// One logical monitor: the monitors it shows (the first one named), its place
/// on the screen and its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct LogicalMonitor {
    /// The first physical monitor's connector (`Meta-0`, `DP-1`): what a
    /// ScreenCast stream records.
    pub connector: String,
    /// Its place in the layout, in the screen's pixels.
    pub bounds: Bounds,
    /// mutter's scale for it.
    pub scale: f64,
    pub primary: bool,
}

/// The monitors, and how their scales apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// How many changes [`WatchedLayout`] has seen before this layout (mutter's
    /// own serial stays the same across a scale change).
    pub generation: u64,
    pub monitors: Vec<LogicalMonitor>,
    /// Layout mode 2: the screen is device pixels.
    pub physical: bool,
    /// The factor GNOME Shell's own UI and screenshot areas use in physical
    /// mode (`legacy-ui-scaling-factor`); 1 in logical mode.
    pub ui_scale: f64,
}

/// One monitor's mode as `GetCurrentState` lists it: id, size, refresh,
/// preferred scale, supported scales, properties.
type Mode = (
    String,
    i32,
    i32,
    f64,
    f64,
    Vec<f64>,
    HashMap<String, OwnedValue>,
);
/// Its monitors: connector, vendor, product, serial; modes; properties.
type Monitors = Vec<(
    (String, String, String, String),
    Vec<Mode>,
    HashMap<String, OwnedValue>,
)>;
/// Its logical monitors: place, scale, transform, primary, the monitors shown.
type LogicalMonitors = Vec<(
    i32,
    i32,
    f64,
    u32,
    bool,
    Vec<(String, String, String, String)>,
    HashMap<String, OwnedValue>,
)>;

/// mutter's current layout.
pub fn current(bus: &Connection) -> Result<Layout> {
    let (_serial, monitors, logical, properties): (
        u32,
        Monitors,
        LogicalMonitors,
        HashMap<String, OwnedValue>,
    ) = call(
        bus,
        DISPLAY_CONFIG,
        "/org/gnome/Mutter/DisplayConfig",
        DISPLAY_CONFIG,
        "GetCurrentState",
        &(),
    )?;
    let physical = properties
        .get("layout-mode")
        .and_then(|v| u32::try_from(v).ok())
        == Some(2);
    let ui_scale = properties
        .get("legacy-ui-scaling-factor")
        .and_then(|v| i32::try_from(v).ok())
        .filter(|&factor| factor > 0)
        .map_or(1.0, f64::from);
    let modes: HashMap<&str, (i32, i32)> = monitors
        .iter()
        .filter_map(|((connector, ..), modes, _)| {
            let current = modes.iter().find(|mode| {
                mode.6
                    .get("is-current")
                    .and_then(|v| bool::try_from(v).ok())
                    .unwrap_or(false)
            })?;
            Some((connector.as_str(), (current.1, current.2)))
        })
        .collect();
    let logical = logical
        .iter()
        .filter_map(|(x, y, scale, _transform, primary, shown, _)| {
            let connector = &shown.first()?.0;
            let mode = *modes.get(connector.as_str())?;
            Some(((*x, *y), *scale, *primary, connector.clone(), mode))
        })
        .collect();
    let layout = arrange(logical, physical, ui_scale);
    if layout.monitors.is_empty() {
        return Err(Error::Wayland("mutter reports no monitor".into()));
    }
    Ok(layout)
}

/// The layout, kept and read again once mutter says the monitors changed
/// (`MonitorsChanged`, watched by a thread that ends with the connection), so
/// input and screenshots follow a scale or a monitor changed while axsight
/// runs without asking mutter at every click.
pub struct WatchedLayout {
    bus: Connection,
    layout: Mutex<Layout>,
    changed: Arc<AtomicBool>,
}

impl WatchedLayout {
    /// Reads the layout and starts watching for changes.
    pub fn start(bus: &Connection) -> Result<WatchedLayout> {
        let changed = Arc::new(AtomicBool::new(false));
        let rule = zbus::MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .interface(DISPLAY_CONFIG)
            .and_then(|rule| rule.member("MonitorsChanged"))
            .map_err(|e| Error::Wayland(format!("cannot watch mutter's monitors: {e}")))?
            .build();
        let signals = zbus::blocking::MessageIterator::for_match_rule(rule, bus, Some(8))
            .map_err(|e| Error::Wayland(format!("cannot watch mutter's monitors: {e}")))?;
        let flag = Arc::clone(&changed);
        std::thread::Builder::new()
            .name("axsight-monitors".into())
            .spawn(move || {
                for _ in signals {
                    flag.store(true, Ordering::Release);
                }
            })
            .map_err(|e| Error::Wayland(format!("cannot watch mutter's monitors: {e}")))?;
        // Read after the watch starts: a change between the two is not lost.
        let layout = current(bus)?;
        Ok(WatchedLayout {
            bus: bus.clone(),
            layout: Mutex::new(layout),
            changed,
        })
    }

    /// The current layout.
    pub fn get(&self) -> Result<Layout> {
        let mut layout = self.layout.lock().unwrap_or_else(|e| e.into_inner());
        if self.changed.swap(false, Ordering::AcqRel) {
            match current(&self.bus) {
                Ok(now) => {
                    let generation = layout.generation + 1;
                    *layout = Layout { generation, ..now };
                }
                Err(error) => {
                    self.changed.store(true, Ordering::Release);
                    return Err(error);
                }
            }
        }
        Ok(layout.clone())
    }
}

/// A logical monitor as read: place, scale, primary, connector, mode size.
type Read = ((i32, i32), f64, bool, String, (i32, i32));

/// The layout of monitors read from mutter (pure, for tests).
fn arrange(read: Vec<Read>, physical: bool, ui_scale: f64) -> Layout {
    let monitors = read
        .into_iter()
        .map(|((x, y), scale, primary, connector, (width, height))| {
            let scale = if scale > 0.0 { scale } else { 1.0 };
            // In logical mode a monitor covers its mode divided by its scale.
            let divide = if physical { 1.0 } else { scale };
            LogicalMonitor {
                connector,
                bounds: Bounds {
                    x,
                    y,
                    width: (f64::from(width) / divide).round() as i32,
                    height: (f64::from(height) / divide).round() as i32,
                },
                scale,
                primary,
            }
        })
        .collect();
    Layout {
        generation: 0,
        monitors,
        physical,
        ui_scale: if physical { ui_scale } else { 1.0 },
    }
}

impl Layout {
    /// The monitors' union: the screen.
    pub fn screen(&self) -> Option<Bounds> {
        self.monitors
            .iter()
            .map(|m| m.bounds)
            .reduce(|a, b| a.union(&b))
    }

    /// The monitor holding (`x`, `y`).
    pub fn monitor_at(&self, x: i32, y: i32) -> Option<&LogicalMonitor> {
        self.monitors.iter().find(|m| m.bounds.contains(x, y))
    }

    /// Where screen point (`x`, `y`) is in the stream of `monitor`: its
    /// mode's pixels, so times its scale in logical mode.
    pub fn stream_point(&self, monitor: &LogicalMonitor, x: i32, y: i32) -> (f64, f64) {
        let factor = if self.physical { 1.0 } else { monitor.scale };
        (
            f64::from(x - monitor.bounds.x) * factor,
            f64::from(y - monitor.bounds.y) * factor,
        )
    }

    /// The area to ask GNOME Shell's `ScreenshotArea` for, to get screen
    /// area `area`: in physical mode the shell multiplies what it is given
    /// by its UI scale.
    pub fn screenshot_request(&self, area: Bounds) -> Bounds {
        if self.ui_scale == 1.0 {
            return area;
        }
        let f = self.ui_scale;
        let (left, top) = (f64::from(area.x) / f, f64::from(area.y) / f);
        let right = f64::from(area.x + area.width) / f;
        let bottom = f64::from(area.y + area.height) / f;
        Bounds {
            x: left.floor() as i32,
            y: top.floor() as i32,
            width: (right.ceil() - left.floor()) as i32,
            height: (bottom.ceil() - top.floor()) as i32,
        }
    }

    /// The screen area a screenshot of `asked` (see
    /// [`Layout::screenshot_request`]) covers.
    pub fn screenshot_covers(&self, asked: Bounds) -> Bounds {
        let f = self.ui_scale;
        let scaled = |v: i32| (f64::from(v) * f).round() as i32;
        Bounds {
            x: scaled(asked.x),
            y: scaled(asked.y),
            width: scaled(asked.width),
            height: scaled(asked.height),
        }
    }

    /// The scale apps draw at on the monitor under (`x`, `y`) and divide out
    /// of their boxes: the monitor's in physical mode, where the screen is
    /// device pixels; 1 in logical mode, where apps report the screen's own
    /// units.
    pub fn app_scale_at(&self, x: i32, y: i32) -> f64 {
        match (self.physical, self.monitor_at(x, y)) {
            (true, Some(monitor)) => monitor.scale,
            _ => 1.0,
        }
    }

    /// The monitors as outputs; in physical mode a monitor's scale is what
    /// its apps draw at, so it is named too.
    pub fn outputs(&self) -> Vec<Output> {
        self.monitors
            .iter()
            .map(|m| Output {
                name: m.connector.clone(),
                bounds: m.bounds,
                scale: m.scale,
                primary: m.primary,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two(physical: bool) -> Layout {
        arrange(
            vec![
                ((0, 0), 1.5, true, "Meta-0".into(), (1920, 1080)),
                ((1280, 100), 1.0, false, "Meta-1".into(), (1280, 800)),
            ],
            physical,
            2.0,
        )
    }

    #[test]
    fn logical_monitors_are_their_modes_over_their_scales() {
        let layout = two(false);
        let bounds: Vec<Bounds> = layout.monitors.iter().map(|m| m.bounds).collect();
        assert_eq!(
            bounds[0],
            Bounds {
                x: 0,
                y: 0,
                width: 1280,
                height: 720
            }
        );
        assert_eq!(
            bounds[1],
            Bounds {
                x: 1280,
                y: 100,
                width: 1280,
                height: 800
            }
        );
        assert_eq!(layout.ui_scale, 1.0);
        assert_eq!(
            layout.screen(),
            Some(Bounds {
                x: 0,
                y: 0,
                width: 2560,
                height: 900
            })
        );
    }

    #[test]
    fn a_point_goes_into_a_scaled_stream_times_the_scale() {
        let layout = two(false);
        let scaled = layout.monitor_at(100, 50).unwrap();
        assert_eq!(layout.stream_point(scaled, 100, 50), (150.0, 75.0));
        let plain = layout.monitor_at(1300, 150).unwrap();
        assert_eq!(plain.connector, "Meta-1");
        assert_eq!(layout.stream_point(plain, 1300, 150), (20.0, 50.0));
        assert!(layout.monitor_at(1300, 50).is_none());
    }

    #[test]
    fn physical_mode_keeps_device_pixels_and_divides_screenshot_areas() {
        let layout = two(true);
        assert_eq!(layout.monitors[0].bounds.width, 1920);
        let monitor = layout.monitor_at(100, 50).unwrap();
        assert_eq!(layout.stream_point(monitor, 100, 50), (100.0, 50.0));
        assert_eq!(layout.app_scale_at(100, 50), 1.5);
        assert_eq!(two(false).app_scale_at(100, 50), 1.0);
        let asked = layout.screenshot_request(Bounds {
            x: 101,
            y: 50,
            width: 200,
            height: 99,
        });
        assert_eq!(
            asked,
            Bounds {
                x: 50,
                y: 25,
                width: 101,
                height: 50
            }
        );
        let covers = layout.screenshot_covers(asked);
        assert_eq!(
            covers,
            Bounds {
                x: 100,
                y: 50,
                width: 202,
                height: 100
            }
        );
        assert!(covers.contains(101, 50) && covers.contains(300, 148));
    }
}
