//! A command line split into a program and its arguments the way a POSIX shell
//! splits words, without running one: quotes and backslashes group and escape,
//! `~` at the start of a word is the home folder, and nothing else a shell would
//! expand or interpret is taken. Where a shell would do more than split (`$`, a
//! backquote, `;`, `|`, `&`, redirections, globs), the line is refused with the
//! character named, so a caller's text can never run as a shell line.
//!
//! Plain data only: the launcher resolves and starts the program.

/// Why a command line was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandLineError {
    #[error("no program named")]
    Empty,
    #[error(
        "`{character}` (character {position}) asks for a shell, and no shell runs the line: \
         quote it ('{character}') to pass it as it is"
    )]
    Shell { character: char, position: usize },
    #[error("the {quote} quote opened at character {position} is never closed")]
    Unclosed {
        quote: &'static str,
        position: usize,
    },
}

/// Characters that make a shell do more than split words, refused where they
/// stand unquoted.
const SHELL: &[char] = &[
    '$', '`', ';', '|', '&', '<', '>', '(', ')', '*', '?', '[', ']', '\n', '\r',
];

/// Splits `line` into words as a POSIX shell would, with `~` at the start of a
/// word (alone, or before `/`) made `home` when one is given.
///
/// ```
/// use axsight_core::split_command;
/// assert_eq!(
///     split_command("gedit 'notes & todo.txt' --new-window", None).unwrap(),
///     ["gedit", "notes & todo.txt", "--new-window"]
/// );
/// assert!(split_command("true $(touch /tmp/x)", None).is_err());
/// ```
pub fn split_command(line: &str, home: Option<&str>) -> Result<Vec<String>, CommandLineError> {
    split(line, home, true)
}

/// Splits a desktop file's `Exec` command (its value already unescaped) by
/// the same quoting, taking every other character as it is: a desktop file
/// is the system's, not a caller's, and its quoting rules leave no shell to
/// expand `$` or `;`.
///
/// ```
/// use axsight_core::split_exec;
/// assert_eq!(split_exec(r#"sh -c "echo \$HOME; x""#).unwrap(), ["sh", "-c", "echo $HOME; x"]);
/// ```
pub fn split_exec(exec: &str) -> Result<Vec<String>, CommandLineError> {
    split(exec, None, false)
}

/// A command line as one line again, each word quoted where a shell would
/// need it: how an answer shows what ran.
///
/// ```
/// use axsight_core::join_command;
/// assert_eq!(join_command(&["gedit".into(), "a b.txt".into(), "it's".into()]), r#"gedit 'a b.txt' 'it'\''s'"#);
/// ```
pub fn join_command(words: &[String]) -> String {
    let plain = |word: &str| {
        !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    };
    words
        .iter()
        .map(|word| match plain(word) {
            true => word.clone(),
            false => format!("'{}'", word.replace('\'', r"'\''")),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn split(line: &str, home: Option<&str>, strict: bool) -> Result<Vec<String>, CommandLineError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().enumerate().peekable();
    while let Some((at, c)) = chars.next() {
        let position = at + 1;
        match c {
            ' ' | '\t' => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => text.push(c),
                        None => {
                            return Err(CommandLineError::Unclosed {
                                quote: "single",
                                position,
                            })
                        }
                    }
                }
            }
            '"' => {
                let text = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        // Inside double quotes a backslash escapes only these.
                        Some((_, '\\')) => match chars.next() {
                            Some((_, c @ ('"' | '\\' | '$' | '`'))) => text.push(c),
                            Some((_, '\n')) => {}
                            Some((_, c)) => {
                                text.push('\\');
                                text.push(c);
                            }
                            None => break,
                        },
                        // A shell would expand these even inside double quotes.
                        Some((inside, c @ ('$' | '`'))) if strict => {
                            return Err(CommandLineError::Shell {
                                character: c,
                                position: inside + 1,
                            })
                        }
                        Some((_, c)) => text.push(c),
                        None => {
                            return Err(CommandLineError::Unclosed {
                                quote: "double",
                                position,
                            })
                        }
                    }
                }
            }
            '\\' => match chars.next() {
                Some((_, '\n')) => {}
                Some((_, c)) => word.get_or_insert_with(String::new).push(c),
                None => word.get_or_insert_with(String::new).push('\\'),
            },
            '#' if strict && word.is_none() => break, // a comment, as a shell reads one
            '~' if word.is_none()
                && home.is_some()
                && matches!(chars.peek(), None | Some((_, ' ' | '\t' | '/'))) =>
            {
                word = home.map(str::to_string);
            }
            c if strict && SHELL.contains(&c) => {
                return Err(CommandLineError::Shell {
                    character: c,
                    position,
                })
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(done) = word {
        words.push(done);
    }
    if words.is_empty() {
        return Err(CommandLineError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Vec<String> {
        split_command(line, Some("/home/ada")).unwrap()
    }

    #[test]
    fn words_split_as_a_shell_splits_them() {
        assert_eq!(
            split("  gedit   a.txt\tb.txt "),
            ["gedit", "a.txt", "b.txt"]
        );
        assert_eq!(
            split(r#"app "two words" 'it''s' a\ b"#),
            ["app", "two words", "its", "a b"]
        );
        // What Python's shlex.quote writes comes back as it was.
        assert_eq!(split(r#"env PS1='$ ' 'x'"'"'y'"#), ["env", "PS1=$ ", "x'y"]);
        assert_eq!(
            split(r#"a "q\"uote\\d" "back\slash""#),
            ["a", "q\"uote\\d", "back\\slash"]
        );
        assert_eq!(split("app ''"), ["app", ""]);
        assert_eq!(
            split("app --rate=50% a#b # a comment"),
            ["app", "--rate=50%", "a#b"]
        );
    }

    #[test]
    fn a_tilde_starting_a_word_is_home() {
        assert_eq!(
            split("gedit ~/notes.txt ~ a~b"),
            ["gedit", "/home/ada/notes.txt", "/home/ada", "a~b"]
        );
        assert_eq!(split("app '~/x'"), ["app", "~/x"]);
        assert_eq!(split_command("app ~/x", None).unwrap(), ["app", "~/x"]);
    }

    #[test]
    fn what_would_need_a_shell_is_refused_where_it_stands() {
        for (line, character, position) in [
            ("true $(touch /tmp/x)", '$', 6),
            ("true `touch /tmp/x`", '`', 6),
            ("gedit; rm -rf ~", ';', 6),
            ("a | b", '|', 3),
            ("a && b", '&', 3),
            ("a > /tmp/out", '>', 3),
            ("eog *.png", '*', 5),
            ("chromium http://x/?a=1", '?', 19),
            ("a \"$HOME\"", '$', 4),
            ("a\nb", '\n', 2),
        ] {
            assert_eq!(
                split_command(line, None),
                Err(CommandLineError::Shell {
                    character,
                    position
                }),
                "{line}"
            );
        }
        // Quoted, each is a plain character.
        assert_eq!(split("a '$(x)' 'b;c' \"d|e\""), ["a", "$(x)", "b;c", "d|e"]);
    }

    #[test]
    fn a_desktop_files_exec_keeps_what_a_caller_could_not_send() {
        assert_eq!(
            split_exec(r#"sh -c "cd ~; exec bash" $X #y"#).unwrap(),
            ["sh", "-c", "cd ~; exec bash", "$X", "#y"]
        );
        assert_eq!(split_exec("  "), Err(CommandLineError::Empty));
    }

    #[test]
    fn a_joined_line_splits_back_to_its_words() {
        let words: Vec<String> = ["app", "two words", "it's", "$(x)", "", "a=b"]
            .map(String::from)
            .to_vec();
        let line = join_command(&words);
        assert_eq!(line, r#"app 'two words' 'it'\''s' '$(x)' '' a=b"#);
        assert_eq!(split_command(&line, None).unwrap(), words);
    }

    #[test]
    fn nothing_and_open_quotes_are_refused() {
        assert_eq!(split_command("   ", None), Err(CommandLineError::Empty));
        assert_eq!(split_command("# only", None), Err(CommandLineError::Empty));
        assert_eq!(
            split_command("a 'b", None),
            Err(CommandLineError::Unclosed {
                quote: "single",
                position: 3
            })
        );
        assert_eq!(
            split_command("a \"b", None),
            Err(CommandLineError::Unclosed {
                quote: "double",
                position: 3
            })
        );
    }
}
