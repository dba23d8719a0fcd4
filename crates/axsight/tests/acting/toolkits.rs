//! Third-party apps: gnome-calculator (GTK4: window-relative extents, a 250 ms
//! delay on accessible clicks) and gtk3-widget-factory (every GTK3 widget).

use axsight_linux::LinuxEngine;
use axsight_session::{
    ActOptions, ClickOptions, Condition, NewValue, Target, TreeOutput, TreeRequest,
};
use std::time::Duration;

use crate::support;
use crate::{handle_in, Session};

fn click() -> ClickOptions {
    ClickOptions {
        count: 1,
        ..ClickOptions::default()
    }
}

/// Prints the window of `app` (numbering its handles) and returns the text.
async fn tree_of(session: &Session, app: &support::App) -> String {
    let request = TreeRequest {
        app: Some(app.pid().to_string()),
        ..TreeRequest::default()
    };
    match session.window_tree(&request, false).await.unwrap() {
        TreeOutput::Text(text) => text,
        TreeOutput::Json(_) => unreachable!("text was asked for"),
    }
}

fn in_app(app: &support::App, selector: &str) -> Target {
    Target::Selector {
        selector: selector.to_string(),
        app: Some(app.pid().to_string()),
        window: None,
    }
}

#[tokio::test]
async fn the_calculator_computes_by_handles_and_by_keys() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let calculator = support::calculator(&engine).await;
    let session = Session::watching();
    let options = ActOptions::default();

    // By handles, as printed in the tree.
    let text = tree_of(&session, &calculator).await;
    for label in [
        "[Button] 1 (",
        "[Button] 2 (",
        "[Button] × (",
        "[Button] 7 (",
        "[Button] = (",
    ] {
        let answer = session
            .click(&handle_in(&text, label), &click(), &options)
            .await
            .unwrap();
        assert!(answer.contains("with the pointer"), "{answer}");
    }
    let result = in_app(&calculator, "role:Edit");
    let shown = session
        .wait_for(
            &result,
            &Condition::HasValue("84".into()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(shown.contains("84"), "{shown}");

    // By keys: clear, then another product on the keyboard (not 84 again, or the
    // first result would pass for it).
    let answer = session
        .press_key("Escape 6 * 9 Return", None, &options)
        .await
        .unwrap();
    assert!(answer.contains("pressed Escape 6 * 9 Return"), "{answer}");
    let shown = session
        .wait_for(
            &result,
            &Condition::HasValue("54".into()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(shown.contains("54"), "{shown}");
}

#[tokio::test]
async fn widget_factory_combos_sliders_spins_tabs_and_lists() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let factory = support::widget_factory(&engine).await;
    let session = Session::watching();
    let options = ActOptions::default();
    let text = tree_of(&session, &factory).await;

    let slider = handle_in(&text, "[Slider] (value: \"50\", [");
    let moved = session
        .set_value(&slider, &NewValue::Number(75.0), &options)
        .await
        .unwrap();
    assert!(moved.contains("value \"50\" -> \"75\""), "{moved}");
    let refused = session
        .set_value(&slider, &NewValue::Number(1000.0), &options)
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("must lie between"),
        "{refused}"
    );

    // A press on the slider's middle brings the knob there (GTK warps it to the
    // pointer) and dragging to the right carries it along: the value changes.
    let knob = match &slider {
        Target::Handle(h) => h.clone(),
        other => panic!("a handle: {other:?}"),
    };
    let line = text
        .lines()
        .find(|l| l.contains(&format!("{knob} ")))
        .unwrap();
    let bounds: Vec<i32> = line
        .rsplit_once('[')
        .map(|(_, b)| {
            b.trim_end_matches([']', ')'])
                .split(',')
                .map(|n| n.parse().unwrap())
                .collect()
        })
        .unwrap();
    let (x, y) = (bounds[0] + bounds[2] / 2, bounds[1] + bounds[3] / 2);
    let dragged = session
        .drag(
            &Target::Point(axsight_core::Point { x, y }),
            &Target::Point(axsight_core::Point { x: x + 60, y }),
            &options,
        )
        .await
        .unwrap();
    assert!(dragged.contains("dragged from"), "{dragged}");
    assert!(dragged.contains("[Slider]: value \"75\" -> "), "{dragged}");

    let spin = handle_in(&text, "[SpinButton] (value: \"50\"");
    let spun = session
        .set_value(&spin, &NewValue::Text("42".into()), &options)
        .await
        .unwrap();
    assert!(spun.contains("value \"50\" -> \"42\""), "{spun}");

    let tabs = handle_in(&text, "[Tab] (");
    let switched = session
        .select_option(&tabs, "page 2", &options)
        .await
        .unwrap();
    assert!(
        switched.contains("[TabItem] page 2: selected no -> yes"),
        "{switched}"
    );

    let combo = handle_in(&text, "[ComboBox] Left");
    let picked = session
        .select_option(&combo, "Right", &options)
        .await
        .unwrap();
    assert!(picked.contains("selected 'Right'"), "{picked}");
    assert!(picked.contains("name \"Left\" -> \"Right\""), "{picked}");

    // The text view's lines overflow its box: a wheel turn moves its scroll bar.
    let view = handle_in(&text, "[Edit] (value: \"Lorem ipsum");
    let scrolled = session
        .scroll(
            &view,
            axsight_core::ScrollDirection::Down,
            5,
            false,
            &options,
        )
        .await
        .unwrap();
    assert!(scrolled.contains("with the wheel"), "{scrolled}");
    assert!(
        scrolled.contains("[ScrollBar]: value \"0\" -> "),
        "{scrolled}"
    );
    // Without the pointer, the scroll bar's value is moved directly.
    let back = session
        .scroll(&view, axsight_core::ScrollDirection::Up, 5, true, &options)
        .await
        .unwrap();
    assert!(back.contains("through its scroll bar's value"), "{back}");
    assert!(back.contains("-> \"0\""), "{back}");
}
