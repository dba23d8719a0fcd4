//! A [`Session`]: one connection to the desktop and the handle registry that makes
//! `#u` handles mean the same element in every answer. The CLI and the MCP server
//! both read the desktop through it, so they print the same text.
//!
//! # A `get_window_tree` call, end to end
//!
//! 1. **Tool handler** (`axsight-mcp/src/server.rs`). rmcp deserialises `TreeArgs`
//!    (`params.rs`, with the aliases `process`, `title` and `budget`) and builds a
//!    `TreeRequest`.
//! 2. **Session** (`session.rs`). Parses `selector`, if given. Resolves `from` through
//!    the registry to an `ElementId`, then through `window_of` to the identity of that
//!    element's window root, so the read targets the handle's own window even when
//!    another window is active. Builds a `WindowQuery`.
//! 3. **Connect, on first use.** `discover()` finds the display, the session bus and
//!    the AT-SPI bus (see Environment (the book's `docs/environment.md`)). The engine opens one zbus connection to the
//!    AT-SPI bus, with a per-call timeout, and an x11rb connection. It registers one
//!    event kind (`cache::wake_app_caches`, see the GTK3 quirks in `axsight-atspi`'s `quirks` module). In the watching
//!    case it starts an `EventWatch`. A failed connection is not cached: the next call tries
//!    again.
//! 4. **Application listing** (`Accessibility::app_entries` in `axsight-atspi`'s `accessibility.rs`; `apps.rs`). Calls
//!    `GetChildren` on the registry root. For every app, concurrently: first
//!    `ToolkitName` and `Version` (single `Get`s, which every bridge answers) and the
//!    pid from the bus daemon; the toolkit decides the `Quirks` (`quirks.rs`: `gtk4`,
//!    `exports_ids`, `misses_events`, `bulk_properties`, `qt`, `combo_named_by_text`,
//!    `labels_by_place`, `menu_items_misplaced`, `bounded_text`,
//!    `ignores_editable_text`, `text_in_content`, `actions_by_index`,
//!    `ids_in_attributes`), and the app's name then adds `libreoffice` (its GTK3
//!    plug-in says GTK 3). Then the root's name
//!    (`GetAll` only where `bulk_properties` says the bridge takes it: GTK, Gecko and
//!    Chromium, whose page accessibility turns on once its root is read so; Qt
//!    segfaults on any `GetAll`) and `GetChildren`. For every window: name, role,
//!    states and extents, one call each; a top-level that is neither showing, visible
//!    nor with an area is left out (Qt keeps closed dialogs among its top-levels), and
//!    any top-level is a `Window` whatever container role it reports (Qt's `filler`).
//!    GTK4 windows then get their X window's origin one after the other, in the app's
//!    order; a window that reports no extents at all (Java's frames answer -1s) gets
//!    its X window's bounds (`x11::window_bounds`, matched by title and pid), and the
//!    window's tree root takes them too. A watching engine reuses the last listing until a window event arrives
//!    (or a bus name comes or goes), or another event touches an app root or a window
//!    root. Bounds events are ignored here.
//! 5. **Window choice** (`pick_window`). By `window_id` (from `from`) if given.
//!    Otherwise by app (exact name, then substring, then pid) and title (substring).
//!    An app named without a title gives its newest modal dialog on screen, else its
//!    active window, else its first (GTK4 leaves the window beneath a modal dialog
//!    marked active, or none). With neither, the active window. A miss is an error
//!    that lists what is available. When the request named only an app, the session
//!    appends the app's other windows, one line each with a handle (`other windows of
//!    this app`), which `from` takes.
//! 6. **Read** (`read_window`). Without a watch: `walk_window`. With one: take a
//!    bookmark in the event log, then try `refreshed` (only if the cached read was made
//!    with options that cover this one), and fall back to `walk_window`.
//!    A watching engine keeps the result (a `RawNode` tree plus the GTK4 origin and the
//!    gaps) per window.
//! 7. **Walk** (`walk.rs`). `AppCache::fetch` asks for `GetItems` once (not of
//!    LibreOffice), then
//!    `Walker::read` descends from the window under `READ_DEADLINE` (details in `axsight-atspi`'s crate documentation, *Speed*).
//!    A read without action names (the compact text of a one-shot session) asks no
//!    `GetExtents` of a container the compact tree folds away
//!    (`axsight_core::folds_away`: nameless, no action, value, text or printed state),
//!    except where a box decides more than its line (GTK4, clipping panes,
//!    LibreOffice, Java, Gecko): 150 of them fall to 124 in the GTK3 widget factory.
//! 8. **Normalise** (`normalize.rs`, `build_tree`). Maps role numbers to AT-SPI names
//!    and then to `Role`, maps state bits to `StateSet`, cleans names, offsets bounds by
//!    the window origin, marks drawn GTK4 elements SHOWING, and drops any value of a
//!    `password text`. The result is an `axsight_core::Tree` inside a
//!    `WindowSnapshot { app, pid, title, tree, gaps, read }`.
//! 9. **Format** (back in `Session`). `remember` records which window each element
//!    belongs to. The top node is the root, the `from` element, or the selector's first
//!    match. `render` (compact) or `to_json` assigns handles through the registry as it
//!    prints. `render` first gathers the lines to print (`compact.rs`, `collect`):
//!    an anonymous container, a bare separator or an empty unfocusable `Text` gives its
//!    place to its children; a child that only repeats its printed parent's name (GTK4's
//!    `[Text] OK` in `[Button] OK`) folds into the parent; and a parent's one printed
//!    line, when it is a `Text` that only labels it, becomes the parent's
//!    `label: "…"`; a `Text` beside a sibling of its name (a field's label) folds into
//!    that sibling (`fold_sibling_labels`). A folded child is not printed but is numbered right after its
//!    parent, so its handle resolves (diff lines, `from`, `index`); selectors match the
//!    tree, not the text, so they find it too. The same gathering counts what
//!    `max_depth` hides and what a diff's one-line summary holds (`printed_below`), so
//!    counts and printing agree. The text gets the `app:` header, `[partial: …]` lines and, for a
//!    browser window without its page, the `[no page content: …]` note (see
//!    The browser source (see `axsight-browser`'s crate documentation)); JSON goes into `structured_content`
//!    with a one-line text pointer.
//! 10. **Sources.** Silent surfaces are read inline first, unless `fall_through` is
//!     off (see Where the tree is silent (see `sources/surfaces.rs` and `acting/witness.rs` in `axsight-session`)); then, with
//!     `include_dom`, `include_detector`, `include_vision` and `include_ocr` (text
//!     only). Their sections are appended after the tree, in that
//!     order; see The browser source (see `axsight-browser`'s crate documentation) and
//!     Screenshots and grounding sources (see `axsight-session`'s `sources` module).
//!     A call that must ask the client's model on the 2026-07-28 protocol ends here
//!     with an input-required result, and the tree is read again when the client calls
//!     back with the answer.
//!
//! `find_elements` follows the same path. The difference: it reads every window of the
//! matching apps concurrently (`window_trees`) and runs `Selector::find` on each tree.
//! `validate_element` by handle re-reads the handle's window with invisible elements
//! included, and compares the element's role with what the registry remembers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axsight_core::{
    fingerprints, format_applications, format_element, format_outputs, render_with, to_json,
    CompactOptions, ConnectOptions, ElementId, Engine, EngineError, FailureKind, Fingerprint,
    Handle, HandleRegistry, MatchContext, NodeId, ReadOptions, Resolved, Selector, Source,
    SpottedRegistry, WindowQuery, WindowSnapshot,
};

use crate::browsers::{hidden_page_note, BrowserSetup, Browsers};
use crate::sources::{
    DetectorSlot, DomHandles, FallThrough, SurfaceMemory, SurfaceReads, VisionChannel, WaitingLooks,
};
use crate::ToolError;
use axsight_vision::{ChatEndpoint, DetectorOptions};

/// What `get_window_tree` asks for.
#[derive(Debug, Clone, Default)]
pub struct TreeRequest {
    pub app: Option<String>,
    pub window: Option<String>,
    /// A handle whose subtree is printed instead of the whole window.
    pub from: Option<String>,
    /// A selector whose first match's subtree is printed.
    pub selector: Option<String>,
    pub max_depth: Option<usize>,
    pub max_chars: Option<usize>,
    pub include_invisible: bool,
    /// Add what OCR reads in the window, with `#o` handles.
    pub include_ocr: bool,
    /// Add what the UI-element detector finds, with `#m` handles.
    pub include_detector: bool,
    /// Add what a vision model sees, with `#v` handles.
    pub include_vision: bool,
    /// Add the elements of the page a browser window shows, with `#d` handles.
    pub include_dom: bool,
    /// Whether silent surfaces are read by OCR (see `sources/surfaces.rs`);
    /// `None` takes the session's [`FallThrough`].
    pub fall_through: Option<bool>,
}

impl TreeRequest {
    /// Whether any screenshot source is asked for.
    fn includes_sources(&self) -> bool {
        self.include_ocr || self.include_detector || self.include_vision || self.include_dom
    }
}

/// The screenshot sources that need setting up: the detector's model and a
/// vision model's endpoint. OCR needs none.
#[derive(Debug, Clone, Default)]
pub struct Grounding {
    /// The UI-element detector, if a model is configured.
    pub detector: Option<DetectorOptions>,
    /// How long the detector's model may go unused before it is let go (it
    /// loads again on the next use); `None` keeps it loaded.
    pub detector_idle: Option<std::time::Duration>,
    /// An OpenAI-compatible endpoint for the vision source, used when the
    /// client lends no model of its own.
    pub vision_endpoint: Option<ChatEndpoint>,
    /// How browsers are reached (an endpoint to attach to; scripts allowed).
    pub browser: BrowserSetup,
    /// Whether tree reads read silent surfaces by OCR unless asked not to.
    pub fall_through: FallThrough,
}

/// A tree as text or as JSON.
#[derive(Debug, Clone)]
pub enum TreeOutput {
    Text(String),
    Json(serde_json::Value),
}

/// How many calls go by between two looks for closed windows to let go of.
const EXPIRY_EVERY: u64 = 32;

/// An element found by a selector or a handle, printed with its handle.
#[derive(Debug, Clone)]
pub struct Found {
    pub line: String,
    pub app: String,
    pub window: String,
    /// The element as read, when it is one of the tree's (not a screenshot
    /// source's sighting).
    pub element: Option<axsight_core::Element>,
}

/// What `find` found: the first matches, how many there are in all, and, when
/// there are none, the elements missed by one test (see `Session::close_to`:
/// `; close to it: …`, else empty).
#[derive(Debug, Clone)]
pub struct Findings {
    pub found: Vec<Found>,
    pub total: usize,
    pub close: String,
}

/// One agent's (or one command's) view of the desktop, through engine `E`.
pub struct Session<E: Engine> {
    /// Watch events and reuse unchanged reads (long-lived sessions).
    watch_events: bool,
    engine: tokio::sync::Mutex<Option<Arc<E>>>,
    pub(crate) registry: Mutex<HandleRegistry>,
    /// Handles of what screenshot sources saw (`#o`, `#m`, `#v`).
    pub(crate) spotted: Mutex<SpottedRegistry>,
    /// For every element printed so far: the identity of its window's root, so a
    /// handle can be read again from its own window.
    window_of: Mutex<HashMap<ElementId, ElementId>>,
    /// For every element read so far: what identified it when last seen, to find
    /// it again when its handle goes stale.
    pub(crate) fingerprints: Mutex<HashMap<ElementId, Fingerprint>>,
    /// The read ([`WindowSnapshot::read`]) last remembered of each window: the
    /// same read again needs no remembering (it is a warm read's main cost).
    remembered: Mutex<HashMap<ElementId, u64>>,
    /// Who held the clipboard just after keys copied out of a password field:
    /// while they still do, the clipboard's text is never shown.
    pub(crate) secret_clipboard: Mutex<Option<u32>>,
    /// Calls counted, to let go of closed windows now and then.
    calls: std::sync::atomic::AtomicU64,
    pub(crate) detector: Arc<DetectorSlot>,
    pub(crate) vision_endpoint: Option<ChatEndpoint>,
    /// Questions put to the client's model, waiting for its answer.
    pub(crate) waiting_looks: Mutex<WaitingLooks>,
    /// Browsers started or attached to, and the `#d` numbers of their pages.
    pub(crate) browsers: Browsers,
    pub(crate) dom_handles: Mutex<DomHandles>,
    /// Whether tree reads read silent surfaces unless asked not to.
    fall_through: FallThrough,
    /// What was read in silent surfaces, kept by their pixels.
    pub(crate) surfaces: Mutex<SurfaceMemory>,
    /// Where this session last clicked: the control there may still show the
    /// pointer over it.
    pub(crate) pointer: Mutex<Option<axsight_core::Point>>,
    /// The desktop's windows as the last action's answer listed them: a window
    /// another app opened after that answer is told in the next one.
    pub(crate) desktop_told: Mutex<Option<crate::acting::Desktop>>,
    /// A recording under way (the `record` tool's), until it is stopped.
    pub(crate) recording: tokio::sync::Mutex<Option<crate::recording::Running>>,
    /// What whoever serves lets the agent start.
    pub(crate) policy: Arc<crate::DesktopPolicy>,
}

impl<E: Engine> Default for Session<E> {
    fn default() -> Self {
        Session {
            watch_events: false,
            engine: tokio::sync::Mutex::default(),
            registry: Mutex::default(),
            spotted: Mutex::default(),
            window_of: Mutex::default(),
            fingerprints: Mutex::default(),
            remembered: Mutex::default(),
            secret_clipboard: Mutex::default(),
            calls: std::sync::atomic::AtomicU64::new(0),
            detector: Arc::default(),
            vision_endpoint: None,
            waiting_looks: Mutex::default(),
            browsers: Browsers::default(),
            dom_handles: Mutex::default(),
            fall_through: FallThrough::default(),
            surfaces: Mutex::default(),
            pointer: Mutex::default(),
            desktop_told: Mutex::default(),
            recording: tokio::sync::Mutex::default(),
            policy: Arc::default(),
        }
    }
}

impl<E: Engine> Session<E> {
    /// A session that connects to the desktop on first use and reads afresh each
    /// time: right for one-shot commands.
    pub fn new() -> Session<E> {
        Session::default()
    }

    /// A session that also watches the desktop's events, so a window nothing changed
    /// in is answered from memory: right for a server.
    pub fn watching() -> Session<E> {
        Session {
            watch_events: true,
            ..Session::default()
        }
    }

    /// The same session with the detector and vision endpoint `grounding` names.
    pub fn with_grounding(mut self, grounding: Grounding) -> Session<E> {
        self.detector = Arc::new(DetectorSlot::new(
            grounding.detector,
            grounding.detector_idle,
        ));
        self.vision_endpoint = grounding.vision_endpoint;
        self.browsers = Browsers::new(grounding.browser);
        self.fall_through = grounding.fall_through;
        self
    }

    /// The session under `policy`.
    pub fn with_policy(mut self, policy: Arc<crate::DesktopPolicy>) -> Session<E> {
        self.policy = policy;
        self
    }

    /// Whether tree reads read silent surfaces unless asked otherwise.
    pub(crate) fn falls_through_by_default(&self) -> bool {
        self.fall_through == FallThrough::On
    }

    /// Whether a tree read for `request` reads silent surfaces.
    fn falls_through(&self, request: &TreeRequest) -> bool {
        request
            .fall_through
            .unwrap_or(self.fall_through == FallThrough::On)
    }

    /// The way to a vision model a call without a client model has.
    pub fn configured_vision(&self) -> VisionChannel {
        self.vision_endpoint
            .clone()
            .map_or(VisionChannel::Unavailable, VisionChannel::Endpoint)
    }

    /// The engine, connecting now if no earlier call did (a failed connection is
    /// retried on the next call: the desktop may come up later).
    pub async fn engine(&self) -> Result<Arc<E>, ToolError> {
        let mut slot = self.engine.lock().await;
        if let Some(engine) = slot.as_ref() {
            return Ok(engine.clone());
        }
        let options = ConnectOptions {
            watch_events: self.watch_events,
            scope: self.policy.scope.clone(),
        };
        let engine = E::connect(options).await.map_err(ToolError::engine)?;
        let engine = Arc::new(engine);
        *slot = Some(engine.clone());
        Ok(engine)
    }

    /// Whether the desktop answers now, its bus and its display (for a
    /// readiness probe). A lost connection is let go, so that the next call
    /// connects afresh.
    pub async fn ready(&self) -> Result<(), ToolError> {
        let checked = async {
            let engine = self.engine().await?;
            engine.check_alive().await.map_err(ToolError::engine)
        };
        let checked = checked.await;
        self.recover(checked).await
    }

    /// The applications and their windows, as text.
    pub async fn applications(&self) -> Result<String, ToolError> {
        self.recover(self.list_applications().await).await
    }

    /// Reads a window and prints it (or the part `from`/`selector` name).
    pub async fn window_tree(
        &self,
        request: &TreeRequest,
        json: bool,
    ) -> Result<TreeOutput, ToolError> {
        let vision = self.configured_vision();
        if let Ok(engine) = self.engine().await {
            self.expire_now_and_then(&engine).await;
        }
        self.recover(self.read_window_tree(request, json, &vision).await)
            .await
    }

    /// [`Session::window_tree`], asking a vision model through `vision`.
    pub async fn window_tree_seen_by(
        &self,
        request: &TreeRequest,
        json: bool,
        vision: &VisionChannel,
    ) -> Result<TreeOutput, ToolError> {
        self.recover(self.read_window_tree(request, json, vision).await)
            .await
    }

    /// Every element matching `selector` in the windows `app`/`window` name (all
    /// windows when neither is given), at most `limit`, and how many matched.
    pub async fn find(
        &self,
        selector: &str,
        app: Option<&str>,
        window: Option<&str>,
        limit: usize,
    ) -> Result<Findings, ToolError> {
        self.recover(self.find_in_windows(selector, app, window, limit).await)
            .await
    }

    /// Checks that a handle's element still exists and is the same element; `None`
    /// when it is gone. Unknown or malformed handles are errors.
    pub async fn validate_handle(&self, handle: &str) -> Result<Option<Found>, ToolError> {
        self.recover(self.check_handle(handle).await).await
    }

    /// Passes a result on; when it says the bus connection is lost, forgets the
    /// engine so the next call connects afresh (the desktop may have restarted).
    pub(crate) async fn recover<T>(&self, result: Result<T, ToolError>) -> Result<T, ToolError> {
        let lost = result.as_ref().err().and_then(ToolError::engine_failure)
            == Some(FailureKind::ConnectionLost);
        if lost {
            *self.engine.lock().await = None;
        }
        result
    }

    /// What to read: action names only where they are printed (JSON), or always in a
    /// watching session, whose reads are reused for every kind of answer.
    pub(crate) fn read_options(&self, include_invisible: bool, json: bool) -> ReadOptions {
        ReadOptions {
            include_invisible,
            actions: json || self.watch_events,
        }
    }

    /// `applications`' work, before [`Session::recover`].
    async fn list_applications(&self) -> Result<String, ToolError> {
        let engine = self.engine().await?;
        let (apps, outputs) = tokio::join!(engine.applications(), engine.outputs());
        let apps = apps.map_err(ToolError::engine)?;
        self.expire_closed_windows(&apps);
        let mut text = format_applications(&apps);
        // The screen's outputs where they say something (several, or scaled):
        // a failure to list them costs the line, not the answer.
        if let Some(line) = outputs.ok().as_deref().and_then(format_outputs) {
            text.push_str(&line);
            text.push('\n');
        }
        if let Some(scope) = &self.policy.scope {
            text.push_str(&format!(
                "(this server shows only {}: other apps' windows are not listed, read or \
                 acted on; serve --scope)\n",
                scope.listed()
            ));
        }
        Ok(text)
    }

    /// Every so many calls: lets go of what the session holds for windows that
    /// closed (their elements' windows, fingerprints and handles, which then
    /// answer "expired"), so that a long session stays as large as what is open.
    pub(crate) async fn expire_now_and_then(&self, engine: &E) {
        let calls = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if calls % EXPIRY_EVERY != EXPIRY_EVERY - 1 {
            return;
        }
        if let Ok(apps) = engine.applications().await {
            self.expire_closed_windows(&apps);
        }
    }

    /// Lets go of what the session holds for windows not among `apps`' windows.
    fn expire_closed_windows(&self, apps: &[axsight_core::Application]) {
        let open: std::collections::HashSet<&ElementId> = apps
            .iter()
            .flat_map(|a| a.windows.iter().map(|w| &w.id))
            .collect();
        let gone: std::collections::HashSet<ElementId> = {
            let mut window_of = self.window_of.lock().unwrap_or_else(|e| e.into_inner());
            let gone: std::collections::HashSet<ElementId> = window_of
                .iter()
                .filter(|(_, window)| !open.contains(window))
                .map(|(element, _)| element.clone())
                .collect();
            window_of.retain(|element, _| !gone.contains(element));
            gone
        };
        if gone.is_empty() {
            return;
        }
        // What is let go is remembered afresh on the next read.
        self.remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.fingerprints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|element, _| !gone.contains(element));
        let expired = self
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .expire(|element| gone.contains(element));
        tracing::debug!(elements = gone.len(), expired, "closed windows let go");
    }

    /// `window_tree`'s work, before [`Session::recover`].
    async fn read_window_tree(
        &self,
        request: &TreeRequest,
        json: bool,
        vision: &VisionChannel,
    ) -> Result<TreeOutput, ToolError> {
        if request.includes_sources() && json {
            return Err(ToolError::BadArguments(
                "include_ocr, include_detector, include_vision and include_dom come with the \
                 text format; leave out format: json"
                    .into(),
            ));
        }
        if request.from.is_some() && request.selector.is_some() {
            return Err(ToolError::BadArguments(
                "give `from` or `selector`, not both: each names the subtree to print".into(),
            ));
        }
        let selector = request
            .selector
            .as_deref()
            .map(Selector::parse)
            .transpose()?;
        let from = request
            .from
            .as_deref()
            .map(|h| self.tree_handle(h))
            .transpose()?;
        let query = match &from {
            Some((_, _, window)) => WindowQuery {
                window_id: Some(window.clone()),
                ..WindowQuery::default()
            },
            None => WindowQuery {
                app: request.app.clone(),
                window: request.window.clone(),
                window_id: None,
            },
        };
        let options = self.read_options(request.include_invisible, json);
        let engine = self.engine().await?;
        self.browsers.attach_for_reads(engine.as_ref()).await;
        // An app named alone: its other windows are listed too, by the listing
        // that finds the window (two listings at once would ping every app twice).
        let lists_others = request.app.is_some() && request.window.is_none() && from.is_none();
        let (snapshot, listing) = match lists_others && !json {
            true => match engine.window_tree_listed(&query, options).await {
                Ok((snapshot, apps)) => (Ok(snapshot), Some(apps)),
                Err(error) => (Err(error), None),
            },
            false => (engine.window_tree(&query, options).await, None),
        };
        let snapshot = snapshot.map_err(|error| match (&from, error.kind()) {
            (Some((handle, _, _)), FailureKind::WindowGone) => ToolError::StaleHandle {
                handle: handle.to_string(),
                why: "its window was closed".into(),
            },
            _ => ToolError::engine(error),
        })?;
        self.remember(&snapshot);
        let top = match (&from, &selector) {
            (Some((handle, id, _)), _) => {
                snapshot
                    .tree
                    .find(id)
                    .ok_or_else(|| ToolError::StaleHandle {
                        handle: handle.to_string(),
                        why: "its element no longer exists".into(),
                    })?
            }
            (None, Some(selector)) => {
                let context = MatchContext {
                    app: &snapshot.app,
                    window: &snapshot.title,
                };
                match selector.find(&snapshot.tree, &context).first() {
                    Some(&top) => top,
                    None => {
                        return Err(ToolError::NoMatch {
                            selector: selector.to_string(),
                            close: self.close_to(selector, [&snapshot]),
                        })
                    }
                }
            }
            (None, None) => snapshot.tree.root(),
        };
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        if json {
            let tree = to_json(
                &snapshot.tree,
                top,
                &mut registry,
                request.max_depth,
                request.include_invisible,
            );
            let value = serde_json::json!({
                "app": snapshot.app,
                "pid": snapshot.pid,
                "window": snapshot.title,
                "partial": snapshot.gaps,
                "tree": tree,
            });
            return Ok(TreeOutput::Json(value));
        }
        drop(registry);
        let options = CompactOptions {
            max_depth: request.max_depth,
            max_chars: request
                .max_chars
                .unwrap_or(CompactOptions::default().max_chars),
            include_invisible: request.include_invisible,
        };
        let surfaces = match self.falls_through(request) {
            true => self.read_surfaces(&engine, &snapshot, top).await,
            false => SurfaceReads::default(),
        };
        let mut text = self.tree_text_with(&snapshot, top, Some(&options), &surfaces);
        // An app named alone: its other windows, so the agent can ask for them.
        if let Some(apps) = listing {
            text.push_str(&self.other_windows(&apps, &snapshot));
        }
        let tree = &snapshot.tree;
        if request.include_dom {
            text.push_str(&self.dom_section(&snapshot).await?);
        }
        if request.include_detector {
            let seen = self.detect(&engine, &snapshot).await?;
            text.push_str(&self.print_section(tree, Source::Detector, &seen));
        }
        if request.include_vision {
            let seen = self.look(&engine, &snapshot, vision).await?;
            text.push_str(&self.print_section(tree, Source::Vision, &seen));
        }
        if request.include_ocr {
            let seen = self.read_ocr(&engine, &snapshot).await?;
            text.push_str(&self.print_section(tree, Source::Ocr, &seen));
        }
        Ok(TreeOutput::Text(text))
    }

    /// A captured window printed from `top`: the app line, the compact tree, and
    /// what could not be read.
    pub(crate) fn tree_text(
        &self,
        snapshot: &WindowSnapshot,
        top: NodeId,
        options: Option<&CompactOptions>,
    ) -> String {
        self.tree_text_with(snapshot, top, options, &SurfaceReads::default())
    }

    /// [`Session::tree_text`] with what was read in the tree's silent surfaces
    /// under their elements, and the note that says so.
    pub(crate) fn tree_text_with(
        &self,
        snapshot: &WindowSnapshot,
        top: NodeId,
        options: Option<&CompactOptions>,
        surfaces: &SurfaceReads,
    ) -> String {
        let default = CompactOptions::default();
        let options = options.unwrap_or(&default);
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let rendered = render_with(&snapshot.tree, top, &mut registry, options, &surfaces.lines);
        let note = surfaces.note(|node| {
            let element = snapshot.tree.element(node);
            registry
                .assign(&element.id, element.role, &element.name)
                .to_string()
        });
        drop(registry);
        let mut text = header(snapshot);
        text.push_str(&rendered.text);
        if let Some(note) = note {
            text.push_str(&note);
        }
        for gap in &snapshot.gaps {
            text.push_str(&format!("[partial: {gap}]\n"));
        }
        if snapshot.unplaced {
            text.push_str(
                "[no boxes: the display gives this window no place, and its app's boxes are \
                 relative to it; a window still opening or being resized has them once \
                 placed]\n",
            );
        }
        if let Some(note) = hidden_page_note(snapshot) {
            text.push_str(&note);
        }
        text
    }

    /// `find`'s work, before [`Session::recover`].
    async fn find_in_windows(
        &self,
        selector: &str,
        app: Option<&str>,
        window: Option<&str>,
        limit: usize,
    ) -> Result<Findings, ToolError> {
        let selector = Selector::parse(selector)?;
        let engine = self.engine().await?;
        let snapshots = match window {
            Some(title) => {
                let query = WindowQuery {
                    app: app.map(str::to_string),
                    window: Some(title.to_string()),
                    window_id: None,
                };
                vec![engine
                    .window_tree(&query, self.read_options(false, false))
                    .await
                    .map_err(ToolError::engine)?]
            }
            // An unknown app is an error, not an empty answer.
            None => engine
                .window_trees(app, self.read_options(false, false))
                .await
                .map_err(ToolError::engine)?,
        };
        let mut found = Vec::new();
        let mut total = 0;
        for snapshot in &snapshots {
            self.remember(snapshot);
            let context = MatchContext {
                app: &snapshot.app,
                window: &snapshot.title,
            };
            let matches = selector.find(&snapshot.tree, &context);
            total += matches.len();
            let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            for id in matches.into_iter().take(limit.saturating_sub(found.len())) {
                found.push(Found {
                    line: line_of(&snapshot.tree, id, &mut registry),
                    app: snapshot.app.clone(),
                    window: snapshot.title.clone(),
                    element: Some(snapshot.tree.element(id).clone()),
                });
            }
        }
        let close = match total {
            0 => self.close_to(&selector, &snapshots),
            _ => String::new(),
        };
        Ok(Findings {
            found,
            total,
            close,
        })
    }

    /// `validate_handle`'s work, before [`Session::recover`].
    async fn check_handle(&self, handle: &str) -> Result<Option<Found>, ToolError> {
        let parsed: Handle = handle.parse()?;
        if parsed.source != Source::Tree {
            return self.check_spotted(handle).await;
        }
        let (handle, id, window) = self.tree_handle(handle)?;
        let engine = self.engine().await?;
        let query = WindowQuery {
            window_id: Some(window),
            ..WindowQuery::default()
        };
        let snapshot = match engine
            .window_tree(&query, self.read_options(true, false))
            .await
        {
            Ok(snapshot) => snapshot,
            Err(error)
                if matches!(error.kind(), FailureKind::WindowGone | FailureKind::AppGone) =>
            {
                return Ok(None)
            }
            Err(error) => return Err(ToolError::engine(error)),
        };
        self.remember(&snapshot);
        let Some(node) = snapshot.tree.find(&id) else {
            if snapshot.is_partial() {
                return Err(ToolError::Undecided {
                    handle: handle.to_string(),
                    why: snapshot.gaps.join("; "),
                });
            }
            return Ok(None);
        };
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let expected = registry.resolve(handle).cloned();
        let element = snapshot.tree.element(node);
        if expected.is_some_and(|e| e.role != element.role) {
            return Ok(None);
        }
        Ok(Some(Found {
            line: line_of(&snapshot.tree, node, &mut registry),
            app: snapshot.app.clone(),
            window: snapshot.title.clone(),
            element: Some(element.clone()),
        }))
    }

    /// What `element`'s text is, line by line: its length and formatting, run
    /// by run, its caret and selection (see [`axsight_core::TextDetail::lines`]).
    /// Empty for an element that holds no text of its own worth it (a button's
    /// is its name), a secret, or one whose text cannot be read.
    pub async fn text_lines(&self, element: &axsight_core::Element) -> Vec<String> {
        if !holds_text(element) {
            return Vec::new();
        }
        let Ok(engine) = self.engine().await else {
            return Vec::new();
        };
        match engine.text_detail(&element.id, true).await {
            Ok(Some(detail)) => detail.lines(),
            _ => Vec::new(),
        }
    }

    /// Checks a screenshot source's handle: alive (not retired by a newer capture),
    /// its window still there and the same size; says where it is now.
    async fn check_spotted(&self, handle: &str) -> Result<Option<Found>, ToolError> {
        let engine = self.engine().await?;
        match self
            .locate(&engine, &crate::Target::Handle(handle.to_string()))
            .await
        {
            Ok(aimed) => {
                let at = aimed
                    .point
                    .map_or_else(String::new, |p| format!(" at ({}, {})", p.x, p.y));
                Ok(Some(Found {
                    line: format!("{}{at}", self.describe(&aimed)),
                    app: aimed.snapshot.app.clone(),
                    window: aimed.snapshot.title.clone(),
                    element: None,
                }))
            }
            Err(
                ToolError::StaleHandle { .. }
                | ToolError::StaleButFound { .. }
                | ToolError::ExpiredHandle { .. }
                | ToolError::StaleSighting { .. },
            ) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Parses and resolves a tree handle to its element and window.
    pub(crate) fn tree_handle(
        &self,
        text: &str,
    ) -> Result<(Handle, ElementId, ElementId), ToolError> {
        let handle: Handle = text.parse()?;
        if handle.source != Source::Tree {
            return Err(ToolError::WrongSource {
                handle: handle.to_string(),
            });
        }
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let entry = match registry.lookup(handle) {
            Some(Resolved::Entry(entry)) => entry,
            Some(Resolved::Expired) => {
                return Err(ToolError::ExpiredHandle {
                    handle: handle.to_string(),
                })
            }
            None => {
                return Err(ToolError::UnknownHandle {
                    handle: handle.to_string(),
                })
            }
        };
        let windows = self.window_of.lock().unwrap_or_else(|e| e.into_inner());
        let window = windows
            .get(&entry.id)
            .cloned()
            .ok_or_else(|| ToolError::UnknownHandle {
                handle: handle.to_string(),
            })?;
        Ok((handle, entry.id.clone(), window))
    }

    /// The window `app`/`window` name (the active window when neither does), read.
    pub(crate) async fn named_window(
        &self,
        engine: &E,
        app: Option<&str>,
        window: Option<&str>,
    ) -> Result<axsight_core::WindowSnapshot, ToolError> {
        let query = WindowQuery {
            app: app.map(str::to_string),
            window: window.map(str::to_string),
            window_id: None,
        };
        let snapshot = engine
            .window_tree(&query, self.read_options(false, false))
            .await
            .map_err(ToolError::engine)?;
        self.remember(&snapshot);
        Ok(snapshot)
    }

    /// Notes which window each element of a snapshot belongs to.
    /// The windows of `snapshot`'s app other than its own, one line each with a
    /// handle that `from` takes; empty when it has no others.
    fn other_windows(
        &self,
        apps: &[axsight_core::Application],
        snapshot: &WindowSnapshot,
    ) -> String {
        let shown = snapshot.window_id();
        let others: Vec<&axsight_core::Window> = apps
            .iter()
            .filter(|app| app.pid == snapshot.pid && app.name == snapshot.app)
            .flat_map(|app| &app.windows)
            .filter(|window| window.id != shown)
            .collect();
        if others.is_empty() {
            return String::new();
        }
        let mut text = String::from("other windows of this app (get_window_tree from: HANDLE):\n");
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let mut window_of = self.window_of.lock().unwrap_or_else(|e| e.into_inner());
        for window in others {
            let mut element = axsight_core::Element::new(&window.id.0, window.role, "");
            element.name = window.title.clone();
            element.states = window.states;
            element.bounds = window.bounds;
            let handle = registry.assign(&window.id, window.role, &window.title);
            window_of.insert(window.id.clone(), window.id.clone());
            text.push_str(&format!(
                "  {}\n",
                format_element(&handle.to_string(), &element, false)
            ));
        }
        text
    }

    pub(crate) fn remember(&self, snapshot: &WindowSnapshot) {
        let tree = &snapshot.tree;
        let window = snapshot.window_id();
        if let Some(read) = snapshot.read {
            let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
            if remembered.insert(window.clone(), read) == Some(read) {
                return;
            }
        }
        let mut windows = self.window_of.lock().unwrap_or_else(|e| e.into_inner());
        for id in tree.ids() {
            windows.insert(tree.element(id).id.clone(), window.clone());
        }
        drop(windows);
        let mut seen = self.fingerprints.lock().unwrap_or_else(|e| e.into_inner());
        seen.extend(fingerprints(tree));
    }
}

pub(crate) fn line_of(
    tree: &axsight_core::Tree,
    id: NodeId,
    registry: &mut HandleRegistry,
) -> String {
    let element = tree.element(id);
    let handle = registry.assign(&element.id, element.role, &element.name);
    format_element(&handle.to_string(), element, true)
}

impl<E: Engine> Session<E> {
    /// What a selector that matched nothing in `snapshots` missed by one test
    /// (see [`axsight_core::Selector::near_misses`]), with handles: `; close to
    /// it: #u42 [Menu] File (its role differs)`, or nothing.
    pub(crate) fn close_to<'s>(
        &self,
        selector: &axsight_core::Selector,
        snapshots: impl IntoIterator<Item = &'s WindowSnapshot>,
    ) -> String {
        const NAMED: usize = 3;
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let mut named = Vec::new();
        for snapshot in snapshots {
            let context = MatchContext {
                app: &snapshot.app,
                window: &snapshot.title,
            };
            for miss in selector.near_misses(&snapshot.tree, &context, NAMED - named.len()) {
                let element = snapshot.tree.element(miss.node);
                let handle = registry.assign(&element.id, element.role, &element.name);
                named.push(format!(
                    "{} ({})",
                    axsight_core::element_head(&handle.to_string(), element),
                    miss.differs
                ));
            }
            if named.len() >= NAMED {
                break;
            }
        }
        match named.is_empty() {
            true => String::new(),
            false => format!("; close to it: {}", named.join(", ")),
        }
    }
}

/// The first line of a printed tree: which app the window belongs to.
fn header(snapshot: &WindowSnapshot) -> String {
    match snapshot.pid {
        Some(pid) => format!("app: {} (pid {pid})\n", snapshot.app),
        None => format!("app: {}\n", snapshot.app),
    }
}

/// Whether `element` holds text of its own that its line does not say whole:
/// a field, a paragraph, a heading, a label, a cell; never a secret or a
/// terminal (its screen is printed below it).
pub(crate) fn holds_text(element: &axsight_core::Element) -> bool {
    use axsight_core::Role;
    !element.is_secret()
        && matches!(
            element.role,
            Role::Edit | Role::Paragraph | Role::Heading | Role::Text | Role::Cell
        )
}
