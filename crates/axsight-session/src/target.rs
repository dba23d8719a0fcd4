//! What an action aims at — a handle, a selector or a screen point — found in a
//! window read just before acting, and checked to be the element the agent saw.
//!
//! # A sighting's click
//!
//! **A sighting's click** (`axsight-session/src/target.rs`, `aim_spotted`). A handle that
//! is not a tree handle goes to `aim_spotted`:
//!
//! 1. The spotted registry resolves it: retired is `StaleSighting` ("a newer capture of
//!    its window replaced it"), unknown was never given out.
//! 2. Its window is read afresh by its identity; a closed window makes it stale.
//! 3. The window's size must be the size at capture, else `StaleSighting` ("its window
//!    changed size since the capture").
//! 4. The box, relative to the window, is placed at the window's top-left corner now,
//!    captured there, and its `Look` compared with the recorded one; a mismatch is
//!    `StaleSighting` ("its place in the window looks different since the capture").
//!    `StaleSighting` names the call that gives fresh handles of that source
//!    (`refresh_call`: `get_window_tree with include_ocr: true reads it anew`).
//! 5. The point is the box's centre there. The element under it (`element_at`) is the
//!    target element, for the diff and for the accessible way.
//! 6. `Aimed.point` is set, so `pointer_way` takes the point as it is, as for an `x`,
//!    `y` target. `bring_forward` raises the window if it is not active, and XTest
//!    clicks there. `Aimed.label` names it in the answer (`#o19 "Open dialog later"`,
//!    `#m21 "icon"`). With `background`, the accessible action of the element under
//!    the point runs instead.
//!
//! `validate_element` and `wait_for_element` aim the same way, and take a stale
//! sighting as "not there".
//!
//! # A click by `#d`
//!
//! **A click by `#d`** (`target.rs`, `aim_spotted` → `locate_dom`). The number
//! resolves to its record; the window is read again (`read_for_acting`); `page_of`
//! must still give the same tab, else `StaleHandle` ("its tab is no longer the one its
//! window shows"); `locate` must find the element, else `StaleHandle` ("its element
//! left the page"). The centre of its box, placed through the document's box just read,
//! is `Aimed.point`, and the element under it in the tree is the target, so the click
//! goes on as for a sighting. Both places are read at the click, so a window moved
//! since the read is clicked right: the acting test moves Chromium's window with
//! `Browser.setWindowBounds` and the old `#d` click lands inside the element's new box.

use axsight_core::{
    element_at, element_head, quote, refind, Element, ElementId, Engine, EngineError, FailureKind,
    Handle, Look, MatchContext, NodeId, Point, ReadOptions, Selector, Source, SpottedError,
    WindowQuery, WindowSnapshot,
};

use crate::session::Session;
use crate::ToolError;

/// The target of an action, as the agent named it.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A handle as printed (`#u14`, `u14`); a tree handle may carry a point
    /// inside its element's box (`#u3@120,45`), aimed at as a screen point is.
    Handle(String),
    /// A tree handle that, gone stale, stands for the element found again in its
    /// place when exactly one matches it with high confidence (`heal: true`).
    HealingHandle(String),
    /// The first element matching a selector, in the windows `app`/`window` name
    /// (the active window first, then every window, when neither is given).
    Selector {
        selector: String,
        app: Option<String>,
        window: Option<String>,
    },
    /// A point on screen.
    Point(Point),
}

impl Target {
    /// The same kind of target with another handle's text.
    fn with_handle(&self, handle: &str) -> Target {
        match self {
            Target::HealingHandle(_) => Target::HealingHandle(handle.to_string()),
            _ => Target::Handle(handle.to_string()),
        }
    }
}

/// A target found: its window as just read, and the element (none for a point
/// over no element).
pub(crate) struct Aimed {
    pub snapshot: WindowSnapshot,
    pub node: Option<NodeId>,
    /// Where a point target lies.
    pub point: Option<Point>,
    /// How the answer names the target when its tree line is not enough: a
    /// screenshot source's target (`#o7 "Save"`), or a healed handle's element
    /// with the note of how it was found again.
    pub label: Option<String>,
}

impl Aimed {
    /// The identity of the target's window.
    pub fn window_id(&self) -> ElementId {
        self.snapshot.window_id()
    }

    /// The element aimed at, if any.
    pub fn element(&self) -> Option<&Element> {
        self.node.map(|n| self.snapshot.tree.element(n))
    }

    /// The silent surface the aimed element is or lies in (see
    /// `axsight_core::silent_surfaces`), the outermost where they nest (an
    /// icon view around its empty panel), if any.
    pub fn silent_surface(&self) -> Option<NodeId> {
        let tree = &self.snapshot.tree;
        let node = self.node?;
        std::iter::once(node)
            .chain(tree.ancestors(node))
            .filter(|&n| axsight_core::is_silent_surface(tree, n))
            .last()
    }

    /// Whether the aimed element is or lies in a silent surface.
    pub fn in_silent_surface(&self) -> bool {
        self.silent_surface().is_some()
    }

    /// The aimed element as a click's `control` (see `Input::Click`): a key of
    /// its identity when it counts its own clicks.
    pub fn control(&self) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let element = self.element().filter(|e| e.role.counts_own_clicks())?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        element.id.hash(&mut hasher);
        Some(hasher.finish())
    }

    /// The element aimed at, which the action needs; `name` is how the answer
    /// calls the target, `purpose` ends the refusal (" to type into").
    pub fn required_element(&self, name: &str, purpose: &str) -> Result<Element, ToolError> {
        self.element()
            .cloned()
            .ok_or_else(|| ToolError::CannotAct(format!("no element at {name}{purpose}")))
    }
}

/// Reads for acting carry action names: the accessible way needs them.
const ACTING_READ: ReadOptions = ReadOptions {
    include_invisible: false,
    actions: true,
};

impl<E: Engine> Session<E> {
    /// Finds `target` afresh. A handle must still name a live element with the role
    /// and name the agent last saw, or the call is refused as stale.
    pub(crate) async fn aim(&self, engine: &E, target: &Target) -> Result<Aimed, ToolError> {
        self.find_target(engine, target, true).await
    }

    /// Finds `target` afresh by identity alone: a handle's element may have been
    /// renamed since (what a wait for a new name or value needs).
    pub(crate) async fn locate(&self, engine: &E, target: &Target) -> Result<Aimed, ToolError> {
        self.find_target(engine, target, false).await
    }

    async fn find_target(
        &self,
        engine: &E,
        target: &Target,
        same_as_seen: bool,
    ) -> Result<Aimed, ToolError> {
        let (within, offset) = match target {
            Target::Handle(text) | Target::HealingHandle(text) => match split_offset(text)? {
                Some((handle, offset)) => (target.with_handle(handle), Some(offset)),
                None => (target.clone(), None),
            },
            _ => (target.clone(), None),
        };
        let target = &within;
        let aimed = match target {
            Target::Handle(text) if !is_tree_handle(text) => self.aim_spotted(engine, text).await?,
            Target::Handle(text) => self.aim_handle(engine, text, same_as_seen, false).await?,
            Target::HealingHandle(text) if !is_tree_handle(text) => {
                self.aim_spotted(engine, text).await?
            }
            Target::HealingHandle(text) => {
                self.aim_handle(engine, text, same_as_seen, true).await?
            }
            Target::Selector {
                selector,
                app,
                window,
            } => {
                self.aim_selector(engine, selector, app.as_deref(), window.as_deref())
                    .await?
            }
            Target::Point(point) => self.aim_point(engine, *point).await?,
        };
        let aimed = match offset {
            Some(offset) => self.aim_within(engine, aimed, target, offset).await?,
            None => aimed,
        };
        self.remember(&aimed.snapshot);
        Ok(aimed)
    }

    /// The point `offset` from the top-left corner of the element `aimed`
    /// found for `target`, aimed at as an `x`, `y` target is.
    async fn aim_within(
        &self,
        engine: &E,
        aimed: Aimed,
        target: &Target,
        offset: Point,
    ) -> Result<Aimed, ToolError> {
        let shown = match target {
            Target::Handle(text) | Target::HealingHandle(text) => text.as_str(),
            _ => "",
        };
        let Some(element) = aimed.element() else {
            return Err(ToolError::CannotAct(format!("{shown} names no element")));
        };
        let Some(bounds) = element.bounds else {
            return Err(ToolError::CannotAct(format!(
                "{shown} has no box on screen to find a point in"
            )));
        };
        if offset.x >= bounds.width || offset.y >= bounds.height {
            return Err(ToolError::BadArguments(format!(
                "{shown}@{},{} lies outside its box, {}×{} pixels",
                offset.x, offset.y, bounds.width, bounds.height
            )));
        }
        let point = Point {
            x: bounds.x + offset.x,
            y: bounds.y + offset.y,
        };
        let mut aimed = Aimed {
            node: element_at(&aimed.snapshot.tree, point).or(aimed.node),
            point: Some(point),
            label: None,
            snapshot: aimed.snapshot,
        };
        aimed.label = self.name_point(engine, &aimed, point).await;
        Ok(aimed)
    }

    /// Reads the window `window` (for acting), turning "gone" into a stale error
    /// about `handle` when one is given.
    pub(crate) async fn read_for_acting(
        &self,
        engine: &E,
        window: &ElementId,
        include_invisible: bool,
        handle: Option<&str>,
    ) -> Result<WindowSnapshot, ToolError> {
        let query = WindowQuery {
            window_id: Some(window.clone()),
            ..WindowQuery::default()
        };
        let options = ReadOptions {
            include_invisible,
            ..ACTING_READ
        };
        engine
            .window_tree(&query, options)
            .await
            .map_err(|error| match (handle, error.kind()) {
                (Some(handle), FailureKind::WindowGone | FailureKind::AppGone) => {
                    ToolError::StaleHandle {
                        handle: handle.to_string(),
                        why: "its window was closed".into(),
                    }
                }
                _ => ToolError::engine(error),
            })
    }

    /// With `same_as_seen`, the element must still have the role and name the
    /// agent last saw. A handle gone stale is looked for again (see
    /// [`Session::refind_stale`]): found, it is acted on when `heal` says so, and
    /// named in the refusal otherwise.
    async fn aim_handle(
        &self,
        engine: &E,
        text: &str,
        same_as_seen: bool,
        heal: bool,
    ) -> Result<Aimed, ToolError> {
        let (handle, id, window) = self.tree_handle(text)?;
        let shown = handle.to_string();
        let mut snapshot = self
            .read_for_acting(engine, &window, false, Some(&shown))
            .await?;
        let mut node = snapshot.tree.find(&id);
        if node.is_none() {
            // Not drawn now (scrolled away, a closed menu): look among hidden ones.
            snapshot = self
                .read_for_acting(engine, &window, true, Some(&shown))
                .await?;
            node = snapshot.tree.find(&id);
        }
        let Some(node) = node else {
            if snapshot.is_partial() {
                return Err(ToolError::Undecided {
                    handle: shown,
                    why: snapshot.gaps.join("; "),
                });
            }
            return self.refind_stale(
                snapshot,
                &id,
                None,
                shown,
                "its element no longer exists".into(),
                heal,
            );
        };
        let element = snapshot.tree.element(node);
        let seen = {
            let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            registry.resolve(handle).cloned()
        };
        if let Some(seen) = seen.filter(|_| same_as_seen) {
            if seen.role != element.role || seen.name != element.name {
                let why = format!(
                    "it was [{}] '{}' and is now [{}] '{}'",
                    seen.role, seen.name, element.role, element.name
                );
                return self.refind_stale(snapshot, &id, Some(node), shown, why, heal);
            }
        }
        Ok(Aimed {
            snapshot,
            node: Some(node),
            point: None,
            label: None,
        })
    }

    /// Looks in `snapshot` for the element the stale handle `shown` stood for, by
    /// what identified it when last read (`same` is the node that kept its
    /// identity, if one did). Found with high confidence, it is the target when
    /// `heal` says so, and named in the refusal otherwise.
    fn refind_stale(
        &self,
        snapshot: WindowSnapshot,
        id: &ElementId,
        same: Option<NodeId>,
        shown: String,
        why: String,
        heal: bool,
    ) -> Result<Aimed, ToolError> {
        let seen = {
            let fingerprints = self.fingerprints.lock().unwrap_or_else(|e| e.into_inner());
            fingerprints.get(id).cloned()
        };
        let found = seen.and_then(|seen| refind(&seen, &snapshot.tree, same));
        let Some(found) = found else {
            return Err(ToolError::StaleHandle { handle: shown, why });
        };
        let element = snapshot.tree.element(found.node);
        let head = {
            let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            let handle = registry.assign(&element.id, element.role, &element.name);
            element_head(&handle.to_string(), element)
        };
        let itself = Some(found.node) == same;
        let by = match itself {
            true => format!("identity, {}", found.clues.join(", ")),
            false => found.clues.join(", "),
        };
        if !heal {
            let found = match itself {
                true => format!("it is still the same element, {head}, by {by}"),
                false => format!("the same element is now {head}, by {by}"),
            };
            return Err(ToolError::StaleButFound {
                handle: shown,
                why,
                found,
            });
        }
        let label = format!("{head} (healed: {shown} was stale, {why}; found again by {by})");
        Ok(Aimed {
            snapshot,
            node: Some(found.node),
            point: None,
            label: Some(label),
        })
    }

    /// A handle of a screenshot source: its box, moved with its window since the
    /// capture, and the element under it now.
    async fn aim_spotted(&self, engine: &E, text: &str) -> Result<Aimed, ToolError> {
        let handle: Handle = text.parse()?;
        if handle.source == Source::Dom {
            let (snapshot, point, label) = self.locate_dom(engine, handle).await?;
            let node = element_at(&snapshot.tree, point);
            return Ok(Aimed {
                snapshot,
                node,
                point: Some(point),
                label: Some(label),
            });
        }
        let spotted = {
            let registry = self.spotted.lock().unwrap_or_else(|e| e.into_inner());
            match registry.resolve(handle) {
                Ok(spotted) => spotted.clone(),
                Err(SpottedError::Retired) => {
                    return Err(ToolError::StaleSighting {
                        handle: handle.to_string(),
                        why: "a newer capture of its window replaced it".into(),
                        seen_by: handle.source,
                    })
                }
                Err(SpottedError::Unknown) => {
                    return Err(ToolError::UnknownHandle {
                        handle: handle.to_string(),
                    })
                }
            }
        };
        let shown = handle.to_string();
        let snapshot = self
            .read_for_acting(engine, &spotted.window, false, Some(&shown))
            .await?;
        let frame = snapshot
            .tree
            .element(snapshot.tree.root())
            .bounds
            .ok_or_else(|| ToolError::StaleHandle {
                handle: shown.clone(),
                why: "its window has no box on screen now".into(),
            })?;
        if (frame.width, frame.height) != spotted.window_size {
            return Err(ToolError::StaleSighting {
                handle: shown,
                why: "its window changed size since the capture".into(),
                seen_by: spotted.source,
            });
        }
        let now = spotted.relative.offset(frame.x, frame.y);
        if let Some(then) = &spotted.look {
            // A click lands only where the spot still shows what was seen.
            let capture = engine.capture(Some(now)).await.map_err(ToolError::engine)?;
            if !Look::of(&capture, now).is_some_and(|look| then.resembles(&look)) {
                return Err(ToolError::StaleSighting {
                    handle: shown,
                    why: "its place in the window looks different since the capture (another \
                          window on top, or new content there)"
                        .into(),
                    seen_by: spotted.source,
                });
            }
        }
        let point = spotted.centre_at(Point {
            x: frame.x,
            y: frame.y,
        });
        let node = element_at(&snapshot.tree, point);
        Ok(Aimed {
            snapshot,
            node,
            point: Some(point),
            label: Some(format!("{shown} {}", quote(&spotted.label))),
        })
    }

    async fn aim_selector(
        &self,
        engine: &E,
        text: &str,
        app: Option<&str>,
        window: Option<&str>,
    ) -> Result<Aimed, ToolError> {
        let selector = Selector::parse(text)?;
        let first_match = |snapshot: &WindowSnapshot| {
            let context = MatchContext {
                app: &snapshot.app,
                window: &snapshot.title,
            };
            selector.find(&snapshot.tree, &context).first().copied()
        };
        let query = WindowQuery {
            app: app.map(str::to_string),
            window: window.map(str::to_string),
            window_id: None,
        };
        let scoped = app.is_some() || window.is_some();
        // The active window (or the one named) first: most actions are there.
        let first = match engine.window_tree(&query, ACTING_READ).await {
            Ok(snapshot) => Some(snapshot),
            Err(error) if scoped => return Err(ToolError::engine(error)),
            Err(_) => None,
        };
        if let Some(snapshot) = first {
            if let Some(node) = first_match(&snapshot) {
                return Ok(Aimed {
                    snapshot,
                    node: Some(node),
                    point: None,
                    label: None,
                });
            }
            if window.is_some() {
                return Err(ToolError::NoMatch {
                    selector: selector.to_string(),
                    close: self.close_to(&selector, [&snapshot]),
                });
            }
        }
        let mut snapshots = engine
            .window_trees(app, ACTING_READ)
            .await
            .map_err(ToolError::engine)?;
        let found = snapshots
            .iter()
            .enumerate()
            .find_map(|(index, snapshot)| Some((index, first_match(snapshot)?)));
        match found {
            Some((index, node)) => Ok(Aimed {
                snapshot: snapshots.swap_remove(index),
                node: Some(node),
                point: None,
                label: None,
            }),
            None => Err(ToolError::NoMatch {
                selector: selector.to_string(),
                close: self.close_to(&selector, &snapshots),
            }),
        }
    }

    /// The window that input at `point` reaches, read, with the element there.
    async fn aim_point(&self, engine: &E, point: Point) -> Result<Aimed, ToolError> {
        let apps = engine.applications().await.map_err(ToolError::engine)?;
        let mut candidates: Vec<_> = apps
            .iter()
            .flat_map(|app| app.windows.iter())
            .filter(|w| w.bounds.is_some_and(|b| b.contains(point.x, point.y)))
            .collect();
        // The active window first: it is on top wherever it is; untitled ones
        // last (GNOME Shell's own covers the whole screen).
        candidates.sort_by_key(|w| (!w.is_active(), w.title.is_empty()));
        let mut chosen = None;
        for window in &candidates {
            if engine
                .input_reaches(&window.id, point)
                .await
                .unwrap_or(false)
            {
                chosen = Some(window.id.clone());
                break;
            }
        }
        // Input reaches none of them: the display says whose window is there
        // (a menu's popup on Wayland, which the listing does not hold).
        let window = match chosen {
            Some(window) => window,
            None => match shown_at(engine, &apps, point).await {
                Some(window) => window,
                None => candidates
                    .first()
                    .map(|w| w.id.clone())
                    .ok_or(ToolError::NoWindowAt {
                        x: point.x,
                        y: point.y,
                    })?,
            },
        };
        let snapshot = self.read_for_acting(engine, &window, false, None).await?;
        let node = element_at(&snapshot.tree, point);
        let mut aimed = Aimed {
            snapshot,
            node,
            point: Some(point),
            label: None,
        };
        aimed.label = self.name_point(engine, &aimed, point).await;
        Ok(aimed)
    }

    /// How the answer names a point in a silent surface or a window without
    /// accessibility, where the tree's element there says nothing of what is
    /// under the pointer: the sighting there (`"draft.txt" (#o12, by OCR) in
    /// #u36 [Group] Icon view`), else what OCR reads around the point now.
    /// `None` elsewhere: the element's own line names it.
    async fn name_point(&self, engine: &E, aimed: &Aimed, point: Point) -> Option<String> {
        let surface = aimed.silent_surface()?;
        let frame = aimed
            .snapshot
            .tree
            .element(aimed.snapshot.tree.root())
            .bounds?;
        let relative = Point {
            x: point.x - frame.x,
            y: point.y - frame.y,
        };
        let seen = {
            let registry = self.spotted.lock().unwrap_or_else(|e| e.into_inner());
            registry
                .at(&aimed.window_id(), relative)
                .map(|(handle, spotted)| (handle, spotted.label.clone()))
        };
        let what = match seen {
            Some((handle, label)) if handle.source == Source::Ocr => {
                format!("{} ({handle}, by OCR)", quote(&label))
            }
            Some((handle, label)) => format!("{handle} [{label}]"),
            None => {
                let read = self.read_around(engine, point).await?;
                format!("{} (read by OCR there)", quote(&read))
            }
        };
        let element = aimed.snapshot.tree.element(surface);
        let head = {
            let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            let handle = registry.assign(&element.id, element.role, &element.name);
            element_head(&handle.to_string(), element)
        };
        Some(format!("{what} in {head}"))
    }

    /// The line OCR reads at `point`: a strip around it, read as lines, the
    /// one that holds the point.
    pub(crate) async fn read_around(&self, engine: &E, point: Point) -> Option<String> {
        const STRIP: (i32, i32) = (320, 48);
        let area = axsight_core::Bounds {
            x: point.x - STRIP.0 / 2,
            y: point.y - STRIP.1 / 2,
            width: STRIP.0,
            height: STRIP.1,
        };
        let capture = engine.capture(Some(area)).await.ok()?;
        let (_, lines) = self.ocr_lines(capture.padded(16)).await.ok()?;
        lines
            .into_iter()
            .filter(|line| line.bounds.contains(point.x, point.y))
            .map(|line| line.text)
            .next()
    }
}

/// A tree handle with a point inside its element (`#u3@120,45`: 120 pixels
/// right of its box's left edge, 45 below its top): the handle and the offset.
/// `None` for a handle without one.
fn split_offset(text: &str) -> Result<Option<(&str, Point)>, ToolError> {
    let Some((handle, offset)) = text.split_once('@') else {
        return Ok(None);
    };
    let bad = || {
        ToolError::BadArguments(format!(
            "{} is not a handle with a point in it: write `#u3@120,45` (pixels from the \
             left and top of #u3's box)",
            quote(text)
        ))
    };
    let (x, y) = offset.split_once(',').ok_or_else(bad)?;
    let x: i32 = x.trim().parse().map_err(|_| bad())?;
    let y: i32 = y.trim().parse().map_err(|_| bad())?;
    if x < 0 || y < 0 {
        return Err(bad());
    }
    if !handle
        .parse::<Handle>()
        .is_ok_and(|h| h.source == Source::Tree)
    {
        return Err(ToolError::BadArguments(format!(
            "a point goes inside a tree handle's box (`#u3@120,45`), not {}",
            quote(handle)
        )));
    }
    Ok(Some((handle, Point { x, y })))
}

/// Whether a handle's text names a tree element (`#u…`); anything unparsable
/// goes the tree's way, whose error says what is wrong with it.
fn is_tree_handle(text: &str) -> bool {
    text.parse::<Handle>()
        .map_or(true, |h| h.source == axsight_core::Source::Tree)
}

/// The call that gives fresh handles of a screenshot source.
pub(crate) fn refresh_call(source: Source) -> &'static str {
    match source {
        Source::Ocr => "get_window_tree with include_ocr: true reads it anew",
        Source::Detector => "get_window_tree with include_detector: true detects anew",
        Source::Vision => "get_window_tree with include_vision: true looks anew",
        Source::Dom => "get_window_tree with include_dom: true reads it anew",
        Source::Tree => "get_window_tree reads it anew",
    }
}

/// The listed window the display shows at `point`, asked of the display: the
/// app listing's boxes are the apps' own, which a window moved a moment ago may
/// not have updated yet (GTK 3 announces no move), while the display knows
/// where each window is. A window of the app that the listing does not hold (a
/// menu's popup on Wayland, an untitled one) stands for the app's active
/// window, else its first. `None` when no window of a listed app lies there.
async fn shown_at<E: Engine>(
    engine: &E,
    apps: &[axsight_core::Application],
    point: Point,
) -> Option<ElementId> {
    for app in apps.iter().filter(|app| app.accessible) {
        let Some(pid) = app.pid else { continue };
        let Ok(shown) = engine.screen_windows(pid).await else {
            continue;
        };
        let titles = shown
            .iter()
            .filter(|(_, bounds)| bounds.contains(point.x, point.y))
            .map(|(title, _)| title);
        let mut there = false;
        for title in titles {
            there = true;
            if let Some(window) = app.windows.iter().find(|w| &w.title == title) {
                return Some(window.id.clone());
            }
        }
        if there {
            let window = app.windows.iter().find(|w| w.is_active());
            if let Some(window) = window.or(app.windows.first()) {
                return Some(window.id.clone());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_carries_a_point_in_its_box() {
        assert_eq!(
            split_offset("#u3@120,45").ok().flatten(),
            Some(("#u3", Point { x: 120, y: 45 }))
        );
        assert_eq!(split_offset("#u3").ok().flatten(), None);
    }

    #[test]
    fn a_bad_point_in_a_handle_is_refused_with_its_form() {
        for bad in ["#u3@", "#u3@12", "#u3@a,b", "#u3@-1,4"] {
            let error = split_offset(bad).err().map(|e| e.to_string());
            assert!(
                error.as_deref().is_some_and(|e| e.contains("#u3@120,45")),
                "{bad}: {error:?}"
            );
        }
        let error = split_offset("#o7@1,1").err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("tree handle")),
            "{error:?}"
        );
    }
}
