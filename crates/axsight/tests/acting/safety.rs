//! What must not go wrong: covered windows are acted on without the pointer, a hung
//! app costs one failed call, bad targets get plain errors.

use std::process::Command;
use std::time::Duration;

use axsight_core::Engine;
use axsight_linux::LinuxEngine;
use axsight_session::{ActOptions, ClickOptions, Target, ToolError};

use crate::support;
use crate::{aim, Session};

fn click() -> ClickOptions {
    ClickOptions {
        count: 1,
        ..ClickOptions::default()
    }
}

#[tokio::test]
async fn a_covered_window_is_clicked_through_its_accessible_action() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let back = support::title("covered back");
    let _below = support::fixture_with(
        &engine,
        &support::title("covered base"),
        &["--second-window", &back],
    )
    .await;
    // A full-size window mapped later lies on top of both at (0, 0).
    let _cover = support::fixture(&engine, &support::title("covered top")).await;
    let session = Session::watching();
    let answer = session
        .click(
            &aim(&back, "name:\"Background action\""),
            &click(),
            &ActOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        answer.contains("through its accessible action 'click' (another window covers it there)"),
        "{answer}"
    );
    assert!(answer.contains("Background clicked 1"), "{answer}");

    // A right click needs the pointer: refused with the reason, not faked.
    let right = ClickOptions {
        button: axsight_core::MouseButton::Right,
        ..click()
    };
    let refused = session
        .click(
            &aim(&back, "name:\"Background check\""),
            &right,
            &ActOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("only the pointer can"),
        "{refused}"
    );
}

#[tokio::test]
async fn where_input_lands_is_told_for_many_points_at_once() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let lower = support::title("reach lower");
    let _below = support::fixture(&engine, &lower).await;
    let upper = support::title("reach upper");
    // Mapped later, at the same place (no window manager): on top of the lower.
    let _above = support::fixture(&engine, &upper).await;
    let apps = engine.applications().await.unwrap();
    let window = |title: &str| {
        apps.iter()
            .flat_map(|app| &app.windows)
            .find(|w| w.title == title)
            .cloned()
            .unwrap_or_else(|| panic!("no window {title}"))
    };
    let (lower, upper) = (window(&lower), window(&upper));
    let on_top = upper.bounds.unwrap();
    let (x, y) = on_top.center();
    let points = [
        axsight_core::Point { x, y },
        // Off every window of the screen.
        axsight_core::Point { x: -50, y: -50 },
        axsight_core::Point {
            x: on_top.x + 2,
            y: on_top.y + 2,
        },
    ];
    let reached = engine.input_reaches_each(&upper.id, &points).await.unwrap();
    assert_eq!(reached, [true, false, true]);
    let reached = engine.input_reaches_each(&lower.id, &points).await.unwrap();
    assert_eq!(reached, [false, false, false]);
    // One point alone is answered as it is among others.
    for (point, alone) in [(points[0], true), (points[1], false)] {
        let reached = Engine::input_reaches(&engine, &upper.id, point)
            .await
            .unwrap();
        assert_eq!(reached, alone, "{point:?}");
    }
}

#[tokio::test]
async fn a_hung_app_costs_one_failed_call_and_others_still_answer() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let hung_title = support::title("hung");
    let hung = support::fixture(&engine, &hung_title).await;
    let live_title = support::title("alive");
    let _live = support::fixture(&engine, &live_title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    // Read both first, as an agent would have.
    session
        .click(&aim(&hung_title, "name:Count"), &click(), &options)
        .await
        .unwrap();

    let stop = |signal: &str| {
        Command::new("kill")
            .args([signal, &hung.pid().to_string()])
            .status()
            .expect("kill runs");
    };
    stop("-STOP");
    let failed = tokio::time::timeout(
        Duration::from_secs(30),
        session.click(&aim(&hung_title, "name:Count"), &click(), &options),
    )
    .await
    .expect("the call to a stopped app ends within its deadline");
    let error = failed.unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("did not answer") || message.contains("is not answering"),
        "a plain message: {message}"
    );

    let other = tokio::time::timeout(
        Duration::from_secs(30),
        session.click(&aim(&live_title, "name:Count"), &click(), &options),
    )
    .await
    .expect("the other app's call ends");
    stop("-CONT");
    let other = other.unwrap();
    assert!(other.contains("Count 1"), "{other}");
}

#[tokio::test]
async fn bad_targets_get_plain_errors() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("bad targets");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let unknown = session
        .click(&Target::Handle("#u999".into()), &click(), &options)
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, ToolError::UnknownHandle { .. }),
        "{unknown}"
    );

    let malformed = session
        .click(&aim(&title, "role:Button &&"), &click(), &options)
        .await
        .unwrap_err();
    assert!(matches!(malformed, ToolError::Selector(_)), "{malformed}");

    let none = session
        .click(
            &aim(&title, "name:\"Nothing like this\""),
            &click(),
            &options,
        )
        .await
        .unwrap_err();
    assert!(matches!(none, ToolError::NoMatch { .. }), "{none}");

    let not_text = session
        .type_into(Some(&aim(&title, "name:Save")), "x", true, &options)
        .await
        .unwrap_err();
    assert!(
        not_text.to_string().contains("does not take text"),
        "{not_text}"
    );

    let keys = session
        .press_key("ctrl+hyper+x", None, &options)
        .await
        .unwrap_err();
    assert!(keys.to_string().contains("not a modifier"), "{keys}");

    let as_text = session
        .set_value(
            &aim(&title, "role:Edit && name:Name"),
            &axsight_session::NewValue::Text("fine".into()),
            &options,
        )
        .await
        .unwrap();
    assert!(as_text.contains("value \"\" -> \"fine\""), "{as_text}");
}

#[tokio::test]
async fn windows_are_activated_and_closed() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let lower = support::title("lower");
    let _below = support::fixture(&engine, &lower).await;
    let upper = support::title("upper");
    let _above = support::fixture(&engine, &upper).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let raised = session
        .activate_window(None, Some(&lower), &options)
        .await
        .unwrap();
    assert!(raised.contains(&format!("activated '{lower}'")), "{raised}");
    assert!(raised.contains("check: it is active now"), "{raised}");
    // Raised means on top: a pointer click now reaches it.
    let clicked = session
        .click(&aim(&lower, "name:Count"), &click(), &options)
        .await
        .unwrap();
    assert!(clicked.contains("with the pointer"), "{clicked}");

    let closed = session
        .close_window(None, Some(&upper), &options)
        .await
        .unwrap();
    assert!(
        closed.contains(&format!("asked '{upper}' to close")),
        "{closed}"
    );
    assert!(closed.contains("removed:"), "{closed}");
    let gone = session
        .activate_window(None, Some(&upper), &options)
        .await
        .unwrap_err();
    assert!(gone.to_string().contains("no window matching"), "{gone}");
}
