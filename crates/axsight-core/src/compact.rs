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
//! and their children take their place; so is a child that only repeats its printed
//! parent's name (GTK4's `[Text] OK` inside `[Button] OK`), and a label beside the
//! field it names, which fold into that line and keep their handles; a lone `Text`
//! that labels its parent becomes the parent's `label: "…"`; subtrees that are not
//! drawn are left out
//! unless asked for; a secret field shows `password`, never its
//! value; a budget cuts big trees and the closing line says what was cut and how to
//! read it. Handles come from the session's [`HandleRegistry`].

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::quoting::{bare, quote};
use crate::{Element, HandleRegistry, NodeId, Role, State, Tree};

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
    /// Children folded into it (they repeat its name, or are its label): not
    /// printed, but numbered with it so that their handles resolve.
    folded: Vec<NodeId>,
    /// The words of its one `Text` child, folded into it, printed `label: "…"`.
    label: Option<NodeId>,
    /// A line that stands for this many children of a long run left out (see
    /// `runs`), `node` the first of them: their count, most of them's role,
    /// and the run's parent, whose handle reads them.
    elided: Option<(usize, Role, NodeId)>,
}

impl Line {
    /// The line of `count` children (most of them `role`s) left out of a run
    /// under `parent`, the first of them `first`.
    fn elision(first: NodeId, depth: usize, count: usize, role: Role, parent: NodeId) -> Line {
        Line {
            node: first,
            depth,
            below_depth: 0,
            folded: Vec::new(),
            label: None,
            elided: Some((count, role, parent)),
        }
    }
}

/// Lines printed under an element as its children, by the element's node:
/// what a screenshot source read in a silent surface
/// (`#o12 "draft.txt" [900,450,60,14] 0.93`), written without indent.
pub type InlineLines = HashMap<NodeId, Vec<String>>;

/// Prints the subtree of `tree` under `top`.
pub fn render(
    tree: &Tree,
    top: NodeId,
    registry: &mut HandleRegistry,
    options: &CompactOptions,
) -> Rendered {
    render_with(tree, top, registry, options, &InlineLines::new())
}

/// [`render`], with `inline`'s lines printed under their elements, after
/// their children; such an element always prints a line of its own (an
/// anonymous container that holds what OCR read is no longer anonymous).
///
/// ```
/// use axsight_core::{render_with, Bounds, CompactOptions, Element, HandleRegistry, InlineLines, Role, State, StateSet, Tree};
/// let mut view = Element::new("v", Role::Group, "panel");
/// view.states = StateSet::from_iter([State::Showing, State::Visible]);
/// view.bounds = Some(Bounds { x: 0, y: 0, width: 300, height: 200 });
/// let tree = Tree::new(view);
/// let inline = InlineLines::from([(tree.root(), vec!["#o1 \"draft.txt\" [10,10,60,14] 0.93".to_string()])]);
/// let text = render_with(&tree, tree.root(), &mut HandleRegistry::new(), &CompactOptions::default(), &inline).text;
/// assert_eq!(text, "#u1 [Group] ([0,0,300,200])\n  #o1 \"draft.txt\" [10,10,60,14] 0.93\n");
/// ```
pub fn render_with(
    tree: &Tree,
    top: NodeId,
    registry: &mut HandleRegistry,
    options: &CompactOptions,
    inline: &InlineLines,
) -> Rendered {
    let mut lines = Vec::new();
    collect(tree, top, 0, None, options, inline, &mut lines);
    runs::shorten_runs(
        tree,
        &mut lines,
        options.max_chars,
        options.include_invisible,
    );
    let mut text = String::new();
    let mut printed = 0;
    let mut chars = 0;
    // Inline blocks wait for their element's children: (depth, block).
    let mut waiting: Vec<(usize, String)> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut entry = String::new();
        while waiting
            .last()
            .is_some_and(|(depth, _)| *depth >= line.depth)
        {
            let (_, block) = waiting.pop().expect("a waiting block");
            entry.push_str(&block);
        }
        for _ in 0..line.depth {
            entry.push_str("  ");
        }
        let element = tree.element(line.node);
        if let Some((count, role, parent)) = line.elided {
            let parent = tree.element(parent);
            let handle = registry.assign(&parent.id, parent.role, &parent.name);
            let _ = writeln!(
                entry,
                "… {count} more {role} here: read them with from: \"{handle}\""
            );
            text.push_str(&entry);
            chars += entry.chars().count();
            continue;
        }
        let handle = registry.assign(&element.id, element.role, &element.name);
        for &folded in &line.folded {
            let element = tree.element(folded);
            registry.assign(&element.id, element.role, &element.name);
        }
        let label = line.label.map(|child| tree.element(child).name.as_str());
        entry.push_str(&format_line(
            &handle.to_string(),
            element,
            options.include_invisible,
            label,
        ));
        if line.below_depth > 0 {
            let _ = write!(entry, " …+{}", line.below_depth);
        }
        entry.push('\n');
        if element.role == Role::Terminal {
            terminal_rows(&mut entry, element, line.depth + 1);
        }
        if let Some(reads) = inline.get(&line.node) {
            let mut block = String::new();
            for read in reads {
                for _ in 0..=line.depth {
                    block.push_str("  ");
                }
                block.push_str(read);
                block.push('\n');
            }
            waiting.push((line.depth, block));
        }
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
    // The last blocks close the text: held to the budget line by line.
    let mut left_out = 0;
    while let Some((_, block)) = waiting.pop() {
        for line in block.split_inclusive('\n') {
            let line_chars = line.chars().count();
            if left_out > 0 || chars + line_chars > options.max_chars {
                left_out += 1;
                continue;
            }
            text.push_str(line);
            chars += line_chars;
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            text,
            "[{left_out} more lines read from the pixels past the {}-character budget; raise max_chars to see them]",
            options.max_chars
        );
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

/// How many of a terminal's last rows a tree prints, and in how many characters.
const TERMINAL_ROWS: usize = 40;
const TERMINAL_CHARS: usize = 3000;

/// A terminal's last rows, one per line below its element (`| $ ls`), after a
/// line saying how many rows above are left out.
fn terminal_rows(entry: &mut String, element: &Element, depth: usize) {
    let Some(screen) = &element.value else { return };
    let (above, rows) = crate::terminal::last_rows(screen, TERMINAL_ROWS, TERMINAL_CHARS);
    let indent = "  ".repeat(depth);
    if above > 0 {
        let _ = writeln!(entry, "{indent}| … {above} rows above");
    }
    for row in rows {
        let _ = writeln!(entry, "{indent}| {row}");
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

/// Whether the element is printed `disabled`: a control (by its actions, its
/// focus or its role: Qt 5's toolbar buttons offer neither) that is neither
/// enabled nor sensitive. Labels and containers of toolkits that leave them
/// without ENABLED are not. The diff's `enabled` change follows the same rule.
pub(crate) fn is_disabled(element: &Element) -> bool {
    let control = element.actionable
        || element.states.contains(State::Focusable)
        || matches!(
            element.role,
            Role::Button
                | Role::ToggleButton
                | Role::CheckBox
                | Role::Switch
                | Role::RadioButton
                | Role::ComboBox
                | Role::MenuItem
                | Role::CheckMenuItem
                | Role::RadioMenuItem
                | Role::Slider
                | Role::SpinButton
                | Role::Edit
                | Role::Link
                | Role::TabItem
        );
    control && !element.states.is_enabled()
}

/// Whether a tree never prints the element's line (an anonymous container,
/// whose children take its place).
pub(crate) fn never_printed(element: &Element) -> bool {
    is_anonymous(element, &CompactOptions::default())
}

/// Whether the element is an anonymous container: a group, pane or filler with no
/// name, value, description, actions or telling state. Its line would say nothing
/// its children's lines and bounds do not, so its children take its place. A bare
/// separator is the same, and so is an empty `Text` that cannot take focus (GTK4's
/// labels offer clipboard actions even when they hold no words): nothing to read or
/// act on.
fn is_anonymous(element: &Element, options: &CompactOptions) -> bool {
    let silent = element.name.is_empty()
        && attributes(element, options.include_invisible).len()
            == usize::from(element.bounds.is_some());
    let kind = match element.role {
        Role::Text => !element.states.contains(State::Focusable),
        Role::Separator => !element.actionable,
        role => role.is_container() && !element.actionable,
    };
    silent && kind
}

/// Whether `element` only repeats the name of `parent`, the printed element it sits
/// under: the same name, not focusable, no actions (a `Text` may have some: GTK4
/// labels offer their context menu's clipboard and link actions, and it is the
/// parent that acts), and nothing else to print but its bounds, inside the
/// parent's. Its line would say nothing new (GTK4 gives each button and check box a
/// `[Text]` of its own label; Chromium nests a static text's words in a text of the
/// same words), so it folds into the parent: an agent acts on the parent, and a
/// selector still finds the child.
fn repeats_parent(element: &Element, parent: &Element, options: &CompactOptions) -> bool {
    !element.name.is_empty()
        && element.name == parent.name
        && (!element.actionable || element.role == Role::Text)
        && quiet_inside(element, parent, options)
}

/// Whether the element of `node` repeats its tree parent's name and folds into it
/// (what a diff line about it would only say again).
pub(crate) fn repeats_its_parent(tree: &Tree, node: NodeId) -> bool {
    tree.node(node).parent.is_some_and(|parent| {
        repeats_parent(
            tree.element(node),
            tree.element(parent),
            &CompactOptions::default(),
        )
    })
}

/// Whether `element` is not focusable, has nothing to print but its name and
/// bounds, and lies inside `parent`'s box: folded into the parent, it loses nothing.
fn quiet_inside(element: &Element, parent: &Element, options: &CompactOptions) -> bool {
    let inside = match (element.bounds, parent.bounds) {
        (Some(own), Some(outer)) => outer.intersection(&own) == Some(own),
        (None, _) => true,
        (Some(_), None) => false,
    };
    !element.states.contains(State::Focusable)
        && inside
        && attributes(element, options.include_invisible).len()
            == usize::from(element.bounds.is_some())
}

/// Whether `line`, the one line printed below the element `parent`, only labels
/// it: a `Text` with a name (GTK4 puts one in every nameless button and tab;
/// Chromium in an element that only holds words), or a named `Image` without
/// actions (GTK4's colour button holds its swatch), with nothing printed below it,
/// not focusable, nothing else to print but its bounds, inside the parent's. Its
/// words join the parent's line as `label: "…"` and its own line goes: the parent
/// is what acts.
fn labels(tree: &Tree, line: &Line, parent: NodeId, options: &CompactOptions) -> bool {
    let element = tree.element(line.node);
    let parent = tree.element(parent);
    line.label.is_none()
        && line.below_depth == 0
        && (element.role == Role::Text || element.role == Role::Image && !element.actionable)
        && !element.name.is_empty()
        && element.name != parent.name
        && quiet_inside(element, parent, options)
}

/// Whether `node` prints no line of its own under the printed element `parent`
/// (`None` for the first element, which always prints): it is an anonymous container
/// or repeats the parent's name. Either way its children take its place.
fn folds(tree: &Tree, node: NodeId, parent: Option<NodeId>, options: &CompactOptions) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    let element = tree.element(node);
    is_anonymous(element, options) || repeats_parent(element, tree.element(parent), options)
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

/// Gathers the lines of `node`'s subtree; `parent` is the index in `lines` of the
/// printed element it sits under. An element with `inline` lines never folds.
fn collect(
    tree: &Tree,
    node: NodeId,
    depth: usize,
    parent: Option<usize>,
    options: &CompactOptions,
    inline: &InlineLines,
    lines: &mut Vec<Line>,
) {
    let folded = parent.filter(|&at| {
        !inline.contains_key(&node) && folds(tree, node, Some(lines[at].node), options)
    });
    if let Some(at) = folded {
        if !is_anonymous(tree.element(node), options) {
            lines[at].folded.push(node);
        }
        for child in printable_children(tree, node, options).collect::<Vec<_>>() {
            collect(tree, child, depth, parent, options, inline, lines);
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
        folded: Vec::new(),
        label: None,
        elided: None,
    });
    // At the depth limit the levels below are gathered all the same, to be counted
    // as they would print, then dropped.
    let at_limit = options.max_depth == Some(depth);
    let unlimited = CompactOptions {
        max_depth: None,
        ..*options
    };
    let below_options = if at_limit { &unlimited } else { options };
    for child in printable_children(tree, node, options).collect::<Vec<_>>() {
        collect(
            tree,
            child,
            depth + 1,
            Some(index),
            below_options,
            inline,
            lines,
        );
    }
    fold_sibling_labels(tree, lines, index, options);
    if lines.len() == index + 2 && labels(tree, &lines[index + 1], node, options) {
        let label = lines.pop().expect("two lines");
        let line = &mut lines[index];
        line.folded.push(label.node);
        line.folded.extend(label.folded);
        line.label = Some(label.node);
    } else if at_limit {
        lines[index].below_depth = lines.len() - index - 1;
        lines.truncate(index + 1);
    }
}

/// Folds each `Text` line below `lines[parent]` that only repeats the name of the
/// line beside it (GTK's `[Text] Name` next to the `[Edit] Name` it labels) into
/// that line: the field already says the name, and it is what the agent acts on.
/// The label must be a leaf with nothing else to print, and cannot take focus.
/// A button or a link beside the same words is left alone: it says its own name,
/// and the words are a thing of their own (a web page's unwired "Save draft"
/// next to a wired one).
fn fold_sibling_labels(
    tree: &Tree,
    lines: &mut Vec<Line>,
    parent: usize,
    options: &CompactOptions,
) {
    let depth = lines[parent].depth + 1;
    let kids: Vec<usize> = (parent + 1..lines.len())
        .filter(|&i| lines[i].depth == depth)
        .collect();
    let leaf = |i: usize| lines.get(i + 1).is_none_or(|next| next.depth <= depth);
    // (label line, field line) pairs, decided first and applied after.
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for (k, &at) in kids.iter().enumerate() {
        let element = tree.element(lines[at].node);
        let label = element.role == Role::Text
            && !element.name.is_empty()
            && lines[at].label.is_none()
            && leaf(at)
            && !element.states.contains(State::Focusable)
            && attributes(element, options.include_invisible).len()
                == usize::from(element.bounds.is_some());
        if !label {
            continue;
        }
        let named = |i: &&usize| {
            let other = tree.element(lines[**i].node);
            other.role != Role::Text
                && !other.role.counts_own_clicks()
                && !matches!(other.role, Role::Link | Role::MenuItem)
                && other.name == element.name
                && !moves.iter().any(|&(gone, _)| gone == **i)
        };
        let beside = kids.get(k + 1).filter(named).or_else(|| {
            k.checked_sub(1)
                .and_then(|before| kids.get(before))
                .filter(named)
        });
        if let Some(&field) = beside {
            moves.push((at, field));
        }
    }
    for &(at, field) in &moves {
        let node = lines[at].node;
        let folded = std::mem::take(&mut lines[at].folded);
        lines[field].folded.push(node);
        lines[field].folded.extend(folded);
    }
    for &(at, _) in moves.iter().rev() {
        lines.remove(at);
    }
}

/// How many lines the elements below `node` would print (what a one-line summary
/// of a subtree counts).
pub(crate) fn printed_below(tree: &Tree, node: NodeId) -> usize {
    let mut lines = Vec::new();
    let options = CompactOptions::default();
    collect(
        tree,
        node,
        0,
        None,
        &options,
        &InlineLines::new(),
        &mut lines,
    );
    lines.len().saturating_sub(1)
}

/// Formats one element's line (without indent): handle, role, name, then the
/// attributes that carry information.
///
/// ```
/// use axsight_core::{format_element, Bounds, Element, Role, State};
/// let mut save = Element::new("a", Role::Button, "push button");
/// save.name = "Save".into();
/// save.states.insert(State::Focused);
/// save.states.insert(State::Enabled);
/// save.bounds = Some(Bounds { x: 840, y: 32, width: 68, height: 28 });
/// assert_eq!(format_element("#u14", &save, false), "#u14 [Button] Save (focused, [840,32,68,28])");
/// // A control neither enabled nor sensitive is disabled, actions or not.
/// save.states.remove(State::Enabled);
/// assert_eq!(format_element("#u14", &save, false), "#u14 [Button] Save (focused, disabled, [840,32,68,28])");
/// // A field's placeholder is a hint, not its value.
/// let mut search = Element::new("f", Role::Edit, "text");
/// search.name = "Search".into();
/// search.states.insert(State::Enabled);
/// search.value = Some(String::new());
/// search.hint = Some("Search here".into());
/// assert_eq!(format_element("#u15", &search, false), r#"#u15 [Edit] Search (value: "", hint: "Search here")"#);
/// ```
pub fn format_element(handle: &str, element: &Element, mark_hidden: bool) -> String {
    format_line(handle, element, mark_hidden, None)
}

/// [`format_element`] with the words of a folded label child, if it has one.
fn format_line(handle: &str, element: &Element, mark_hidden: bool, label: Option<&str>) -> String {
    let mut line = element_head(handle, element);
    let mut attributes = attributes(element, mark_hidden);
    if let Some(label) = label {
        // Before the bounds, which always come last.
        let at = attributes.len() - usize::from(element.bounds.is_some());
        attributes.insert(at, format!("label: {}", quote(label)));
    }
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
    if is_disabled(element) {
        out.push("disabled".into());
    }
    if mark_hidden && !element.is_shown() {
        out.push("hidden".into());
    }
    if element.is_secret() {
        out.push("password".into());
    } else if element.role == Role::Terminal {
        // Its screen is printed as rows below it.
    } else if let Some(value) = &element.value {
        if value != &element.name {
            out.push(format!("value: {}", quote(value)));
        }
    }
    if let Some(hint) = element.hint.as_ref().filter(|_| !element.is_secret()) {
        out.push(format!("hint: {}", quote(hint)));
    }
    if !element.description.is_empty()
        && element.description != element.name
        && !restates_value(&element.description, element.value.as_deref())
    {
        out.push(format!("desc: {}", quote(&element.description)));
    }
    if let Some(b) = element.bounds {
        out.push(format!("[{},{},{},{}]", b.x, b.y, b.width, b.height));
    }
    out
}

/// Whether a description only says the value again, as text or as the same number
/// (GTK3's vertical scale describes itself as `50.0` while its value is `50`).
fn restates_value(description: &str, value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let description = description.trim();
    if description == value.trim() {
        return true;
    }
    match (description.parse::<f64>(), value.trim().parse::<f64>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

mod runs;

#[cfg(test)]
mod tests;
