//! The command-line interface: arguments and help text.

use clap::{Parser, Subcommand};

/// See and operate the Linux desktop through its accessibility tree.
#[derive(Debug, Parser)]
#[command(name = "axsight", version = crate::version::VERSION)]
pub struct Cli {
    /// More logging on stderr (-v info, -vv debug); AXSIGHT_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// The X display the apps run on, e.g. :1 (over DISPLAY; needed when several
    /// run and the MCP client passes no DISPLAY).
    #[arg(long, global = true, value_name = "DISPLAY", value_parser = parse_display)]
    pub display: Option<String>,
    #[command(flatten)]
    pub grounding: GroundingFlags,
    #[command(subcommand)]
    pub command: Command,
}

/// Where the screenshot sources that need setting up are.
#[derive(Debug, Clone, clap::Args)]
pub struct GroundingFlags {
    /// The UI-element detector's ONNX model; without it, the one
    /// scripts/get-detector-model puts in ~/.local/share/axsight/, if it is there.
    #[arg(
        long,
        global = true,
        env = "AXSIGHT_DETECTOR_MODEL",
        value_name = "PATH"
    )]
    pub detector_model: Option<std::path::PathBuf>,
    /// ONNX Runtime's libonnxruntime.so (default: found in Python's onnxruntime package).
    #[arg(long, global = true, env = "AXSIGHT_ONNXRUNTIME", value_name = "PATH")]
    pub onnxruntime: Option<std::path::PathBuf>,
    /// The detector's input size for models without a fixed one (a multiple of 32).
    #[arg(long, global = true, default_value_t = 640, value_name = "PIXELS")]
    pub detector_size: u32,
    /// Detector boxes scoring less are dropped (0-1).
    #[arg(long, global = true, default_value_t = 0.25, value_name = "SCORE")]
    pub detector_confidence: f32,
    /// Seconds the detector's model (about 220 MB) may go unused before it is
    /// let go; it loads again on the next use (about a second). 0 keeps it.
    #[arg(
        long,
        global = true,
        env = "AXSIGHT_DETECTOR_IDLE",
        default_value_t = 300,
        value_name = "SECONDS"
    )]
    pub detector_idle: u64,
    /// An OpenAI-compatible chat-completions API for the vision source, e.g.
    /// http://127.0.0.1:8080/v1 (used when the MCP client lends no model).
    #[arg(long, global = true, env = "AXSIGHT_VISION_URL", value_name = "URL")]
    pub vision_url: Option<String>,
    /// The vision model's name at that endpoint.
    #[arg(long, global = true, env = "AXSIGHT_VISION_MODEL", value_name = "NAME")]
    pub vision_model: Option<String>,
    /// The environment variable that holds the endpoint's API key.
    #[arg(
        long,
        global = true,
        env = "AXSIGHT_VISION_KEY_ENV",
        value_name = "VARIABLE"
    )]
    pub vision_key_env: Option<String>,
    /// A running browser's DevTools endpoint to attach to, e.g. http://127.0.0.1:9222
    /// (browsers axsight starts need none).
    #[arg(long, global = true, env = "AXSIGHT_BROWSER_URL", value_name = "URL")]
    pub browser_url: Option<String>,
    /// Let execute_browser_script run JavaScript in pages (off by default).
    #[arg(long, global = true)]
    pub allow_browser_script: bool,
    /// Leave silent surfaces (icon views, sheets, canvases, windows without
    /// accessibility) as the tree has them instead of reading them by OCR;
    /// get_window_tree's fall_through: true still reads them.
    #[arg(long, global = true, env = "AXSIGHT_NO_FALL_THROUGH")]
    pub no_fall_through: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List applications and their windows.
    Apps {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a window's tree (the active window unless --app or --window say).
    Tree {
        /// Application name (substring) or pid.
        #[arg(long)]
        app: Option<String>,
        /// Window title (substring).
        #[arg(long)]
        window: Option<String>,
        /// Print JSON instead of the compact text.
        #[arg(long)]
        json: bool,
        /// Levels to print below the window.
        #[arg(long)]
        max_depth: Option<usize>,
        /// Characters of output at most.
        #[arg(long, default_value_t = 16_000)]
        max_chars: usize,
        /// Also print elements that are not drawn.
        #[arg(long)]
        include_invisible: bool,
        /// Add the text OCR reads in the window, with #o handles.
        #[arg(long)]
        include_ocr: bool,
        /// Add the controls the UI-element detector finds, with #m handles.
        #[arg(long)]
        include_detector: bool,
        /// Add the elements the vision endpoint names, with #v handles.
        #[arg(long)]
        include_vision: bool,
        /// Add the page's elements (a browser attached with --browser-url), with #d handles.
        #[arg(long)]
        include_dom: bool,
    },
    /// Find elements matching a selector, e.g. 'role:Button && name:Save'.
    Find {
        selector: String,
        /// Limit the search to one application.
        #[arg(long)]
        app: Option<String>,
        /// Limit the search to one window.
        #[arg(long)]
        window: Option<String>,
    },
    /// Click an element and print what changed.
    ///
    /// TARGET is a selector ('role:Button && name:Save'), a point ('120,340'), or a
    /// handle ('#u14') as `axsight tree` with the same --app/--window printed it.
    Click {
        target: String,
        #[command(flatten)]
        scope: Scope,
        /// left, right or middle.
        #[arg(long, default_value = "left")]
        button: String,
        /// Double-click.
        #[arg(long)]
        double: bool,
        /// Keys held while clicking, e.g. ctrl+shift.
        #[arg(long)]
        modifiers: Option<String>,
        /// Use the element's accessible action; leave the pointer alone.
        #[arg(long)]
        background: bool,
        #[command(flatten)]
        act: ActFlags,
    },
    /// Type text into an element and print what changed; trailing {Enter} is pressed.
    Type {
        /// Selector, point or handle (see `axsight click --help`).
        target: String,
        /// The text; `-` reads it from stdin (keeps a password out of `ps`).
        text: String,
        #[command(flatten)]
        scope: Scope,
        /// Keep what the field holds and add to it.
        #[arg(long)]
        append: bool,
        #[command(flatten)]
        act: ActFlags,
    },
    /// Press keys ('ctrl+s', 'alt+F4', 'shift+Tab Return') and print what changed.
    Key {
        keys: String,
        /// Focus this element first (selector, point or handle).
        #[arg(long)]
        target: Option<String>,
        #[command(flatten)]
        scope: Scope,
        #[command(flatten)]
        act: ActFlags,
    },
    /// Save a screenshot of the screen, a window, an element or a region.
    Shot {
        /// Where to write it; .jpg or .jpeg makes a JPEG, anything else a PNG.
        file: std::path::PathBuf,
        #[command(flatten)]
        scope: Scope,
        /// An element, by its handle as `axsight tree` numbered it.
        #[arg(long)]
        index: Option<String>,
        /// A screen region: x,y,width,height.
        #[arg(long)]
        region: Option<String>,
        /// Largest side in pixels.
        #[arg(long)]
        max_dimension: Option<u32>,
        /// Magnify an element or region this many times (1-8).
        #[arg(long)]
        zoom: Option<f64>,
        /// Draw each element's handle on the picture.
        #[arg(long)]
        annotate: bool,
        /// With --annotate: also mark the text OCR reads, with #o handles.
        #[arg(long)]
        include_ocr: bool,
        /// With --annotate: also mark what the UI-element detector finds, with #m handles.
        #[arg(long)]
        include_detector: bool,
    },
    /// Record what you do in the apps as a plan of tool calls, until Ctrl+C.
    ///
    /// Clicks become clicks on elements found by selector, keys typed into a field one
    /// typed text, a check box's click `set_toggled`, a combo box's choice
    /// `select_option`, chords `press_key`, and a window a step opened a wait for it.
    /// A password is never written down: it becomes a parameter the replay asks for.
    /// On Wayland, where no program sees another's input, it records what the
    /// accessibility tree shows changed (fields, check boxes, choices, windows).
    Record {
        /// Write the plan to FILE instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
        /// Make every typed text a parameter of the plan (passwords always are).
        #[arg(long)]
        params: bool,
        /// The key (or chord, as press_key writes them) that ends the recording
        /// from any app, itself no step; Ctrl+C in the terminal ends it too.
        #[arg(long, value_name = "KEY", default_value = "Pause")]
        stop_key: String,
    },
    /// Replay a plan `axsight record` wrote, step by step through the MCP tools,
    /// stopping at the first step that fails.
    Replay {
        /// The plan's file.
        plan: std::path::PathBuf,
        /// A parameter's value, NAME=VALUE (repeatable). A secret not given is asked
        /// for on the terminal; another takes the text recorded.
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
    },
    /// Check the display, the buses and accessibility, and say how to fix what is wrong.
    Doctor,
    /// Serve MCP over stdio, or over streamable HTTP with --http.
    Serve(ServeFlags),
    /// Print a shell's completion script on stdout, e.g. `axsight completions bash >
    /// ~/.local/share/bash-completion/completions/axsight`.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on stdout, e.g. `axsight man | man -l -`.
    Man {
        /// Write axsight.1 and a page for each command (axsight-serve.1, ...) into
        /// DIR instead, and print their paths.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// Install axsight's GNOME Shell extension (window places on GNOME Wayland) for
    /// this user, into $XDG_DATA_HOME/gnome-shell/extensions, and say how to enable it.
    GnomeExtension {
        /// Install into DIR (the extension's own folder goes inside it) instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
        /// The GNOME Shell to install for (its major version: 43, 46), instead of the
        /// one `gnome-shell --version` names.
        #[arg(long, value_name = "MAJOR")]
        shell_version: Option<u32>,
    },
    /// Let this axsight use KWin's input and screenshots on KDE Wayland: writes
    /// $XDG_DATA_HOME/applications/io.github.axsight.desktop naming this binary, and
    /// refreshes KDE's service database.
    KdeAuthorize {
        /// Write the .desktop file into DIR instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
        /// Authorise the axsight binary at PATH instead of this one.
        #[arg(long, value_name = "PATH")]
        exec: Option<std::path::PathBuf>,
    },
    /// Print the tool reference (docs/tools.md) made from the server's schemas and EXAMPLES.
    #[command(hide = true)]
    ToolsReference { examples: std::path::PathBuf },
    /// Measure tree reads (see `axsight bench tree --help`).
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time full tree reads of windows, warm (in this process) and print medians.
    Tree {
        /// Applications to read (names, substring match).
        #[arg(long = "app", required = true)]
        apps: Vec<String>,
        /// Reads per application.
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// Time screen capture, PNG encoding and OCR on the screen and one window; JSON lines.
    Sources {
        /// The application whose window is measured.
        #[arg(long)]
        app: String,
        /// Runs per measurement (OCR: at most 5 on the window, 1 on the screen).
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// Time a browser's tree with and without the DOM, and navigation; JSON lines.
    Browser {
        /// The page to start on.
        #[arg(long)]
        url: String,
        /// The browser to start: chromium, firefox or a path.
        #[arg(long, default_value = "chromium")]
        browser: String,
        /// The page to navigate to and back from.
        #[arg(long)]
        other: String,
        /// Timed reads and navigations.
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// Time clicks with their settled diff (pointer and accessible action); JSON lines.
    Act {
        /// Application (name substring or pid).
        #[arg(long)]
        app: String,
        /// The button's name, or part of it (names may change as it is clicked).
        #[arg(long)]
        button: String,
        /// Timed clicks per way of clicking.
        #[arg(long, default_value_t = 15)]
        runs: usize,
    },
    /// Click a button `runs` times and compare each answer with a slow
    /// reference's (the same click's diff once a second more has passed):
    /// prints the answers' p50 and in how many runs the two agree.
    Settle {
        /// Application (name substring or pid).
        #[arg(long)]
        app: String,
        /// The button's name, or part of it.
        #[arg(long, required_unless_present = "fields", conflicts_with = "fields")]
        button: Option<String>,
        /// Instead of a button, text fields to click into in turn, by name
        /// (comma-separated, at least two, so that each click moves the focus):
        /// an action whose only effect is a focus move.
        #[arg(long, value_delimiter = ',')]
        fields: Vec<String>,
        /// Window title (substring), where the app has several.
        #[arg(long)]
        window: Option<String>,
        /// Clicks.
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// A button to click after each run to undo it (a dialog's OK), by its
        /// whole name, in any window of the app.
        #[arg(long)]
        undo: Option<String>,
    },
    /// Time clicks back to back with the pointer: on different buttons, then as
    /// many on one button (which must be spaced so as not to make a double
    /// click), and print both and their ratio.
    Clicks {
        /// Application (name substring or pid).
        #[arg(long)]
        app: String,
        /// The buttons' names, comma-separated, clicked in turn (at least two).
        #[arg(long, value_delimiter = ',', required = true)]
        buttons: Vec<String>,
        /// Timed sequences of each kind.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
}

/// Which window a target is looked for in.
#[derive(Debug, Clone, clap::Args)]
pub struct Scope {
    /// Application name (substring) or pid.
    #[arg(long)]
    pub app: Option<String>,
    /// Window title (substring).
    #[arg(long)]
    pub window: Option<String>,
}

/// What every acting command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct ActFlags {
    /// Print only what was done, not what changed.
    #[arg(long)]
    pub no_diff: bool,
    /// Longest wait for the UI to settle, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout_ms: u64,
}

/// An X display name: `:N`, `:N.S` or `HOST:N`.
fn parse_display(text: &str) -> Result<String, String> {
    let text = text.trim();
    let valid = text.split_once(':').is_some_and(|(_, number)| {
        let number = number.split('.').next().unwrap_or_default();
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
    });
    match valid {
        true => Ok(text.to_string()),
        false => Err(format!(
            "{text:?} is not an X display: give one like :0 or :1"
        )),
    }
}

/// How `axsight serve` serves, and what it lets a client do.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeFlags {
    /// Offer only the reading tools: nothing on the desktop can be changed (the
    /// same as --tools reading).
    #[arg(long)]
    pub read_only: bool,
    /// Offer only these tools: names or groups (reading, acting, windows,
    /// clipboard, launch, browser, browser-script, recording), comma-separated or
    /// repeated. The others are absent from tools/list and refused by name.
    #[arg(long, value_name = "TOOLS")]
    pub tools: Vec<String>,
    /// Leave out these tools (names or groups, as --tools takes them).
    #[arg(long, value_name = "TOOLS")]
    pub deny_tools: Vec<String>,
    /// Record every acting call in FILE, one JSON line each (typed text by its
    /// length only); rotated to FILE.1 past --audit-max-bytes.
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<std::path::PathBuf>,
    /// The audit log's size before it is rotated.
    #[arg(long, value_name = "BYTES", default_value_t = axsight_mcp::AUDIT_MAX_BYTES)]
    pub audit_max_bytes: u64,
    /// Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio; MCP
    /// is at /mcp, health at /healthz and /readyz.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// The bearer token HTTP clients must send, read from FILE; required off
    /// loopback, where one is made and printed once when none is given.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<std::path::PathBuf>,
    /// A browser origin allowed to call the HTTP endpoint (repeatable).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allowed_origin: Vec<String>,
    /// The most HTTP sessions held at once; past it, a session that did
    /// nothing since its initialize makes room, else a new client is refused.
    #[arg(long, value_name = "N", requires = "http", default_value_t = axsight_mcp::SessionLimits::default().max)]
    pub max_sessions: usize,
    /// End an HTTP session idle this long (90, 90s, 30m), with its handles and
    /// browsers; one that did nothing after its initialize ends after a minute
    /// (or this, if shorter).
    #[arg(long, value_name = "DURATION", requires = "http", value_parser = axsight_mcp::parse_duration, default_value = "30m")]
    pub idle_timeout: std::time::Duration,
    /// Acting calls a session may make a minute (a burst of N, then N a
    /// minute); refused past it, saying when the next may come. Default over
    /// HTTP: 600; over stdio: no limit.
    #[arg(long, value_name = "N")]
    pub rate_limit: Option<u32>,
    /// Let open_application start APP (repeatable): a desktop id
    /// (org.gnome.gedit), a program on PATH (gedit) or a path (/usr/bin/gedit).
    /// With any, nothing else is started.
    #[arg(long, value_name = "APP")]
    pub allow_app: Vec<String>,
    /// Let open_application start the apps FILE lists, one per line (`#` begins
    /// a comment), as --allow-app takes them.
    #[arg(long, value_name = "FILE")]
    pub apps: Option<std::path::PathBuf>,
    /// Show and act on only the windows of these apps (names as get_applications
    /// gives them; comma-separated or repeated): the others are absent from
    /// listings, and a handle, selector, point, key, capture or clipboard read
    /// that would reach them is refused.
    #[arg(long, value_name = "APPS")]
    pub scope: Vec<String>,
    /// Ask the person, through the client (MCP elicitation), before what cannot
    /// be undone: closing a window, a chord that quits or deletes (ctrl+q,
    /// alt+F4, shift+Delete), a script in a page. A "no", or a client that
    /// cannot ask, refuses the call.
    #[arg(long)]
    pub confirm: bool,
    /// Run an open_application line that needs a shell (`$`, `;`, a pipe)
    /// through /bin/sh, and let it start a shell (`sh -c …`). Off, both are
    /// refused; never with an allow-list.
    #[arg(long)]
    pub allow_shell: bool,
}

#[cfg(test)]
mod tests {
    use super::parse_display;

    #[test]
    fn displays_are_named_as_x_names_them() {
        for good in [":0", ":1", " :12 ", ":1.0", "localhost:3"] {
            assert!(parse_display(good).is_ok(), "{good}");
        }
        for bad in ["", "1", ":", ":x", "host:", ":1a"] {
            assert!(parse_display(bad).is_err(), "{bad}");
        }
    }
}
