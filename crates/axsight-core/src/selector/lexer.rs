//! Splits selector text into tokens: words, quoted strings, operators and parentheses,
//! each with its character span. Knows nothing of keys or precedence.

use super::SelectorError;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// A bare word, such as `Save` or `role:Button`; `key:` words end at a quote.
    Word(String),
    /// A double-quoted string, escapes resolved.
    Quoted(String),
    And,
    Or,
    Not,
    Chain,
    Open,
    Close,
}

/// A token and the characters it covers, `start..end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match &self.kind {
            TokenKind::Word(word) => format!("'{word}'"),
            TokenKind::Quoted(text) => format!("\"{text}\""),
            TokenKind::And => "'&&'".into(),
            TokenKind::Or => "'||'".into(),
            TokenKind::Not => "'!'".into(),
            TokenKind::Chain => "'>>'".into(),
            TokenKind::Open => "'('".into(),
            TokenKind::Close => "')'".into(),
        }
    }
}

/// Tokenises `selector`, or reports the first character that cannot start a token.
pub(super) fn tokenize(selector: &str) -> Result<Vec<Token>, SelectorError> {
    let chars: Vec<char> = selector.chars().collect();
    let error = |position, message: &str| SelectorError::new(selector, position, message);
    let mut tokens = Vec::new();
    let mut pos = 0;
    while pos < chars.len() {
        let start = pos;
        let next = chars.get(pos + 1).copied();
        let (kind, len) = match chars[pos] {
            c if c.is_whitespace() => {
                pos += 1;
                continue;
            }
            '(' => (TokenKind::Open, 1),
            ')' => (TokenKind::Close, 1),
            '!' => (TokenKind::Not, 1),
            '&' if next == Some('&') => (TokenKind::And, 2),
            '|' if next == Some('|') => (TokenKind::Or, 2),
            '>' if next == Some('>') => (TokenKind::Chain, 2),
            '&' => {
                return Err(error(
                    pos,
                    "expected '&&' (a single '&' is not an operator)",
                ))
            }
            '|' => {
                return Err(error(
                    pos,
                    "expected '||' (a single '|' is not an operator)",
                ))
            }
            '>' => {
                return Err(error(
                    pos,
                    "expected '>>' (a single '>' is not an operator)",
                ))
            }
            '"' => {
                let (text, len) = quoted(&chars[pos..]).map_err(|(offset, message)| {
                    SelectorError::new(selector, pos + offset, message)
                })?;
                (TokenKind::Quoted(text), len)
            }
            _ => {
                let len = word_len(&chars[pos..]);
                (TokenKind::Word(chars[pos..pos + len].iter().collect()), len)
            }
        };
        pos += len;
        tokens.push(Token {
            kind,
            start,
            end: pos,
        });
    }
    Ok(tokens)
}

/// Length of the bare word at the start of `rest`: up to whitespace, a parenthesis, a
/// quote, or an operator `&&`, `||`, `>>`. A word is never empty: callers only ask at
/// a character that cannot start anything else.
fn word_len(rest: &[char]) -> usize {
    let mut len = 0;
    while let Some(&c) = rest.get(len) {
        let pair = (c, rest.get(len + 1).copied());
        let ends = c.is_whitespace()
            || matches!(c, '(' | ')' | '"')
            || matches!(pair, ('&', Some('&')) | ('|', Some('|')) | ('>', Some('>')));
        if ends {
            break;
        }
        len += 1;
    }
    len.max(1)
}

/// Reads the quoted string at the start of `rest` (which begins with `"`): its text and
/// length in characters, or the offset and message of what is wrong with it.
fn quoted(rest: &[char]) -> Result<(String, usize), (usize, &'static str)> {
    let mut text = String::new();
    let mut pos = 1;
    loop {
        match rest.get(pos) {
            None => return Err((0, "unclosed quote: expected a closing '\"'")),
            Some('"') => return Ok((text, pos + 1)),
            // The escapes axsight prints text with (`quoting`), so a printed
            // value can be pasted into a selector as it stands.
            Some('\\') => match rest.get(pos + 1) {
                Some(&c @ ('"' | '\\')) => {
                    text.push(c);
                    pos += 2;
                }
                Some('n') => {
                    text.push('\n');
                    pos += 2;
                }
                Some('t') => {
                    text.push('\t');
                    pos += 2;
                }
                Some('r') => {
                    text.push('\r');
                    pos += 2;
                }
                Some('u') => {
                    let (c, used) = unicode_escape(&rest[pos + 2..])
                        .ok_or((pos, "expected a character code after '\\u', as in '\\u{7}'"))?;
                    text.push(c);
                    pos += 2 + used;
                }
                None => return Err((0, "unclosed quote: expected a closing '\"'")),
                Some(_) => return Err((
                    pos,
                    "unknown escape: quotes take '\\\"', '\\\\', '\\n', '\\t', '\\r' and '\\u{…}'",
                )),
            },
            Some(&c) => {
                text.push(c);
                pos += 1;
            }
        }
    }
}

/// The character of a `{7}` after `\u`, and how many characters it took.
fn unicode_escape(rest: &[char]) -> Option<(char, usize)> {
    if rest.first() != Some(&'{') {
        return None;
    }
    let close = rest.iter().take(8).position(|&c| c == '}')?;
    let digits: String = rest[1..close].iter().collect();
    let code = u32::from_str_radix(&digits, 16).ok()?;
    Some((char::from_u32(code)?, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(selector: &str) -> Vec<TokenKind> {
        tokenize(selector)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    fn word(text: &str) -> TokenKind {
        TokenKind::Word(text.into())
    }

    #[test]
    fn operators_split_words_without_spaces() {
        use TokenKind::*;
        assert_eq!(
            kinds("a&&b||!(c)>>d"),
            vec![
                word("a"),
                And,
                word("b"),
                Or,
                Not,
                Open,
                word("c"),
                Close,
                Chain,
                word("d")
            ]
        );
    }

    #[test]
    fn words_keep_single_symbols_and_colons() {
        assert_eq!(kinds("name:Tom&Jerry"), vec![word("name:Tom&Jerry")]);
        assert_eq!(kinds("name:a:b!"), vec![word("name:a:b!")]);
        assert_eq!(kinds("x/y#z'@.-_"), vec![word("x/y#z'@.-_")]);
    }

    #[test]
    fn quotes_end_a_word_and_resolve_escapes() {
        assert_eq!(
            kinds(r#"name:"Save \"as\" \\ x""#),
            vec![word("name:"), TokenKind::Quoted(r#"Save "as" \ x"#.into())]
        );
    }

    #[test]
    fn quotes_take_the_escapes_text_is_printed_with() {
        for text in ["Alpha 1234\nBravo 5678", "a\tb\r", "bell\u{7}", "q\"\\"] {
            let printed = crate::quote(text);
            assert_eq!(
                kinds(&printed),
                vec![TokenKind::Quoted(text.into())],
                "{printed}"
            );
        }
        for bad in [r#""\x""#, r#""\u7""#, r#""\u{zz}""#, r#""\u{110000}""#] {
            assert!(tokenize(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn spans_are_in_characters() {
        let tokens = tokenize("é && \"ü\"").unwrap();
        let spans: Vec<_> = tokens.iter().map(|t| (t.start, t.end)).collect();
        assert_eq!(spans, vec![(0, 1), (2, 4), (5, 8)]);
    }

    #[test]
    fn lexical_errors_point_at_the_culprit() {
        let at = |s: &str| tokenize(s).unwrap_err().position;
        assert_eq!(at("a & b"), 2);
        assert_eq!(at("a | b"), 2);
        assert_eq!(at("a > b"), 2);
        assert_eq!(at("name:\"abc"), 5);
        assert_eq!(at("name:\"abc\\"), 5);
        assert_eq!(at("name:\"a\\qb\""), 7);
    }
}

/// Any text, quoted as axsight prints it, reads back as itself.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn printed_text_reads_back_as_itself(text in any::<String>().prop_filter("values are not empty", |t| !t.is_empty())) {
            let printed = crate::quote_whole(&text);
            let kinds: Vec<TokenKind> = tokenize(&printed)
                .map_err(|e| TestCaseError::fail(format!("{printed}: {e}")))?
                .into_iter()
                .map(|t| t.kind)
                .collect();
            prop_assert_eq!(kinds, vec![TokenKind::Quoted(text)]);
        }
    }
}
