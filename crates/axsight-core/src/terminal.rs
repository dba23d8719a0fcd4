//! A terminal's screen as text: the rows a terminal emulator shows through
//! AT-SPI's Text interface (VTE's, in xfce4-terminal and GNOME Terminal), made
//! into what a tree prints (its last rows, trailing blank ones dropped, the
//! cursor marked `█`) and what
//! a diff says of it (the rows that came since). Plain data only.
//!
//! ```text
//! #u11 [Terminal] Terminal (focused, [0,25,802,458])
//!   | bash-5.2# seq 2
//!   | 1
//!   | 2
//!   | bash-5.2# █
//! ```

/// The rows of a terminal's text as read: each row's trailing blanks and the
/// blank rows after the last written one dropped (a terminal pads its screen
/// with them). `partial` says the text was read from the middle of the
/// scrollback: its first row is then cut, and is left out.
///
/// ```
/// use axsight_core::terminal::screen;
/// assert_eq!(screen("$ ls  \na b\n$ \n\n\n", false), "$ ls\na b\n$");
/// assert_eq!(screen("ial row\n$ ls\n", true), "$ ls");
/// ```
pub fn screen(text: &str, partial: bool) -> String {
    let mut rows: Vec<&str> = text.split('\n').map(str::trim_end).collect();
    if partial && rows.len() > 1 {
        rows.remove(0);
    }
    while rows.last().is_some_and(|row| row.is_empty()) {
        rows.pop();
    }
    rows.join("\n")
}

/// Where a terminal's cursor is, in the rows a tree prints.
pub const CURSOR: char = '█';

/// `text` with [`CURSOR`] put before character `caret` (or after the last),
/// or as it is when the caret is unknown or past its end.
///
/// ```
/// use axsight_core::terminal::with_cursor;
/// assert_eq!(with_cursor("$ ls\n$ ", Some(7)), "$ ls\n$ █");
/// assert_eq!(with_cursor("$ vi x", Some(2)), "$ █vi x");
/// assert_eq!(with_cursor("$ ", None), "$ ");
/// ```
pub fn with_cursor(text: &str, caret: Option<usize>) -> String {
    let Some(caret) = caret else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + 3);
    let mut placed = false;
    for (i, c) in text.chars().enumerate() {
        if i == caret {
            out.push(CURSOR);
            placed = true;
        }
        out.push(c);
    }
    if !placed && caret == text.chars().count() {
        out.push(CURSOR);
    }
    out
}

/// `screen` without its cursor mark.
pub fn without_cursor(screen: &str) -> String {
    screen.replace(CURSOR, "")
}

/// The last rows of `screen` that fit in `max_rows` rows and `max_chars`
/// characters, and how many rows before them are left out.
pub fn last_rows(screen: &str, max_rows: usize, max_chars: usize) -> (usize, Vec<&str>) {
    if screen.is_empty() {
        return (0, Vec::new());
    }
    let rows: Vec<&str> = screen.split('\n').collect();
    let mut kept = 0;
    let mut chars = 0;
    for row in rows.iter().rev() {
        let size = row.chars().count() + 1;
        if kept == max_rows || (kept > 0 && chars + size > max_chars) {
            break;
        }
        kept += 1;
        chars += size;
    }
    (rows.len() - kept, rows[rows.len() - kept..].to_vec())
}

/// What a terminal's screen shows that it did not before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewRows {
    /// Rows written below what was there, the screen perhaps scrolled; with
    /// `from_cursor_row`, the first is the row the cursor was on, changed (a
    /// command typed at the prompt).
    Below {
        rows: Vec<String>,
        from_cursor_row: bool,
    },
    /// A screen that shows none of the rows before (cleared, or scrolled past
    /// all of them): all of it.
    Replaced(Vec<String>),
}

/// The rows of `after` that are new since `before` (both as [`screen`] makes
/// them; the cursor's mark is not compared).
///
/// ```
/// use axsight_core::terminal::{new_rows, NewRows};
/// let rows = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// // A command typed on the prompt's row and its output below.
/// assert_eq!(new_rows("$ ls\na\n$ █", "$ ls\na\n$ seq 2\n1\n2\n$ █"),
///            NewRows::Below { rows: rows(&["$ seq 2", "1", "2", "$ █"]), from_cursor_row: true });
/// // The screen scrolled: its top rows went.
/// assert_eq!(new_rows("a\nb\n$", "b\n$ x\ny\n$"),
///            NewRows::Below { rows: rows(&["$ x", "y", "$"]), from_cursor_row: true });
/// // Cleared.
/// assert_eq!(new_rows("a\nb\n$", "$"), NewRows::Replaced(rows(&["$"])));
/// ```
pub fn new_rows(before: &str, after: &str) -> NewRows {
    let split = |text: &str| -> Vec<String> {
        match text.is_empty() {
            true => Vec::new(),
            false => text.split('\n').map(str::to_string).collect(),
        }
    };
    let (old, new) = (split(before), split(after));
    let bare = |row: &String| row.replace(CURSOR, "").trim_end().to_string();
    let old_bare: Vec<String> = old.iter().map(bare).collect();
    let new_bare: Vec<String> = new.iter().map(bare).collect();
    let below = |from: usize| {
        let mut rows = new[from..].to_vec();
        // The cursor's row as it was is not new.
        let unchanged = new_bare.get(from).is_some() && new_bare.get(from) == old_bare.last();
        if unchanged && from + 1 < new.len() {
            rows.remove(0);
            return NewRows::Below {
                rows,
                from_cursor_row: false,
            };
        }
        if unchanged {
            return NewRows::Below {
                rows: Vec::new(),
                from_cursor_row: false,
            };
        }
        let from_cursor_row = old_bare.last().is_some_and(|cursor| {
            new_bare
                .get(from)
                .is_some_and(|row| row.starts_with(cursor.as_str()))
        });
        NewRows::Below {
            rows,
            from_cursor_row,
        }
    };
    // All rows but the cursor's, which the next command is typed on.
    let settled = &old_bare[..old_bare.len().saturating_sub(1)];
    // The longest tail of the settled rows that the new screen starts with: the
    // rows it scrolled away are the ones before that tail.
    for start in 0..settled.len() {
        let tail = &settled[start..];
        if new_bare.starts_with(tail) {
            return below(tail.len());
        }
    }
    // None kept: the cursor's row, the command typed on it, may still be there
    // (everything above it scrolled away).
    if let Some(cursor) = old_bare.last() {
        let typed_on = |row: &String| row.len() > cursor.len() && row.starts_with(cursor.as_str());
        if let Some(at) = new_bare.iter().position(typed_on) {
            return below(at);
        }
    }
    match old.is_empty() {
        true => NewRows::Below {
            rows: new,
            from_cursor_row: false,
        },
        false => NewRows::Replaced(new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_last_rows_are_kept_within_both_limits() {
        let text = "one\ntwo\nthree\nfour";
        assert_eq!(last_rows(text, 2, 100), (2, vec!["three", "four"]));
        // "four\n" is 5 characters, "three\n" 6 more: only one fits in 10.
        assert_eq!(last_rows(text, 10, 10), (3, vec!["four"]));
        // A row longer than the budget is still shown when it is the last.
        assert_eq!(last_rows("a\nlong row", 10, 3), (1, vec!["long row"]));
        assert_eq!(last_rows("", 10, 10), (0, Vec::<&str>::new()));
    }

    fn below(r: &[&str], from_cursor_row: bool) -> NewRows {
        NewRows::Below {
            rows: rows(r),
            from_cursor_row,
        }
    }

    #[test]
    fn a_first_screen_and_an_unchanged_one() {
        assert_eq!(new_rows("", "$"), below(&["$"], false));
        assert_eq!(new_rows("a\n$ █", "a\n$ █"), below(&[], false));
        // Typing on the only row there was, the cursor marked on it.
        assert_eq!(new_rows("$ █", "$ ls█"), below(&["$ ls█"], true));
        assert_eq!(
            new_rows("$ █", "$ ls\na b\n$ █"),
            below(&["$ ls", "a b", "$ █"], true)
        );
    }

    #[test]
    fn output_that_scrolled_past_every_row_before_is_below_the_command() {
        // Three rows of screen: the command's row is still the first.
        assert_eq!(
            new_rows("x\ny\n$ █", "$ seq 3\n1\n2\n3\n$ █"),
            below(&["$ seq 3", "1", "2", "3", "$ █"], true)
        );
        // Its output pushed even the command off the screen: all of it is new.
        assert_eq!(
            new_rows("x\ny\n$ █", "8\n9\n$ █"),
            NewRows::Replaced(rows(&["8", "9", "$ █"]))
        );
    }

    #[test]
    fn trailing_blank_rows_and_blanks_are_dropped() {
        assert_eq!(screen("a   \n\n b\n  \n", false), "a\n\n b");
        assert_eq!(screen("\n\n", false), "");
    }
}
