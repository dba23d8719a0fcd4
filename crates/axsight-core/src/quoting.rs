//! How text is printed in axsight's answers: so that two different texts never
//! print the same. Quotes and backslashes are escaped, and line breaks, tabs and
//! other control characters are written as escapes (`\n`, `\t`, `\r`, `\u{7}`)
//! instead of being flattened into spaces; long text is cut and ends in `…`.
//!
//! Selectors read the same escapes in their quoted strings, so a value printed
//! here can be pasted into `value:"…"` as it stands. JSON output carries the raw
//! text and does not come through here.

/// The most characters of one text a line shows.
pub const MAX_TEXT: usize = 120;

/// `text` in double quotes, escaped, cut after [`MAX_TEXT`] characters.
///
/// ```
/// use axsight_core::quote;
/// assert_eq!(quote("Alpha 1234\nBravo 5678"), r#""Alpha 1234\nBravo 5678""#);
/// assert_eq!(quote(r#"say "hi"\"#), r#""say \"hi\"\\""#);
/// assert_eq!(quote("tab\there"), r#""tab\there""#);
/// assert!(quote(&"x".repeat(500)).ends_with("…\""));
/// ```
pub fn quote(text: &str) -> String {
    quote_at_most(text, MAX_TEXT)
}

/// `text` in double quotes, escaped, cut after `limit` characters (an error
/// quoting what a caller sent keeps it shorter than a line shows).
///
/// ```
/// use axsight_core::quote_at_most;
/// assert_eq!(quote_at_most("abcdef", 3), r#""abc…""#);
/// assert_eq!(quote_at_most("abc", 3), r#""abc""#);
/// ```
pub fn quote_at_most(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len().min(limit) + 2);
    out.push('"');
    escape_into(&mut out, text, true, Some(limit));
    out.push('"');
    out
}

/// `text` as it is, cut after `most` characters and then ending in `…`: for
/// text that is escaped elsewhere (JSON) or not at all (a short error).
///
/// ```
/// use axsight_core::cut;
/// assert_eq!(cut("Save", 40), "Save");
/// assert_eq!(cut("abcdef", 3), "abc…");
/// ```
pub fn cut(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// `text` in double quotes, escaped, never cut (for a field's whole read-back).
pub fn quote_whole(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    escape_into(&mut out, text, true, None);
    out.push('"');
    out
}

/// Text an agent typed, as its answer shows it: in double quotes where that
/// needs no escape, else, when it holds quotes or backslashes but no control
/// characters, between `«` and `»` exactly as typed (a shell line's `\"` must
/// not look like an escape), else escaped as [`quote_whole`] writes it.
///
/// ```
/// use axsight_core::quote_typed;
/// assert_eq!(quote_typed("Ada"), "\"Ada\"");
/// assert_eq!(quote_typed(r#"printf "a\n""#), r#"«printf "a\n"»"#);
/// assert_eq!(quote_typed("two\nlines"), r#""two\nlines""#);
/// ```
pub fn quote_typed(text: &str) -> String {
    let plain = !text.contains(['"', '\\']);
    let raw_fits = !text.chars().any(char::is_control) && !text.contains(['«', '»']);
    match (plain, raw_fits) {
        (false, true) => format!("«{text}»"),
        _ => quote_whole(text),
    }
}

/// `text` unquoted (an element's name on its line), escaped but for quotes,
/// cut after [`MAX_TEXT`] characters.
///
/// ```
/// use axsight_core::bare;
/// assert_eq!(bare("Save As…"), "Save As…");
/// assert_eq!(bare("two\nlines"), r"two\nlines");
/// ```
pub fn bare(text: &str) -> String {
    bare_at_most(text, MAX_TEXT)
}

/// `text` unquoted and escaped as [`bare`] writes it, cut after `limit`
/// characters: a name a caller sent, in an error that stays one line.
///
/// ```
/// use axsight_core::bare_at_most;
/// assert_eq!(bare_at_most("a\nbcdef", 3), r"a\nb…");
/// ```
pub fn bare_at_most(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len().min(limit));
    escape_into(&mut out, text, false, Some(limit));
    out
}

fn escape_into(out: &mut String, text: &str, quoted: bool, limit: Option<usize>) {
    for (count, c) in text.chars().enumerate() {
        if limit.is_some_and(|limit| count == limit) {
            out.push('…');
            return;
        }
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quoted => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_texts_never_print_the_same() {
        let texts = [
            "a b", "a\nb", "a\tb", "a\\nb", "a\\\nb", "a\r\nb", "a\u{7}b", "a\"b", "a\\\"b",
        ];
        let printed: std::collections::HashSet<String> = texts.iter().map(|t| quote(t)).collect();
        assert_eq!(printed.len(), texts.len(), "{printed:?}");
        let bare: std::collections::HashSet<String> = texts.iter().map(|t| bare(t)).collect();
        assert_eq!(bare.len(), texts.len(), "{bare:?}");
    }

    #[test]
    fn long_text_is_cut_by_characters_not_bytes() {
        let text = "é".repeat(MAX_TEXT + 5);
        let printed = quote(&text);
        assert_eq!(printed.chars().count(), MAX_TEXT + 3);
        assert!(printed.ends_with("é…\""));
        assert_eq!(
            quote(&"é".repeat(MAX_TEXT)),
            format!("\"{}\"", "é".repeat(MAX_TEXT))
        );
        assert!(!quote_whole(&text).contains('…'));
    }

    #[test]
    fn control_characters_are_written_as_unicode_escapes() {
        assert_eq!(quote("bell\u{7}"), r#""bell\u{7}""#);
        assert_eq!(quote("nul\u{0}"), r#""nul\u{0}""#);
    }
}

/// Printing any text never panics and keeps it on one line.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn printing_never_panics_and_stays_on_one_line(text in any::<String>()) {
            for printed in [quote(&text), bare(&text), quote_whole(&text)] {
                prop_assert!(!printed.contains('\n') && !printed.contains('\r'), "{}", printed);
            }
        }
    }
}
