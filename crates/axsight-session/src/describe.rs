//! `find_element`: an element from a description in words. The tree answers
//! first; only when nothing in it scores well enough is the window read with
//! OCR, whose lines are scored the same way.
//!
//! # `find_element`
//!
//! **`find_element`** (`axsight-session/src/describe.rs`; the scoring is
//! `axsight-core/src/describe.rs`, pure and tested on plain data). The tree's drawn
//! elements are scored against the description; 0.6 or more answers with no
//! screenshot. Else OCR's lines, then, when a `VisionChannel` other than `Unavailable`
//! is at hand, the vision model's elements, are put into a flat tree (role from the
//! model's kind where it names one, else `Text`) and scored the same way; 0.3 or more
//! answers with the sighting's handle. The detector is not asked: its boxes have no
//! words to score.

use axsight_core::{
    describe_scores, element_head, quote, Element, Engine, Role, Scored, State, StateSet, Tree,
    WindowSnapshot,
};

use crate::session::Session;
use crate::sources::{Sighting, VisionChannel};
use crate::ToolError;

/// The score a tree element needs for no screenshot to be taken.
pub const TREE_FIRST_THRESHOLD: f32 = 0.6;

/// How many runners-up an answer lists.
const RUNNERS_UP: usize = 3;

impl<E: Engine> Session<E> {
    /// Finds the element `description` means in the window `app`/`window` name
    /// (the active window when neither does).
    pub async fn find_described(
        &self,
        description: &str,
        app: Option<&str>,
        window: Option<&str>,
    ) -> Result<String, ToolError> {
        let vision = self.configured_vision();
        self.find_described_seen_by(description, app, window, &vision)
            .await
    }

    /// [`Session::find_described`], asking a vision model through `vision`
    /// when neither the tree nor OCR has the element.
    pub async fn find_described_seen_by(
        &self,
        description: &str,
        app: Option<&str>,
        window: Option<&str>,
        vision: &VisionChannel,
    ) -> Result<String, ToolError> {
        self.recover(
            self.do_find_described(description, app, window, vision)
                .await,
        )
        .await
    }

    async fn do_find_described(
        &self,
        description: &str,
        app: Option<&str>,
        window: Option<&str>,
        vision: &VisionChannel,
    ) -> Result<String, ToolError> {
        if description.trim().is_empty() {
            return Err(ToolError::BadArguments(
                "describe the element in `description`, e.g. \"the Save button\"".into(),
            ));
        }
        let engine = self.engine().await?;
        let snapshot = self.named_window(&engine, app, window).await?;
        let scored = describe_scores(&snapshot.tree, description);
        if let Some(best) = scored.first().filter(|s| s.score >= TREE_FIRST_THRESHOLD) {
            let mut out = format!(
                "found in the tree, no screenshot taken: {}\n",
                self.scored_line(&snapshot.tree, best)
            );
            self.list_runners_up(&mut out, &snapshot.tree, &scored[1..]);
            return Ok(out);
        }
        let tree_best = scored
            .first()
            .map(|s| format!("{} (score {:.2})", self.head(&snapshot.tree, s), s.score))
            .unwrap_or_else(|| "nothing".into());
        // The tree has nothing good enough: ask OCR, then a vision model where
        // one can be asked, each scored like the tree.
        let read = self.read_ocr(&engine, &snapshot).await?;
        if let Some(found) = best_sighting(&snapshot, &read, description) {
            return Ok(found_by("OCR", &tree_best, found));
        }
        let asked_model = !matches!(vision, VisionChannel::Unavailable);
        if asked_model {
            let seen = self.look(&engine, &snapshot, vision).await?;
            if let Some(found) = best_sighting(&snapshot, &seen, description) {
                return Ok(found_by("the vision model", &tree_best, found));
            }
        }
        Ok(format!(
            "not found: the tree's best was {tree_best}, and neither OCR{} found anything like \
             {:?}; try capture_screenshot with annotate: true\n",
            if asked_model {
                " nor the vision model"
            } else {
                ""
            },
            description.trim()
        ))
    }

    fn head(&self, tree: &Tree, scored: &Scored) -> String {
        let element = tree.element(scored.node);
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let handle = registry.assign(&element.id, element.role, &element.name);
        element_head(&handle.to_string(), element)
    }

    fn scored_line(&self, tree: &Tree, scored: &Scored) -> String {
        let why = if scored.why.is_empty() {
            String::new()
        } else {
            format!(": {}", scored.why.join(", "))
        };
        let bounds = tree
            .element(scored.node)
            .bounds
            .map(|b| format!(" [{},{},{},{}]", b.x, b.y, b.width, b.height))
            .unwrap_or_default();
        format!(
            "{}{bounds} (score {:.2}{why})",
            self.head(tree, scored),
            scored.score
        )
    }

    fn list_runners_up(&self, out: &mut String, tree: &Tree, rest: &[Scored]) {
        let close: Vec<&Scored> = rest
            .iter()
            .take(RUNNERS_UP)
            .filter(|s| s.score >= TREE_FIRST_THRESHOLD / 2.0)
            .collect();
        if close.is_empty() {
            return;
        }
        out.push_str("also:\n");
        for scored in close {
            out.push_str(&format!("  {}\n", self.scored_line(tree, scored)));
        }
    }
}

/// The sighting that best fits `description`, scored as tree elements are,
/// if it scores at least half the tree's threshold.
fn best_sighting<'a>(
    snapshot: &WindowSnapshot,
    seen: &'a [Sighting],
    description: &str,
) -> Option<(&'a Sighting, f32)> {
    let mut read = Tree::new(Element::new("seen", Role::Window, "screenshot"));
    read.element_mut(read.root()).bounds = snapshot.tree.element(snapshot.tree.root()).bounds;
    for sighting in seen {
        let f = &sighting.found;
        let role = f
            .kind
            .as_deref()
            .and_then(Role::parse)
            .unwrap_or(Role::Text);
        let mut element = Element::new(sighting.handle.to_string(), role, "sighting");
        element.name = f.text.clone();
        element.bounds = Some(f.bounds);
        element.states = StateSet::from_iter([State::Showing, State::Visible]);
        read.push(read.root(), element);
    }
    let best = describe_scores(&read, description)
        .into_iter()
        .next()
        .filter(|s| s.score >= TREE_FIRST_THRESHOLD / 2.0)?;
    // The read tree's nodes follow the sightings, after its root.
    Some((&seen[best.node.0 - 1], best.score))
}

/// The answer for an element a screenshot source found.
fn found_by(source: &str, tree_best: &str, (sighting, score): (&Sighting, f32)) -> String {
    let f = &sighting.found;
    let b = f.bounds;
    let handle = sighting.handle;
    format!(
        "found by {source} (the tree's best was {tree_best}): {handle} {} [{},{},{},{}] \
         (score {score:.2}); click it with click_element index \"{handle}\"\n",
        quote(&f.text),
        b.x,
        b.y,
        b.width,
        b.height
    )
}
