//! "Did you mean …?" for misspelt keys, roles and states: the candidates within a
//! small edit distance of what was typed.

/// Up to three of `candidates` close to `typed` (ignoring case), closest first.
///
/// ```
/// assert_eq!(axsight_core::close_matches("Gren", ["Red", "Green", "Blue"]), vec!["Green"]);
/// ```
pub fn close_matches<'a>(
    typed: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let typed = typed.to_lowercase();
    let limit = (typed.chars().count() / 3).clamp(1, 3);
    let mut close: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|candidate| (edit_distance(&typed, &candidate.to_lowercase()), candidate))
        .filter(|&(distance, _)| distance <= limit)
        .collect();
    close.sort_by_key(|&(distance, _)| distance);
    close.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Formats suggestions as ` (did you mean a or b?)`, or nothing when there are none.
pub(super) fn did_you_mean(suggestions: &[&str]) -> String {
    match suggestions {
        [] => String::new(),
        [only] => format!(" (did you mean {only}?)"),
        [init @ .., last] => format!(" (did you mean {} or {last}?)", init.join(", ")),
    }
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_misses_only() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            close_matches("Buton", ["Button", "Edit", "Menu"]),
            vec!["Button"]
        );
        assert_eq!(close_matches("xyz", ["Button", "Edit"]), Vec::<&str>::new());
        assert_eq!(did_you_mean(&["a", "b", "c"]), " (did you mean a, b or c?)");
    }
}
