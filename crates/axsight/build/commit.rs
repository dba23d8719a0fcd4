//! Which commit a build is of, worked out on plain text: shared by `build.rs`
//! (which runs git and reads files) and the binary's unit tests (`src/version.rs`).
//! It runs nothing and reads no file itself.

/// Letters of the commit hash `--version` shows (git's short form).
pub const SHORT_HASH: usize = 7;

/// The commit a build is of, as far as the build could tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commit {
    /// From a git checkout: the hash and the commit's date (YYYY-MM-DD).
    Git { hash: String, date: String },
    /// From a crate `cargo package` made: `.cargo_vcs_info.json` names the hash
    /// (and no date).
    Packaged { hash: String },
    /// Neither (a source tarball, or git missing or refusing the checkout).
    Unknown,
}

impl Commit {
    /// The commit's date (YYYY-MM-DD), where the build knows it.
    pub fn date(&self) -> &str {
        match self {
            Commit::Git { date, .. } => date,
            Commit::Packaged { .. } | Commit::Unknown => "",
        }
    }

    /// What `--version` prints after the version: `abc1234 2026-12-01`,
    /// `abc1234`, or `commit unknown`.
    pub fn describe(&self) -> String {
        match self {
            Commit::Git { hash, date } => format!("{} {date}", short(hash)),
            Commit::Packaged { hash } => short(hash).to_string(),
            Commit::Unknown => "commit unknown".to_string(),
        }
    }
}

fn short(hash: &str) -> &str {
    &hash[..hash.len().min(SHORT_HASH)]
}

/// A full commit hash: 40 (SHA-1) or 64 (SHA-256) hex digits.
pub fn is_hash(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The hash `.cargo_vcs_info.json` records (`{"git": {"sha1": "…"}, …}`), found
/// without a JSON parser: the build script has no dependencies.
pub fn packaged_hash(vcs_info: &str) -> Option<String> {
    let after_key = &vcs_info[vcs_info.find("\"sha1\"")? + "\"sha1\"".len()..];
    let value = after_key.trim_start().strip_prefix(':')?.trim_start();
    let value = value.strip_prefix('"')?;
    let hash = &value[..value.find('"')?];
    is_hash(hash).then(|| hash.to_ascii_lowercase())
}

/// `git log -1 --format=%H %cs`'s line: the hash and the committer date.
pub fn git_commit(log_line: &str) -> Option<Commit> {
    let (hash, date) = log_line.trim().split_once(' ')?;
    let date_ok = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    (is_hash(hash) && date_ok).then(|| Commit::Git {
        hash: hash.to_ascii_lowercase(),
        date: date.to_string(),
    })
}
