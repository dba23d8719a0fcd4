//! Starting and stopping test apps, and waiting for them without fixed sleeps.
//!
//! Shared by the `desktop` and `acting` test binaries; each uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axsight_linux::{LinuxEngine, ReadOptions, WindowQuery};

pub const SECRET: &str = "hunter2-SECRET";

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Panics with a clear message when the desktop's environment is missing.
pub fn require_desktop() {
    assert!(
        std::env::var_os("AT_SPI_BUS_ADDRESS").is_some() && std::env::var_os("DISPLAY").is_some(),
        "these tests need a desktop: run them under scripts/with-desktop (scripts/test does)"
    );
}

/// A running test app, killed on drop.
pub struct App {
    pub child: Child,
    pub title: String,
    /// Held while an app whose title cannot be chosen runs, so tests take turns.
    _turn: Option<tokio::sync::MutexGuard<'static, ()>>,
}

/// gnome-calculator's window is always titled "Calculator": one at a time.
static CALCULATOR_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl App {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// This app's window, by pid and title.
    pub fn query(&self) -> WindowQuery {
        WindowQuery {
            app: Some(self.pid().to_string()),
            window: Some(self.title.clone()),
            ..WindowQuery::default()
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.pid().to_string()])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Environment every test app gets (see docs/testing.md, "Environment for apps under test").
fn app_command(program: &str) -> Command {
    let mut command = Command::new(program);
    command
        .env("GDK_BACKEND", "x11")
        .env("GSETTINGS_BACKEND", "memory")
        .env("GSK_RENDERER", "cairo")
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env_remove("NO_AT_BRIDGE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// Starts the fixture app with window title `title` and waits for its window.
pub async fn fixture(engine: &LinuxEngine, title: &str) -> App {
    fixture_with(engine, title, &[]).await
}

/// Starts the fixture app with more arguments (such as `--rows 5000`).
pub async fn fixture_with(engine: &LinuxEngine, title: &str, args: &[&str]) -> App {
    let mut command = app_command("/usr/bin/python3");
    command
        .arg(repo().join("tests/fixtures/fixture_app.py"))
        .args(["--title", title])
        .args(args);
    start(engine, command, title, None).await
}

/// Starts the GTK4 fixture app with window title `title`, its windows placed
/// apart (`--place`), and waits for its main window.
pub async fn gtk4_fixture(engine: &LinuxEngine, title: &str) -> App {
    let mut command = app_command("/usr/bin/python3");
    command
        .arg(repo().join("tests/fixtures/gtk4_fixture_app.py"))
        .args(["--title", title, "--place"]);
    start(engine, command, title, None).await
}

/// Starts gnome-calculator (GTK4). Its title is always "Calculator", so callers
/// must not run two at once.
pub async fn calculator(engine: &LinuxEngine) -> App {
    let turn = CALCULATOR_TURN.lock().await;
    start(
        engine,
        app_command("gnome-calculator"),
        "Calculator",
        Some(turn),
    )
    .await
}

/// gnome-calculator's and gtk3-widget-factory's window titles cannot be chosen:
/// tests of one of them take turns.
static WIDGET_FACTORY_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Starts Gnumeric on a new workbook (GTK3; dense toolbars, a sheet with no
/// cells on the bus), its window titled `Book1.gnumeric - Gnumeric`. One at a
/// time, as its title cannot be chosen.
pub async fn gnumeric(engine: &LinuxEngine) -> App {
    let turn = GNUMERIC_TURN.lock().await;
    let mut command = app_command("gnumeric");
    command.arg("--no-splash");
    start(engine, command, "Book1.gnumeric - Gnumeric", Some(turn)).await
}

static GNUMERIC_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Starts gtk3-widget-factory (GTK3; its window has no title). One at a time.
pub async fn widget_factory(engine: &LinuxEngine) -> App {
    let turn = WIDGET_FACTORY_TURN.lock().await;
    start(engine, app_command("gtk3-widget-factory"), "", Some(turn)).await
}

async fn start(
    engine: &LinuxEngine,
    mut command: Command,
    title: &str,
    turn: Option<tokio::sync::MutexGuard<'static, ()>>,
) -> App {
    require_desktop();
    let child = command.spawn().expect("cannot start the test app");
    let app = App {
        child,
        title: title.to_string(),
        _turn: turn,
    };
    let shown = wait_until(Duration::from_secs(20), || async {
        engine
            .applications()
            .await
            .ok()?
            .into_iter()
            .find(|a| a.pid == Some(app.pid()) && a.windows.iter().any(|w| w.title == title))
    })
    .await;
    assert!(
        shown.is_some(),
        "the app titled {title:?} never showed its window"
    );
    app
}

/// Polls `probe` until it gives `Some`, or the deadline passes.
pub async fn wait_until<T, F, Fut>(deadline: Duration, mut probe: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let end = Instant::now() + deadline;
    loop {
        if let Some(value) = probe().await {
            return Some(value);
        }
        if Instant::now() > end {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads an app's window, action names included, and hidden elements when asked.
pub async fn read(
    engine: &LinuxEngine,
    app: &App,
    include_invisible: bool,
) -> axsight_linux::Result<axsight_core::WindowSnapshot> {
    let options = ReadOptions {
        actions: true,
        include_invisible,
    };
    engine.window_tree(&app.query(), options).await
}

/// Reads an app's window (drawn elements only), which must succeed.
pub async fn tree(engine: &LinuxEngine, app: &App) -> axsight_core::WindowSnapshot {
    read(engine, app, false).await.expect("the tree reads")
}

/// Calls `method` on an element through AT-SPI with gdbus: a change made outside
/// the engine, as a user or another tool would.
pub fn gdbus_call(element: &axsight_core::Element, method: &str, args: &[&str]) {
    let id = &element.id.0;
    let (bus, path) = id.split_at(id.find('/').expect("ids are bus name + path"));
    let address = std::env::var("AT_SPI_BUS_ADDRESS").expect("a desktop");
    let out = Command::new("gdbus")
        .args([
            "call",
            "--address",
            &address,
            "-d",
            bus,
            "-o",
            path,
            "-m",
            method,
        ])
        .args(args)
        .output()
        .expect("gdbus runs");
    assert!(
        out.status.success(),
        "{method}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A unique window title for one test.
pub fn title(test: &str) -> String {
    format!("axsight test {test} {}", std::process::id())
}

/// The UI-element detector for tests: the model in `AXSIGHT_DETECTOR_MODEL`,
/// else the one `scripts/install-deps` converted into `~/.local/share/axsight/`,
/// run by the ONNX Runtime that `scripts/install-deps` put in `.venv`.
pub fn detector_options() -> axsight_vision::DetectorOptions {
    let model = std::env::var_os("AXSIGHT_DETECTOR_MODEL")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(axsight_vision::installed_detector_model)
        .expect("no detector model: run scripts/install-deps (or scripts/get-detector-model), or set AXSIGHT_DETECTOR_MODEL");
    assert!(
        model.is_file(),
        "no detector model at {} (set AXSIGHT_DETECTOR_MODEL, or run scripts/get-detector-model)",
        model.display()
    );
    let runtime = std::env::var_os("AXSIGHT_ONNXRUNTIME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(venv_onnxruntime);
    assert!(
        runtime.is_some(),
        "no ONNX Runtime in .venv: run scripts/install-deps (or set AXSIGHT_ONNXRUNTIME)"
    );
    axsight_vision::DetectorOptions {
        runtime_library: runtime,
        ..axsight_vision::DetectorOptions::new(model)
    }
}

/// `libonnxruntime.so.*` of the onnxruntime wheel in the repository's `.venv`.
pub fn venv_onnxruntime() -> Option<PathBuf> {
    let lib = repo().join(".venv/lib");
    std::fs::read_dir(lib)
        .ok()?
        .filter_map(Result::ok)
        .map(|python| python.path().join("site-packages/onnxruntime/capi"))
        .filter_map(|capi| std::fs::read_dir(capi).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libonnxruntime.so"))
        })
}
