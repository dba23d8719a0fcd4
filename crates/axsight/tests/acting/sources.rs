//! Grounding sources beside the tree: text OCR reads, with `#o` handles that
//! click where the text is, and point at the tree where it says the same.

use axsight_linux::LinuxEngine;
use axsight_session::{ActOptions, ClickOptions, Target, ToolError, TreeOutput, TreeRequest};

use crate::support;
use crate::Session;

async fn with_ocr(session: &Session, title: &str) -> String {
    let request = TreeRequest {
        window: Some(title.to_string()),
        include_ocr: true,
        ..TreeRequest::default()
    };
    match session.window_tree(&request, false).await.unwrap() {
        TreeOutput::Text(text) => text,
        TreeOutput::Json(_) => panic!("text was asked for"),
    }
}

/// Where the fixture says its canvas was clicked (canvas pixels), from an
/// action's answer.
fn canvas_click(answer: &str) -> (i32, i32) {
    let at: String = answer
        .split("Canvas clicked at ")
        .nth(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .collect()
        })
        .unwrap_or_else(|| panic!("the canvas saw no click: {answer}"));
    let (x, y) = at.split_once(',').expect("x,y");
    (x.parse().expect("a number"), y.parse().expect("a number"))
}

/// The handle of the OCR line that reads `text`.
fn ocr_handle(tree: &str, text: &str) -> String {
    let ocr = tree
        .split("- ocr\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no ocr section:\n{tree}"));
    ocr.lines()
        .find(|l| l.to_lowercase().contains(&text.to_lowercase()))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("OCR did not read {text:?}:\n{ocr}"))
        .to_string()
}

#[tokio::test]
async fn painted_text_is_read_by_ocr_and_clicked_by_its_handle() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("ocr");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();

    let tree = with_ocr(&session, &title).await;
    let canvas = ocr_handle(&tree, "Canvas text 42");
    assert!(canvas.starts_with("#o"), "{tree}");
    // Text the tree already has points at the tree's handle.
    let ocr = tree.split("- ocr\n").nth(1).unwrap();
    let labelled = ocr
        .lines()
        .find(|l| l.contains("Open dialog later"))
        .unwrap_or_else(|| panic!("OCR did not read a button's label:\n{ocr}"));
    assert!(labelled.contains(" = #u"), "{labelled}");

    let answer = session
        .click(
            &Target::Handle(canvas.clone()),
            &ClickOptions::default(),
            &ActOptions::default(),
        )
        .await
        .unwrap();
    assert!(answer.contains("Canvas text 42"), "{answer}");
    // The fixture says where in the canvas the click landed: on the painted
    // text, drawn from (10, ~80) to (~165, 100).
    let (x, y) = canvas_click(&answer);
    assert!(
        (10..=180).contains(&x) && (72..=104).contains(&y),
        "clicked at {x},{y}"
    );

    let alive = session.validate_handle(&canvas).await.unwrap();
    let alive = alive.expect("the OCR handle is alive").line;
    assert!(alive.contains("\"Canvas text 42\" at ("), "{alive}");

    // A newer capture retires the older handles.
    with_ocr(&session, &title).await;
    assert!(session.validate_handle(&canvas).await.unwrap().is_none());
    let stale = session
        .click(
            &Target::Handle(canvas),
            &ClickOptions::default(),
            &ActOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(matches!(stale, ToolError::StaleSighting { .. }), "{stale}");
}

#[tokio::test]
async fn descriptions_find_tree_elements_first_and_painted_text_by_ocr() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("describe");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();

    let rename = session
        .find_described("the rename me button", None, Some(&title))
        .await
        .unwrap();
    assert!(
        rename.starts_with("found in the tree, no screenshot taken: #u"),
        "{rename}"
    );
    assert!(rename.contains("[Button] Rename me"), "{rename}");

    let field = session
        .find_described("password field", None, Some(&title))
        .await
        .unwrap();
    assert!(field.contains("[Edit] Password"), "{field}");

    // Painted text has no element: OCR finds it, with a handle to click.
    let painted = session
        .find_described("canvas text 42", None, Some(&title))
        .await
        .unwrap();
    assert!(painted.starts_with("found by OCR"), "{painted}");
    assert!(painted.contains("\"Canvas text 42\""), "{painted}");
    let handle = painted
        .split("index \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    let clicked = session
        .click(
            &Target::Handle(handle.to_string()),
            &ClickOptions::default(),
            &ActOptions::default(),
        )
        .await
        .unwrap();
    assert!(clicked.contains("Canvas clicked at"), "{clicked}");

    let empty = session
        .find_described("  ", None, Some(&title))
        .await
        .unwrap_err();
    assert!(
        empty.to_string().contains("describe the element"),
        "{empty}"
    );
}

#[tokio::test]
async fn an_ocr_handle_follows_its_window_when_it_moves() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("moved");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let tree = with_ocr(&session, &title).await;
    let canvas = ocr_handle(&tree, "Canvas text 42");

    // The fixture moves its own window (no window manager here to ask).
    let options = ActOptions::default();
    let moved = crate::move_fixture_window(&session, &title).await;
    assert!(
        moved.contains("bounds [0,0,800,600] -> [120,80,800,600]"),
        "{moved}"
    );

    let answer = session
        .click(&Target::Handle(canvas), &ClickOptions::default(), &options)
        .await
        .unwrap();
    let (x, y) = canvas_click(&answer);
    assert!(
        (10..=180).contains(&x) && (72..=104).contains(&y),
        "clicked at {x},{y} in the canvas"
    );
}

#[tokio::test]
async fn a_sighting_whose_place_changed_since_its_capture_is_refused() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("changed place");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    let tree = with_ocr(&session, &title).await;
    let count = ocr_handle(&tree, "\"Count\"");

    // The button renames itself "Count 1": its label is drawn anew, shifted.
    let renamed = session
        .click(
            &crate::aim(&title, "role:Button && name:Count"),
            &ClickOptions::default(),
            &options,
        )
        .await
        .unwrap();
    assert!(renamed.contains("\"Count 1\""), "{renamed}");
    let refused = session
        .click(&Target::Handle(count), &ClickOptions::default(), &options)
        .await
        .unwrap_err();
    assert!(
        matches!(refused, ToolError::StaleSighting { .. })
            && refused.to_string().contains("looks different")
            && refused.to_string().contains("include_ocr"),
        "{refused}"
    );
    // Nothing was clicked: the button still says 1.
    let tree = with_ocr(&session, &title).await;
    assert!(
        tree.contains("Count 1") && !tree.contains("Count 2"),
        "{tree}"
    );
}
