//! The engine against real apps: tree content, bounds, robustness.

use std::process::Command;
use std::time::{Duration, Instant};

use axsight_core::{Role, State, Tree};
use axsight_linux::{Error, LinuxEngine, ReadOptions, WindowQuery};

use crate::support::{self, tree};

fn find<'t>(tree: &'t Tree, role: Role, name: &str) -> &'t axsight_core::Element {
    tree.ids()
        .map(|id| tree.element(id))
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no [{role}] {name:?} in the tree"))
}

#[tokio::test]
async fn fixture_tree_is_complete_and_correct() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let app = support::fixture(&engine, &support::title("complete")).await;
    let snapshot = tree(&engine, &app).await;
    let tree = &snapshot.tree;
    assert_eq!(snapshot.app, "axsight-fixture");
    assert_eq!(snapshot.pid, Some(app.pid()));
    assert!(!snapshot.is_partial(), "gaps: {:?}", snapshot.gaps);

    let window = tree.element(tree.root());
    assert_eq!(window.role, Role::Window);
    assert_eq!(window.name, app.title);
    let frame = window.bounds.expect("the window has bounds");
    assert_eq!((frame.width, frame.height), (800, 600));

    for (role, name) in [
        (Role::Button, "Save"),
        (Role::Button, "Cancel"),
        (Role::Button, "Open dialog later"),
        (Role::Button, "Rename me"),
        (Role::Edit, "Name"),
        (Role::CheckBox, "Remember me"),
        (Role::RadioButton, "Small"),
        (Role::RadioButton, "Medium"),
        (Role::RadioButton, "Large"),
        (Role::ComboBox, "Colour"),
        (Role::Table, "Fruits"),
        (Role::Cell, "Banana"),
        (Role::TabItem, "General"),
        (Role::TabItem, "Advanced"),
        (Role::Menu, "File"),
        (Role::Canvas, "Canvas"),
        (Role::ScrollPane, "Long list"),
    ] {
        let element = find(tree, role, name);
        let bounds = element
            .bounds
            .unwrap_or_else(|| panic!("{name} has no bounds"));
        assert!(bounds.has_area(), "{name} has empty bounds");
        assert!(
            bounds.x >= frame.x
                && bounds.y >= frame.y
                && bounds.x + bounds.width <= frame.x + frame.width,
            "{name} at {bounds:?} lies outside the window {frame:?}"
        );
        assert!(element.is_shown(), "{name} is not shown");
    }
    assert!(find(tree, Role::RadioButton, "Small")
        .states
        .contains(State::Checked));
    assert!(!find(tree, Role::RadioButton, "Large")
        .states
        .contains(State::Checked));
    assert!(find(tree, Role::TabItem, "General")
        .states
        .contains(State::Selected));
    assert!(find(tree, Role::Button, "Save")
        .actions
        .iter()
        .any(|a| a == "click"));
    assert_eq!(find(tree, Role::Edit, "Name").value.as_deref(), Some(""));

    let password = find(tree, Role::Edit, "Password");
    assert!(password.is_secret());
    assert_eq!(password.value, None);

    let canvas = tree
        .find(&find(tree, Role::Canvas, "Canvas").id)
        .expect("canvas node");
    assert!(
        tree.node(canvas).children.is_empty(),
        "the canvas has no accessible children"
    );

    // The scrolled list is taller than its viewport: later rows are not shown.
    let rows: Vec<_> = tree
        .ids()
        .map(|id| tree.element(id))
        .filter(|e| e.name.starts_with("Row item") && e.is_shown())
        .collect();
    assert!(
        !rows.is_empty() && rows.len() < 40,
        "{} of 40 rows shown; most should be scrolled away",
        rows.len()
    );
    let hidden = support::read(&engine, &app, true)
        .await
        .expect("tree with invisible elements");
    let all_rows = hidden
        .tree
        .ids()
        .filter(|&id| hidden.tree.element(id).name.starts_with("Row item"))
        .count();
    assert_eq!(all_rows, 40);
}

#[tokio::test]
async fn secret_is_never_read() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let app = support::fixture(&engine, &support::title("secret")).await;
    let snapshot = support::read(&engine, &app, true).await.expect("tree");
    let debug = format!("{snapshot:?}");
    assert!(
        !debug.contains(support::SECRET),
        "the secret reached the engine's output"
    );
}

#[tokio::test]
async fn gtk4_bounds_agree_with_the_x11_window() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let app = support::calculator(&engine).await;
    let snapshot = tree(&engine, &app).await;
    let frame = snapshot
        .tree
        .element(snapshot.tree.root())
        .bounds
        .expect("window bounds");

    // xwininfo is an independent reading of the X window's place on screen.
    let out = Command::new("xwininfo")
        .args(["-name", "Calculator"])
        .output()
        .expect("xwininfo runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |label: &str| -> i32 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("xwininfo has no {label}: {text}"))
    };
    let (x, y) = (
        field("Absolute upper-left X:"),
        field("Absolute upper-left Y:"),
    );
    let (w, h) = (field("Width:"), field("Height:"));
    // The accessible frame sits inside the X window, centred within its shadow margin.
    assert!(
        frame.x >= x && frame.y >= y,
        "frame {frame:?} starts outside the X window at {x},{y}"
    );
    assert!(
        frame.x + frame.width <= x + w && frame.y + frame.height <= y + h,
        "frame {frame:?} ends outside {w}x{h}"
    );
    assert_eq!(
        frame.x - x,
        x + w - (frame.x + frame.width),
        "margins differ left/right"
    );

    // GTK4 names it "7 7": the cleaned name is "7".
    let seven = find(&snapshot.tree, Role::Button, "7");
    let b = seven.bounds.expect("the 7 button has bounds");
    assert!(b.has_area());
    assert!(
        b.x > frame.x && b.y > frame.y && b.x + b.width < frame.x + frame.width,
        "{b:?} outside {frame:?}"
    );
}

#[tokio::test]
async fn unknown_app_is_a_clear_error() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    // With an app running, the error names the running apps.
    let _app = support::fixture(&engine, &support::title("unknown")).await;
    let query = WindowQuery {
        app: Some("no-such-app-here".into()),
        ..WindowQuery::default()
    };
    let error = engine
        .window_tree(
            &query,
            ReadOptions {
                actions: true,
                ..ReadOptions::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(error, Error::AppNotFound { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("no application matches 'no-such-app-here'"),
        "{error}"
    );
}

#[tokio::test]
async fn killed_app_mid_read_leaves_the_engine_working() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let mut app = support::fixture(&engine, &support::title("killed")).await;
    let pid = app.pid();
    let query = app.query();
    let read = engine.window_tree(
        &query,
        ReadOptions {
            include_invisible: true,
            actions: true,
        },
    );
    let kill = async {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    };
    let started = Instant::now();
    let (result, ()) = tokio::join!(read, kill);
    let _ = app.child.wait();
    // Either the read won the race or it ended in a plain error; never a panic or hang.
    if let Err(error) = result {
        assert!(
            matches!(
                error,
                Error::AppGone { .. }
                    | Error::Timeout { .. }
                    | Error::AppNotFound { .. }
                    | Error::NoApplications
                    | Error::WindowNotFound { .. }
                    | Error::Call { .. }
            ),
            "unexpected error: {error}"
        );
    }
    assert!(started.elapsed() < axsight_linux::READ_DEADLINE + Duration::from_secs(1));
    let apps = engine
        .applications()
        .await
        .expect("the engine still answers");
    assert!(
        apps.iter().all(|a| a.pid != Some(pid)),
        "the killed app is still listed"
    );
}

#[tokio::test]
async fn hung_app_costs_one_failed_call() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let app = support::fixture(&engine, &support::title("hung")).await;
    let other = support::fixture(&engine, &support::title("alive")).await;
    let stop = Command::new("kill")
        .args(["-STOP", &app.pid().to_string()])
        .status()
        .unwrap();
    assert!(stop.success());
    let started = Instant::now();
    let error = support::read(&engine, &app, false).await.unwrap_err();
    assert!(started.elapsed() < axsight_linux::READ_DEADLINE + Duration::from_secs(1));
    // A stopped app cannot even be listed, so it is not found, or it times out.
    assert!(
        matches!(error, Error::Timeout { .. } | Error::AppNotFound { .. }),
        "unexpected error: {error}"
    );
    // Other apps still answer.
    let snapshot = tree(&engine, &other).await;
    assert!(snapshot.tree.len() > 10);
}

/// Invokes action 0 of an element through AT-SPI, outside the engine.
fn do_action(element: &axsight_core::Element) {
    support::gdbus_call(element, "org.a11y.atspi.Action.DoAction", &["0"]);
}

/// The tree printed without handles, to compare reads of two engines.
fn printed(tree: &Tree) -> String {
    let text = axsight_core::render(
        tree,
        tree.root(),
        &mut axsight_core::HandleRegistry::new(),
        &Default::default(),
    )
    .text;
    text.lines()
        .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits until a fresh walk shows `changed`, then requires the watched engine's very
/// next read to print the same tree: a stale watched read cannot pass by retrying.
async fn watched_read_matches_fresh_once_changed(
    fresh: &LinuxEngine,
    watching: &LinuxEngine,
    app: &support::App,
    changed: impl Fn(&Tree) -> bool,
) {
    let after = support::wait_until(Duration::from_secs(5), || async {
        let snapshot = tree(fresh, app).await;
        changed(&snapshot.tree).then_some(snapshot)
    })
    .await
    .expect("the change shows in a fresh walk");
    assert_eq!(
        printed(&tree(watching, app).await.tree),
        printed(&after.tree)
    );
}

#[tokio::test]
async fn watched_reads_follow_changes_and_match_fresh_walks() {
    let fresh = LinuxEngine::connect().await.expect("engine connects");
    let watching = LinuxEngine::connect_watching()
        .await
        .expect("engine watches");
    let app = support::fixture(&fresh, &support::title("watched")).await;
    let first = tree(&watching, &app).await;
    assert_eq!(
        printed(&first.tree),
        printed(&tree(&fresh, &app).await.tree)
    );
    let rename = find(&first.tree, Role::Button, "Rename me").clone();
    do_action(&rename);
    watched_read_matches_fresh_once_changed(&fresh, &watching, &app, |tree| {
        tree.ids().any(|id| tree.element(id).name == "Renamed 1")
    })
    .await;
}

#[tokio::test]
async fn watched_reads_follow_scrolling() {
    let fresh = LinuxEngine::connect().await.expect("engine connects");
    let watching = LinuxEngine::connect_watching()
        .await
        .expect("engine watches");
    let app = support::fixture(&fresh, &support::title("scrolled")).await;
    let first = tree(&watching, &app).await;
    let shown = |tree: &Tree, name: &str| {
        tree.ids()
            .any(|id| tree.element(id).name == name && tree.element(id).is_shown())
    };
    assert!(!shown(&first.tree, "Row item 25"));
    // Scroll the long list through its scroll bar's Value, outside the engine.
    let bar = first
        .tree
        .ids()
        .map(|id| first.tree.element(id))
        .find(|e| e.role == Role::ScrollBar && e.is_shown())
        .expect("the long list's scroll bar")
        .clone();
    set_value(&bar, 400.0);
    watched_read_matches_fresh_once_changed(&fresh, &watching, &app, |tree| {
        shown(tree, "Row item 25")
    })
    .await;
}

/// Sets an element's Value through AT-SPI, outside the engine.
fn set_value(element: &axsight_core::Element, value: f64) {
    let value = format!("<{value:.1}>");
    support::gdbus_call(
        element,
        "org.freedesktop.DBus.Properties.Set",
        &["org.a11y.atspi.Value", "CurrentValue", &value],
    );
}

#[tokio::test]
async fn watched_reads_follow_a_gtk4_app() {
    let fresh = LinuxEngine::connect().await.expect("engine connects");
    let watching = LinuxEngine::connect_watching()
        .await
        .expect("engine watches");
    let app = support::calculator(&fresh).await;
    let before = tree(&watching, &app).await;
    let seven = find(&before.tree, Role::Button, "7").clone();
    do_action(&seven);
    watched_read_matches_fresh_once_changed(&fresh, &watching, &app, |tree| {
        tree.ids().any(|id| {
            tree.element(id).role == Role::Edit && tree.element(id).value.as_deref() == Some("7")
        })
    })
    .await;
}

#[tokio::test]
async fn huge_table_is_read_by_its_cells_on_screen_and_cut_with_a_clear_note() {
    let engine = LinuxEngine::connect().await.expect("engine connects");
    let title = support::title("huge");
    let app = support::fixture_with(&engine, &title, &["--rows", "5000"]).await;
    let started = Instant::now();
    let snapshot = engine
        .window_tree(&app.query(), ReadOptions::default())
        .await
        .expect("a huge tree still reads");
    let took = started.elapsed();
    assert!(took < axsight_linux::READ_DEADLINE, "took {took:?}");
    // More rows than a read takes under one parent: the list is not asked for
    // all its children, only for the cells its scrolled window shows.
    assert!(snapshot.is_partial(), "5005 rows exceed the per-parent cap");
    assert!(
        snapshot.gaps.iter().any(|g| g.starts_with(
            "table \"Fruits\" has 5005 rows and 1 columns; only the 5 cells on screen were read (Apple to Elderberry)"
        )),
        "{:?}",
        snapshot.gaps
    );
    let names: Vec<&str> = snapshot
        .tree
        .ids()
        .map(|id| snapshot.tree.element(id).name.as_str())
        .collect();
    assert!(names.contains(&"Fruit"), "the column's header is kept");
    assert!(names.contains(&"Apple") && !names.iter().any(|n| n.starts_with("Extra fruit")));
    let options = axsight_core::CompactOptions {
        max_chars: 500,
        ..Default::default()
    };
    let out = axsight_core::render(
        &snapshot.tree,
        snapshot.tree.root(),
        &mut axsight_core::HandleRegistry::new(),
        &options,
    );
    assert!(
        out.text.lines().last().unwrap().starts_with("[cut: "),
        "{}",
        out.text
    );
}
