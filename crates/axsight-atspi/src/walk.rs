//! Reading one window's subtree over D-Bus, fast.
//!
//! Every object's calls are sent at once and every child's subtree is read
//! concurrently, so the calls of a whole tree level are in flight together on the
//! one connection (pipelined): the read costs about one round trip per tree level
//! instead of one per call. No thread or runtime is made per read.
//!
//! A read never panics and never hangs: an object that vanishes mid-read is left out
//! and noted as a gap; an app that leaves the bus or stops answering ends the read
//! with a plain error; each call has its own timeout.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use futures_util::future::{join_all, BoxFuture};
use futures_util::FutureExt;
use zbus::Connection;

use crate::cache::AppCache;
use crate::dbus::{self, Failure, ObjRef};
pub use crate::quirks::Quirks;
use crate::roles::role_name;
use crate::states;
use axsight_core::{folds_away, Element, ReadOptions, Role};

mod table;

/// Elements read at most in one window; a tree bigger than this is cut, and the
/// capture says so.
pub const MAX_ELEMENTS: usize = 10_000;

/// Children read at most under one parent (tables can hold millions of cells).
pub const MAX_CHILDREN: usize = 2_000;

/// Levels read at most below the window: deeper means a broken or cyclic tree.
pub const MAX_DEPTH: usize = 256;

/// One object as read off the bus, before normalisation.
#[derive(Debug, Clone, Default)]
pub struct RawNode {
    pub obj: Option<ObjRef>,
    pub role: u32,
    pub name: String,
    pub description: String,
    pub accessible_id: String,
    pub state_mask: u64,
    pub extents: Option<(i32, i32, i32, i32)>,
    /// Whether it has the Action interface.
    pub actionable: bool,
    /// Whether it holds a secret (a password field, or text of mask characters).
    pub secret: bool,
    /// How many characters a secret holds: its length, never its text.
    pub secret_length: Option<usize>,
    pub actions: Vec<String>,
    pub value: Option<String>,
    /// A field's placeholder, where the toolkit says it apart from the text.
    pub hint: Option<String>,
    pub children: Vec<RawNode>,
    /// The identity to give out instead of the object's, where that is not
    /// stable: a big table's cell is known by its place (see [`ObjRef::cell_id`]).
    pub id: Option<axsight_core::ElementId>,
}

/// A failed read: the app is gone or hung; everything else becomes a gap.
#[derive(Debug)]
pub struct Abort {
    pub failure: Failure,
    pub method: &'static str,
    pub error: zbus::Error,
}

/// Reads subtrees with one connection and a shared element budget.
pub struct Walker<'c> {
    conn: &'c Connection,
    quirks: Quirks,
    options: ReadOptions,
    cache: AppCache,
    /// Element slots taken so far, against [`MAX_ELEMENTS`].
    reserved: AtomicUsize,
    /// Objects met in this read: a toolkit that lists an ancestor as a child
    /// must not send the walk round in circles.
    seen: Mutex<HashSet<ObjRef>>,
    gaps: Mutex<Vec<String>>,
    cuts: Mutex<Vec<Cut>>,
}

/// A part left out by design, not by a failure: a table's cells off screen, a
/// container's children past what a read takes. It stays true while the
/// element it is about is unchanged, so a kept read with cuts may be refreshed
/// (one with gaps is read whole: they may have filled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The object path of the element whose part was left out.
    pub path: String,
    /// What was left out, for the answer.
    pub said: String,
}

/// AT-SPI role number of `password text`, whose text is never read.
pub(crate) const PASSWORD_TEXT: u32 = 40;

/// AT-SPI role number of `document web`: a web page, whose value is its address.
const DOCUMENT_WEB: u32 = 95;

/// AT-SPI role number of `viewport`.
pub const VIEWPORT: u32 = 68;

/// What one object says about itself, from the cache or from its own calls.
struct Basics {
    role: u32,
    name: String,
    description: String,
    state_mask: u64,
    interfaces: Vec<String>,
    /// `None` when unknown: the children are then asked for.
    child_count: Option<usize>,
}

impl<'c> Walker<'c> {
    /// A walker that takes what it can from `cache` (pass an empty one to ask every
    /// object itself).
    pub fn new(
        conn: &'c Connection,
        quirks: Quirks,
        options: ReadOptions,
        cache: AppCache,
    ) -> Walker<'c> {
        Walker {
            conn,
            quirks,
            options,
            cache,
            reserved: AtomicUsize::new(0),
            seen: Mutex::default(),
            gaps: Mutex::new(Vec::new()),
            cuts: Mutex::new(Vec::new()),
        }
    }

    /// The gaps noted so far: what failed, and what was cut.
    pub fn into_gaps(self) -> Vec<String> {
        let (mut gaps, cuts) = self.into_parts();
        gaps.extend(cuts.into_iter().map(|cut| cut.said));
        gaps.sort();
        gaps.dedup();
        gaps
    }

    /// What failed (objects that vanished), and what was cut by design.
    pub fn into_parts(self) -> (Vec<String>, Vec<Cut>) {
        let mut gaps = self.gaps.into_inner().unwrap_or_else(|e| e.into_inner());
        gaps.sort();
        gaps.dedup();
        let mut cuts = self.cuts.into_inner().unwrap_or_else(|e| e.into_inner());
        cuts.dedup();
        (gaps, cuts)
    }

    /// Notes that part of `obj` was left out by design (see [`Cut`]).
    fn note_cut(&self, obj: &ObjRef, said: String) {
        self.cuts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Cut {
                path: obj.path.to_string(),
                said,
            });
    }

    fn note_gap(&self, gap: String) {
        self.gaps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(gap);
    }

    /// Whether an element of `role` and `mask` is drawn, by its toolkit's rules:
    /// VISIBLE for GTK4 (SHOWING is set on toplevels only) and for viewports (GTK3
    /// drops a scrolled viewport's SHOWING while its content stays on screen),
    /// SHOWING for everything else.
    fn is_drawn(&self, role: u32, mask: u64) -> bool {
        let bit = if self.quirks.gtk4 || role == VIEWPORT {
            states::VISIBLE
        } else {
            states::SHOWING
        };
        states::has_bit(mask, bit)
    }

    /// The object's role, names, states, interfaces and child count: from the cache
    /// when it has them, else in four pipelined calls.
    async fn basics(&self, obj: &ObjRef) -> Result<Basics, Abort> {
        if let Some(item) = self.cache.item(obj) {
            return Ok(Basics {
                role: item.role,
                name: item.name.clone(),
                description: item.description.clone(),
                state_mask: item.state_mask,
                interfaces: item.interfaces.clone(),
                child_count: item.child_count,
            });
        }
        let conn = self.conn;
        let (props, role, state, interfaces) = futures_util::join!(
            dbus::accessible_properties(conn, obj, self.quirks.bulk_properties),
            dbus::call::<_, u32>(conn, obj, dbus::ACCESSIBLE, "GetRole", ()),
            dbus::call::<_, Vec<u32>>(conn, obj, dbus::ACCESSIBLE, "GetState", ()),
            dbus::call::<_, Vec<String>>(conn, obj, dbus::ACCESSIBLE, "GetInterfaces", ()),
        );
        let props = props.map_err(|(method, e)| abort(method, e))?;
        Ok(Basics {
            role: role.map_err(|e| abort("GetRole", e))?,
            name: props.name,
            description: props.description,
            state_mask: states::mask_of(&state.map_err(|e| abort("GetState", e))?),
            interfaces: interfaces.unwrap_or_default(),
            child_count: props.child_count,
        })
    }

    /// Reads `obj` and everything below it that the options ask for.
    pub fn read(&self, obj: ObjRef, is_root: bool) -> BoxFuture<'_, Result<RawNode, Abort>> {
        self.reserve(1);
        self.read_with(obj, is_root, true, 0)
    }

    /// Reads `obj` alone, without its children.
    pub async fn read_node(&self, obj: ObjRef, is_root: bool) -> Result<RawNode, Abort> {
        self.reserve(1);
        self.read_with(obj, is_root, false, 0).await
    }

    /// Takes up to `wanted` element slots from the budget; returns how many it got.
    fn reserve(&self, wanted: usize) -> usize {
        let mut granted = 0;
        let _ = self
            .reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
                granted = wanted.min(MAX_ELEMENTS.saturating_sub(taken));
                Some(taken + granted)
            });
        granted
    }

    /// Whether an object's box would print nothing: a compact read (no action
    /// names asked for) of a container that the printer folds away (see
    /// [`folds_away`]). Its `GetExtents` is then not asked: in the GTK3 widget
    /// factory a third of the objects are such. Not where a box decides more
    /// than its line: GTK4 (a box with area makes an element shown), clipping
    /// panes, LibreOffice (a root pane is placed by its box), Java (menus are
    /// placed by their popups), Gecko (a group may be named by its text).
    fn prints_nothing(&self, basics: &Basics, role: Role, has: &impl Fn(&str) -> bool) -> bool {
        let quirks = self.quirks;
        if self.options.actions
            || self.options.include_invisible
            || quirks.gtk4
            || quirks.libreoffice
            || quirks.menu_items_misplaced
            || quirks.text_in_content
            || role == Role::ScrollPane
            || basics.role == VIEWPORT
            || has(dbus::ACTION)
            || has(dbus::VALUE)
            || has(dbus::TEXT)
        {
            return false;
        }
        let mut element = Element::new("", role, role_name(basics.role));
        element.name = basics.name.trim().to_string();
        element.description = basics.description.trim().to_string();
        element.states = states::state_set(basics.state_mask);
        folds_away(&element)
    }

    /// Whether a read node counts as drawn (so its children are read).
    pub fn is_drawn_node(&self, node: &RawNode) -> bool {
        self.is_drawn(node.role, node.state_mask)
    }

    fn read_with(
        &self,
        obj: ObjRef,
        is_root: bool,
        with_children: bool,
        depth: usize,
    ) -> BoxFuture<'_, Result<RawNode, Abort>> {
        async move {
            let conn = self.conn;
            let basics = self.basics(&obj).await?;
            let has = |iface: &str| basics.interfaces.iter().any(|i| i == iface);
            let drawn = is_root || self.is_drawn(basics.role, basics.state_mask);
            let wanted = drawn || self.options.include_invisible;

            let role = Role::from_atspi_name(role_name(basics.role));
            let unprinted = !is_root && self.prints_nothing(&basics, role, &has);
            let extents = async {
                if !(wanted && has(dbus::COMPONENT)) || unprinted {
                    return None;
                }
                let coords = self.quirks.extent_coords();
                dbus::call::<_, (i32, i32, i32, i32)>(
                    conn,
                    &obj,
                    dbus::COMPONENT,
                    "GetExtents",
                    (coords,),
                )
                .await
                .ok()
            };
            // Containers' action names are always read: GTK4 gives many an Action
            // interface with no actions, and whether a nameless group can be
            // left out of the compact tree depends on having real ones.
            let container = role.is_container();
            let read_actions = wanted && has(dbus::ACTION) && (self.options.actions || container);
            let actions = async {
                if !read_actions {
                    return Vec::new();
                }
                // They may be localised; axsight acts by index.
                dbus::action_names(conn, &obj, self.quirks.actions_by_index)
                    .await
                    .unwrap_or_default()
            };
            let accessible_id = async {
                if !wanted {
                    return String::new();
                }
                if self.quirks.ids_in_attributes {
                    return id_attribute(conn, &obj).await.unwrap_or_default();
                }
                if !self.quirks.exports_ids {
                    return String::new();
                }
                dbus::property::<String>(conn, &obj, dbus::ACCESSIBLE, "AccessibleId")
                    .await
                    .unwrap_or_default()
            };
            let editable_text =
                has(dbus::TEXT) && states::has_bit(basics.state_mask, states::EDITABLE);
            // Swing gives every button, menu and check box a Value (0 or 1, its
            // pressed or checked state), LibreOffice its toolbar buttons and menu
            // items too, and its cells one that is a number even for text: only
            // quantities are printed, and LibreOffice's editable fields by text.
            let numeric = has(dbus::VALUE)
                && (role.carries_value() || role == Role::Unknown)
                && !(self.quirks.libreoffice && (editable_text || !holds_a_number(role)));
            let value = async {
                if !wanted || basics.role == PASSWORD_TEXT {
                    return None;
                }
                // Konsole (Qt 5) counts its Text in cells of its grid and, once
                // it has scrolled, answers the top of its history rather than
                // its screen: its text is left unread, and its screen is a
                // silent surface that OCR reads.
                if role == Role::Terminal && has(dbus::TEXT) && !self.quirks.qt {
                    return read_terminal(conn, &obj).await;
                }
                if numeric {
                    let current: f64 = dbus::property(conn, &obj, dbus::VALUE, "CurrentValue")
                        .await
                        .ok()?;
                    return Some(format_number(current));
                }
                if editable_text {
                    return read_text_head(conn, &obj, self.quirks).await;
                }
                if basics.role == DOCUMENT_WEB && has(dbus::DOCUMENT) {
                    return dbus::document_url(conn, &obj)
                        .await
                        .ok()
                        .filter(|url| !url.is_empty());
                }
                None
            };
            // A field without a name of its own (or a combo box named by its
            // current text) is named by the label that says it labels it.
            let text_combo = self.quirks.combo_named_by_text && role == Role::ComboBox;
            let nameless = basics.name.trim().is_empty();
            let label = async {
                // LibreOffice's status bar labels have their text only as Text.
                if wanted && nameless && self.quirks.libreoffice && role == Role::Text {
                    return read_text_head(conn, &obj, self.quirks)
                        .await
                        .filter(|text| !text.trim().is_empty());
                }
                if !(wanted && role.is_field() && (nameless || text_combo)) {
                    return None;
                }
                label_of(conn, &obj, self.quirks).await
            };
            // Gecko keeps a paragraph's or a status line's text in the element
            // itself, with no child that names it: that text is its name.
            let own_text = async {
                let reads = wanted
                    && self.quirks.text_in_content
                    && basics.name.trim().is_empty()
                    && has(dbus::TEXT)
                    && !states::has_bit(basics.state_mask, states::EDITABLE)
                    && basics.role != PASSWORD_TEXT
                    && carries_text(role);
                if !reads {
                    return None;
                }
                let text = read_text_head(conn, &obj, self.quirks).await?;
                Some(without_embedded_objects(&text)).filter(|t| !t.is_empty())
            };
            let children = async {
                if !with_children || !wanted || basics.child_count == Some(0) {
                    return Ok(Vec::new());
                }
                if depth >= MAX_DEPTH {
                    self.note_cut(
                        &obj,
                        format!(
                            "the tree is deeper than {MAX_DEPTH} levels; deeper elements were not read"
                        ),
                    );
                    return Ok(Vec::new());
                }
                if let Some(refs) = self.cache.complete_children(&obj) {
                    return self.read_children(refs, depth + 1).await;
                }
                // More children than a read ever takes are not listed: LibreOffice
                // builds the whole list of a sheet's 2^31 cells, for minutes and
                // gigabytes. A table gives the cells on screen; others their first.
                let manages = states::has_bit(basics.state_mask, states::MANAGES_DESCENDANTS);
                let count = match basics.child_count {
                    None if manages => {
                        dbus::property::<i32>(conn, &obj, dbus::ACCESSIBLE, "ChildCount")
                            .await
                            .ok()
                            .and_then(|n| usize::try_from(n).ok())
                    }
                    count => count,
                };
                if count.map_or(manages, |n| n > MAX_CHILDREN) {
                    return match has(table::TABLE) {
                        true => self.read_drawn_cells(&obj, &basics.name, depth + 1).await,
                        false => self.read_first_children(&obj, count, depth + 1).await,
                    };
                }
                let refs =
                    dbus::call::<_, Vec<ObjRef>>(conn, &obj, dbus::ACCESSIBLE, "GetChildren", ())
                        .await
                        .map_err(|e| abort("GetChildren", e))?;
                self.read_children(refs, depth + 1).await
            };
            // A LibreOffice cell shows a formula's result as its text; the formula
            // is an attribute, without its `=`.
            let formula = async {
                if !(wanted && self.quirks.libreoffice && role == Role::Cell) {
                    return None;
                }
                let attributes: HashMap<String, String> =
                    dbus::call(conn, &obj, dbus::ACCESSIBLE, "GetAttributes", ())
                        .await
                        .ok()?;
                let formula = attributes.get("Formula")?.trim();
                match formula.starts_with('=') {
                    _ if formula.is_empty() => None,
                    true => Some(formula.to_string()),
                    false => Some(format!("={formula}")),
                }
            };
            // GTK keeps a field's placeholder in an object attribute, there
            // whether the field is empty or not.
            let hint = async {
                if !(wanted && editable_text && self.quirks.placeholder_attribute) {
                    return None;
                }
                let attributes: HashMap<String, String> =
                    dbus::call(conn, &obj, dbus::ACCESSIBLE, "GetAttributes", ())
                        .await
                        .ok()?;
                Some(attributes.get("placeholder-text")?.trim().to_string())
                    .filter(|hint| !hint.is_empty())
            };
            let (extents, actions, accessible_id, value, label, own_text, formula, hint, children) = futures_util::join!(
                extents,
                actions,
                accessible_id,
                value,
                label,
                own_text,
                formula,
                hint,
                children
            );
            // An editable combo box's text is its field's (a child), and its own
            // name may be what the app called it (KeePassXC's `Username field`),
            // not its text: printed as a value, an empty field read as filled.
            let editable_combo = text_combo
                && children.as_ref().is_ok_and(|children| {
                    children
                        .iter()
                        .any(|c| states::has_bit(c.state_mask, states::EDITABLE))
                });
            let (name, value) = match (text_combo, label) {
                (true, label) if editable_combo => {
                    (label.unwrap_or_else(|| basics.name.clone()), None)
                }
                // The current text is the combo's value; its name is its label's.
                (true, label) => (
                    label.unwrap_or_default(),
                    value.or_else(|| Some(basics.name.clone()).filter(|n| !n.is_empty())),
                ),
                (false, Some(label)) => (label, value),
                (false, None) => (own_text.unwrap_or_else(|| basics.name.clone()), value),
            };
            let actionable = has(dbus::ACTION) && !(read_actions && actions.is_empty());
            // A password field that does not say so (GTK4 has no password role)
            // still shows only mask characters: its value is a secret too.
            let secret = basics.role == PASSWORD_TEXT || value.as_deref().is_some_and(looks_masked);
            // Its length tells a typed secret arrived whole without showing it:
            // the mask's length, or the field's character count (GTK 3's
            // password role, whose text is not read at all).
            let secret_length = match (secret, value.as_deref()) {
                (false, _) => None,
                (true, Some(mask)) => Some(mask.chars().count()),
                (true, None) if wanted && has(dbus::TEXT) => {
                    dbus::property::<i32>(conn, &obj, dbus::TEXT, "CharacterCount")
                        .await
                        .ok()
                        .and_then(|count| usize::try_from(count).ok())
                }
                (true, None) => None,
            };
            let value = if secret { None } else { value };
            Ok(RawNode {
                obj: Some(obj),
                role: basics.role,
                name,
                description: formula.unwrap_or(basics.description),
                accessible_id,
                state_mask: basics.state_mask,
                extents,
                actionable,
                actions,
                value,
                hint,
                secret,
                secret_length,
                children: children?,
                id: None,
            })
        }
        .boxed()
    }

    async fn read_children(&self, refs: Vec<ObjRef>, depth: usize) -> Result<Vec<RawNode>, Abort> {
        let refs = self.not_seen(refs);
        let total = refs.len();
        let take = self.reserve(total.min(MAX_CHILDREN));
        if take < total {
            self.note_gap(format!(
                "an element has {total} children; only {take} were read"
            ));
        }
        self.read_all(refs.into_iter().take(take).collect(), depth)
            .await
    }

    /// `refs` without null references and objects met before in this read.
    fn not_seen(&self, refs: Vec<ObjRef>) -> Vec<ObjRef> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        refs.into_iter()
            .filter(|r| !r.is_null() && seen.insert(r.clone()))
            .collect()
    }

    /// Reads the subtrees of `refs` (their budget already taken) concurrently;
    /// one that vanishes is a gap, an app that stops answering ends the read.
    async fn read_all(&self, refs: Vec<ObjRef>, depth: usize) -> Result<Vec<RawNode>, Abort> {
        let reads = refs
            .into_iter()
            .map(|child| self.read_with(child, false, true, depth));
        self.keep_read(join_all(reads).await)
            .map_err(|aborted| *aborted)
    }

    /// The subtrees that were read; one that vanished is a gap, an app that
    /// stopped answering ends the read.
    fn keep_read(&self, results: Vec<Result<RawNode, Abort>>) -> Result<Vec<RawNode>, Box<Abort>> {
        let mut children = Vec::with_capacity(results.len());
        for result in results {
            match result {
                Ok(node) => children.push(node),
                Err(aborted) if aborted.ends_the_read() => return Err(Box::new(aborted)),
                Err(aborted) => self.note_gap(format!(
                    "an element vanished or failed while being read ({}: {})",
                    aborted.method, aborted.error
                )),
            }
        }
        Ok(children)
    }
}

/// AT-SPI `RelationType` `LABELLED_BY`.
const LABELLED_BY: u32 = 2;

/// The name of the first label that `obj`'s relations say labels it, if any.
async fn label_of(conn: &Connection, obj: &ObjRef, quirks: Quirks) -> Option<String> {
    let relations: Vec<(u32, Vec<ObjRef>)> =
        dbus::call(conn, obj, dbus::ACCESSIBLE, "GetRelationSet", ())
            .await
            .ok()?;
    let label = relations
        .into_iter()
        .filter(|(kind, _)| *kind == LABELLED_BY)
        .flat_map(|(_, targets)| targets)
        .find(|target| !target.is_null())?;
    let props = dbus::accessible_properties(conn, &label, quirks.bulk_properties)
        .await
        .ok()?;
    Some(props.name).filter(|name| !name.trim().is_empty())
}

/// The `id` object attribute of `obj`, where the toolkit puts its element ids.
async fn id_attribute(conn: &Connection, obj: &ObjRef) -> Option<String> {
    let attributes: std::collections::HashMap<String, String> =
        dbus::call(conn, obj, dbus::ACCESSIBLE, "GetAttributes", ())
            .await
            .ok()?;
    attributes.get("id").cloned()
}

/// Whether an element of `role` can hold text of its own that nothing else names
/// (a paragraph, a status line, a cell, a section of a page).
fn carries_text(role: Role) -> bool {
    matches!(
        role,
        Role::Text
            | Role::Paragraph
            | Role::StatusBar
            | Role::Alert
            | Role::Notification
            | Role::ToolTip
            | Role::Heading
            | Role::ListItem
            | Role::Cell
            | Role::HeaderItem
            | Role::Header
            | Role::Group
    )
}

/// An element's own text without the object replacement characters (U+FFFC)
/// that stand for its child elements, which are read as elements of their own.
fn without_embedded_objects(text: &str) -> String {
    text.replace('\u{FFFC}', " ").trim().to_string()
}

/// The most characters of a field's text a read takes.
const TEXT_HEAD: i32 = 4096;

/// What a text field holds, up to [`TEXT_HEAD`] characters. Qt and Gecko answer
/// an end offset past the text with an empty string, so its length is asked first.
pub(crate) async fn read_text_head(
    conn: &Connection,
    obj: &ObjRef,
    quirks: Quirks,
) -> Option<String> {
    let end = if quirks.bounded_text {
        let count: i32 = dbus::property(conn, obj, dbus::TEXT, "CharacterCount")
            .await
            .ok()?;
        count.clamp(0, TEXT_HEAD)
    } else {
        TEXT_HEAD
    };
    dbus::call::<_, String>(conn, obj, dbus::TEXT, "GetText", (0i32, end))
        .await
        .ok()
}

/// The most characters of a terminal's text a read takes: its last ones, a
/// screen or two (a terminal's text is its scrollback and its screen).
const TERMINAL_TAIL: i32 = 8192;

/// A terminal's screen (see [`axsight_core::terminal::screen`]): the last
/// [`TERMINAL_TAIL`] characters of its text, rows cut at their blanks, the
/// cursor marked where it is.
async fn read_terminal(conn: &Connection, obj: &ObjRef) -> Option<String> {
    let (count, caret) = futures_util::join!(
        dbus::property::<i32>(conn, obj, dbus::TEXT, "CharacterCount"),
        dbus::property::<i32>(conn, obj, dbus::TEXT, "CaretOffset"),
    );
    let count = count.ok()?;
    let start = (count - TERMINAL_TAIL).max(0);
    let text: String = dbus::call(conn, obj, dbus::TEXT, "GetText", (start, count))
        .await
        .ok()?;
    let caret = caret
        .ok()
        .and_then(|caret| usize::try_from(caret - start).ok());
    Some(axsight_core::terminal::screen(
        &axsight_core::terminal::with_cursor(&text, caret),
        start > 0,
    ))
}

impl Abort {
    /// Whether the whole read must end (the app left or stopped answering);
    /// otherwise only the object is lost, and that is a gap.
    fn ends_the_read(&self) -> bool {
        matches!(self.failure, Failure::PeerGone | Failure::NoReply)
    }

    /// An abort for a failure that is not the app's fault.
    pub fn other(method: &'static str, error: zbus::Error) -> Abort {
        Abort {
            failure: Failure::Other,
            method,
            error,
        }
    }
}

/// Wraps a call error with what it says about its target.
fn abort(method: &'static str, error: zbus::Error) -> Abort {
    Abort {
        failure: dbus::failure_kind(&error),
        method,
        error,
    }
}

/// Whether `text` looks like a masked password: mask characters only, but for
/// one (GTK shows the last typed character for a moment).
pub fn looks_masked(text: &str) -> bool {
    const MASKS: &[char] = &['●', '•', '∗', '*', '·', '⏺'];
    let total = text.chars().count();
    let masked = text.chars().filter(|c| MASKS.contains(c)).count();
    masked > 0 && masked + 1 >= total && (total > 1 || masked == 1)
}

/// Whether an element of `role` shows a number (LibreOffice gives a `Value` to
/// much else).
fn holds_a_number(role: Role) -> bool {
    matches!(
        role,
        Role::Slider | Role::SpinButton | Role::ScrollBar | Role::ProgressBar
    )
}

/// Prints a number without a needless fraction: `42`, `0.5`.
pub fn format_number(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn masked_text_is_recognised() {
        use super::looks_masked;
        assert!(looks_masked("●●●●●●"));
        assert!(looks_masked("•••••x"));
        assert!(looks_masked("*"));
        assert!(!looks_masked(""));
        assert!(!looks_masked("hello"));
        assert!(!looks_masked("a*b*c"));
        assert!(!looks_masked("5 * 3"));
    }

    #[test]
    fn embedded_objects_leave_only_the_elements_own_text() {
        use super::without_embedded_objects;
        assert_eq!(without_embedded_objects("Counted 1"), "Counted 1");
        assert_eq!(without_embedded_objects("\u{FFFC}\u{FFFC}\u{FFFC}"), "");
        assert_eq!(
            without_embedded_objects("Read \u{FFFC} first. "),
            "Read   first."
        );
    }

    #[test]
    fn numbers_print_plainly() {
        assert_eq!(format_number(42.0), "42");
        assert_eq!(format_number(-3.0), "-3");
        assert_eq!(format_number(0.25), "0.25");
        assert_eq!(format_number(f64::NAN), "NaN");
    }
}
