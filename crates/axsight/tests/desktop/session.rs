//! The session (what the MCP tools and the CLI print) against real apps.

use axsight_linux::LinuxEngine;
use axsight_session::{ToolError, TreeOutput, TreeRequest};

type Session = axsight_session::Session<LinuxEngine>;

use crate::support;

fn text(output: TreeOutput) -> String {
    match output {
        TreeOutput::Text(text) => text,
        TreeOutput::Json(_) => panic!("asked for text"),
    }
}

/// The window titled `title`, as the tree has it: what OCR reads of its canvas
/// (tests/acting/sources.rs) depends on which window is on top, and the note
/// says how long reading took.
fn request(title: &str) -> TreeRequest {
    TreeRequest {
        window: Some(title.to_string()),
        fall_through: Some(false),
        ..TreeRequest::default()
    }
}

/// The handle printed on the first line that contains `needle`.
fn handle_of(text: &str, needle: &str) -> String {
    text.lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
        .to_string()
}

#[tokio::test]
async fn handles_stay_the_same_across_captures() {
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("handles");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::new();
    let first = text(session.window_tree(&request(&title), false).await.unwrap());
    let second = text(session.window_tree(&request(&title), false).await.unwrap());
    assert_eq!(first, second);
    assert!(first.contains("[Button] Save (["), "{first}");
    assert!(first.contains("[Edit] Password (password"), "{first}");
    assert!(!first.contains(support::SECRET));

    // `from` prints the subtree of a handle, first line first.
    let table = handle_of(&first, "[Table] Fruits");
    let part = text(
        session
            .window_tree(
                &TreeRequest {
                    from: Some(table.clone()),
                    ..TreeRequest::default()
                },
                false,
            )
            .await
            .unwrap(),
    );
    assert!(
        part.lines()
            .nth(1)
            .unwrap()
            .starts_with(&format!("{table} [Table] Fruits")),
        "{part}"
    );
    assert!(part.contains("[Cell] Cherry"));
    assert!(!part.contains("[Button] Save"));

    // find gives the same handle the tree printed.
    let save = handle_of(&first, "[Button] Save");
    let findings = session
        .find("role:Button && name:Save", None, Some(&title), 10)
        .await
        .unwrap();
    assert_eq!(findings.total, 1);
    assert!(findings.found[0]
        .line
        .starts_with(&format!("{save} [Button] Save")));

    // Nothing found names what one test missed: another role, a longer name.
    let missed = session
        .find("role:ToggleButton && name:Save", None, Some(&title), 10)
        .await
        .unwrap();
    assert_eq!(missed.total, 0);
    assert_eq!(
        missed.close,
        format!("; close to it: {save} [Button] Save (its role differs)")
    );
    let longer = session
        .find("role:Button && name:Open", None, Some(&title), 10)
        .await
        .unwrap();
    assert!(
        longer
            .close
            .contains("[Button] Open dialog later (its name differs (text:\"Open\" finds it))"),
        "{}",
        longer.close
    );
}

#[tokio::test]
async fn json_has_the_same_handles_and_no_secret() {
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("json");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::new();
    let compact = text(session.window_tree(&request(&title), false).await.unwrap());
    let TreeOutput::Json(json) = session.window_tree(&request(&title), true).await.unwrap() else {
        panic!("asked for json")
    };
    let serialized = json.to_string();
    assert!(!serialized.contains(support::SECRET));
    assert_eq!(json["app"], "axsight-fixture");
    let save = handle_of(&compact, "[Button] Save");
    let node =
        find_handle(&json["tree"], &save).unwrap_or_else(|| panic!("{save} not in {serialized}"));
    assert_eq!(node["role"], "Button");
    assert_eq!(node["raw_role"], "push button");
    assert_eq!(node["name"], "Save");
    assert!(node["actions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "click"));
}

fn find_handle<'v>(node: &'v serde_json::Value, handle: &str) -> Option<&'v serde_json::Value> {
    if node["handle"] == handle {
        return Some(node);
    }
    node["children"]
        .as_array()?
        .iter()
        .find_map(|child| find_handle(child, handle))
}

#[tokio::test]
async fn handles_of_closed_windows_are_stale() {
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("stale");
    let app = support::fixture(&engine, &title).await;
    let session = Session::new();
    let tree = text(session.window_tree(&request(&title), false).await.unwrap());
    let save = handle_of(&tree, "[Button] Save");
    assert!(session.validate_handle(&save).await.unwrap().is_some());
    drop(app);
    let gone = support::wait_until(std::time::Duration::from_secs(10), || async {
        session
            .validate_handle(&save)
            .await
            .unwrap()
            .is_none()
            .then_some(())
    })
    .await;
    assert!(
        gone.is_some(),
        "{save} still validates after its app was killed"
    );
    let error = session
        .window_tree(
            &TreeRequest {
                from: Some(save.clone()),
                ..TreeRequest::default()
            },
            false,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, ToolError::StaleHandle { .. } | ToolError::Engine(_)),
        "{error}"
    );
}

#[tokio::test]
async fn bad_input_gets_clear_errors() {
    let engine = LinuxEngine::connect().await.unwrap();
    let _app = support::fixture(&engine, &support::title("bad input")).await;
    let session = Session::new();
    let error = session
        .find("role:Button &&", None, None, 5)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("column 15"), "{error}");
    let error = session
        .window_tree(
            &TreeRequest {
                from: Some("#u1".into()),
                selector: Some("role:Button".into()),
                ..TreeRequest::default()
            },
            false,
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("not both"), "{error}");
    let error = session.validate_handle("#u9999").await.unwrap_err();
    assert!(error.to_string().contains("never given out"), "{error}");
    let error = session.validate_handle("#x1").await.unwrap_err();
    assert!(error.to_string().contains("is not a handle"), "{error}");
    let error = session
        .window_tree(
            &TreeRequest {
                app: Some("no-such-app".into()),
                ..TreeRequest::default()
            },
            false,
        )
        .await
        .unwrap_err();
    assert!(error.to_string().contains("running:"), "{error}");
}

#[tokio::test]
async fn one_shot_and_watching_sessions_print_the_same_tree() {
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("same");
    let app = support::fixture(&engine, &title).await;
    let one_shot = text(
        Session::new()
            .window_tree(&request(&title), false)
            .await
            .unwrap(),
    );
    let watching = text(
        Session::watching()
            .window_tree(&request(&title), false)
            .await
            .unwrap(),
    );
    assert_eq!(one_shot, watching);

    // An app can be named by pid, for find as for trees.
    let found = Session::new()
        .find("role:CheckBox", Some(&app.pid().to_string()), None, 10)
        .await
        .unwrap()
        .found;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].line.contains("[CheckBox] Remember me"));
}
