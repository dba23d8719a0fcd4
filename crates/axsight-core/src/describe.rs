//! Finding an element from a description in words ("the Save button", "search
//! field at the top right"): each drawn element is scored on its name and the
//! label beside it, its role, and where it sits in the window.
//!
//! Pure scoring on a captured tree; the caller decides what a score is worth
//! (below a threshold, screenshot sources are asked instead).

use crate::{Bounds, NodeId, Role, Tree};

/// An element's score for a description, 0 to 1, with what matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub node: NodeId,
    pub score: f32,
    /// What counted, for the answer: `name "save"`, `role button`, `top right`.
    pub why: Vec<String>,
}

/// Words that name roles, and the roles they name.
const ROLE_WORDS: &[(&str, &[Role])] = &[
    ("button", &[Role::Button, Role::ToggleButton]),
    (
        "toggle",
        &[Role::ToggleButton, Role::CheckBox, Role::Switch],
    ),
    ("switch", &[Role::Switch]),
    ("checkbox", &[Role::CheckBox, Role::CheckMenuItem]),
    ("check", &[Role::CheckBox, Role::CheckMenuItem]),
    ("radio", &[Role::RadioButton, Role::RadioMenuItem]),
    ("field", &[Role::Edit]),
    ("input", &[Role::Edit]),
    ("entry", &[Role::Edit]),
    ("textbox", &[Role::Edit]),
    ("edit", &[Role::Edit]),
    ("search", &[Role::Edit]),
    ("combo", &[Role::ComboBox]),
    ("dropdown", &[Role::ComboBox]),
    ("select", &[Role::ComboBox]),
    ("menu", &[Role::Menu, Role::MenuItem]),
    ("item", &[Role::MenuItem, Role::ListItem, Role::TreeItem]),
    ("tab", &[Role::TabItem]),
    ("link", &[Role::Link]),
    ("slider", &[Role::Slider]),
    ("spin", &[Role::SpinButton]),
    ("list", &[Role::List, Role::ListItem]),
    ("row", &[Role::ListItem, Role::Row, Role::TreeItem]),
    ("cell", &[Role::Cell]),
    ("icon", &[Role::Image, Role::Button]),
    ("image", &[Role::Image]),
    ("label", &[Role::Text]),
    ("text", &[Role::Text, Role::Edit]),
    ("heading", &[Role::Heading]),
    ("dialog", &[Role::Dialog]),
    ("scrollbar", &[Role::ScrollBar]),
    ("progress", &[Role::ProgressBar]),
];

/// Words that place an element in its window.
const PLACE_WORDS: &[&str] = &[
    "top", "bottom", "left", "right", "upper", "lower", "middle", "center", "centre",
];

/// Words that say nothing about which element is meant.
const FILLER: &[&str] = &[
    "the", "a", "an", "of", "in", "on", "at", "to", "with", "for", "that", "which", "is", "and",
    "corner", "side", "area", "one", "named", "called", "labelled", "labeled", "box", "control",
    "element", "widget", "click", "press", "open", "this",
];

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Scores every drawn element of `tree` (the window itself excepted) against
/// `description`, best first.
///
/// ```
/// use axsight_core::{describe_scores, Bounds, Element, Role, State, StateSet, Tree};
/// let shown = |id: &str, role, name: &str, x| {
///     let mut e = Element::new(id, role, "raw");
///     e.name = name.into();
///     e.states = StateSet::from_iter([State::Showing, State::Visible]);
///     e.bounds = Some(Bounds { x, y: 10, width: 50, height: 20 });
///     e
/// };
/// let mut window = shown("w", Role::Window, "Editor", 0);
/// window.bounds = Some(Bounds { x: 0, y: 0, width: 400, height: 300 });
/// let mut tree = Tree::new(window);
/// tree.push(tree.root(), shown("s", Role::Button, "Save", 10));
/// tree.push(tree.root(), shown("c", Role::Button, "Cancel", 300));
/// let best = &describe_scores(&tree, "the save button")[0];
/// assert_eq!(tree.element(best.node).name, "Save");
/// assert!(best.score > 0.8);
/// let right = &describe_scores(&tree, "button at the top right")[0];
/// assert_eq!(tree.element(right.node).name, "Cancel");
/// ```
pub fn describe_scores(tree: &Tree, description: &str) -> Vec<Scored> {
    if tree.is_empty() {
        return Vec::new();
    }
    let all = words(description);
    let roles: Vec<&[Role]> = all
        .iter()
        .filter_map(|w| {
            let w = w.strip_suffix('s').filter(|_| w.len() > 3).unwrap_or(w);
            ROLE_WORDS
                .iter()
                .find(|(word, _)| *word == w)
                .map(|(_, r)| *r)
        })
        .collect();
    let places: Vec<&str> = all
        .iter()
        .filter(|w| PLACE_WORDS.contains(&w.as_str()))
        .map(String::as_str)
        .collect();
    let naming: Vec<&String> = all
        .iter()
        .filter(|w| !FILLER.contains(&w.as_str()) && !PLACE_WORDS.contains(&w.as_str()))
        .collect();
    let frame = tree.element(tree.root()).bounds;
    let mut scored: Vec<Scored> = tree
        .ids()
        .filter(|&n| n != tree.root())
        .filter(|&n| {
            let e = tree.element(n);
            e.is_shown() && e.bounds.is_some_and(|b| b.has_area())
        })
        .map(|node| score(tree, node, &naming, &roles, &places, frame))
        .filter(|s| s.score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
    scored
}

fn score(
    tree: &Tree,
    node: NodeId,
    naming: &[&String],
    roles: &[&[Role]],
    places: &[&str],
    frame: Option<Bounds>,
) -> Scored {
    let element = tree.element(node);
    let mut why = Vec::new();
    // The words the element goes by: its name, else the label beside it.
    let mut own = words(&element.name);
    if own.is_empty() {
        own = words(&element.description);
    }
    if own.is_empty() {
        own = label_beside(tree, node)
            .map(|l| words(&l))
            .unwrap_or_default();
    }
    // Name: the share of the description's naming words the element has, and
    // the share of the element's words the description has.
    let role_words: Vec<&str> = ROLE_WORDS.iter().map(|(w, _)| *w).collect();
    let wanted: Vec<&String> = naming
        .iter()
        .copied()
        .filter(|w| !role_words.contains(&w.as_str()) || own.contains(w))
        .collect();
    let name_score = if wanted.is_empty() || own.is_empty() {
        0.0
    } else {
        let hits = wanted.iter().filter(|w| own.contains(w)).count() as f32;
        let covered = hits / wanted.len() as f32;
        let precise = hits / own.len() as f32;
        if hits > 0.0 {
            why.push(format!("name {:?}", own.join(" ")));
        }
        0.7 * covered + 0.3 * precise.min(1.0)
    };
    // The share of the description's role words the role answers: a "text
    // field" is an Edit, which both words name, before a Text, which one does.
    let role_score = if roles.is_empty() {
        0.5
    } else {
        let fits = roles.iter().filter(|r| r.contains(&element.role)).count();
        if fits > 0 {
            why.push(format!("role {}", element.role.as_str().to_lowercase()));
        }
        fits as f32 / roles.len() as f32
    };
    let place_score = match (places.is_empty(), frame, element.bounds) {
        (true, _, _) | (_, None, _) | (_, _, None) => 0.5,
        (false, Some(frame), Some(b)) => {
            let (cx, cy) = b.center();
            let x = f64::from(cx - frame.x) / f64::from(frame.width.max(1));
            let y = f64::from(cy - frame.y) / f64::from(frame.height.max(1));
            let fits: f64 = places
                .iter()
                .map(|p| match *p {
                    "top" | "upper" => 1.0 - y,
                    "bottom" | "lower" => y,
                    "left" => 1.0 - x,
                    "right" => x,
                    _ => 1.0 - ((x - 0.5).abs() + (y - 0.5).abs()),
                })
                .sum::<f64>()
                / places.len() as f64;
            if fits > 0.6 {
                why.push(places.join(" "));
            }
            fits.clamp(0.0, 1.0) as f32
        }
    };
    // Without naming words, role and place must carry the choice.
    let score = if wanted.is_empty() {
        0.6 * role_score + 0.4 * place_score
    } else {
        0.65 * name_score + 0.2 * role_score + 0.15 * place_score
    };
    Scored { node, score, why }
}

/// The text element just left of or above `node` (within 200 px), as forms
/// label their fields.
fn label_beside(tree: &Tree, node: NodeId) -> Option<String> {
    let target = tree.element(node).bounds?;
    let (tx, ty) = target.center();
    tree.ids()
        .filter(|&n| n != node)
        .filter_map(|n| {
            let e = tree.element(n);
            if e.role != Role::Text || e.name.trim().is_empty() || !e.is_shown() {
                return None;
            }
            let b = e.bounds?;
            let (lx, ly) = b.center();
            let left =
                (ly - ty).abs() <= target.height && lx < tx && tx - lx <= 200 + target.width / 2;
            let above = (lx - tx).abs() <= target.width && ly < ty && ty - ly <= 60;
            (left || above).then(|| ((tx - lx).abs() + (ty - ly).abs(), e.name.clone()))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Element, State, StateSet};

    fn shown(id: &str, role: Role, name: &str, x: i32, y: i32) -> Element {
        let mut e = Element::new(id, role, "raw");
        e.name = name.into();
        e.states = StateSet::from_iter([State::Showing, State::Visible]);
        e.bounds = Some(Bounds {
            x,
            y,
            width: 80,
            height: 24,
        });
        e
    }

    fn form() -> Tree {
        let mut window = shown("w", Role::Window, "Login", 0, 0);
        window.bounds = Some(Bounds {
            x: 0,
            y: 0,
            width: 600,
            height: 400,
        });
        let mut tree = Tree::new(window);
        tree.push(tree.root(), shown("l1", Role::Text, "Email", 10, 20));
        tree.push(tree.root(), shown("e1", Role::Edit, "", 120, 20));
        tree.push(tree.root(), shown("l2", Role::Text, "Password", 10, 60));
        tree.push(tree.root(), shown("e2", Role::Edit, "", 120, 60));
        tree.push(tree.root(), shown("ok", Role::Button, "Sign in", 500, 360));
        tree.push(tree.root(), shown("help", Role::Link, "Help", 10, 360));
        tree
    }

    fn best(tree: &Tree, description: &str) -> String {
        let top = describe_scores(tree, description);
        tree.element(top[0].node).id.0.clone()
    }

    #[test]
    fn fields_are_found_by_the_label_beside_them() {
        let tree = form();
        assert_eq!(best(&tree, "email field"), "e1");
        assert_eq!(best(&tree, "the password input"), "e2");
        // A field named like its label: both words of "text field" name an
        // Edit, one names the label.
        let mut tree = form();
        tree.push(tree.root(), shown("l3", Role::Text, "Traveller", 10, 100));
        tree.push(tree.root(), shown("e3", Role::Edit, "Traveller", 120, 100));
        assert_eq!(best(&tree, "Traveller text field"), "e3");
        assert_eq!(best(&tree, "Traveller label"), "l3");
    }

    #[test]
    fn names_roles_and_places_each_count() {
        let tree = form();
        assert_eq!(best(&tree, "sign in button"), "ok");
        assert_eq!(best(&tree, "link at the bottom left"), "help");
        assert_eq!(best(&tree, "button in the bottom right corner"), "ok");
        let top = describe_scores(&tree, "sign in");
        assert!(
            top[0].why.iter().any(|w| w.contains("sign in")),
            "{:?}",
            top[0]
        );
    }

    #[test]
    fn nothing_like_the_description_scores_low() {
        let tree = form();
        let top = describe_scores(&tree, "volume slider");
        assert!(top.first().is_none_or(|s| s.score < 0.5), "{top:?}");
        assert!(describe_scores(&Tree::new(shown("w", Role::Window, "", 0, 0)), "x").is_empty());
    }
}
