//! The `axsight` binary, including from a stripped environment like MCP clients give.

use std::process::Command;

use axsight_linux::LinuxEngine;

use crate::support;

fn axsight() -> Command {
    Command::new(env!("CARGO_BIN_EXE_axsight"))
}

#[tokio::test]
async fn tree_and_find_print_what_the_agent_sees() {
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("cli");
    let _app = support::fixture(&engine, &title).await;
    let out = axsight()
        .args(["tree", "--window", &title])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("app: axsight-fixture (pid "), "{text}");
    assert!(text.contains("[CheckBox] Remember me"));
    assert!(!text.contains(support::SECRET));

    let out = axsight()
        .args([
            "find",
            "role:CheckBox && name:\"Remember me\"",
            "--window",
            &title,
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("[CheckBox] Remember me"));

    let out = axsight().args(["find", "role:Button &&"]).output().unwrap();
    assert!(!out.status.success());
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(error.contains("selector error at column 15"), "{error}");
    assert_eq!(
        error.matches("selector error").count(),
        1,
        "printed twice: {error}"
    );
}

#[tokio::test]
async fn stripped_environment_still_finds_the_desktop() {
    support::require_desktop();
    // Only DISPLAY (several test desktops may run at once, so the X socket alone is
    // ambiguous): the accessibility bus comes from the X root window's AT_SPI_BUS.
    let out = axsight()
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", std::env::var("HOME").unwrap_or_default())
        .env("DISPLAY", std::env::var("DISPLAY").unwrap())
        .args(["doctor"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the AT_SPI_BUS property of the X root window"),
        "{text}"
    );
    assert!(text.contains("ok    applications"), "{text}");
}

#[tokio::test]
async fn no_display_at_all_says_what_to_set() {
    let out = axsight()
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DISPLAY", ":999")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
        .args(["apps"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(
        error.contains("cannot find the accessibility bus"),
        "{error}"
    );
    assert!(error.contains("AT_SPI_BUS_ADDRESS"), "{error}");
}
