//! A GTK4 app with several top-level windows (two of them with the same title, one
//! a modal dialog): each window's bounds come from its own X window, the main
//! window stays put while others open, and pointer clicks land in each.

use std::process::Command;
use std::time::Duration;

use axsight_core::{Bounds, Window};
use axsight_linux::LinuxEngine;
use axsight_session::{ActOptions, ClickOptions, Target};

use crate::support::{self, App};
use crate::{aim, Session};

/// How long the fixture's windows get to show and to be placed.
const DEADLINE: Duration = Duration::from_secs(10);

/// A client X window as `xwininfo` reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct XWindow {
    id: u32,
    /// Absolute position and size of the whole X window.
    outer: Bounds,
}

impl XWindow {
    /// Where a frame of `size` drawn in this window lies on screen: the window less
    /// its `_GTK_FRAME_EXTENTS` (read with `xprop`), or less an even share of the
    /// margin where it has none.
    fn content(&self, size: (i32, i32)) -> Bounds {
        let (left, top) = match frame_extents(self.id) {
            Some([left, _, top, _]) => (left, top),
            None => (
                (self.outer.width - size.0) / 2,
                (self.outer.height - size.1) / 2,
            ),
        };
        Bounds {
            x: self.outer.x + left,
            y: self.outer.y + top,
            width: size.0,
            height: size.1,
        }
    }
}

/// The X windows titled `title`, read with `xwininfo -root -tree`: independent of
/// axsight's own X11 code.
fn x_windows_titled(title: &str) -> Vec<XWindow> {
    let out = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .output()
        .expect("xwininfo runs (x11-utils)");
    let text = String::from_utf8_lossy(&out.stdout);
    let quoted = format!("\"{title}\":");
    text.lines()
        .filter(|line| line.contains(&quoted))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let id = u32::from_str_radix(words.first()?.trim_start_matches("0x"), 16).ok()?;
            // "...  500x400+40+40  +40+40": size and relative place, then the
            // absolute place.
            let [geometry, absolute] = words[words.len().checked_sub(2)?..] else {
                return None;
            };
            let (width, rest) = geometry.split_once('x')?;
            let height = rest.split(['+', '-']).next()?;
            let (x, y) = absolute.trim_start_matches('+').split_once('+')?;
            Some(XWindow {
                id,
                outer: Bounds {
                    x: x.parse().ok()?,
                    y: y.parse().ok()?,
                    width: width.parse().ok()?,
                    height: height.parse().ok()?,
                },
            })
        })
        .collect()
}

/// `_GTK_FRAME_EXTENTS` (left, right, top, bottom) of X window `id`, if set.
fn frame_extents(id: u32) -> Option<[i32; 4]> {
    let out = Command::new("xprop")
        .args(["-id", &format!("{id:#x}"), "_GTK_FRAME_EXTENTS"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (_, values) = text.split_once(" = ")?;
    let numbers: Vec<i32> = values
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    numbers.try_into().ok()
}

/// How much larger than its frame a GTK4 window without `_GTK_FRAME_EXTENTS` may
/// be (its shadows).
const SHADOW: i32 = 80;

/// Where `window` lies according to its own X window: the one of its title whose
/// content is its frame's size (the fixture's windows all differ in size, so one
/// fits each frame); `None` for a window without bounds or without one such X
/// window.
fn x_bounds(window: &Window) -> Option<Bounds> {
    let frame = window.bounds?;
    let size = (frame.width, frame.height);
    let candidates: Vec<XWindow> = x_windows_titled(&window.title)
        .into_iter()
        .filter(|x| {
            let extra = (x.outer.width - size.0, x.outer.height - size.1);
            match frame_extents(x.id) {
                Some([l, r, t, b]) => extra == (l + r, t + b),
                None => (0..=SHADOW).contains(&extra.0) && (0..=SHADOW).contains(&extra.1),
            }
        })
        .collect();
    match candidates.as_slice() {
        [only] => Some(only.content(size)),
        _ => None,
    }
}

/// The app's windows once there are `count` of them and each one's bounds are
/// those of its own X window; panics with what was seen after [`DEADLINE`].
async fn windows_matching_x(engine: &LinuxEngine, app: &App, count: usize) -> Vec<Window> {
    // What the last poll saw, for the failure message.
    let seen = std::cell::RefCell::new(String::new());
    let found = support::wait_until(DEADLINE, || {
        let seen = &seen;
        async move {
            let apps = engine.applications().await.ok()?;
            let windows = apps.into_iter().find(|a| a.pid == Some(app.pid()))?.windows;
            let pairs: Vec<(Option<Bounds>, Option<Bounds>)> =
                windows.iter().map(|w| (w.bounds, x_bounds(w))).collect();
            *seen.borrow_mut() = format!(
                "{:?}",
                windows
                    .iter()
                    .map(|w| &w.title)
                    .zip(&pairs)
                    .collect::<Vec<_>>()
            );
            let all_match = pairs
                .iter()
                .all(|(at_spi, x)| at_spi.is_some() && at_spi == x);
            (windows.len() == count && all_match).then_some(windows)
        }
    })
    .await;
    found.unwrap_or_else(|| {
        panic!(
            "never {count} windows each at its X window's place: (title, (axsight, X11)) {}",
            seen.borrow()
        )
    })
}

fn in_app(app: &App, selector: &str) -> Target {
    Target::Selector {
        selector: selector.to_string(),
        app: Some(app.pid().to_string()),
        window: None,
    }
}

/// Waits for the main window's status label to read `text`.
async fn status_reads(engine: &LinuxEngine, app: &App, text: &str) -> bool {
    support::wait_until(DEADLINE, || async {
        let tree = support::tree(engine, app).await.tree;
        tree.ids()
            .any(|id| tree.element(id).name == text)
            .then_some(())
    })
    .await
    .is_some()
}

#[tokio::test]
async fn each_gtk4_window_is_placed_by_its_own_x_window() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("gtk4 windows");
    let app = support::gtk4_fixture(&engine, &title).await;
    let session = Session::watching();
    let click = ClickOptions {
        count: 1,
        ..ClickOptions::default()
    };
    let options = ActOptions::default();

    let main = windows_matching_x(&engine, &app, 1).await.remove(0);
    let main_bounds = main.bounds.expect("the main window has bounds");

    // A second window with the same title, smaller, elsewhere.
    let opened = session
        .click(
            &aim(&title, "name:\"Open second window\""),
            &click,
            &options,
        )
        .await
        .unwrap();
    assert!(opened.contains("with the pointer"), "{opened}");
    let windows = windows_matching_x(&engine, &app, 2).await;
    assert_eq!(windows[0].id, main.id, "the main window is listed first");
    assert_eq!(
        windows[0].bounds,
        Some(main_bounds),
        "the main window stayed put"
    );
    assert_eq!(windows[1].title, title);

    let second = session
        .click(&in_app(&app, "name:\"Second button\""), &click, &options)
        .await
        .unwrap();
    assert!(second.contains("with the pointer"), "{second}");
    assert!(
        status_reads(&engine, &app, "Second clicked").await,
        "{second}"
    );

    // A modal dialog, transient for the main window.
    let asked = session
        .click(&aim(&title, "name:\"Open modal\""), &click, &options)
        .await
        .unwrap();
    assert!(asked.contains("with the pointer"), "{asked}");
    let windows = windows_matching_x(&engine, &app, 3).await;
    assert_eq!(
        windows[0].bounds,
        Some(main_bounds),
        "the main window stayed put"
    );
    let modal = windows
        .iter()
        .find(|w| w.title == "Modal question")
        .expect("the modal is one of the app's windows");
    assert!(modal.bounds.is_some(), "{modal:?}");

    let yes = session
        .click(&aim("Modal question", "name:Yes"), &click, &options)
        .await
        .unwrap();
    assert!(yes.contains("with the pointer"), "{yes}");
    assert!(status_reads(&engine, &app, "Answered yes").await, "{yes}");
    let windows = windows_matching_x(&engine, &app, 2).await;
    assert_eq!(
        windows[0].bounds,
        Some(main_bounds),
        "the main window stayed put"
    );
}
