use super::*;
use crate::{Role, State, StateSet};

fn shown(id: &str, role: Role, name: &str) -> Element {
    let mut element = Element::new(id, role, "raw");
    element.name = name.into();
    element.states = StateSet::from_iter([State::Showing, State::Visible, State::Enabled]);
    element.bounds = Some(Bounds {
        x: 0,
        y: 0,
        width: 10,
        height: 10,
    });
    element
}

/// Window > (Button "Rename me", Edit value "a", Password, List > 2 items)
fn before() -> Tree {
    let mut tree = Tree::new(shown("w", Role::Window, "App"));
    tree.push(tree.root(), shown("b", Role::Button, "Rename me"));
    let mut edit = shown("e", Role::Edit, "Name");
    edit.value = Some("a".into());
    tree.push(tree.root(), edit);
    let mut secret = shown("p", Role::Edit, "Password");
    secret.raw_role = "password text".into();
    tree.push(tree.root(), secret);
    let list = tree.push(tree.root(), shown("l", Role::List, "Fruits"));
    tree.push(list, shown("l1", Role::ListItem, "Apple"));
    tree.push(list, shown("l2", Role::ListItem, "Pear"));
    tree
}

#[test]
fn nothing_changed_says_so() {
    let tree = before();
    let d = diff(&tree, &tree);
    assert!(d.is_empty());
    assert_eq!(
        render_diff(
            &[WindowChange {
                before: Some(&tree),
                after: Some(&tree),
                diff: d.clone(),
                elsewhere: None,
            }],
            &mut HandleRegistry::new(),
            4000
        ),
        "no change\n"
    );
}

#[test]
fn a_renamed_element_is_changed_not_removed_and_added() {
    let then = before();
    let mut now = before();
    now.element_mut(NodeId(1)).name = "Renamed 1".into();
    let d = diff(&then, &now);
    assert!(d.added.is_empty() && d.removed.is_empty(), "{d:?}");
    assert_eq!(d.changed.len(), 1);
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d.clone(),
            elsewhere: None,
        }],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Button] Renamed 1: name \"Rename me\" -> \"Renamed 1\"\n"
    );
}

#[test]
fn a_new_subtree_is_added_with_handles_at_once() {
    let then = before();
    let mut now = before();
    let dialog = now.push(now.root(), shown("d", Role::Dialog, "Delayed dialog"));
    now.push(dialog, shown("ok", Role::Button, "OK"));
    let d = diff(&then, &now);
    assert_eq!(d.added, vec![dialog], "only the subtree's root is listed");
    let mut registry = HandleRegistry::new();
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d.clone(),
            elsewhere: None,
        }],
        &mut registry,
        4000,
    );
    assert!(
        text.starts_with("added:\n  #u1 [Dialog] Delayed dialog ("),
        "{text}"
    );
    assert!(text.contains("\n    #u2 [Button] OK ("), "{text}");
    let ok = registry.resolve("#u2".parse().unwrap()).unwrap();
    assert_eq!(ok.id, ElementId("ok".into()));
}

#[test]
fn a_removed_subtree_is_one_line_with_a_count() {
    let then = before();
    let mut now = Tree::new(shown("w", Role::Window, "App"));
    now.push(now.root(), shown("b", Role::Button, "Rename me"));
    let mut edit = shown("e", Role::Edit, "Name");
    edit.value = Some("a".into());
    now.push(now.root(), edit);
    let mut secret = shown("p", Role::Edit, "Password");
    secret.raw_role = "password text".into();
    now.push(now.root(), secret);
    let d = diff(&then, &now);
    assert_eq!(d.removed.len(), 1);
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d.clone(),
            elsewhere: None,
        }],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(text, "removed:\n  #u1 [List] Fruits (+2 inside)\n");
}

#[test]
fn values_states_and_bounds_are_reported_but_never_secrets() {
    let then = before();
    let mut now = before();
    now.element_mut(NodeId(2)).value = Some("ab".into());
    now.element_mut(NodeId(2)).states.insert(State::Focused);
    now.element_mut(NodeId(3)).value = Some("hunter2".into());
    now.element_mut(NodeId(1)).bounds = Some(Bounds {
        x: 5,
        y: 0,
        width: 10,
        height: 10,
    });
    now.element_mut(NodeId(1)).states.remove(State::Enabled);
    let d = diff(&then, &now);
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d.clone(),
            elsewhere: None,
        }],
        &mut HandleRegistry::new(),
        4000,
    );
    assert!(!text.contains("hunter2"), "{text}");
    assert!(
        text.contains("[Button] Rename me: enabled yes -> no; bounds [0,0,10,10] -> [5,0,10,10]"),
        "{text}"
    );
    assert!(
        text.contains("[Edit] Name: value \"a\" -> \"ab\"; focused no -> yes"),
        "{text}"
    );
    assert_eq!(
        d.changed.len(),
        2,
        "the password field's value is not compared"
    );
}

#[test]
fn leaving_or_entering_the_view_is_removal_or_addition() {
    let then = before();
    let mut now = before();
    now.element_mut(NodeId(5)).states.remove(State::Showing);
    let d = diff(&then, &now);
    assert_eq!(d.removed, vec![NodeId(5)]);
    let back = diff(&now, &then);
    assert_eq!(back.added, vec![NodeId(5)]);
}

#[test]
fn a_big_diff_is_cut_with_a_closing_line() {
    let then = before();
    let mut now = before();
    for i in 0..40 {
        now.push(
            now.root(),
            shown(
                &format!("n{i}"),
                Role::Button,
                &format!("New button number {i}"),
            ),
        );
    }
    let d = diff(&then, &now);
    assert_eq!(d.added.len(), 40);
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d.clone(),
            elsewhere: None,
        }],
        &mut HandleRegistry::new(),
        300,
    );
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("[cut: "), "{text}");
    assert!(text.lines().count() < 20, "{text}");
}

#[test]
fn windows_that_open_and_close_are_whole_subtrees() {
    let old = before();
    let mut dialog = Tree::new(shown("d", Role::Dialog, "Ask name"));
    dialog.push(dialog.root(), shown("ok", Role::Button, "OK"));
    let mut registry = HandleRegistry::new();
    let text = render_diff(
        &[WindowChange::opened(&dialog), WindowChange::closed(&old)],
        &mut registry,
        4000,
    );
    assert!(
        text.starts_with("added:\n  #u1 [Dialog] Ask name ("),
        "{text}"
    );
    assert!(text.contains("\n    #u2 [Button] OK ("), "{text}");
    assert!(
        text.contains("removed:\n  #u3 [Window] App (+6 inside)"),
        "{text}"
    );
}

#[test]
fn an_added_subtree_too_big_for_the_budget_is_summarised_with_its_handle() {
    let then = before();
    let mut now = before();
    let panel = now.push(now.root(), shown("panel", Role::Pane, "Results"));
    for i in 0..50 {
        now.push(
            panel,
            shown(&format!("r{i}"), Role::Button, &format!("Result {i}")),
        );
    }
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        400,
    );
    assert_eq!(
        text,
        "added:\n  #u1 [Pane] Results (+50 inside; get_window_tree from: \"#u1\")\n"
    );
}

#[test]
fn summary_counts_only_what_the_tree_would_print() {
    let mut dialog = Tree::new(shown("d", Role::Dialog, "Ask"));
    // A nameless group is folded into its children when printed: not counted.
    let mut group = shown("g", Role::Group, "");
    group.bounds = None;
    let group = dialog.push(dialog.root(), group);
    dialog.push(group, shown("ok", Role::Button, "OK"));
    dialog.push(group, shown("no", Role::Button, "Cancel"));
    let text = render_diff(
        &[WindowChange::closed(&dialog)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(text, "removed:\n  #u1 [Dialog] Ask (+2 inside)\n");
}

#[test]
fn a_folded_label_renamed_with_its_parent_is_not_said_twice() {
    let mut then = Tree::new(shown("w", Role::Window, "App"));
    let button = then.push(then.root(), shown("b", Role::Button, "Start"));
    then.push(button, shown("bt", Role::Text, "Start"));
    let mut now = then.clone();
    for id in now.ids().skip(1).collect::<Vec<_>>() {
        now.element_mut(id).name = "Stop".into();
    }
    let d = diff(&then, &now);
    assert_eq!(d.changed.len(), 2);
    let text = render_diff(
        &[WindowChange {
            before: Some(&then),
            after: Some(&now),
            diff: d,
            elsewhere: None,
        }],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Button] Stop: name \"Start\" -> \"Stop\"\n"
    );
    // A label renamed alone is news: it is printed.
    let mut alone = then.clone();
    alone.element_mut(NodeId(2)).name = "Pause".into();
    let text = render_diff(
        &[WindowChange::between(&then, &alone)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert!(text.contains("[Text] Pause: name"), "{text}");
}

#[test]
fn a_label_replaced_under_its_renamed_parent_is_not_said_twice() {
    // Chromium: a status line's words in a `static` that is replaced, not
    // renamed, when the text changes.
    let mut then = Tree::new(shown("w", Role::Window, "App"));
    let status = then.push(then.root(), shown("s", Role::Text, "Ready"));
    then.push(status, shown("old", Role::Text, "Ready"));
    let mut now = Tree::new(shown("w", Role::Window, "App"));
    let status = now.push(now.root(), shown("s", Role::Text, "Booked"));
    now.push(status, shown("new", Role::Text, "Booked"));
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Text] Booked: name \"Ready\" -> \"Booked\"\n"
    );
    // Words that are not their parent's are news; the old ones were the
    // parent's, whose line says they went.
    let mut other = now.clone();
    other.element_mut(NodeId(2)).name = "Booked for two".into();
    let text = render_diff(
        &[WindowChange::between(&then, &other)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert!(
        text.contains("[Text] Booked for two ([0,0,10,10])"),
        "{text}"
    );
    assert!(!text.contains("removed:"), "{text}");
}

#[test]
fn a_terminals_change_is_its_new_rows_on_lines_of_their_own() {
    let screen = |text: &str| {
        let mut tree = Tree::new(shown("w", Role::Window, "Term"));
        let mut terminal = shown("t", Role::Terminal, "Terminal");
        terminal.value = Some(text.into());
        tree.push(tree.root(), terminal);
        tree
    };
    let then = screen("$ ls\na\n$");
    let mut now = screen("$ ls\na\n$ echo \"hi\"\nhi\n$");
    now.element_mut(NodeId(1)).states.insert(State::Focused);
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Terminal] Terminal: focused no -> yes; the cursor's row and 2 new rows\n    + $ echo \"hi\"\n    + hi\n    + $\n"
    );
    let cleared = render_diff(
        &[WindowChange::between(&now, &screen("fresh\n$"))],
        &mut HandleRegistry::new(),
        4000,
    );
    assert!(
        cleared.contains("its screen shows none of its rows before (cleared, scrolled past them, or a full-screen program); it shows\n    + fresh\n    + $\n"),
        "{cleared}"
    );
}

#[test]
fn a_popup_listed_in_two_windows_is_printed_once() {
    // GTK 3's combo box: its menu is added under the combo box, and a window of
    // its own opens holding the same menu.
    let menu = |tree: &mut Tree, parent: NodeId| {
        let menu = tree.push(parent, shown("m", Role::Menu, ""));
        tree.push(menu, shown("r", Role::MenuItem, "Red"));
    };
    let then = before();
    let mut now = before();
    menu(&mut now, NodeId(0));
    let mut popup = Tree::new(shown("p", Role::Window, ""));
    menu(&mut popup, NodeId(0));
    let text = render_diff(
        &[
            WindowChange::between(&then, &now),
            WindowChange::opened(&popup),
        ],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(text.matches("[MenuItem] Red").count(), 1, "{text}");
    assert!(
        text.contains("#u3 [Window] ([0,0,10,10]) holding #u1 [Menu], shown above"),
        "{text}"
    );
}

#[test]
fn a_container_no_tree_prints_that_only_moved_is_left_out() {
    let mut then = Tree::new(shown("w", Role::Window, "App"));
    let group = then.push(then.root(), shown("g", Role::Group, ""));
    then.push(group, shown("r", Role::Text, "Row 1"));
    let mut now = then.clone();
    for id in [NodeId(1), NodeId(2)] {
        now.element_mut(id).bounds = Some(Bounds {
            x: 0,
            y: 5,
            width: 10,
            height: 10,
        });
    }
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Text] Row 1: bounds [0,0,10,10] -> [0,5,10,10]\n"
    );
}

#[test]
fn the_tree_and_the_diff_agree_on_a_disabled_button_without_actions() {
    // Qt 5's toolbar buttons: neither actions nor focus, only ENABLED coming
    // and going. The tree printed no `disabled` while the diff said `enabled`.
    let toolbar = |enabled: bool| {
        let mut tree = Tree::new(shown("w", Role::Window, "App"));
        let mut url = shown("u", Role::Button, "URL");
        if !enabled {
            url.states.remove(State::Enabled);
        }
        tree.push(tree.root(), url);
        tree
    };
    let (on, off) = (toolbar(true), toolbar(false));
    let printed = render(
        &off,
        off.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(
        printed.text.contains("[Button] URL (disabled,"),
        "{}",
        printed.text
    );
    let text = render_diff(
        &[WindowChange::between(&on, &off)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(text, "changed:\n  #u1 [Button] URL: enabled yes -> no\n");
    // A label without ENABLED is not disabled, and changes nothing.
    let mut label = Tree::new(shown("w", Role::Window, "App"));
    let mut text_element = shown("t", Role::Text, "Status");
    text_element.states.remove(State::Enabled);
    label.push(label.root(), text_element);
    let printed = render(
        &label,
        label.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(!printed.text.contains("disabled"), "{}", printed.text);
}

#[test]
fn a_nameless_container_is_told_by_what_it_holds() {
    let mut then = Tree::new(shown("w", Role::Window, "App"));
    let group = then.push(then.root(), shown("g", Role::Group, ""));
    let pane = then.push(group, shown("p", Role::Pane, ""));
    then.push(pane, shown("s", Role::Button, "Save"));
    let mut now = then.clone();
    now.element_mut(group).states.insert(State::Focused);
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Group] around #u2 [Button] Save: focused no -> yes\n"
    );
}

#[test]
fn a_nameless_container_holding_nothing_named_is_told_by_where_it_is() {
    let mut then = Tree::new(shown("w", Role::Window, "App"));
    let mut group = shown("g", Role::Group, "");
    group.bounds = Some(Bounds {
        x: 10,
        y: 20,
        width: 300,
        height: 40,
    });
    let group = then.push(then.root(), group);
    then.push(group, shown("i", Role::Image, ""));
    let mut now = then.clone();
    now.element_mut(group).states.insert(State::Focused);
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Group] at [10,20,300,40]: focused no -> yes\n"
    );
}

#[test]
fn an_element_changed_in_two_windows_is_told_once() {
    // A popup's items listed under their combo box and in the popup's own
    // window: a scroll moves them in both.
    let with_menu = |y: i32| {
        let mut main = Tree::new(shown("w", Role::Window, "App"));
        let mut popup = Tree::new(shown("p", Role::Window, ""));
        for tree in [&mut main, &mut popup] {
            let root = tree.root();
            let menu = tree.push(root, shown("m", Role::Menu, "Colours"));
            let mut red = shown("r", Role::MenuItem, "Red");
            red.bounds = Some(Bounds {
                x: 0,
                y,
                width: 10,
                height: 10,
            });
            tree.push(menu, red);
        }
        (main, popup)
    };
    let (main_then, popup_then) = with_menu(0);
    let (main_now, popup_now) = with_menu(40);
    let text = render_diff(
        &[
            WindowChange::between(&main_then, &main_now),
            WindowChange::between(&popup_then, &popup_now),
        ],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(text.matches("[MenuItem] Red").count(), 1, "{text}");
}

#[test]
fn a_removed_nameless_page_is_told_by_what_it_held() {
    let mut then = Tree::new(shown("w", Role::Window, "Wizard"));
    let page = then.push(then.root(), shown("g", Role::Group, ""));
    then.push(page, shown("t", Role::Text, "Encryption settings"));
    then.push(page, shown("s", Role::Slider, "Decryption time"));
    let now = Tree::new(shown("w", Role::Window, "Wizard"));
    let text = render_diff(
        &[WindowChange::between(&then, &now)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "removed:\n  #u1 [Group] around #u2 [Text] Encryption settings (+2 inside)\n"
    );
}

#[test]
fn many_elements_moved_alike_are_one_line() {
    let moved = |tree: &Tree, dy: i32| {
        let mut tree = tree.clone();
        for id in 1..=5 {
            let b = tree.element(NodeId(id)).bounds.unwrap();
            tree.element_mut(NodeId(id)).bounds = Some(Bounds { y: b.y + dy, ..b });
        }
        tree
    };
    let mut then = Tree::new(shown("w", Role::Window, "Writer"));
    for (i, name) in ["Bold", "Italic", "Underline", "Styles", "Font"]
        .iter()
        .enumerate()
    {
        then.push(then.root(), shown(&format!("b{i}"), Role::Button, name));
    }
    let text = render_diff(
        &[WindowChange::between(&then, &moved(&then, -25))],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  5 elements moved 25 px up: #u1 [Button] Bold, #u2 [Button] Italic, #u3 [Button] Underline, and 2 more\n"
    );
    // Fewer than four are told one by one.
    let mut few = Tree::new(shown("w", Role::Window, "Writer"));
    few.push(few.root(), shown("b", Role::Button, "Bold"));
    let mut after = few.clone();
    after.element_mut(NodeId(1)).bounds = Some(Bounds {
        x: 0,
        y: -25,
        width: 10,
        height: 10,
    });
    let text = render_diff(
        &[WindowChange::between(&few, &after)],
        &mut HandleRegistry::new(),
        4000,
    );
    assert_eq!(
        text,
        "changed:\n  #u1 [Button] Bold: bounds [0,0,10,10] -> [0,-25,10,10]\n"
    );
}

/// Window > (Sheet cell "A1", Tab bar > Properties > its button).
fn with_tab_bar(bar: &str, button: &str, name: &str) -> Tree {
    let mut tree = Tree::new(shown("w", Role::Window, "Calc"));
    tree.push(tree.root(), shown("cell", Role::Cell, "A1"));
    let bar = tree.push(tree.root(), shown(bar, Role::ToolBar, name));
    tree.push(bar, shown(button, Role::ToggleButton, ""));
    tree
}

#[test]
fn a_subtree_made_anew_just_as_it_was_is_no_change_and_keeps_its_handles() {
    let then = with_tab_bar("bar-old", "button-old", "Properties");
    let now = with_tab_bar("bar-new", "button-new", "Properties");
    let d = diff(&then, &now);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        d.rebuilt,
        vec![(NodeId(2), NodeId(2)), (NodeId(3), NodeId(3))]
    );
    let mut handles = HandleRegistry::new();
    let bar = handles.assign(&then.element(NodeId(2)).id, Role::ToolBar, "Properties");
    let change = WindowChange {
        before: Some(&then),
        after: Some(&now),
        diff: d,
        elsewhere: None,
    };
    assert_eq!(render_diff(&[change], &mut handles, 4000), "no change\n");
    assert_eq!(handles.handle_of(&now.element(NodeId(2)).id), Some(bar));

    // Made anew with another name: removed and added, as before.
    let renamed = with_tab_bar("bar-new", "button-new", "Styles");
    let d = diff(&then, &renamed);
    assert_eq!((d.removed.len(), d.added.len()), (1, 1), "{d:?}");
    assert!(d.rebuilt.is_empty());
}
