//! A text's content with its formatting, caret and selection, as one element
//! gives them (AT-SPI's Text: `GetAttributeRun`, `CaretOffset`,
//! `GetSelection`), and how answers print them.
//!
//! What bold is differs by toolkit: LibreOffice says `weight: 600`, GTK `700`,
//! Gecko `font-weight: 700`; so do the keys (`family-name` or `font-family`,
//! `size: 12` or `font-size: 12pt`). The words here are one vocabulary for all
//! of them: `bold`, `italic`, `underlined`, `struck through`, the font and its
//! size, a colour. This module reads nothing; engines fill [`TextDetail`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::quoting::quote_at_most;

/// A text attribute set as a toolkit names it (`weight` → `600`).
pub type Attributes = BTreeMap<String, String>;

/// A stretch of text whose own attributes (those beyond the element's
/// defaults) are the same throughout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRun {
    /// Character offsets, end excluded.
    pub start: usize,
    pub end: usize,
    pub attributes: Attributes,
}

/// What an element's Text interface says of its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextDetail {
    /// The text read (its first [`TextDetail::MOST_READ`] characters).
    pub text: String,
    /// How many characters the whole text has.
    pub length: usize,
    /// The attributes the whole element has (a paragraph's style, its font).
    pub defaults: Attributes,
    /// The runs of the text read, in order; empty when not asked for.
    pub runs: Vec<TextRun>,
    /// Where the caret is, when it is in this element.
    pub caret: Option<usize>,
    /// The attributes beyond the defaults of what typing at the caret
    /// continues (the character before it, else the one after), when asked for.
    pub at_caret: Option<Attributes>,
    /// The attributes at the first selection's start, and whether they hold
    /// to its end, when asked for.
    pub in_selection: Option<(Attributes, bool)>,
    /// The selected stretches, start and end.
    pub selections: Vec<(usize, usize)>,
}

impl TextDetail {
    /// The most characters read of one text: its runs are walked this far.
    pub const MOST_READ: usize = 4000;
    /// The most runs printed.
    const MOST_RUNS: usize = 60;

    /// The lines `validate_element` adds for a text: its length and overall
    /// formatting, its runs, the caret and the selection.
    ///
    /// ```
    /// use axsight_core::{TextDetail, TextRun};
    /// let detail = TextDetail {
    ///     text: "Revenue grew".into(),
    ///     length: 12,
    ///     defaults: [("paragraph-style", "Default Paragraph Style"), ("family-name", "DejaVu Serif"), ("size", "12"), ("weight", "400")]
    ///         .map(|(k, v)| (k.to_string(), v.to_string())).into(),
    ///     runs: vec![
    ///         TextRun { start: 0, end: 7, attributes: [("weight".to_string(), "600".to_string())].into() },
    ///         TextRun { start: 7, end: 12, attributes: Default::default() },
    ///     ],
    ///     caret: Some(7),
    ///     at_caret: None,
    ///     in_selection: None,
    ///     selections: vec![(0, 7)],
    /// };
    /// assert_eq!(detail.lines(), [
    ///     r#"text: 12 characters; throughout: paragraph style "Default Paragraph Style", font "DejaVu Serif", 12 pt"#,
    ///     r#"  0–7 "Revenue": bold"#,
    ///     r#"  7–12 " grew""#,
    ///     r#"caret at 7 of 12; selected 0–7 "Revenue""#,
    /// ]);
    /// ```
    pub fn lines(&self) -> Vec<String> {
        let mut head = format!("text: {} characters", self.length);
        let overall = describe(&self.defaults, true);
        if !overall.is_empty() {
            let _ = write!(head, "; throughout: {}", overall.join(", "));
        }
        let mut out = vec![head];
        for run in self.runs.iter().take(Self::MOST_RUNS) {
            let mut line = format!(
                "  {}–{} {}",
                run.start,
                run.end,
                quote_at_most(&self.slice(run.start, run.end), 60)
            );
            let own = describe(&run.attributes, false);
            if !own.is_empty() {
                let _ = write!(line, ": {}", own.join(", "));
            }
            out.push(line);
        }
        if self.runs.len() > Self::MOST_RUNS {
            out.push(format!(
                "  … {} more runs",
                self.runs.len() - Self::MOST_RUNS
            ));
        }
        if self.length > Self::MOST_READ {
            out.push(format!(
                "  (runs read in the first {} characters)",
                Self::MOST_READ
            ));
        }
        if let Some(place) = self.place() {
            out.push(place);
        }
        out
    }

    /// Where the caret is and what is selected, with the formatting at the
    /// caret when it was read: `caret at 8 of 27, where the text is bold`,
    /// `selected "Revenue" (0–7)`. `None` when the caret is elsewhere and
    /// nothing is selected.
    ///
    /// ```
    /// use axsight_core::TextDetail;
    /// let mut detail = TextDetail { text: "Revenue grew".into(), length: 12, caret: Some(7), ..TextDetail::default() };
    /// detail.at_caret = Some([("weight".to_string(), "700".to_string())].into());
    /// assert_eq!(detail.place().unwrap(), "caret at 7 of 12, where the text is bold");
    /// detail.selections = vec![(0, 7)];
    /// detail.in_selection = Some(([("weight".to_string(), "700".to_string())].into(), true));
    /// assert_eq!(detail.place().unwrap(), r#"caret at 7 of 12, where the text is bold; selected 0–7 "Revenue", bold"#);
    /// ```
    pub fn place(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(caret) = self.caret {
            let mut part = format!("caret at {caret} of {}", self.length);
            match self.at_caret.as_ref().map(|a| describe(a, false)) {
                Some(words) if !words.is_empty() => {
                    let _ = write!(part, ", where the text is {}", words.join(", "));
                }
                Some(_) => part.push_str(", where the text has no formatting of its own"),
                None => {}
            }
            parts.push(part);
        }
        for (i, &(start, end)) in self.selections.iter().filter(|(s, e)| e > s).enumerate() {
            let mut part = format!(
                "selected {start}–{end} {}",
                quote_at_most(&self.slice(start, end), 60)
            );
            if let (0, Some((attributes, whole))) = (i, &self.in_selection) {
                let words = describe(attributes, false);
                match (words.is_empty(), whole) {
                    (true, true) => part.push_str(", with no formatting of its own"),
                    (false, true) => {
                        let _ = write!(part, ", {}", words.join(", "));
                    }
                    (_, false) => part.push_str(", its formatting mixed"),
                }
            }
            parts.push(part);
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The characters from `start` to `end` of the text read.
    fn slice(&self, start: usize, end: usize) -> String {
        self.text
            .chars()
            .skip(start)
            .take(end.saturating_sub(start))
            .collect()
    }
}

/// Attributes in words, in one vocabulary for every toolkit. `whole` is for
/// an element's defaults: a plain weight, style or decoration is left unsaid,
/// and the paragraph style and font are named.
fn describe(attributes: &Attributes, whole: bool) -> Vec<String> {
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| attributes.get(*k))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    };
    let mut out = Vec::new();
    if whole {
        if let Some(style) = get(&["paragraph-style"]) {
            out.push(format!("paragraph style {}", quote_at_most(style, 60)));
        }
    }
    if let Some(family) = get(&["family-name", "font-family"]) {
        out.push(format!("font {}", quote_at_most(family, 60)));
    }
    if let Some(size) = get(&["size", "font-size"]) {
        let points = size.trim_end_matches("pt").trim();
        out.push(format!("{points} pt"));
    }
    match get(&["weight", "font-weight"]) {
        Some(w) if is_bold(w) => out.push("bold".into()),
        Some(w) if !whole && !is_normal_weight(w) => out.push(format!("weight {w}")),
        Some(_) if !whole => out.push("not bold".into()),
        _ => {}
    }
    match get(&["style", "font-style"]) {
        Some(s) if s.eq_ignore_ascii_case("italic") || s.eq_ignore_ascii_case("oblique") => {
            out.push("italic".into())
        }
        Some(_) if !whole => out.push("not italic".into()),
        _ => {}
    }
    if let Some(u) = get(&["underline", "text-underline-style"]) {
        if !u.eq_ignore_ascii_case("none") {
            out.push("underlined".into());
        }
    }
    if let Some(s) = get(&["strikethrough", "text-line-through-style"]) {
        if !matches!(s.to_ascii_lowercase().as_str(), "false" | "none") {
            out.push("struck through".into());
        }
    }
    if let Some(position) = get(&["text-position"]) {
        if matches!(position, "super" | "sub") {
            out.push(format!("{position}script"));
        }
    }
    if !whole {
        if let Some(colour) = get(&["fg-color", "color"]) {
            out.push(format!("colour {colour}"));
        }
        if let Some(background) = get(&["bg-color", "background-color"]) {
            out.push(format!("background {background}"));
        }
    }
    if let Some(invalid) = get(&["invalid"]) {
        if !invalid.eq_ignore_ascii_case("false") && !invalid.eq_ignore_ascii_case("none") {
            out.push(format!("marked {invalid}"));
        }
    }
    out
}

/// Whether a weight is bold: `bold`, or 600 and above (LibreOffice says 600).
fn is_bold(weight: &str) -> bool {
    weight.eq_ignore_ascii_case("bold") || weight.parse::<u32>().is_ok_and(|w| w >= 600)
}

fn is_normal_weight(weight: &str) -> bool {
    weight.eq_ignore_ascii_case("normal") || weight == "400"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attributes(pairs: &[(&str, &str)]) -> Attributes {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_toolkits_names_say_the_same_words() {
        let libreoffice = attributes(&[("weight", "600"), ("style", "italic"), ("size", "16")]);
        let gecko = attributes(&[
            ("font-weight", "700"),
            ("font-style", "italic"),
            ("font-size", "16pt"),
        ]);
        assert_eq!(describe(&libreoffice, false), ["16 pt", "bold", "italic"]);
        assert_eq!(describe(&gecko, false), ["16 pt", "bold", "italic"]);
    }

    #[test]
    fn a_run_that_undoes_its_paragraphs_bold_says_so() {
        // A heading's run made plain: its own weight is normal.
        let plain = attributes(&[("weight", "400")]);
        assert_eq!(describe(&plain, false), ["not bold"]);
        // In the defaults, a plain weight goes unsaid.
        assert!(describe(&plain, true).is_empty());
    }

    #[test]
    fn decorations_and_spelling_marks_are_named() {
        let marked = attributes(&[
            ("underline", "single"),
            ("strikethrough", "true"),
            ("invalid", "spelling"),
        ]);
        assert_eq!(
            describe(&marked, false),
            ["underlined", "struck through", "marked spelling"]
        );
        let unmarked = attributes(&[("underline", "none"), ("strikethrough", "false")]);
        assert!(describe(&unmarked, false).is_empty());
    }

    #[test]
    fn many_runs_are_cut_and_counted() {
        let detail = TextDetail {
            text: "x".repeat(100),
            length: 100,
            runs: (0..100)
                .map(|i| TextRun {
                    start: i,
                    end: i + 1,
                    attributes: Attributes::new(),
                })
                .collect(),
            ..TextDetail::default()
        };
        let lines = detail.lines();
        assert_eq!(lines.last().unwrap(), "  … 40 more runs");
        assert_eq!(lines.len(), 1 + 60 + 1);
    }

    #[test]
    fn no_caret_and_no_selection_say_nothing() {
        let detail = TextDetail {
            selections: vec![(3, 3)],
            ..TextDetail::default()
        };
        assert_eq!(detail.place(), None);
    }
}
