//! The contract between the tools and a platform backend: what an [`Engine`] must
//! answer, in the plain types of this crate.
//!
//! The Linux AT-SPI2 engine (`axsight-linux`) is the one implementation today; a
//! Windows (UI Automation) or macOS (AX) backend would implement the same trait.
//! The MCP server and the CLI drive any engine through it, so they know nothing of
//! D-Bus or X11.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use crate::{
    Application, Bounds, Capture, ElementId, EventMark, Input, Operation, Performed, Point,
    SettlePolicy, Settled, WindowSnapshot,
};

/// Which window to read. Both parts match case-insensitively by substring; `app`
/// also matches a process id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowQuery {
    /// Application name or pid; `None` means the active window's app.
    pub app: Option<String>,
    /// Window title; `None` means the app's active window, else its first.
    pub window: Option<String>,
    /// The window's identity, as a snapshot's root element carries it; wins over
    /// the rest.
    pub window_id: Option<ElementId>,
}

/// Something outside the accessibility bus that sees the changes an app does not
/// announce there (a browser's DevTools connection sees a page zoom, a tab swap, a
/// DOM change): it lets an engine reuse an earlier read of that app's windows.
pub trait ChangeWitness: Send + Sync {
    /// A mark of everything the witness watches: equal marks mean nothing it
    /// watches changed between them; `None` when it cannot tell (then the
    /// windows are read whole).
    fn mark(&self) -> Pin<Box<dyn Future<Output = Option<String>> + Send + '_>>;
}

/// What a tree read fetches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Also read the subtrees of elements that are not drawn.
    pub include_invisible: bool,
    /// Also read each element's action names (the compact text does not print
    /// them; JSON and actions need them).
    pub actions: bool,
}

impl ReadOptions {
    /// Whether a read made with `self` holds everything a read with `wanted` would.
    ///
    /// ```
    /// use axsight_core::ReadOptions;
    /// let full = ReadOptions { include_invisible: false, actions: true };
    /// assert!(full.covers(&ReadOptions::default()));
    /// assert!(!ReadOptions::default().covers(&full));
    /// ```
    pub fn covers(&self, wanted: &ReadOptions) -> bool {
        self.include_invisible == wanted.include_invisible && (self.actions || !wanted.actions)
    }
}

/// How an engine is to connect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectOptions {
    /// Watch the desktop's events so unchanged windows are answered from memory:
    /// for long-lived users such as a server.
    pub watch_events: bool,
    /// Show and act on only these apps' windows (see [`crate::AppScope`]).
    pub scope: Option<crate::AppScope>,
}

/// What kind of failure an engine error is, where the caller acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The window asked for does not exist (any more).
    WindowGone,
    /// The application exited.
    AppGone,
    /// The element acted on no longer exists.
    ElementGone,
    /// The application did not answer in time: hung, stopped, or busy in a modal
    /// loop.
    NotAnswering,
    /// The element will not do it this way (no such interface or action, or it
    /// said no): another way may work.
    Refused,
    /// The connection to the desktop is lost: connect again.
    ConnectionLost,
    /// Anything else: the message says what.
    Other,
}

/// An engine's error: a plain message, and a kind for the caller to act on.
pub trait EngineError: std::error::Error + Send + Sync + 'static {
    /// What kind of failure this is.
    fn kind(&self) -> FailureKind;
}

/// The clipboard's text, and who holds it (an owner the engine tells apart, to
/// know whether the clipboard changed hands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipboardText {
    pub text: String,
    pub owner: u32,
}

/// Where a window is to go, or how it is to be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Its content's top-left corner to this screen point, and, where given, its
    /// content to this size.
    Move {
        x: i32,
        y: i32,
        size: Option<(i32, i32)>,
    },
    /// Its content to this size, its top-left corner kept.
    Resize { width: i32, height: i32 },
    /// As large as the screen lets it be; `false` undoes it.
    Maximize(bool),
    /// Out of sight, an icon of the window manager's; `false` shows it again.
    Minimize(bool),
}

/// What starting an app runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A program and its arguments, started without a shell; `desktop_id` names
    /// the desktop file whose `Exec` they are.
    Program {
        argv: Vec<String>,
        desktop_id: Option<String>,
    },
    /// A line for `/bin/sh -c`, only where whoever serves allowed a shell.
    Shell(String),
}

impl Launch {
    /// The command line, as an answer shows it.
    pub fn command(&self) -> String {
        match self {
            Launch::Program { argv, .. } => crate::join_command(argv),
            Launch::Shell(line) => line.clone(),
        }
    }
}

/// An application the engine started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    /// The process started (a launcher may hand its window to another process).
    pub pid: u32,
    /// The command line that ran.
    pub command: String,
}

/// A platform backend: applications, windows and their trees; acting on elements
/// and windows; waiting for the UI to settle.
pub trait Engine: Send + Sync + Sized + 'static {
    /// The engine's error.
    type Error: EngineError;

    /// Finds the desktop and connects to it.
    fn connect(options: ConnectOptions) -> impl Future<Output = Result<Self, Self::Error>> + Send;

    /// Whether the desktop still answers (for readiness probes): cheap, and an
    /// error of kind [`FailureKind::ConnectionLost`] when a connection is gone.
    fn check_alive(&self) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// The applications and their top-level windows.
    fn applications(&self) -> impl Future<Output = Result<Vec<Application>, Self::Error>> + Send;

    /// The tree of the window `query` names.
    fn window_tree(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> impl Future<Output = Result<WindowSnapshot, Self::Error>> + Send;

    /// [`Engine::window_tree`], with the applications as the same read listed
    /// them: one listing serves both, where asking for the two at once would
    /// list twice.
    fn window_tree_listed(
        &self,
        query: &WindowQuery,
        options: ReadOptions,
    ) -> impl Future<Output = Result<(WindowSnapshot, Vec<Application>), Self::Error>> + Send;

    /// The trees of every window of the apps `app` names (all apps when `None`).
    fn window_trees(
        &self,
        app: Option<&str>,
        options: ReadOptions,
    ) -> impl Future<Output = Result<Vec<WindowSnapshot>, Self::Error>> + Send;

    /// Does `operation` to the element `element` through its accessible interfaces.
    /// Never waits long for the application's answer (see [`Performed::Unanswered`]).
    fn perform(
        &self,
        element: &ElementId,
        operation: &Operation,
    ) -> impl Future<Output = Result<Performed, Self::Error>> + Send;

    /// Sends real pointer or keyboard input.
    fn send_input(&self, input: &Input) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// For each of `points`, in their order, whether pointer input there
    /// reaches the window `window` (no other window covers it there). Asked
    /// together, they cost about what one point does.
    fn input_reaches_each(
        &self,
        window: &ElementId,
        points: &[Point],
    ) -> impl Future<Output = Result<Vec<bool>, Self::Error>> + Send;

    /// Whether pointer input at `point` reaches the window `window` (see
    /// [`Engine::input_reaches_each`]).
    fn input_reaches(
        &self,
        window: &ElementId,
        point: Point,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        async move {
            let reached = self.input_reaches_each(window, &[point]).await?;
            Ok(reached.first() == Some(&true))
        }
    }

    /// Raises the window and gives it the keyboard focus.
    fn activate_window(
        &self,
        window: &ElementId,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// The titles and on-screen boxes of the windows process `pid` shows, read
    /// from the display rather than from the app: they are known even while the
    /// app answers no accessibility call.
    fn screen_windows(
        &self,
        pid: u32,
    ) -> impl Future<Output = Result<Vec<(String, Bounds)>, Self::Error>> + Send;

    /// Raises and focuses the window under a screen point: for windows no
    /// accessible element names, such as those of an app that answers nothing.
    fn activate_window_at(
        &self,
        point: Point,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Asks the window titled `title` on the display to close, without asking its
    /// app anything first: how a dialog of an app that answers nothing is closed.
    /// `Ok(false)` when no such window is shown.
    fn close_window_titled(
        &self,
        title: &str,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send;

    /// Asks the window to close, as its close button would.
    fn close_window(
        &self,
        window: &ElementId,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Moves, resizes, maximizes or minimizes the window, through the window
    /// manager where one runs; returns once the display shows it so (or its
    /// deadline passed, which is an error), with where its content is on screen
    /// now (`None` when it is minimized).
    fn place_window(
        &self,
        window: &ElementId,
        placement: Placement,
    ) -> impl Future<Output = Result<Option<Bounds>, Self::Error>> + Send;

    /// The text on the clipboard and who holds it; `None` when it holds none.
    fn clipboard_text(
        &self,
    ) -> impl Future<Output = Result<Option<ClipboardText>, Self::Error>> + Send;

    /// Puts `text` on the clipboard, held by the engine until another client
    /// copies something.
    fn set_clipboard_text(
        &self,
        text: String,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;

    /// Who holds the clipboard now, if anyone.
    fn clipboard_owner(&self) -> impl Future<Output = Result<Option<u32>, Self::Error>> + Send;

    /// Starts watching what a person does with the pointer and keyboard (for
    /// a recording), where the desktop lets a program see that.
    fn watch_input(&self) -> impl Future<Output = Result<crate::InputWatch, Self::Error>> + Send;

    /// What starting `app` by a desktop file's id (`org.gnome.Calculator`, with or
    /// without `.desktop`) or its `Name=` runs; `None` when no desktop file names
    /// it (the caller then splits `app` as a command line).
    fn desktop_launch(
        &self,
        app: &str,
    ) -> impl Future<Output = Result<Option<Launch>, Self::Error>> + Send;

    /// Starts `launch`, in an environment every toolkit accepts.
    fn launch(&self, launch: &Launch)
        -> impl Future<Output = Result<Launched, Self::Error>> + Send;

    /// What element `element`'s text is, with its caret and selection; with
    /// `runs`, its formatting run by run, else only the formatting at the
    /// caret. `None` for an element without text, and always for a secret
    /// one (its text is never read).
    fn text_detail(
        &self,
        element: &ElementId,
        runs: bool,
    ) -> impl Future<Output = Result<Option<crate::TextDetail>, Self::Error>> + Send {
        let _ = (element, runs);
        async { Ok(None) }
    }

    /// The monitors the screen spans, where the engine knows them: for telling
    /// an agent where each lies and at what scale.
    fn outputs(&self) -> impl Future<Output = Result<Vec<crate::Output>, Self::Error>> + Send {
        async { Ok(Vec::new()) }
    }

    /// The variables a program started some other way (a browser, started by
    /// the browser source) needs to reach this desktop: the display and the
    /// session bus, as the engine found them.
    fn app_environment(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// From now on `witness` vouches for the windows of process `pid`, whose
    /// toolkit does not announce every change: an earlier read of them is reused
    /// while the witness's mark stays the same. An engine that keeps no reads
    /// ignores it.
    fn add_witness(&self, pid: u32, witness: Arc<dyn ChangeWitness>) {
        let _ = (pid, witness);
    }

    /// The screen's pixels in `region` (cut to the screen), or the whole screen
    /// when `None`.
    fn capture(
        &self,
        region: Option<Bounds>,
    ) -> impl Future<Output = Result<Capture, Self::Error>> + Send;

    /// The current place in the event stream.
    fn mark(&self) -> impl Future<Output = EventMark> + Send;

    /// Waits until the application owning `window` (any application when `None`)
    /// has settled after `mark`, as `policy` says.
    fn settle(
        &self,
        window: Option<&ElementId>,
        mark: EventMark,
        policy: SettlePolicy,
    ) -> impl Future<Output = Settled> + Send;

    /// Waits until some event arrives after `mark`, or `timeout` passes; returns the
    /// new mark. Lets a waiter re-check its condition when something happened.
    fn next_event(
        &self,
        mark: EventMark,
        timeout: Duration,
    ) -> impl Future<Output = EventMark> + Send;
}
