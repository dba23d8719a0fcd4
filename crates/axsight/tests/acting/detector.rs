//! The UI-element detector (`#m`) on the fixture: it finds the icon-only
//! buttons, points them at their tree elements, and a click by `#m` handle
//! presses one — also after the window moved.

use axsight_linux::LinuxEngine;
use axsight_session::{ActOptions, ClickOptions, Grounding, Target, TreeOutput, TreeRequest};

use crate::support;
use crate::Session;

async fn with_detector(
    session: &Session,
    title: &str,
) -> Result<String, axsight_session::ToolError> {
    let request = TreeRequest {
        window: Some(title.to_string()),
        include_detector: true,
        ..TreeRequest::default()
    };
    match session.window_tree(&request, false).await? {
        TreeOutput::Text(text) => Ok(text),
        TreeOutput::Json(_) => panic!("text was asked for"),
    }
}

/// The `#m` handle of the detector line that points at the tree element
/// printed on the line containing `needle`.
fn detected(tree: &str, needle: &str) -> String {
    let element = tree
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no tree line with {needle:?}:\n{tree}"));
    let section = tree
        .split("- detector\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no detector section:\n{tree}"));
    section
        .lines()
        .find(|l| l.ends_with(&format!(" = {element}")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("the detector did not find {element} ({needle}):\n{section}"))
        .to_string()
}

#[tokio::test]
async fn the_detector_finds_icon_buttons_and_its_handles_click_them() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("detector");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching().with_grounding(Grounding {
        detector: Some(support::detector_options()),
        ..Grounding::default()
    });

    let tree = with_detector(&session, &title).await.unwrap();
    // All three icon-only buttons are found where the tree has them.
    for icon in ["Copy (icon)", "Delete (icon)", "Refresh (icon)"] {
        detected(&tree, icon);
    }
    let delete = detected(&tree, "Delete (icon)");
    let options = ActOptions::default();
    let answer = session
        .click(
            &Target::Handle(delete.clone()),
            &ClickOptions::default(),
            &options,
        )
        .await
        .unwrap();
    assert!(answer.contains("Icon Delete clicked"), "{answer}");

    // The fixture moves its own window; a handle from before still lands.
    let refresh = detected(&tree, "Refresh (icon)");
    let moved = crate::move_fixture_window(&session, &title).await;
    assert!(moved.contains("-> [120,80,800,600]"), "{moved}");
    let answer = session
        .click(&Target::Handle(refresh), &ClickOptions::default(), &options)
        .await
        .unwrap();
    assert!(answer.contains("Icon Refresh clicked"), "{answer}");

    // A newer detection retires the older handles.
    with_detector(&session, &title).await.unwrap();
    let stale = session
        .click(&Target::Handle(delete), &ClickOptions::default(), &options)
        .await
        .unwrap_err();
    assert!(stale.to_string().contains("is stale"), "{stale}");
}

#[tokio::test]
async fn without_a_model_the_detector_says_how_to_get_one() {
    // Its window maps on top of the others: it takes its turn too.
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("no-model");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let error = with_detector(&session, &title)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("no UI-element detector model") && error.contains("get-detector-model"),
        "{error}"
    );

    let missing = Session::watching().with_grounding(Grounding {
        detector: Some(axsight_vision::DetectorOptions::new(
            "/nonexistent/model.onnx",
        )),
        ..Grounding::default()
    });
    let error = with_detector(&missing, &title)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("/nonexistent/model.onnx") && error.contains("no such file"),
        "{error}"
    );
}

#[tokio::test]
async fn the_detector_model_is_let_go_when_idle_and_loads_again_on_use() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("idle detector");
    let _app = support::fixture(&engine, &title).await;
    let idle = std::time::Duration::from_secs(2);
    let session = Session::watching().with_grounding(Grounding {
        detector: Some(support::detector_options()),
        detector_idle: Some(idle),
        ..Grounding::default()
    });
    assert!(!session.detector_loaded(), "loaded before any use");
    let tree = with_detector(&session, &title).await.unwrap();
    detected(&tree, "Copy (icon)");
    assert!(
        session.detector_loaded(),
        "let go at once, not after {idle:?}"
    );

    let deadline = std::time::Instant::now() + idle * 5;
    while session.detector_loaded() {
        assert!(
            std::time::Instant::now() < deadline,
            "still loaded {:?} after its last use",
            idle * 5
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // The next use loads it again, and finds the same.
    let tree = with_detector(&session, &title).await.unwrap();
    detected(&tree, "Copy (icon)");
    assert!(session.detector_loaded());
}
