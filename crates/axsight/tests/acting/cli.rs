//! `axsight click`, `type` and `key`: the acting tools on the command line.

use std::process::{Command, Output};

use axsight_linux::LinuxEngine;

use crate::support;

fn axsight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(args)
        .output()
        .expect("axsight runs")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "axsight failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn click_type_and_key_print_what_changed() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("cli acting");
    let _app = support::fixture(&engine, &title).await;

    let clicked = stdout(&axsight(&["click", "name:Count", "--window", &title]));
    assert!(clicked.contains("with the pointer"), "{clicked}");
    assert!(
        clicked.contains("name \"Count\" -> \"Count 1\""),
        "{clicked}"
    );

    // A handle as `axsight tree` printed it for the same window.
    let tree = stdout(&axsight(&["tree", "--window", &title]));
    let count = tree
        .lines()
        .find(|l| l.contains("[Button] Count 1"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no Count button in:\n{tree}"));
    let clicked = stdout(&axsight(&[
        "click",
        count,
        "--window",
        &title,
        "--background",
    ]));
    assert!(
        clicked.contains("through its accessible action"),
        "{clicked}"
    );
    assert!(clicked.contains("\"Count 1\" -> \"Count 2\""), "{clicked}");

    let typed = stdout(&axsight(&[
        "type",
        "role:Edit && name:Name",
        "from the shell",
        "--window",
        &title,
    ]));
    assert!(
        typed.contains("check: the field holds \"from the shell\""),
        "{typed}"
    );

    // Keys go to the focused field: select all and replace.
    let keyed = stdout(&axsight(&["key", "ctrl+a x"]));
    assert!(keyed.contains("pressed ctrl+a x"), "{keyed}");
    assert!(keyed.contains("\"from the shell\" -> \"x\""), "{keyed}");

    // A secret from stdin: never on the command line, never in the answer.
    let mut child = Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(["type", "name:Password", "-", "--window", &title])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("axsight runs");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"from-stdin-secret\n").unwrap();
    let secret = stdout(&child.wait_with_output().unwrap());
    assert!(secret.contains("typed 17 characters"), "{secret}");
    assert!(!secret.contains("from-stdin"), "{secret}");

    // A secret from stdin: never on the command line, never in the answer.
    let mut child = Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(["type", "name:Password", "-", "--window", &title])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("axsight runs");
    if let Some(stdin) = child.stdin.as_mut() {
        std::io::Write::write_all(stdin, b"from-stdin-secret\n").expect("stdin takes the text");
    }
    let secret = stdout(&child.wait_with_output().expect("axsight ends"));
    assert!(secret.contains("typed 17 characters"), "{secret}");
    assert!(!secret.contains("from-stdin"), "{secret}");

    let refused = axsight(&["click", "name:\"No such thing\"", "--window", &title]);
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("no element matches"), "{error}");
}

/// `axsight tree | head -0`: the reader is gone before a byte is written; the
/// command ends quietly with success, not with a panic (as `println!` would).
#[tokio::test]
async fn a_reader_that_went_away_ends_the_command_quietly() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("cli closed pipe");
    let _app = support::fixture(&engine, &title).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_axsight"))
        .args(["tree", "--window", &title])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("axsight runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("axsight ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
