//! `find_element`: an element from a description in words. The tree answers
//! first; only when nothing in it scores well enough is the window read with
//! OCR, whose lines are scored the same way.

use axsight_core::{
    describe_scores, element_head, Element, Engine, Role, Scored, State, StateSet, Tree,
    WindowQuery,
};

use crate::session::Session;
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
        self.recover(self.do_find_described(description, app, window).await)
            .await
    }

    async fn do_find_described(
        &self,
        description: &str,
        app: Option<&str>,
        window: Option<&str>,
    ) -> Result<String, ToolError> {
        if description.trim().is_empty() {
            return Err(ToolError::BadArguments(
                "describe the element in `description`, e.g. \"the Save button\"".into(),
            ));
        }
        let engine = self.engine().await?;
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
        let scored = describe_scores(&snapshot.tree, description);
        if let Some(best) = scored.first().filter(|s| s.score >= TREE_FIRST_THRESHOLD) {
            let mut out = format!(
                "found in the tree, no screenshot taken: {}\n",
                self.scored_line(&snapshot.tree, best)
            );
            self.list_runners_up(&mut out, &snapshot.tree, &scored[1..]);
            return Ok(out);
        }
        // The tree has nothing good enough: ask OCR, scored alike.
        let lines = self.read_ocr(&engine, &snapshot).await?;
        let mut read = Tree::new(Element::new("ocr", Role::Window, "ocr"));
        read.element_mut(read.root()).bounds = snapshot.tree.element(snapshot.tree.root()).bounds;
        for line in &lines {
            let mut element = Element::new(line.handle.to_string(), Role::Text, "ocr line");
            element.name = line.found.text.clone();
            element.bounds = Some(line.found.bounds);
            element.states = StateSet::from_iter([State::Showing, State::Visible]);
            read.push(read.root(), element);
        }
        let by_ocr = describe_scores(&read, description);
        let tree_best = scored
            .first()
            .map(|s| format!("{} (score {:.2})", self.head(&snapshot.tree, s), s.score))
            .unwrap_or_else(|| "nothing".into());
        let Some(best) = by_ocr
            .first()
            .filter(|s| s.score >= TREE_FIRST_THRESHOLD / 2.0)
        else {
            return Ok(format!(
                "not found: the tree's best was {tree_best}, and OCR read nothing like {:?}; \
                 try capture_screenshot with annotate: true\n",
                description.trim()
            ));
        };
        // Lines and handles are in the same order; the read tree's nodes follow them.
        let index = best.node.0 - 1;
        let line = &lines[index];
        let b = line.found.bounds;
        Ok(format!(
            "found by OCR (the tree's best was {tree_best}): {} {:?} [{},{},{},{}] (score {:.2}); \
             click it with click_element index \"{}\"\n",
            line.handle, line.found.text, b.x, b.y, b.width, b.height, best.score, line.handle
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
