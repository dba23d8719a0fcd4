//! Shortening long runs of like siblings before the budget cuts anything:
//! a file chooser's few hundred rows must not push its Cancel and Save buttons
//! past the end of the text. A run is an element's printed children, most of
//! one role of items (rows, list items, cells, lines of text; never controls);
//! it keeps its first few, its last, and every child that is focused or
//! selected or holds such an element, and says how many it left out and where
//! to read them (`… 212 more Row here: read them with from: "#u153"`).

use std::collections::HashSet;

use super::{format_line, Line};
use crate::{Role, State, Tree};

/// A run is this many children or more…
const MIN_RUN: usize = 6;
/// …of which this share (in percent) have one role.
const LIKE_SHARE: usize = 75;
/// The children a shortened run keeps from its start (and its last one).
const KEPT_FIRST: usize = 3;

/// Leaves children out of the longest runs of `lines` (the pre-order lines of
/// a tree, each with its depth) until their printed size fits `max_chars` or
/// no run is left to shorten; each gap becomes one line that says what it
/// holds. `mark_hidden` is the tree's `include_invisible`.
pub(super) fn shorten_runs(
    tree: &Tree,
    lines: &mut Vec<Line>,
    max_chars: usize,
    mark_hidden: bool,
) {
    let size = |line: &Line| {
        let element = tree.element(line.node);
        let label = line.label.map(|child| tree.element(child).name.as_str());
        2 * line.depth
            + format_line("#u0000", element, mark_hidden, label)
                .chars()
                .count()
            + 1
    };
    let sizes: Vec<usize> = lines.iter().map(size).collect();
    let mut total: usize = sizes.iter().sum();
    if total <= max_chars {
        return;
    }
    // Each line's subtree ends where a line of its depth or less begins: one
    // pass, closing the open lines a shallower or equal one ends.
    let mut ends = vec![lines.len(); lines.len()];
    let mut open: Vec<usize> = Vec::new();
    for (j, line) in lines.iter().enumerate() {
        while let Some(&i) = open.last().filter(|&&i| lines[i].depth >= line.depth) {
            ends[i] = j;
            open.pop();
        }
        open.push(j);
    }
    let weight = |i: usize| sizes[i..ends[i]].iter().sum::<usize>();
    let marked = |i: usize| {
        lines[i..ends[i]].iter().any(|line| {
            let states = tree.element(line.node).states;
            states.contains(State::Focused) || states.contains(State::Selected)
        })
    };
    // Every run, with what leaving its middle out would save.
    let mut runs: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for parent in 0..lines.len() {
        let children: Vec<usize> = (parent + 1..ends[parent])
            .filter(|&i| lines[i].depth == lines[parent].depth + 1)
            .collect();
        if children.len() < MIN_RUN || !alike(tree, lines, &children) {
            continue;
        }
        let last = children.len() - 1;
        let dropped: Vec<usize> = children
            .iter()
            .enumerate()
            .filter(|&(n, &child)| n >= KEPT_FIRST && n < last && !marked(child))
            .map(|(_, &child)| child)
            .collect();
        let saved: usize = dropped.iter().map(|&i| weight(i)).sum();
        if saved > 0 {
            runs.push((saved, parent, dropped));
        }
    }
    runs.sort_by_key(|run| std::cmp::Reverse(run.0));
    let mut gone: HashSet<usize> = HashSet::new();
    // Where each gap begins: (line, depth, count, the run's role, its parent).
    let mut notes: Vec<(usize, usize, usize, Role, crate::NodeId)> = Vec::new();
    for (saved, parent, dropped) in runs {
        if total <= max_chars {
            break;
        }
        if gone.contains(&parent) || dropped.iter().any(|i| gone.contains(i)) {
            continue;
        }
        for &child in &dropped {
            gone.extend(child..ends[child]);
        }
        // One note per gap, where the gap begins.
        let role = run_role(tree, lines, &dropped);
        let mut gap_start: Option<usize> = None;
        let mut count = 0;
        let mut gaps = 0;
        for (n, &child) in dropped.iter().enumerate() {
            gap_start.get_or_insert(child);
            count += 1;
            let next_dropped = dropped.get(n + 1).copied();
            if next_dropped != Some(ends[child]) {
                let at = gap_start.take().unwrap_or(child);
                notes.push((at, lines[parent].depth + 1, count, role, lines[parent].node));
                count = 0;
                gaps += 1;
            }
        }
        // About what a note line costs.
        total = total - saved + gaps * 60;
    }
    if gone.is_empty() {
        return;
    }
    let mut kept = Vec::with_capacity(lines.len());
    for (i, line) in std::mem::take(lines).into_iter().enumerate() {
        if let Some(&(_, depth, count, role, parent)) = notes.iter().find(|note| note.0 == i) {
            kept.push(Line::elision(line.node, depth, count, role, parent));
        }
        if !gone.contains(&i) {
            kept.push(line);
        }
    }
    *lines = kept;
}

/// Whether most of `children` (by [`LIKE_SHARE`]) share one role, and it is
/// a role of items (rows, cells, list items, lines of text), not of controls:
/// a toolbar's buttons each do something else, and are never left out.
fn alike(tree: &Tree, lines: &[Line], children: &[usize]) -> bool {
    let roles: Vec<Role> = children
        .iter()
        .map(|&i| tree.element(lines[i].node).role)
        .collect();
    let most = roles
        .iter()
        .filter(|role| is_item(**role))
        .map(|role| roles.iter().filter(|r| *r == role).count())
        .max()
        .unwrap_or(0);
    most * 100 >= LIKE_SHARE * roles.len()
}

/// The role most of `children` have.
fn run_role(tree: &Tree, lines: &[Line], children: &[usize]) -> Role {
    let roles: Vec<Role> = children
        .iter()
        .map(|&i| tree.element(lines[i].node).role)
        .collect();
    roles
        .iter()
        .copied()
        .max_by_key(|role| roles.iter().filter(|r| *r == role).count())
        .unwrap_or(Role::Unknown)
}

/// Roles of the items a long run is made of.
fn is_item(role: Role) -> bool {
    matches!(
        role,
        Role::ListItem
            | Role::TreeItem
            | Role::Row
            | Role::Cell
            | Role::Text
            | Role::Paragraph
            | Role::Link
    )
}
