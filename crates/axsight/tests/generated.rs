//! What the binary says about itself, as packages ship it: `--version` with the
//! commit, the shells' completion scripts and the manual pages, each generated from
//! the clap definitions. No desktop needed; the shells and `man` are Debian's
//! (scripts/install-deps installs them).

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn axsight(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "axsight {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The command's output, or None when PROGRAM is not installed.
fn run(program: &str, args: &[&str]) -> Option<Output> {
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) => Some(out),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("{program} is not installed (scripts/install-deps): skipped");
            None
        }
        Err(error) => panic!("{program}: {error}"),
    }
}

#[test]
fn version_names_the_commit_built_from() {
    let version = axsight(&["--version"]);
    let rest = version
        .strip_prefix(concat!("axsight ", env!("CARGO_PKG_VERSION"), " ("))
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{version:?}"));
    // Built from a checkout, the commit is git's HEAD (cargo builds the binary
    // anew when HEAD moves); from a tree git does not know, it is unknown.
    let dir = env!("CARGO_MANIFEST_DIR");
    match run("git", &["-C", dir, "log", "-1", "--format=%H %cs"]).filter(|o| o.status.success()) {
        Some(git) => {
            let line = text(&git.stdout);
            let (hash, date) = line.trim().split_once(' ').unwrap();
            assert_eq!(rest, format!("{} {date}", &hash[..7]), "{version}");
        }
        None => assert_eq!(rest, "commit unknown", "{version}"),
    }
    assert_eq!(axsight(&["-V"]), version);
}

#[test]
fn completion_scripts_know_the_commands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = axsight(&["completions", shell]);
        assert!(script.len() > 2_000, "{shell}: {} bytes", script.len());
        for word in ["serve", "tree", "doctor", "read-only", "max-depth"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("possible values: bash"),
        "{out:?}"
    );
}

/// Bash completes `axsight se` to `serve` and `axsight serve --re` to
/// `--read-only` with the generated script.
#[test]
fn bash_completes_with_the_script() {
    let script = axsight(&["completions", "bash"]);
    let complete = |words: &str| {
        let program = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; \
             _axsight axsight \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = run("bash", &["--norc", "-c", &program]).expect("bash");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(complete("axsight se").trim(), "serve");
    assert!(
        complete("axsight serve --re")
            .lines()
            .any(|w| w == "--read-only"),
        "{}",
        complete("axsight serve --re")
    );
}

#[test]
fn zsh_and_fish_read_their_scripts() {
    let dir = tempdir();
    let zsh = dir.join("_axsight");
    std::fs::write(&zsh, axsight(&["completions", "zsh"])).unwrap();
    if let Some(out) = run("zsh", &["--no-rcs", "-n", zsh.to_str().unwrap()]) {
        assert!(out.status.success(), "zsh: {}", text(&out.stderr));
    }
    let fish = dir.join("axsight.fish");
    std::fs::write(&fish, axsight(&["completions", "fish"])).unwrap();
    let program = format!("source {}; complete -C 'axsight se'", fish.display());
    if let Some(out) = run("fish", &["--no-config", "-c", &program]) {
        assert!(out.status.success(), "fish: {}", text(&out.stderr));
        let offered = text(&out.stdout);
        assert!(
            offered.lines().any(|l| l.starts_with("serve\t")),
            "{offered}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn manual_pages_render_without_warnings() {
    let page = axsight(&["man"]);
    assert!(
        page.starts_with(".ie \\n(.g") || page.contains(".TH axsight 1"),
        "{page}"
    );
    for word in ["axsight\\-serve(1)", "axsight\\-tree(1)", "\\-\\-display"] {
        assert!(page.contains(word), "axsight.1 lacks {word}");
    }
    let dir = tempdir();
    let listed = axsight(&["man", "--dir", dir.to_str().unwrap()]);
    let pages: Vec<&str> = listed.lines().collect();
    assert!(pages.len() > 15, "{listed}");
    let names: Vec<String> = pages
        .iter()
        .map(|p| {
            Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    for name in [
        "axsight.1",
        "axsight-serve.1",
        "axsight-tree.1",
        "axsight-bench-tree.1",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("axsight.1")).unwrap(),
        page
    );
    for path in &pages {
        // man -l formats the file as man(1) would show it; --warnings makes groff
        // report what it could not typeset.
        let Some(out) = run("man", &["--warnings=all", "-l", path]) else {
            break;
        };
        let shown = text(&out.stdout);
        assert!(out.status.success(), "{path}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{path}: groff warned");
        assert!(
            shown.contains("SYNOPSIS") && shown.contains("OPTIONS"),
            "{path}: {shown}"
        );
    }
    let serve = std::fs::read_to_string(dir.join("axsight-serve.1")).unwrap();
    assert!(
        serve.contains("\\-\\-read\\-only") && serve.contains("\\-\\-http"),
        "{serve}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory under the target directory's tmp (cargo's own for tests).
fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "generated-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
