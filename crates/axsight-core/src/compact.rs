//! The compact tree: one line per element, two spaces of indent per depth, only what
//! carries information.
//!
//! ```text
//! #u1 [Window] Untitled Document 1 - gedit (active, [0,0,1280,800])
//!   #u2 [MenuBar] ([0,0,1280,24])
//!     #u3 [MenuItem] File ([0,0,40,24])
//!   #u9 [Edit] (focused, value: "hello", [0,30,1280,700])
//! ```
//!
//! Anonymous containers (nameless groups and panes with nothing to say) are left out
//! and their children take their place; subtrees that are not drawn are left out
//! unless asked for; a secret field shows `password`, never its
//! value; a budget cuts big trees and the closing line says what was cut and how to
//! read it. Handles come from the session's [`HandleRegistry`].

use std::fmt::Write as _;

use crate::quoting::{bare, quote};
use crate::{Element, HandleRegistry, NodeId, State, Tree};

/// How much of a tree to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactOptions {
    /// Levels printed below the first element; deeper elements are counted, not shown.
    pub max_depth: Option<usize>,
    /// Characters of output at most, closing line excluded.
    pub max_chars: usize,
    /// Also print elements that are not drawn (marked `hidden`).
    pub include_invisible: bool,
}

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions {
            max_depth: None,
            max_chars: 16_000,
            include_invisible: false,
        }
    }
}

/// A printed tree and what it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    /// Elements printed.
    pub printed: usize,
    /// Elements left out by the budget or the depth limit.
    pub cut: usize,
}

/// One element that will be printed, at its printed depth.
struct Line {
    node: NodeId,
    depth: usize,
    /// Printable elements below it that `max_depth` hides.
    below_depth: usize,
}

/// Prints the subtree of `tree` under `top`.
pub fn render(
    tree: &Tree,
    top: NodeId,
    registry: &mut HandleRegistry,
    options: &CompactOptions,
) -> Rendered {
    let mut lines = Vec::new();
    collect(tree, top, 0, options, &mut lines);
    let mut text = String::new();
    let mut printed = 0;
    let mut chars = 0;
    for (index, line) in lines.iter().enumerate() {
        let mut entry = String::new();
        for _ in 0..line.depth {
            entry.push_str("  ");
        }
        let element = tree.element(line.node);
        let handle = registry.assign(&element.id, element.role, &element.name);
        entry.push_str(&format_element(
            &handle.to_string(),
            element,
            options.include_invisible,
        ));
        if line.below_depth > 0 {
            let _ = write!(entry, " …+{}", line.below_depth);
        }
        entry.push('\n');
        let entry_chars = entry.chars().count();
        if !text.is_empty() && chars + entry_chars > options.max_chars {
            let rest = &lines[index..];
            let cut = rest.iter().map(|l| 1 + l.below_depth).sum::<usize>();
            let by_depth = lines[..index].iter().map(|l| l.below_depth).sum::<usize>();
            text.push_str(&closing_line(tree, rest, registry, options, by_depth));
            return Rendered {
                text,
                printed,
                cut: cut + by_depth,
            };
        }
        text.push_str(&entry);
        chars += entry_chars;
        printed += 1;
    }
    let by_depth: usize = lines.iter().map(|l| l.below_depth).sum();
    if by_depth > 0 {
        let _ = writeln!(
            text,
            "[{by_depth} deeper elements not shown (max_depth {}); `…+N` marks where: read one with from: \"#u…\"]",
            options.max_depth.unwrap_or_default()
        );
    }
    Rendered {
        text,
        printed,
        cut: by_depth,
    }
}

/// Says what the budget cut: the first cut subtrees with their sizes and handles.
fn closing_line(
    tree: &Tree,
    rest: &[Line],
    registry: &mut HandleRegistry,
    options: &CompactOptions,
    by_depth: usize,
) -> String {
    let min_depth = rest.iter().map(|l| l.depth).min().unwrap_or(0);
    let mut roots: Vec<(String, usize)> = Vec::new();
    for (i, line) in rest.iter().enumerate() {
        if line.depth != min_depth {
            continue;
        }
        let size = 1 + rest[i + 1..]
            .iter()
            .take_while(|l| l.depth > min_depth)
            .count();
        let element = tree.element(line.node);
        roots.push((
            registry
                .assign(&element.id, element.role, &element.name)
                .to_string(),
            size,
        ));
    }
    let total: usize = rest.iter().map(|l| 1 + l.below_depth).sum();
    let shown: Vec<String> = roots
        .iter()
        .take(4)
        .map(|(h, n)| format!("\"{h}\" ({n})"))
        .collect();
    let more = if roots.len() > 4 {
        format!(" and {} more", roots.len() - 4)
    } else {
        String::new()
    };
    let depth_note = if by_depth > 0 {
        format!("; {by_depth} more are below max_depth")
    } else {
        String::new()
    };
    format!(
        "[cut: {total} more elements past the {}-character budget{depth_note}. Read them with from: {}{more}, or a smaller max_depth]\n",
        options.max_chars,
        shown.join(", "),
    )
}

/// Whether the element is printed at all.
fn visible(element: &Element, options: &CompactOptions) -> bool {
    options.include_invisible || element.is_shown()
}

fn printable_children<'t>(
    tree: &'t Tree,
    node: NodeId,
    options: &'t CompactOptions,
) -> impl Iterator<Item = NodeId> + 't {
    tree.node(node)
        .children
        .iter()
        .copied()
        .filter(move |&child| visible(tree.element(child), options))
}

/// Whether the element is an anonymous container: a group, pane or filler with no
/// name, value, description, actions or telling state. Its line would say nothing
/// its children's lines and bounds do not, so its children take its place.
fn is_anonymous(element: &Element, options: &CompactOptions) -> bool {
    element.role.is_container()
        && element.name.is_empty()
        && !element.actionable
        && attributes(element, options.include_invisible).len()
            == usize::from(element.bounds.is_some())
}

/// Whether `element`, read without its box, is folded away when printed (an
/// anonymous container): a reader that only prints may leave its box unread.
///
/// ```
/// use axsight_core::{folds_away, Element, Role};
/// assert!(folds_away(&Element::new("g", Role::Group, "panel")));
/// let mut named = Element::new("g", Role::Group, "panel");
/// named.name = "Options".into();
/// assert!(!folds_away(&named));
/// ```
pub fn folds_away(element: &Element) -> bool {
    element.bounds.is_none() && is_anonymous(element, &CompactOptions::default())
}

fn collect(
    tree: &Tree,
    node: NodeId,
    depth: usize,
    options: &CompactOptions,
    lines: &mut Vec<Line>,
) {
    // The first element is always printed; below it, anonymous containers give
    // their place to their children.
    if depth > 0 && is_anonymous(tree.element(node), options) {
        for child in printable_children(tree, node, options).collect::<Vec<_>>() {
            collect(tree, child, depth, options, lines);
        }
        return;
    }
    if options.max_depth.is_some_and(|max| depth > max) {
        return;
    }
    let index = lines.len();
    lines.push(Line {
        node,
        depth,
        below_depth: 0,
    });
    let at_limit = options.max_depth == Some(depth);
    for child in printable_children(tree, node, options).collect::<Vec<_>>() {
        if at_limit {
            lines[index].below_depth += count_printable(tree, child, options);
        } else {
            collect(tree, child, depth + 1, options, lines);
        }
    }
}

/// How many lines the elements below `node` would print (what a one-line summary
/// of a subtree counts).
pub(crate) fn printed_below(tree: &Tree, node: NodeId) -> usize {
    let options = CompactOptions::default();
    printable_children(tree, node, &options)
        .map(|child| count_printable(tree, child, &options))
        .sum()
}

fn count_printable(tree: &Tree, node: NodeId, options: &CompactOptions) -> usize {
    let own = usize::from(!is_anonymous(tree.element(node), options));
    own + printable_children(tree, node, options)
        .map(|child| count_printable(tree, child, options))
        .sum::<usize>()
}

/// Formats one element's line (without indent): handle, role, name, then the
/// attributes that carry information.
///
/// ```
/// use axsight_core::{format_element, Bounds, Element, Role, State};
/// let mut save = Element::new("a", Role::Button, "push button");
/// save.name = "Save".into();
/// save.states.insert(State::Focused);
/// save.bounds = Some(Bounds { x: 840, y: 32, width: 68, height: 28 });
/// assert_eq!(format_element("#u14", &save, false), "#u14 [Button] Save (focused, [840,32,68,28])");
/// ```
pub fn format_element(handle: &str, element: &Element, mark_hidden: bool) -> String {
    let mut line = element_head(handle, element);
    let attributes = attributes(element, mark_hidden);
    if !attributes.is_empty() {
        let _ = write!(line, " ({})", attributes.join(", "));
    }
    line
}

/// The start of every line that names an element: `#u14 [Button] Save`.
pub fn element_head(handle: &str, element: &Element) -> String {
    let mut head = format!("{handle} [{}]", element.role);
    if !element.name.is_empty() {
        head.push(' ');
        head.push_str(&bare(&element.name));
    }
    head
}

/// The states worth printing: those that differ from what an element usually is.
pub(crate) const PRINTED_STATES: &[State] = &[
    State::Active,
    State::Focused,
    State::Checked,
    State::Indeterminate,
    State::Pressed,
    State::Selected,
    State::Expanded,
    State::Modal,
    State::Required,
    State::InvalidEntry,
    State::ReadOnly,
    State::Busy,
];

fn attributes(element: &Element, mark_hidden: bool) -> Vec<String> {
    let states = element.states;
    let mut out: Vec<String> = PRINTED_STATES
        .iter()
        .filter(|state| states.contains(**state))
        .map(|state| state.as_str().to_string())
        .collect();
    if states.contains(State::Expandable) && !states.contains(State::Expanded) {
        out.push("collapsed".into());
    }
    let interactive = element.actionable || states.contains(State::Focusable);
    if interactive && !states.is_enabled() {
        out.push("disabled".into());
    }
    if mark_hidden && !element.is_shown() {
        out.push("hidden".into());
    }
    if element.is_secret() {
        out.push("password".into());
    } else if let Some(value) = &element.value {
        if value != &element.name {
            out.push(format!("value: {}", quote(value)));
        }
    }
    if !element.description.is_empty() && element.description != element.name {
        out.push(format!("desc: {}", quote(&element.description)));
    }
    if let Some(b) = element.bounds {
        out.push(format!("[{},{},{},{}]", b.x, b.y, b.width, b.height));
    }
    out
}

#[cfg(test)]
mod tests;
