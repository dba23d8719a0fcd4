//! `capture_screenshot`: the screen, a window, an element or a region as a picture,
//! optionally with every element's handle drawn on it (set of marks), and the
//! numbers that map its pixels back to the screen.
//!
//! # `capture_screenshot`
//!
//! **`capture_screenshot`** (`axsight-session/src/screenshot.rs`). The area is the aimed
//! element's `visible_box` (a handle is aimed as an action aims it, with the same stale
//! checks), the window's root box, the region, or the screen. With `annotate`, the
//! marks are the elements worth clicking or reading (with actions, editable, tab, list,
//! tree and menu items, cells, links, named leaves) whose visible box meets the
//! captured area. They get their handles through the registry and their windows are
//! remembered, so every label is a handle the next call can use. For a region or the
//! screen, every window is read for marks. The tool's default `max_dimension` is 1568
//! (about what vision models take in before they shrink a picture themselves); the CLI
//! has none. The answer is MCP image content (base64) and the caption.

use axsight_core::{visible_box, Bounds, Engine, NodeId, Source, Tree, WindowSnapshot};
use axsight_vision::{encode, Format, Mark, Picture, PictureOptions};

use crate::session::Session;
use crate::sources::same_as_tree;
use crate::target::Target;
use crate::ToolError;

/// What to capture and how.
#[derive(Debug, Clone, Default)]
pub struct ShotRequest {
    pub app: Option<String>,
    pub window: Option<String>,
    /// A handle: capture that element.
    pub index: Option<String>,
    pub region: Option<Bounds>,
    pub format: Format,
    pub max_dimension: Option<u32>,
    pub zoom: Option<f64>,
    /// Draw the handles of the tree's elements onto the picture.
    pub annotate: bool,
    /// With `annotate`: also read the window's text with OCR and draw its `#o`
    /// handles (a window or an element's window only).
    pub include_ocr: bool,
    /// With `annotate`: also run the UI-element detector and draw its `#m`
    /// handles (a window or an element's window only).
    pub include_detector: bool,
}

/// A picture and the sentence that says what it shows.
#[derive(Debug)]
pub struct Shot {
    pub picture: Picture,
    pub caption: String,
}

impl<E: Engine> Session<E> {
    /// Takes the screenshot `request` asks for.
    pub async fn screenshot(&self, request: &ShotRequest) -> Result<Shot, ToolError> {
        self.recover(self.take_screenshot(request).await).await
    }

    async fn take_screenshot(&self, request: &ShotRequest) -> Result<Shot, ToolError> {
        let scoped = request.app.is_some() || request.window.is_some();
        let given = [request.index.is_some(), request.region.is_some(), scoped];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(ToolError::BadArguments(
                "give one of `index`, `region`, or `app`/`window` (none: the whole screen)".into(),
            ));
        }
        if request.zoom.is_some() && request.index.is_none() && request.region.is_none() {
            return Err(ToolError::BadArguments(
                "`zoom` magnifies an element (`index`) or a `region`, not a window or the screen"
                    .into(),
            ));
        }
        let sources = [
            (request.include_ocr, "include_ocr"),
            (request.include_detector, "include_detector"),
        ];
        if let Some((_, flag)) = sources.iter().find(|(on, _)| *on) {
            if !(request.annotate && (request.index.is_some() || scoped)) {
                return Err(ToolError::BadArguments(format!(
                    "{flag} marks what it finds on an annotated window or element: give \
                     annotate: true and app/window or index"
                )));
            }
        }
        let engine = self.engine().await?;
        // What to capture, what it is called, and the windows whose elements
        // may be marked.
        let (region, what, windows): (Option<Bounds>, String, Vec<WindowSnapshot>) =
            if let Some(handle) = &request.index {
                let aimed = self.aim(&engine, &Target::Handle(handle.clone())).await?;
                let node = aimed
                    .node
                    .ok_or_else(|| ToolError::CannotAct(format!("{handle} names no element")))?;
                let area = visible_box(&aimed.snapshot.tree, node).ok_or_else(|| {
                    ToolError::CannotAct(format!(
                        "{} has no visible box on screen to capture",
                        self.describe(&aimed)
                    ))
                })?;
                (Some(area), self.describe(&aimed), vec![aimed.snapshot])
            } else if scoped {
                let snapshot = self
                    .named_window(&engine, request.app.as_deref(), request.window.as_deref())
                    .await?;
                let root = snapshot.tree.element(snapshot.tree.root());
                let area = root.bounds.filter(Bounds::has_area).ok_or_else(|| {
                    ToolError::CannotAct(format!("'{}' has no box on screen", snapshot.title))
                })?;
                let what = format!("window '{}' ({})", snapshot.title, snapshot.app);
                (Some(area), what, vec![snapshot])
            } else {
                let what = match request.region {
                    Some(r) => format!("region [{},{},{},{}]", r.x, r.y, r.width, r.height),
                    None => "the screen".to_string(),
                };
                // Marks on a region or the screen come from every window.
                let windows = if request.annotate {
                    engine
                        .window_trees(None, self.read_options(false, false))
                        .await
                        .map_err(ToolError::engine)?
                } else {
                    Vec::new()
                };
                (request.region, what, windows)
            };
        let capture = engine.capture(region).await.map_err(ToolError::engine)?;
        // Per source: how many it found, and how many of those are tree elements.
        let mut counts: Vec<(Source, usize, usize)> = Vec::new();
        // Marks of what silent surfaces showed (read as a tree read reads them).
        let mut silent_marks = 0;
        let marks = if request.annotate {
            let mut marks = Vec::new();
            for snapshot in &windows {
                self.remember(snapshot);
                marks.extend(self.marks_of(&snapshot.tree, capture.bounds()));
                // What the tree is silent about is marked too, with the
                // handles a tree read gives it.
                if self.falls_through_by_default() && (scoped || request.index.is_some()) {
                    let root = snapshot.tree.root();
                    let read = self.read_surfaces(&engine, snapshot, root).await;
                    silent_marks += read.sightings.len();
                    marks.extend(read.sightings.iter().map(|seen| Mark {
                        bounds: seen.found.bounds,
                        label: seen.handle.to_string(),
                        source: seen.handle.source,
                    }));
                }
                let mut found = Vec::new();
                if request.include_detector {
                    found.push((Source::Detector, self.detect(&engine, snapshot).await?));
                }
                if request.include_ocr {
                    found.push((Source::Ocr, self.read_ocr(&engine, snapshot).await?));
                }
                for (source, mut sightings) in found {
                    let all = sightings.len();
                    // What coincides with a tree element is marked once, as the
                    // element: the agent should use the tree's handle.
                    sightings.retain(|seen| same_as_tree(&snapshot.tree, &seen.found).is_none());
                    counts.push((source, all, all - sightings.len()));
                    marks.extend(sightings.iter().map(|seen| Mark {
                        bounds: seen.found.bounds,
                        label: seen.handle.to_string(),
                        source,
                    }));
                }
            }
            marks
        } else {
            Vec::new()
        };
        let options = PictureOptions {
            format: request.format,
            max_dimension: request.max_dimension,
            zoom: request.zoom,
            marks,
        };
        let marked = options.marks.len();
        let picture =
            encode(&capture, &options).map_err(|error| ToolError::CannotAct(error.to_string()))?;
        let mut caption = format!(
            "{what}: {}x{} {:?}, screen x = {} + image x / {scale}, screen y = {} + image y / {scale}",
            picture.width,
            picture.height,
            picture.format,
            picture.origin.x,
            picture.origin.y,
            scale = round(picture.scale),
        );
        let sighted: usize = counts.iter().map(|(_, all, alike)| all - alike).sum();
        if request.annotate {
            caption.push_str(&format!(
                "; {} elements marked with their handles",
                marked - sighted - silent_marks
            ));
            let thinned = marked - picture.drawn.marks;
            if thinned > 0 {
                caption.push_str(&format!(
                    " ({thinned} holding others left unmarked, their inner ones are)"
                ));
            }
            if silent_marks > 0 {
                caption.push_str(&format!(
                    "; {silent_marks} things read where the tree is silent, marked with their #o/#m handles"
                ));
            }
        }
        for (source, all, alike) in counts {
            let (what, things) = match source {
                Source::Ocr => ("OCR read", "lines"),
                _ => ("the detector found", "boxes"),
            };
            caption.push_str(&format!(
                "; {what} {all} {things}: {} marked with their #{} handles, {alike} are tree \
                 elements marked with theirs",
                all - alike,
                source.letter(),
            ));
        }
        Ok(Shot { picture, caption })
    }

    /// The marks of a window's elements that can be acted on or read, inside
    /// `area`: those with actions, editable ones, and named leaves.
    fn marks_of(&self, tree: &Tree, area: Bounds) -> Vec<Mark> {
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let mut marks = Vec::new();
        let mut stack = vec![tree.root()];
        while let Some(node) = stack.pop() {
            stack.extend(tree.node(node).children.iter().rev().copied());
            if node == tree.root() || !worth_marking(tree, node) {
                continue;
            }
            let Some(visible) = visible_box(tree, node) else {
                continue;
            };
            if visible.intersection(&area).is_none() {
                continue;
            }
            let element = tree.element(node);
            let handle = registry.assign(&element.id, element.role, &element.name);
            marks.push(Mark {
                bounds: visible,
                label: handle.to_string(),
                source: Source::Tree,
            });
        }
        marks
    }
}

/// Whether an element earns a mark: something to click, type into or read.
fn worth_marking(tree: &Tree, node: NodeId) -> bool {
    let element = tree.element(node);
    let leaf = tree.node(node).children.is_empty();
    use axsight_core::Role;
    element.actionable
        || element.states.contains(axsight_core::State::Editable)
        || matches!(
            element.role,
            Role::TabItem
                | Role::ListItem
                | Role::TreeItem
                | Role::MenuItem
                | Role::Cell
                | Role::Link
        )
        || (leaf && !element.name.trim().is_empty())
}

/// A scale printed with four decimals at most.
fn round(scale: f64) -> f64 {
    (scale * 10_000.0).round() / 10_000.0
}
