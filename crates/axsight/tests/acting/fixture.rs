//! The fixture app: diffs after real clicks, new windows and their handles, typing
//! checked and secrets kept, stale handles, toggles, a modal dialog from a menu.

use axsight_linux::LinuxEngine;
use axsight_session::{ActOptions, ClickOptions, Condition, ToolError};

use crate::support::{self, SECRET};
use crate::{aim, handle_in, Session};

fn click() -> ClickOptions {
    ClickOptions {
        count: 1,
        ..ClickOptions::default()
    }
}

#[tokio::test]
async fn a_slow_dialog_shows_in_the_diff_and_its_new_handles_click() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("slow dialog");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let opened = session
        .click(
            &aim(&title, "name:\"Open dialog later\""),
            &click(),
            &options,
        )
        .await
        .unwrap();
    assert!(opened.contains("with the pointer at"), "{opened}");
    assert!(opened.contains("added:\n"), "{opened}");
    assert!(opened.contains("[Dialog] Delayed dialog"), "{opened}");
    assert!(
        opened.contains("Dialog open"),
        "the status label changed: {opened}"
    );

    // The dialog's button is clickable by the handle the diff just gave it.
    let ok = handle_in(&opened, "[Button] OK");
    let closed = session.click(&ok, &click(), &options).await.unwrap();
    assert!(closed.contains("removed:\n"), "{closed}");
    assert!(closed.contains("[Dialog] Delayed dialog"), "{closed}");

    // The same handle now names nothing: refused as stale, never guessed.
    let again = session.click(&ok, &click(), &options).await.unwrap_err();
    assert!(matches!(again, ToolError::StaleHandle { .. }), "{again}");
    assert!(again.to_string().contains("stale"), "{again}");
}

#[tokio::test]
async fn a_renamed_button_is_changed_not_removed_and_added() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("rename");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let answer = session
        .click(
            &aim(&title, "name:\"Rename me\""),
            &click(),
            &ActOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        answer.contains("[Button] Renamed 1: name \"Rename me\" -> \"Renamed 1\""),
        "{answer}"
    );
    assert!(
        !answer.contains("added:") && !answer.contains("removed:"),
        "{answer}"
    );
}

#[tokio::test]
async fn typed_text_is_read_back_and_secrets_never_show() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("typing");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let text = "Héllo Wörld €@#~ 日本";
    let answer = session
        .type_into(
            Some(&aim(&title, "role:Edit && name:Name")),
            text,
            true,
            &options,
        )
        .await
        .unwrap();
    assert!(
        answer.contains(&format!("check: the field holds {text:?}")),
        "{answer}"
    );
    assert!(
        answer.contains(&format!("value \"\" -> {text:?}")),
        "{answer}"
    );

    let answer = session
        .type_into(
            Some(&aim(&title, "name:Password")),
            "hunter2-other",
            true,
            &options,
        )
        .await
        .unwrap();
    assert!(!answer.contains("hunter2"), "{answer}");
    assert!(!answer.contains(SECRET), "{answer}");
    assert!(answer.contains("typed 13 characters"), "{answer}");
    // Checked by its length, never its text.
    assert!(
        answer.contains(
            "check: the field holds 13 characters, as many as were typed (a secret field's text is never read)"
        ),
        "{answer}"
    );
}

#[tokio::test]
async fn typing_with_key_events_reaches_the_field() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("keys");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    // Focus the field by clicking it, then type with the keyboard alone.
    session
        .click(&aim(&title, "role:Edit && name:Name"), &click(), &options)
        .await
        .unwrap();
    let answer = session
        .press_key("shift+a b ctrl+a BackSpace x y z", None, &options)
        .await
        .unwrap();
    assert!(
        answer.contains("pressed shift+a b ctrl+a BackSpace x y z"),
        "{answer}"
    );
    assert!(answer.contains("value \"\" -> \"xyz\""), "{answer}");
}

#[tokio::test]
async fn set_toggled_twice_leaves_the_box_checked() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("toggle");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    let remember = aim(&title, "name:\"Remember me\"");

    let first = session
        .set_toggled(&remember, true, &options)
        .await
        .unwrap();
    assert!(first.contains("check: it is on"), "{first}");
    assert!(first.contains("checked no -> yes"), "{first}");
    let second = session
        .set_toggled(&remember, true, &options)
        .await
        .unwrap();
    assert!(second.contains("already on: pressed nothing"), "{second}");
    let tree = support::tree(&engine, &_app).await;
    let node = tree
        .tree
        .ids()
        .find(|&n| tree.tree.element(n).name == "Remember me")
        .unwrap();
    assert!(tree
        .tree
        .element(node)
        .states
        .contains(axsight_core::State::Checked));
}

#[tokio::test]
async fn a_modal_dialog_from_a_menu_is_filled_and_confirmed() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("modal");
    let app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let menu = session
        .click(&aim(&title, "role:Menu && name:File"), &click(), &options)
        .await
        .unwrap();
    let ask = handle_in(&menu, "[MenuItem] Ask name");
    let dialog = session.click(&ask, &click(), &options).await.unwrap();
    assert!(dialog.contains("with the pointer"), "{dialog}");
    assert!(dialog.contains("[Dialog] Ask name"), "{dialog}");

    let entry = handle_in(&dialog, "[Edit] Your name");
    let typed = session
        .type_into(Some(&entry), "Ada", true, &options)
        .await
        .unwrap();
    assert!(typed.contains("check: the field holds \"Ada\""), "{typed}");
    let ok = handle_in(&dialog, "[Button] OK");
    let done = session.click(&ok, &click(), &options).await.unwrap();
    assert!(done.contains("Hello, Ada"), "{done}");
    assert!(done.contains("removed:"), "{done}");

    // Nothing hangs: the app still answers.
    let tree = support::tree(&engine, &app).await;
    assert!(tree
        .tree
        .ids()
        .any(|n| tree.tree.element(n).name == "Hello, Ada"));
}

#[tokio::test]
async fn values_options_and_waiting_work_on_the_fixture() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("values");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let picked = session
        .select_option(
            &aim(&title, "role:ComboBox && name:Colour"),
            "Blue",
            &options,
        )
        .await
        .unwrap();
    assert!(picked.contains("selected 'Blue'"), "{picked}");
    // The fixture says what it got in its status line.
    assert!(picked.contains("\"Ready\" -> \"Colour: Blue\""), "{picked}");

    let tab = session
        .select_option(&aim(&title, "role:Tab"), "Advanced", &options)
        .await
        .unwrap();
    assert!(
        tab.contains("[TabItem] Advanced: selected no -> yes"),
        "{tab}"
    );

    let missing = session
        .select_option(&aim(&title, "role:ComboBox"), "Purple", &options)
        .await
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("has no option 'Purple'; its 3 options: Red, Green, Blue"),
        "{missing}"
    );

    // Open the slow dialog without waiting, then wait for it by selector.
    let quick = ActOptions {
        diff: false,
        ..options
    };
    session
        .click(&aim(&title, "name:\"Open dialog later\""), &click(), &quick)
        .await
        .unwrap();
    let dialog = aim("Delayed dialog", "role:Dialog");
    let found = session
        .wait_for(
            &dialog,
            &Condition::Exists,
            std::time::Duration::from_secs(10),
        )
        .await
        .unwrap();
    assert!(found.contains("[Dialog] Delayed dialog exists"), "{found}");
    let never = session
        .wait_for(
            &aim(&title, "name:\"No such button\""),
            &Condition::Exists,
            std::time::Duration::from_millis(300),
        )
        .await
        .unwrap_err();
    assert!(matches!(never, ToolError::TimedOut(_)), "{never}");
}

#[tokio::test]
async fn a_modal_dialog_run_inside_an_accessible_action_is_told_and_closed() {
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("stuck");
    let app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();

    let menu = session
        .click(&aim(&title, "role:Menu && name:File"), &click(), &options)
        .await
        .unwrap();
    let ask = handle_in(&menu, "[MenuItem] Ask name");
    // The accessible way: GTK3 runs the dialog inside the action's call, and
    // the app answers nothing more until it closes.
    let background = ClickOptions {
        background: true,
        ..click()
    };
    let stuck = session.click(&ask, &background, &options).await.unwrap();
    assert!(stuck.contains("through its accessible action"), "{stuck}");
    assert!(stuck.contains("stopped answering"), "{stuck}");
    assert!(
        stuck.contains("'Ask name' ["),
        "the dialog's place on screen: {stuck}"
    );

    // Closed through the display by its title, the dialog lets the app go.
    let closed = session
        .close_window(None, Some("Ask name"), &options)
        .await
        .unwrap();
    assert!(closed.contains("through the display"), "{closed}");
    let answered = support::wait_until(std::time::Duration::from_secs(10), || async {
        let tree = support::read(&engine, &app, false).await.ok()?;
        tree.tree
            .ids()
            .any(|n| tree.tree.element(n).name == "Asked nothing")
            .then_some(())
    })
    .await;
    assert!(
        answered.is_some(),
        "the app answers again, its dialog cancelled"
    );
}

/// The screen box printed on a found element's line (`[x,y,w,h]`).
fn printed_bounds(line: &str) -> [i32; 4] {
    let inside = line
        .rsplit_once('[')
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(inside, _)| inside)
        .unwrap_or_else(|| panic!("no bounds on {line:?}"));
    let numbers: Vec<i32> = inside.split(',').map(|n| n.parse().unwrap()).collect();
    numbers.try_into().unwrap()
}

#[tokio::test]
async fn a_double_click_just_after_a_click_in_the_same_field_still_selects_a_word() {
    // Clicks on two different buttons go out back to back; clicks inside one
    // field must not, or GTK counts them together (a click, then a double
    // click 24 px away at once: the caret lands, no word is selected, and the
    // typing goes in mid-word).
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("word");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    let field = aim(&title, "role:Edit && name:Name");
    session
        .type_into(Some(&field), "alpha bravo", true, &options)
        .await
        .unwrap();
    let found = session
        .find("role:Edit && name:Name", None, Some(&title), 1)
        .await
        .unwrap()
        .found;
    let [x, y, _, height] = printed_bounds(&found[0].line);
    // Straight to the engine, back to back: an action's answer would wait for
    // the UI long enough to hide a missing pause.
    use axsight_core::{Input, MouseButton, Point};
    let press = |dx, count| Input::Click {
        at: Point {
            x: x + dx,
            y: y + height / 2,
        },
        button: MouseButton::Left,
        count,
        modifiers: Vec::new(),
        // A point in a field: not a control that counts its own clicks.
        control: None,
    };
    engine.send_input(&press(14, 1)).await.unwrap();
    engine.send_input(&press(38, 2)).await.unwrap();
    let typed = session
        .type_into(Some(&field), "omega", false, &options)
        .await
        .unwrap();
    assert!(typed.contains("\"omega bravo\""), "{typed}");
}

#[tokio::test]
async fn a_click_into_a_field_and_a_tab_end_once_the_focus_has_moved() {
    // Nothing but the focus changes: the answer comes once it has, not after
    // the whole wait for an effect.
    let _turn = crate::turn().await;
    let engine = LinuxEngine::connect().await.unwrap();
    let title = support::title("focus");
    let _app = support::fixture(&engine, &title).await;
    let session = Session::watching();
    let options = ActOptions::default();
    let clicked = session
        .click(&aim(&title, "role:Edit && name:Name"), &click(), &options)
        .await
        .unwrap();
    assert!(clicked.contains("(the focus moved;"), "{clicked}");
    let tabbed = session.press_key("Tab", None, &options).await.unwrap();
    assert!(tabbed.contains("(the focus moved;"), "{tabbed}");
    // A button's click is an effect: not "the focus moved".
    let saved = session
        .click(&aim(&title, "role:Button && name:Save"), &click(), &options)
        .await
        .unwrap();
    assert!(
        saved.contains("settled in") && !saved.contains("focus moved"),
        "{saved}"
    );
}
