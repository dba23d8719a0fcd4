//! The version `axsight --version` prints: the package's version and the commit it
//! was built from, which `build.rs` works out (with `build/commit.rs`, tested here).

/// E.g. `0.1.0 (abc1234 2026-12-01)`; clap puts the binary's name before it.
pub const VERSION: &str = env!("AXSIGHT_VERSION");

/// The commit's date (YYYY-MM-DD), or empty where the build could not tell.
pub const COMMIT_DATE: &str = env!("AXSIGHT_COMMIT_DATE");

#[cfg(test)]
#[path = "../build/commit.rs"]
mod commit;

#[cfg(test)]
mod tests {
    use super::commit::{self, Commit};

    const HASH: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn each_source_of_the_commit_is_described() {
        let git = Commit::Git {
            hash: HASH.into(),
            date: "2026-12-01".into(),
        };
        assert_eq!(git.describe(), "0123456 2026-12-01");
        assert_eq!(git.date(), "2026-12-01");
        let packaged = Commit::Packaged { hash: HASH.into() };
        assert_eq!(
            (packaged.describe().as_str(), packaged.date()),
            ("0123456", "")
        );
        assert_eq!(Commit::Unknown.describe(), "commit unknown");
        assert_eq!(Commit::Unknown.date(), "");
        assert_eq!(commit::SHORT_HASH, 7);
    }

    #[test]
    fn a_packaged_crate_names_its_commit() {
        let vcs_info = format!(
            "{{\n  \"git\": {{\n    \"sha1\": \"{}\",\n    \"dirty\": true\n  }},\n  \"path_in_vcs\": \"crates/axsight\"\n}}",
            HASH.to_uppercase()
        );
        assert_eq!(commit::packaged_hash(&vcs_info).as_deref(), Some(HASH));
        for bad in [
            "",
            "{}",
            r#"{"git": {"sha1": "xyz"}}"#,
            r#"{"git": {"sha1": 12}}"#,
            r#"{"git": {"sha1": "0123"#,
        ] {
            assert_eq!(commit::packaged_hash(bad), None, "{bad}");
        }
    }

    #[test]
    fn git_log_lines_are_read_strictly() {
        assert_eq!(
            commit::git_commit(&format!("{HASH} 2026-12-01\n")),
            Some(Commit::Git {
                hash: HASH.into(),
                date: "2026-12-01".into()
            })
        );
        let sha256 = "a".repeat(64);
        assert!(commit::is_hash(&sha256) && !commit::is_hash(&HASH[..39]));
        for bad in [
            "",
            HASH,
            &format!("{HASH} 2026-1-01"),
            &format!("{HASH} yesterday!"),
            &format!("{} 2026-12-01", &HASH[..12]),
        ] {
            assert_eq!(commit::git_commit(bad), None, "{bad}");
        }
    }
}
