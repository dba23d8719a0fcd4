//! What changed between two captures of one window, by object identity: a renamed
//! button is a change, not a removal and an addition. A subtree the app made anew
//! just as it was, in the same place, is no change at all (its handles carry over).
//!
//! ```text
//! added:
//!   #u31 [Dialog] Save As (active, [800,400,600,420])
//!     #u32 [Button] Save ([1200,780,80,30])
//! removed:
//!   #u7 [MenuItem] Save As...
//! changed:
//!   #u9 [Edit]: value "hello" -> "hello world"
//!   #u14 [Button] Save: focused no -> yes
//! ```
//!
//! "Present" means what the compact tree would print: an element is present when it
//! and all its ancestors are drawn. An element that scrolls out of view is removed
//! from the agent's view; one that comes into view is added. Secret values are
//! never compared, so a diff cannot show them.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::compact::{element_head, printed_below, repeats_its_parent, PRINTED_STATES};
use crate::quoting::quote;
use crate::{
    render, Bounds, CompactOptions, Element, ElementId, HandleRegistry, NodeId, Role, Tree,
};

/// One field of an element that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldChange {
    Name {
        from: String,
        to: String,
    },
    Value {
        from: Option<String>,
        to: Option<String>,
    },
    Description {
        from: String,
        to: String,
    },
    /// A printed state turned on (`now: true`) or off.
    State {
        state: &'static str,
        now: bool,
    },
    /// A terminal's screen: the rows that came since (see
    /// [`crate::terminal::new_rows`]).
    Rows(crate::terminal::NewRows),
    Bounds {
        from: Option<Bounds>,
        to: Option<Bounds>,
    },
}

/// An element present in both captures whose printed fields differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub after: NodeId,
    pub fields: Vec<FieldChange>,
}

/// The difference between two captures of one window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeDiff {
    /// Roots of subtrees that appeared, as nodes of the "after" tree.
    pub added: Vec<NodeId>,
    /// Roots of subtrees that went away, as nodes of the "before" tree.
    pub removed: Vec<NodeId>,
    pub changed: Vec<Changed>,
    /// Subtrees the app made anew just as they were, in the same place
    /// (LibreOffice rebuilds its sidebar's tab bar on every edit): each pair is
    /// one element before and after, every element of the subtree listed. Not
    /// printed; their handles carry over to the new objects.
    pub rebuilt: Vec<(NodeId, NodeId)>,
}

impl TreeDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The elements a compact tree would print, by identity: drawn, under drawn
/// ancestors. The root is always present.
fn present(tree: &Tree) -> HashMap<&ElementId, NodeId> {
    let mut out = HashMap::new();
    if tree.is_empty() {
        return out;
    }
    let mut stack = vec![tree.root()];
    while let Some(id) = stack.pop() {
        out.insert(&tree.element(id).id, id);
        stack.extend(
            tree.node(id)
                .children
                .iter()
                .copied()
                .filter(|&c| tree.element(c).is_shown()),
        );
    }
    out
}

/// Compares two captures of one window.
pub fn diff(before: &Tree, after: &Tree) -> TreeDiff {
    let was = present(before);
    let is = present(after);
    let added_all: HashSet<NodeId> = is
        .iter()
        .filter(|(id, _)| !was.contains_key(*id))
        .map(|(_, n)| *n)
        .collect();
    let removed_all: HashSet<NodeId> = was
        .iter()
        .filter(|(id, _)| !is.contains_key(*id))
        .map(|(_, n)| *n)
        .collect();
    let roots = |tree: &Tree, all: &HashSet<NodeId>| {
        let mut roots: Vec<NodeId> = all
            .iter()
            .copied()
            .filter(|&n| tree.node(n).parent.is_none_or(|p| !all.contains(&p)))
            .collect();
        roots.sort();
        roots
    };
    // Node ids follow document order, so sorting them lists changes top to bottom.
    let mut now_present: Vec<NodeId> = is.values().copied().collect();
    now_present.sort();
    let changed = now_present
        .into_iter()
        .filter_map(|now| {
            let then = *was.get(&after.element(now).id)?;
            let fields = compare(before.element(then), after.element(now));
            (!fields.is_empty()).then_some(Changed { after: now, fields })
        })
        .collect();
    let mut added = roots(after, &added_all);
    let mut removed = roots(before, &removed_all);
    let rebuilt = rebuilt_alike(before, &mut removed, after, &mut added);
    TreeDiff {
        added,
        removed,
        changed,
        rebuilt,
    }
}

/// Takes out of `removed` and `added` the subtrees made anew just as they
/// were, under the same parent, and returns them element by element.
fn rebuilt_alike(
    before: &Tree,
    removed: &mut Vec<NodeId>,
    after: &Tree,
    added: &mut Vec<NodeId>,
) -> Vec<(NodeId, NodeId)> {
    fn parent_id(tree: &Tree, node: NodeId) -> Option<&ElementId> {
        tree.node(node).parent.map(|p| &tree.element(p).id)
    }
    let mut pairs = Vec::new();
    removed.retain(|&gone| {
        let Some(twin) = added.iter().position(|&new| {
            parent_id(before, gone) == parent_id(after, new)
                && alike(before, gone, after, new, &mut Vec::new())
        }) else {
            return true;
        };
        let new = added.remove(twin);
        alike(before, gone, after, new, &mut pairs);
        false
    });
    pairs
}

/// Whether the subtrees at `then` and `now` print the same, element for
/// element; the pairs are pushed onto `pairs` as they are compared.
fn alike(
    before: &Tree,
    then: NodeId,
    after: &Tree,
    now: NodeId,
    pairs: &mut Vec<(NodeId, NodeId)>,
) -> bool {
    let (a, b) = (before.element(then), after.element(now));
    if a.role != b.role || !compare(a, b).is_empty() {
        return false;
    }
    let shown = |tree: &Tree, node: NodeId| -> Vec<NodeId> {
        tree.node(node)
            .children
            .iter()
            .copied()
            .filter(|&c| tree.element(c).is_shown())
            .collect()
    };
    let (these, those) = (shown(before, then), shown(after, now));
    pairs.push((then, now));
    these.len() == those.len()
        && these
            .into_iter()
            .zip(those)
            .all(|(this, that)| alike(before, this, after, that, pairs))
}

/// The printed fields of one element that differ between two captures.
fn compare(then: &Element, now: &Element) -> Vec<FieldChange> {
    let mut fields = Vec::new();
    if then.name != now.name {
        fields.push(FieldChange::Name {
            from: then.name.clone(),
            to: now.name.clone(),
        });
    }
    if now.role == Role::Terminal && then.value != now.value {
        let (then, now) = (then.value.as_deref(), now.value.as_deref());
        fields.push(FieldChange::Rows(crate::terminal::new_rows(
            then.unwrap_or_default(),
            now.unwrap_or_default(),
        )));
    } else if !then.is_secret() && !now.is_secret() && then.value != now.value {
        fields.push(FieldChange::Value {
            from: then.value.clone(),
            to: now.value.clone(),
        });
    }
    if then.description != now.description {
        fields.push(FieldChange::Description {
            from: then.description.clone(),
            to: now.description.clone(),
        });
    }
    for state in PRINTED_STATES {
        let (was, is) = (then.states.contains(*state), now.states.contains(*state));
        if was != is {
            fields.push(FieldChange::State {
                state: state.as_str(),
                now: is,
            });
        }
    }
    // As the tree prints it: `disabled` on a control only.
    let (was_disabled, is_disabled) = (
        crate::compact::is_disabled(then),
        crate::compact::is_disabled(now),
    );
    if was_disabled != is_disabled {
        fields.push(FieldChange::State {
            state: "enabled",
            now: !is_disabled,
        });
    }
    if then.bounds != now.bounds {
        fields.push(FieldChange::Bounds {
            from: then.bounds,
            to: now.bounds,
        });
    }
    fields
}

fn show_bounds(bounds: Option<Bounds>) -> String {
    bounds.map_or_else(
        || "none".into(),
        |b| format!("[{},{},{},{}]", b.x, b.y, b.width, b.height),
    )
}

fn show_value(value: &Option<String>) -> String {
    value.as_deref().map_or_else(|| "none".into(), quote)
}

/// How many of a terminal's new rows a diff prints (the last ones).
const DIFF_ROWS: usize = 40;

/// A terminal's new rows, one per line under its element's line (`+ $ ls`).
fn show_rows(rows: &crate::terminal::NewRows) -> String {
    use crate::terminal::NewRows;
    let (what, rows) = match rows {
        NewRows::Below { rows, .. } if rows.is_empty() => return "its screen changed".into(),
        NewRows::Below {
            rows,
            from_cursor_row: true,
        } => (
            format!("the cursor's row and {} new rows", rows.len() - 1),
            rows,
        ),
        NewRows::Below { rows, .. } => (format!("{} new rows", rows.len()), rows),
        NewRows::Replaced(rows) => (
            "its screen shows none of its rows before (cleared, scrolled past them, or a \
             full-screen program); it shows"
                .into(),
            rows,
        ),
    };
    let mut out = what;
    let skipped = rows.len().saturating_sub(DIFF_ROWS);
    if skipped > 0 {
        out.push_str(&format!("\n    … {skipped} rows before these"));
    }
    for row in &rows[skipped..] {
        out.push_str("\n    + ");
        out.push_str(row);
    }
    out
}

fn yes_no(on: bool) -> &'static str {
    if on {
        "yes"
    } else {
        "no"
    }
}

impl FieldChange {
    fn describe(&self) -> String {
        match self {
            FieldChange::Name { from, to } => {
                format!("name {} -> {}", quote(from), quote(to))
            }
            FieldChange::Value { from, to } => {
                format!("value {} -> {}", show_value(from), show_value(to))
            }
            FieldChange::Description { from, to } => {
                format!("desc {} -> {}", quote(from), quote(to))
            }
            FieldChange::State { state, now } => {
                format!("{state} {} -> {}", yes_no(!now), yes_no(*now))
            }
            FieldChange::Bounds { from, to } => {
                format!("bounds {} -> {}", show_bounds(*from), show_bounds(*to))
            }
            FieldChange::Rows(rows) => show_rows(rows),
        }
    }
}

/// What changed in one window: two captures compared, or a window that opened
/// (everything added) or closed (everything removed).
#[derive(Debug, Clone)]
pub struct WindowChange<'a> {
    pub before: Option<&'a Tree>,
    pub after: Option<&'a Tree>,
    pub diff: TreeDiff,
    /// The app a window opened by another app belongs to, as the diff names it
    /// (`xdg-desktop-portal-gtk, pid 4242`); `None` for the acting app's own.
    pub elsewhere: Option<String>,
}

impl<'a> WindowChange<'a> {
    /// The changes between two captures of one window.
    pub fn between(before: &'a Tree, after: &'a Tree) -> WindowChange<'a> {
        WindowChange {
            before: Some(before),
            after: Some(after),
            diff: diff(before, after),
            elsewhere: None,
        }
    }

    /// A window that appeared.
    pub fn opened(after: &'a Tree) -> WindowChange<'a> {
        let added = if after.is_empty() {
            vec![]
        } else {
            vec![after.root()]
        };
        WindowChange {
            before: None,
            after: Some(after),
            diff: TreeDiff {
                added,
                ..TreeDiff::default()
            },
            elsewhere: None,
        }
    }

    /// A window that another app opened during the action (a desktop portal's
    /// file chooser, a password prompt): printed as opened, under a line naming
    /// `app`.
    pub fn opened_elsewhere(after: &'a Tree, app: String) -> WindowChange<'a> {
        WindowChange {
            elsewhere: Some(app),
            ..WindowChange::opened(after)
        }
    }

    /// A window that went away.
    pub fn closed(before: &'a Tree) -> WindowChange<'a> {
        let removed = if before.is_empty() {
            vec![]
        } else {
            vec![before.root()]
        };
        WindowChange {
            before: Some(before),
            after: None,
            diff: TreeDiff {
                removed,
                ..TreeDiff::default()
            },
            elsewhere: None,
        }
    }
}

/// How many elements moving alike make one line of a diff.
const MOVED_TOGETHER: usize = 4;

/// How far an element moved and resized: (dx, dy, dw, dh).
type Shift = (i32, i32, i32, i32);

/// How far an element moved and resized, when that is all that changed.
fn shift_of(fields: &[FieldChange]) -> Option<Shift> {
    match fields {
        [FieldChange::Bounds {
            from: Some(a),
            to: Some(b),
        }] => Some((b.x - a.x, b.y - a.y, b.width - a.width, b.height - a.height)),
        _ => None,
    }
}

/// `moved 25 px up`, `moved by (10, -25) and resized by (0, 4)`.
fn describe_shift((dx, dy, dw, dh): Shift) -> String {
    let moved = match (dx, dy) {
        (0, 0) => String::new(),
        (0, dy) if dy < 0 => format!("moved {} px up", -dy),
        (0, dy) => format!("moved {dy} px down"),
        (dx, 0) if dx < 0 => format!("moved {} px left", -dx),
        (dx, 0) => format!("moved {dx} px right"),
        (dx, dy) => format!("moved by ({dx}, {dy})"),
    };
    let resized = match (dw, dh) {
        (0, 0) => String::new(),
        (dw, dh) => format!("resized by ({dw}, {dh})"),
    };
    match (moved.is_empty(), resized.is_empty()) {
        (false, false) => format!("{moved} and {resized}"),
        (true, _) => resized,
        (false, true) => moved,
    }
}

/// ` around #u2 [Button] Save` for a nameless container, naming the first named
/// element it holds (with a handle); ` at [x,y,w,h]` for one that holds
/// nothing named, so that its handle says at least where it is; empty for
/// anything else.
fn around(tree: &Tree, node: NodeId, registry: &mut HandleRegistry) -> String {
    if !is_nameless_container(tree, node) {
        return String::new();
    }
    match named_inside(tree, node) {
        Some(inner) => {
            let first = tree.element(inner);
            let held = registry.assign(&first.id, first.role, &first.name);
            format!(" around {}", element_head(&held.to_string(), first))
        }
        None => match tree.element(node).bounds {
            Some(bounds) => format!(" at {}", show_bounds(Some(bounds))),
            None => String::new(),
        },
    }
}

/// A container without a name, below the window: its line alone says nothing.
fn is_nameless_container(tree: &Tree, node: NodeId) -> bool {
    let element = tree.element(node);
    element.name.is_empty() && element.role.is_container() && node != tree.root()
}

/// The first named element a tree prints below `node`, if any.
fn named_inside(tree: &Tree, node: NodeId) -> Option<NodeId> {
    tree.descendants(node).into_iter().skip(1).find(|&n| {
        let inner = tree.element(n);
        !inner.name.is_empty() && inner.is_shown() && !crate::compact::never_printed(inner)
    })
}

/// Prints the changes of one or more windows, giving every element they name a
/// handle (new elements get theirs now, so the agent can act on them at once).
///
/// An added subtree that does not fit the `max_chars` budget is summarised as its
/// first line with a count and the handle to expand; what still does not fit is
/// counted in a closing line.
pub fn render_diff(
    changes: &[WindowChange<'_>],
    registry: &mut HandleRegistry,
    max_chars: usize,
) -> String {
    for change in changes {
        if let (Some(before), Some(after)) = (change.before, change.after) {
            for &(then, now) in &change.diff.rebuilt {
                registry.carry(&before.element(then).id, &after.element(now).id);
            }
        }
    }
    if changes.iter().all(|c| c.diff.is_empty()) {
        return "no change\n".into();
    }
    let mut out = String::new();
    let mut left_out = 0usize;
    let room = |out: &String, extra: usize| out.chars().count() + extra <= max_chars;
    let added: Vec<(&Tree, NodeId, Option<&str>)> = changes
        .iter()
        .filter_map(|c| Some(c.after?).map(|tree| (tree, c)))
        .flat_map(|(tree, change)| {
            let elsewhere = change.elsewhere.as_deref();
            change
                .diff
                .added
                .iter()
                .filter(|&&root| !is_a_renamed_parents_label(tree, root, &change.diff.changed))
                .map(move |&root| (tree, root, elsewhere))
        })
        .collect();
    if !added.is_empty() {
        out.push_str("added:\n");
        // What was printed already: a toolkit may list one popup twice (GTK 3's
        // combo box: its menu under the combo box and in a window of its own).
        let mut shown: HashSet<ElementId> = HashSet::new();
        for (after, root, elsewhere) in added {
            if let Some(app) = elsewhere {
                let _ = writeln!(out, "  a window of another app, {app}, opened meanwhile:");
            }
            let below: Vec<NodeId> = after
                .descendants(root)
                .into_iter()
                .filter(|&n| n != root)
                .collect();
            if !below.is_empty() && below.iter().all(|&n| shown.contains(&after.element(n).id)) {
                let element = after.element(root);
                let handle = registry.assign(&element.id, element.role, &element.name);
                let first = after.element(after.node(root).children[0]);
                let inner = registry.assign(&first.id, first.role, &first.name);
                let line = format!(
                    "{} holding {}, shown above",
                    crate::compact::format_element(&handle.to_string(), element, false),
                    element_head(&inner.to_string(), first)
                );
                if room(&out, line.chars().count() + 3) {
                    let _ = writeln!(out, "  {line}");
                }
                continue;
            }
            shown.extend(
                std::iter::once(root)
                    .chain(below)
                    .map(|n| after.element(n).id.clone()),
            );
            let options = CompactOptions {
                max_chars: max_chars.saturating_sub(out.chars().count()).max(1),
                ..CompactOptions::default()
            };
            let rendered = render(after, root, registry, &options);
            let indented = rendered.text.chars().count() + 2 * rendered.printed;
            if rendered.cut == 0 && rendered.printed > 0 && room(&out, indented) {
                for line in rendered.text.lines() {
                    let _ = writeln!(out, "  {line}");
                }
                continue;
            }
            // Too big for what is left: one line, a count and the handle to expand.
            let element = after.element(root);
            let handle = registry.assign(&element.id, element.role, &element.name);
            let inside = printed_below(after, root);
            let line = format!(
                "{} (+{inside} inside; get_window_tree from: \"{handle}\")",
                element_head(&handle.to_string(), element)
            );
            if room(&out, line.chars().count() + 3) {
                let _ = writeln!(out, "  {line}");
            } else {
                left_out += 1 + inside;
            }
        }
    }
    let section = |out: &mut String, title: &str, lines: Vec<String>, left_out: &mut usize| {
        if lines.is_empty() {
            return;
        }
        out.push_str(title);
        for line in lines {
            if room(out, line.chars().count() + 3) {
                let _ = writeln!(out, "  {line}");
            } else {
                *left_out += 1;
            }
        }
    };
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    // Changes that are only a move, by how far, each as its head and its line.
    let mut moves: Vec<(Shift, Vec<(String, String)>)> = Vec::new();
    // An element listed in two windows (a popup's items, under their combo box
    // and in the popup's own window) is told once.
    let mut told: HashSet<(bool, ElementId)> = HashSet::new();
    for change in changes {
        if let Some(before) = change.before {
            for &n in &change.diff.removed {
                let element = before.element(n);
                if !told.insert((false, element.id.clone())) {
                    continue;
                }
                let renamed_parent = before.node(n).parent.is_some_and(|parent| {
                    let id = &before.element(parent).id;
                    change.after.is_some_and(|after| {
                        change
                            .diff
                            .changed
                            .iter()
                            .any(|c| &after.element(c.after).id == id)
                    })
                });
                if renamed_parent && repeats_its_parent(before, n) {
                    continue;
                }
                let handle = registry.assign(&element.id, element.role, &element.name);
                let inside = printed_below(before, n);
                let mut line = element_head(&handle.to_string(), element);
                line.push_str(&around(before, n, registry));
                if inside > 0 {
                    let _ = write!(line, " (+{inside} inside)");
                }
                removed.push(line);
            }
        }
        if let Some(after) = change.after {
            for item in &change.diff.changed {
                if says_only_what_its_parent_says(after, item, &change.diff.changed) {
                    continue;
                }
                // A container no tree prints that only moved: its children's
                // lines say where they went.
                let moved_only = item
                    .fields
                    .iter()
                    .all(|field| matches!(field, FieldChange::Bounds { .. }));
                if moved_only && crate::compact::never_printed(after.element(item.after)) {
                    continue;
                }
                let element = after.element(item.after);
                if !told.insert((true, element.id.clone())) {
                    continue;
                }
                let handle = registry.assign(&element.id, element.role, &element.name);
                let mut line = element_head(&handle.to_string(), element);
                // A nameless container is told by what it holds: trees may never
                // print its line, and its handle alone says nothing.
                line.push_str(&around(after, item.after, registry));
                // A terminal's rows, on lines of their own, come last.
                let (rows, others): (Vec<&FieldChange>, Vec<&FieldChange>) = item
                    .fields
                    .iter()
                    .partition(|field| matches!(field, FieldChange::Rows(_)));
                let fields: Vec<String> = others
                    .into_iter()
                    .chain(rows)
                    .map(FieldChange::describe)
                    .collect();
                let head = line.clone();
                let _ = write!(line, ": {}", fields.join("; "));
                match shift_of(&item.fields) {
                    Some(shift) => match moves.iter_mut().find(|(s, _)| *s == shift) {
                        Some((_, group)) => group.push((head, line)),
                        None => moves.push((shift, vec![(head, line)])),
                    },
                    None => changed.push(line),
                }
            }
        }
    }
    // Many elements that moved alike (a sidebar shifted up under a new
    // toolbar row) are one line, not one each.
    for (shift, group) in moves {
        if group.len() < MOVED_TOGETHER {
            changed.extend(group.into_iter().map(|(_, line)| line));
            continue;
        }
        let named: Vec<&str> = group
            .iter()
            .take(3)
            .map(|(head, _)| head.as_str())
            .collect();
        changed.push(format!(
            "{} elements {}: {}, and {} more",
            group.len(),
            describe_shift(shift),
            named.join(", "),
            group.len() - named.len()
        ));
    }
    section(&mut out, "removed:\n", removed, &mut left_out);
    section(&mut out, "changed:\n", changed, &mut left_out);
    if left_out > 0 {
        let _ = writeln!(
            out,
            "[cut: {left_out} more changes past the {max_chars}-character budget; read the window with get_window_tree]"
        );
    }
    out
}

/// Whether `node`, added, only repeats the name of its parent, which changed:
/// the words of a renamed element, put in a new child (Chromium replaces a
/// `static` when its text changes). The parent's line says it.
fn is_a_renamed_parents_label(after: &Tree, node: NodeId, changed: &[Changed]) -> bool {
    after
        .node(node)
        .parent
        .is_some_and(|parent| changed.iter().any(|c| c.after == parent))
        && repeats_its_parent(after, node)
}

/// Whether `item` is about a child folded into its parent in the compact tree
/// (GTK4's `[Text] OK` in `[Button] OK`) whose every change its parent's line
/// already shows: a renamed button's label is renamed with it.
fn says_only_what_its_parent_says(after: &Tree, item: &Changed, changed: &[Changed]) -> bool {
    let Some(parent) = after.node(item.after).parent else {
        return false;
    };
    let Some(parents) = changed.iter().find(|c| c.after == parent) else {
        return false;
    };
    repeats_its_parent(after, item.after)
        && item.fields.iter().all(|field| {
            parents.fields.contains(field)
                || matches!(field, FieldChange::Bounds { .. })
                    && parents
                        .fields
                        .iter()
                        .any(|f| matches!(f, FieldChange::Bounds { .. }))
        })
}

#[cfg(test)]
mod tests;
