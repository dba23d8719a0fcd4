//! What an engine reports about the desktop: applications, their windows, and a
//! captured window tree.

use crate::{Bounds, ElementId, Role, State, StateSet, Tree};

/// A running application: one on the accessibility bus, or one whose windows
/// only the display server knows (no accessibility bridge: an X11 program of
/// Athena or Tk widgets, an app started with its bridge off), read by its
/// pixels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Application {
    pub name: String,
    pub pid: Option<u32>,
    /// Toolkit and version as the application reports them (`GTK 3.24.38`).
    pub toolkit: String,
    pub windows: Vec<Window>,
    /// Whether the app is on the accessibility bus; `false` for one whose
    /// windows have no accessible elements at all.
    pub accessible: bool,
}

/// A top-level window of an application.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Window {
    #[serde(skip)]
    pub id: ElementId,
    pub title: String,
    pub role: Role,
    pub bounds: Option<Bounds>,
    pub states: StateSet,
}

impl Window {
    /// Whether the window is the active one (it or its content has the focus).
    pub fn is_active(&self) -> bool {
        self.states.contains(State::Active)
    }
}

/// One window's element tree, as captured.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSnapshot {
    pub app: String,
    pub pid: Option<u32>,
    pub title: String,
    pub tree: Tree,
    /// Why parts of the tree are missing (objects that vanished or timed out while
    /// being read). Empty for a complete capture.
    pub gaps: Vec<String>,
    /// Which read of the window this is: two snapshots of a window with the
    /// same `read` hold the same tree, so what was derived from one holds for
    /// the other. `None` when the engine does not say.
    pub read: Option<u64>,
    /// Whether the window's elements come from its app's accessibility tree;
    /// `false` for a window only the display server knows, whose tree is the
    /// window alone (its content is in its pixels, and it sends no events).
    pub accessible: bool,
    /// Whether its boxes are left out because the display shows no window
    /// that fits it: its app reports boxes relative to its window, and the
    /// compositor has not placed it (yet: a window that has just opened, or
    /// is being resized), or cannot say where windows are.
    pub unplaced: bool,
}

impl WindowSnapshot {
    /// The window's identity: its root element's.
    pub fn window_id(&self) -> ElementId {
        self.tree.element(self.tree.root()).id.clone()
    }

    /// Whether some of the tree could not be read.
    pub fn is_partial(&self) -> bool {
        !self.gaps.is_empty()
    }
}

/// A monitor the screen spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The display server's name for it (`DP-1`, `HEADLESS-1`).
    pub name: String,
    /// Where it lies on the screen, in screen pixels.
    pub bounds: Bounds,
    /// What the display server says its scale is: a compositor's output scale;
    /// on X11, where each app scales itself, `Xft.dpi` over 96.
    pub scale: f64,
    /// The primary output (the one new windows open on).
    pub primary: bool,
}

/// The line that tells an agent the screen is more than one plain monitor:
/// each output's place (to capture one by its region) and any scale but 1;
/// `None` for one output at scale 1, where it would say nothing.
///
/// ```
/// use axsight_core::{format_outputs, Bounds, Output};
/// let output = |name: &str, x, primary| Output {
///     name: name.into(),
///     bounds: Bounds { x, y: 0, width: 1280, height: 800 },
///     scale: 1.0,
///     primary,
/// };
/// assert_eq!(format_outputs(&[output("LEFT", 0, true)]), None);
/// assert_eq!(
///     format_outputs(&[output("LEFT", 0, true), output("RIGHT", 1280, false)]).as_deref(),
///     Some("screen: 2 outputs: LEFT [0,0,1280,800] primary; RIGHT [1280,0,1280,800]")
/// );
/// ```
pub fn format_outputs(outputs: &[Output]) -> Option<String> {
    let plain = outputs.len() <= 1 && outputs.iter().all(|o| o.scale == 1.0);
    if plain {
        return None;
    }
    let listed: Vec<String> = outputs
        .iter()
        .map(|output| {
            let b = output.bounds;
            let mut line = format!("{} [{},{},{},{}]", output.name, b.x, b.y, b.width, b.height);
            if output.scale != 1.0 {
                line.push_str(&format!(" scale {}", output.scale));
            }
            if output.primary && outputs.len() > 1 {
                line.push_str(" primary");
            }
            line
        })
        .collect();
    let count = match outputs.len() {
        1 => "1 output".to_string(),
        n => format!("{n} outputs"),
    };
    Some(format!("screen: {count}: {}", listed.join("; ")))
}

/// Lists applications and their windows as text, one window per indented line;
/// an app off the accessibility bus says how its windows are read:
///
/// ```text
/// gnome-calculator (pid 4242, GTK 4.8.3)
///   [Window] Calculator (active, [0,0,361,485])
/// xcalc (pid 4250, no accessibility: read by OCR)
///   [Window] Calculator ([0,0,226,384])
/// ```
pub fn format_applications(apps: &[Application]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for app in apps {
        let mut facts = Vec::new();
        if let Some(pid) = app.pid {
            facts.push(format!("pid {pid}"));
        }
        if !app.toolkit.is_empty() {
            facts.push(app.toolkit.clone());
        }
        if !app.accessible {
            facts.push("no accessibility: read by OCR".into());
        }
        if app.windows.is_empty() {
            facts.push("no windows".into());
        }
        let _ = writeln!(out, "{} ({})", app.name, facts.join(", "));
        for window in &app.windows {
            let mut attrs = Vec::new();
            if window.is_active() {
                attrs.push("active".to_string());
            }
            if let Some(b) = window.bounds {
                attrs.push(format!("[{},{},{},{}]", b.x, b.y, b.width, b.height));
            }
            let title = if window.title.is_empty() {
                "(untitled)"
            } else {
                &window.title
            };
            let _ = write!(out, "  [{}] {title}", window.role);
            if !attrs.is_empty() {
                let _ = write!(out, " ({})", attrs.join(", "));
            }
            out.push('\n');
        }
    }
    if out.is_empty() {
        out.push_str("No window is shown, and no application is on the accessibility bus.\n");
    }
    out
}
