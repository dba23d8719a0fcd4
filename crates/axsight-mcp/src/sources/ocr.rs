//! The screenshot sources' sections of a window's tree: what OCR read, each line
//! with an `#o` handle, and `= #u14` where a tree element already says the same
//! (the agent should prefer the tree).

use axsight_core::{
    visible_box, Bounds, Engine, Handle, NodeId, Source, Spotted, Tree, WindowSnapshot,
};
use axsight_vision::{read_text, OcrLine, OcrOptions};

use crate::session::Session;
use crate::ToolError;

impl<E: Engine> Session<E> {
    /// Reads the window's text with OCR and prints the `ocr` section.
    pub(crate) async fn ocr_section(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
    ) -> Result<String, ToolError> {
        let (lines, handles) = self.read_ocr(engine, snapshot).await?;
        Ok(self.print_ocr(&snapshot.tree, &lines, &handles))
    }

    /// Reads the window's text with OCR: the lines (none over secret fields) and
    /// the `#o` handles they now have.
    pub(crate) async fn read_ocr(
        &self,
        engine: &E,
        snapshot: &WindowSnapshot,
    ) -> Result<(Vec<OcrLine>, Vec<Handle>), ToolError> {
        let frame = snapshot
            .tree
            .element(snapshot.tree.root())
            .bounds
            .filter(Bounds::has_area)
            .ok_or_else(|| {
                ToolError::CannotAct(format!("'{}' has no box on screen to read", snapshot.title))
            })?;
        let capture = engine
            .capture(Some(frame))
            .await
            .map_err(ToolError::engine)?;
        // Tesseract runs as a process: wait for it off the runtime.
        let lines =
            tokio::task::spawn_blocking(move || read_text(&capture, &OcrOptions::default()))
                .await
                .map_err(|error| ToolError::CannotAct(format!("OCR failed: {error}")))?
                .map_err(|error| ToolError::CannotAct(error.to_string()))?;
        // What OCR reads over a secret field stays unread, even if the field
        // shows its text.
        let secrets: Vec<Bounds> = snapshot
            .tree
            .ids()
            .filter(|&n| snapshot.tree.element(n).is_secret())
            .filter_map(|n| visible_box(&snapshot.tree, n))
            .collect();
        let lines: Vec<OcrLine> = lines
            .into_iter()
            .filter(|line| {
                secrets
                    .iter()
                    .all(|s| s.intersection(&line.bounds).is_none())
            })
            .collect();
        let window = snapshot.window_id();
        let found: Vec<Spotted> = lines
            .iter()
            .map(|line| Spotted {
                source: Source::Ocr,
                window: window.clone(),
                relative: line.bounds.offset(-frame.x, -frame.y),
                window_size: (frame.width, frame.height),
                label: line.text.clone(),
                confidence: line.confidence,
            })
            .collect();
        let handles = {
            let mut registry = self.spotted.lock().unwrap_or_else(|e| e.into_inner());
            if found.is_empty() {
                registry.clear(Source::Ocr, &window);
            }
            registry.record(found)
        };
        Ok((lines, handles))
    }

    pub(crate) fn print_ocr(&self, tree: &Tree, lines: &[OcrLine], handles: &[Handle]) -> String {
        let mut out = String::from("- ocr\n");
        if lines.is_empty() {
            out.push_str("  (no text read)\n");
        }
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        for (line, handle) in lines.iter().zip(handles) {
            let b = line.bounds;
            let same = same_as_tree(tree, line).map(|node| {
                let element = tree.element(node);
                format!(
                    " = {}",
                    registry.assign(&element.id, element.role, &element.name)
                )
            });
            out.push_str(&format!(
                "  {handle} {:?} [{},{},{},{}] {:.2}{}\n",
                line.text,
                b.x,
                b.y,
                b.width,
                b.height,
                line.confidence,
                same.unwrap_or_default()
            ));
        }
        out
    }
}

/// The drawn tree element that says what an OCR line reads, where it reads it:
/// boxes overlapping, and the one's text within the other's (any case).
fn same_as_tree(tree: &Tree, line: &OcrLine) -> Option<NodeId> {
    let read = normalise(&line.text);
    if read.is_empty() {
        return None;
    }
    let mut best: Option<(NodeId, i64)> = None;
    for node in tree.ids() {
        let element = tree.element(node);
        let name = normalise(&element.name);
        if !says_the_same(&name, &read) {
            continue;
        }
        let Some(shared) = visible_box(tree, node).and_then(|b| b.intersection(&line.bounds))
        else {
            continue;
        };
        // The smallest element wins: the label, not the window titled alike.
        let area = i64::from(element.bounds.map_or(0, |b| b.width))
            * i64::from(element.bounds.map_or(0, |b| b.height));
        if shared.has_area() && best.is_none_or(|(_, a)| area < a) {
            best = Some((node, area));
        }
    }
    best.map(|(node, _)| node)
}

/// Whether two normalised texts say the same: equal, or one within the other
/// where the shorter is most of the longer (OCR may miss or add a word; a canvas
/// named "Canvas" does not say "Canvas text 42").
fn says_the_same(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty() && long.contains(short) && short.len() * 10 >= long.len() * 6
}

fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::says_the_same;

    #[test]
    fn texts_say_the_same_when_most_of_one_is_the_other() {
        assert!(says_the_same("open dialog later", "open dialog later"));
        assert!(says_the_same("row item 1", "row item 1."));
        assert!(!says_the_same("canvas", "canvas text 42"));
        assert!(!says_the_same("", "x"));
    }
}
