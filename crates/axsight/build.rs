//! Names the commit the binary is built from, for `axsight --version`: sets
//! `AXSIGHT_VERSION` to e.g. `0.1.0 (abc1234 2026-12-01)`, and `AXSIGHT_COMMIT_DATE`
//! to that date (empty where unknown) for the manual pages.
//!
//! A crate made by `cargo package` carries `.cargo_vcs_info.json` (checked first:
//! its unpacked copy may sit inside some other checkout); a git checkout is asked
//! with `git`; else the commit is unknown. Cargo reruns this only when the
//! checkout's HEAD or the branch it points to moves, not on every build.

#[path = "build/commit.rs"]
mod commit;

use std::path::{Path, PathBuf};
use std::process::Command;

use commit::Commit;

fn main() {
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let vcs_info = crate_dir.join(".cargo_vcs_info.json");
    let commit = match std::fs::read_to_string(&vcs_info) {
        Ok(text) => {
            println!("cargo:rerun-if-changed={}", vcs_info.display());
            commit::packaged_hash(&text).map_or(Commit::Unknown, |hash| Commit::Packaged { hash })
        }
        Err(_) => from_git(&crate_dir).unwrap_or(Commit::Unknown),
    };
    // Without a single rerun-if-changed, cargo would rerun this on any change to
    // the package's files.
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rustc-env=AXSIGHT_VERSION={} ({})",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        commit.describe()
    );
    println!("cargo:rustc-env=AXSIGHT_COMMIT_DATE={}", commit.date());
}

/// The checkout's HEAD commit, when this crate is `crates/axsight` of a git
/// checkout (not a copy of it inside someone else's repository); and the files
/// that move with HEAD, for cargo to watch.
fn from_git(crate_dir: &Path) -> Option<Commit> {
    let places = git(
        crate_dir,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
            "--show-prefix",
            "--symbolic-full-name",
            "HEAD",
        ],
    )?;
    let mut lines = places.lines();
    let (git_dir, common_dir, prefix, head_ref) =
        (lines.next()?, lines.next()?, lines.next()?, lines.next()?);
    if prefix != "crates/axsight/" {
        return None;
    }
    // HEAD moves on checkout and, when detached, on commit; a branch's ref moves
    // on commit, as a loose file or in packed-refs. A packed ref's directory is
    // watched instead of its file, to see the loose file appear (a detached HEAD
    // names no ref: HEAD alone is watched then).
    let mut watched = vec![Path::new(git_dir).join("HEAD")];
    watched.push(Path::new(common_dir).join("packed-refs"));
    if head_ref.starts_with("refs/") {
        let loose = Path::new(common_dir).join(head_ref);
        match (loose.exists(), loose.parent()) {
            (true, _) => watched.push(loose),
            (false, Some(dir)) => watched.push(dir.to_path_buf()),
            (false, None) => {}
        }
    }
    for path in watched.iter().filter(|path| path.exists()) {
        // A path that does not exist would make cargo rerun this every build.
        println!("cargo:rerun-if-changed={}", path.display());
    }
    commit::git_commit(&git(crate_dir, &["log", "-1", "--format=%H %cs"])?)
}

/// git's output, or None when git is missing, fails or refuses the checkout
/// (another user's, without safe.directory).
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
