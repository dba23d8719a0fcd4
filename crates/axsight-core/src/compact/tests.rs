use super::*;
use crate::{Bounds, Role, StateSet};

fn shown(id: &str, role: Role, name: &str) -> Element {
    let mut element = Element::new(id, role, "raw");
    element.name = name.into();
    element.states = StateSet::from_iter([
        State::Showing,
        State::Visible,
        State::Enabled,
        State::Sensitive,
    ]);
    element.bounds = Some(Bounds {
        x: 1,
        y: 2,
        width: 3,
        height: 4,
    });
    element
}

/// Window > nameless panel > (Button Save, Edit with value, hidden Button)
fn sample() -> Tree {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let panel = tree.push(tree.root(), shown("p", Role::Group, ""));
    let inner = tree.push(panel, shown("q", Role::Group, ""));
    tree.push(inner, shown("s", Role::Button, "Save"));
    let mut edit = shown("e", Role::Edit, "");
    edit.value = Some("hello \"you\"".into());
    tree.push(inner, edit);
    let mut hidden = shown("h", Role::Button, "Ghost");
    hidden.states.remove(State::Showing);
    tree.push(inner, hidden);
    tree
}

#[test]
fn prints_folds_and_hides() {
    let tree = sample();
    let mut registry = HandleRegistry::new();
    let out = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Doc ([1,2,3,4])\n\
         \x20 #u2 [Button] Save ([1,2,3,4])\n\
         \x20 #u3 [Edit] (value: \"hello \\\"you\\\"\", [1,2,3,4])\n"
    );
    assert_eq!((out.printed, out.cut), (3, 0));
}

#[test]
fn invisible_elements_are_marked_when_asked_for() {
    let tree = sample();
    let mut registry = HandleRegistry::new();
    let options = CompactOptions {
        include_invisible: true,
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut registry, &options);
    assert!(
        out.text.contains("[Button] Ghost (hidden, ["),
        "{}",
        out.text
    );
}

#[test]
fn handles_are_stable_across_renders() {
    let tree = sample();
    let mut registry = HandleRegistry::new();
    let first = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    let second = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    assert_eq!(first, second);
}

#[test]
fn secrets_never_print() {
    let mut tree = Tree::new(shown("w", Role::Window, "Login"));
    let mut secret = shown("pw", Role::Edit, "Password");
    secret.raw_role = "password text".into();
    secret.value = Some("hunter2".into());
    secret.description = "desc".into();
    tree.push(tree.root(), secret);
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(!out.text.contains("hunter2"));
    assert!(
        out.text.contains("[Edit] Password (password,"),
        "{}",
        out.text
    );
}

#[test]
fn budget_cuts_with_a_closing_line_that_names_handles() {
    let mut tree = Tree::new(shown("w", Role::Window, "Big"));
    for i in 0..50 {
        let list = tree.push(
            tree.root(),
            shown(&format!("l{i}"), Role::List, &format!("List {i}")),
        );
        tree.push(list, shown(&format!("i{i}"), Role::ListItem, "item"));
    }
    let mut registry = HandleRegistry::new();
    let options = CompactOptions {
        max_chars: 400,
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut registry, &options);
    let body: usize = out
        .text
        .lines()
        .filter(|l| l.starts_with(' ') || l.starts_with('#'))
        .map(|l| l.chars().count() + 1)
        .sum();
    assert!(body <= 400, "body {body} over budget");
    assert_eq!(out.printed + out.cut, 101);
    let closing = out.text.lines().last().unwrap();
    assert!(
        closing.starts_with(&format!("[cut: {} more elements", out.cut)),
        "{closing}"
    );
    // The first cut subtree's handle is usable: it was registered.
    let first_cut = closing.split('"').nth(1).unwrap();
    assert!(registry.resolve(first_cut.parse().unwrap()).is_some());
}

#[test]
fn named_or_telling_containers_stay() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let named = tree.push(tree.root(), shown("n", Role::Group, "Options"));
    tree.push(named, shown("a", Role::CheckBox, "A"));
    let mut busy = shown("b", Role::Pane, "");
    busy.states.insert(State::Busy);
    let busy = tree.push(tree.root(), busy);
    tree.push(busy, shown("c", Role::Button, "C"));
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(
        out.text.contains("\n  #u2 [Group] Options (["),
        "{}",
        out.text
    );
    assert!(out.text.contains("\n    #u3 [CheckBox] A"), "{}", out.text);
    assert!(out.text.contains("\n  #u4 [Pane] (busy, ["), "{}", out.text);
}

#[test]
fn max_depth_counts_what_it_hides() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let list = tree.push(tree.root(), shown("l", Role::List, "Fruits"));
    let anonymous = tree.push(list, shown("g", Role::Group, ""));
    tree.push(anonymous, shown("x", Role::ListItem, "Apple"));
    tree.push(list, shown("y", Role::ListItem, "Pear"));
    let options = CompactOptions {
        max_depth: Some(1),
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut HandleRegistry::new(), &options);
    assert!(
        out.text.contains("#u2 [List] Fruits ([1,2,3,4]) …+2"),
        "{}",
        out.text
    );
    assert_eq!(out.cut, 2);
    assert!(out
        .text
        .lines()
        .last()
        .unwrap()
        .contains("2 deeper elements"));
}

#[test]
fn long_and_multiline_names_stay_on_one_line() {
    let mut element = shown("x", Role::Text, &"a\nb".repeat(100));
    element.bounds = None;
    let line = format_element("#u1", &element, false);
    assert!(!line.contains('\n'));
    assert!(line.ends_with('…'));
}

#[test]
fn disabled_shows_only_for_interactive_elements() {
    let mut button = shown("b", Role::Button, "Go");
    button.bounds = None;
    button.actionable = true;
    button.states.remove(State::Sensitive);
    button.states.remove(State::Enabled);
    assert_eq!(
        format_element("#u1", &button, false),
        "#u1 [Button] Go (disabled)"
    );
    let mut label = shown("l", Role::Text, "Hi");
    label.bounds = None;
    label.states = StateSet::from_iter([State::Showing]);
    assert_eq!(format_element("#u2", &label, false), "#u2 [Text] Hi");
}

/// Window > CheckBox "Agree" > Text "Agree" (GTK4's label child), Button "Go" >
/// Text "Go" with a child of its own, Text "Other" under a Button "Ok", and a bare
/// separator.
fn repeating() -> Tree {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let mut check = shown("c", Role::CheckBox, "Agree");
    check.actionable = true;
    check.bounds = Some(Bounds {
        x: 0,
        y: 0,
        width: 100,
        height: 20,
    });
    let check = tree.push(tree.root(), check);
    // GTK4's labels offer clipboard actions: a repeating Text folds all the same.
    let mut label = shown("ct", Role::Text, "Agree");
    label.actionable = true;
    tree.push(check, label);
    let mut go = shown("g", Role::Button, "Go");
    go.bounds = check_bounds(0, 30);
    go.actionable = true;
    let go = tree.push(tree.root(), go);
    let mut label = shown("gt", Role::Text, "Go");
    label.bounds = check_bounds(0, 30);
    let label = tree.push(go, label);
    tree.push(label, shown("gi", Role::Image, "arrow"));
    tree.push(tree.root(), shown("sep", Role::Separator, ""));
    let mut ok = shown("o", Role::Button, "Ok");
    ok.bounds = check_bounds(0, 60);
    let ok = tree.push(tree.root(), ok);
    tree.push(ok, shown("ot", Role::Text, "Other"));
    tree
}

fn check_bounds(x: i32, y: i32) -> Option<Bounds> {
    Some(Bounds {
        x,
        y,
        width: 100,
        height: 20,
    })
}

#[test]
fn a_child_that_repeats_its_parents_name_folds_and_keeps_its_handle() {
    let tree = repeating();
    let mut registry = HandleRegistry::new();
    let out = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Doc ([1,2,3,4])\n\
         \x20 #u2 [CheckBox] Agree ([0,0,100,20])\n\
         \x20 #u4 [Button] Go ([0,30,100,20])\n\
         \x20   #u6 [Image] arrow ([1,2,3,4])\n\
         \x20 #u7 [Button] Ok ([0,60,100,20])\n\
         \x20   #u8 [Text] Other ([1,2,3,4])\n",
    );
    assert_eq!((out.printed, out.cut), (6, 0));
    // The folded children were numbered: their handles resolve to them, so `from`,
    // `index` and a diff's lines reach them.
    let folded = registry.resolve("#u3".parse().unwrap()).unwrap();
    assert_eq!(folded.id.0, "ct");
    assert_eq!(registry.resolve("#u5".parse().unwrap()).unwrap().id.0, "gt");
    // Read from its own handle, the folded child is the first line, so it prints.
    let label = tree.find(&crate::ElementId("ct".into())).unwrap();
    let from = render(&tree, label, &mut registry, &CompactOptions::default());
    assert_eq!(from.text, "#u3 [Text] Agree ([1,2,3,4])\n");
    // A one-line summary counts what the tree prints.
    assert_eq!(printed_below(&tree, tree.root()), 5);
}

#[test]
fn a_repeating_child_with_something_to_say_stays() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let mut check = shown("c", Role::CheckBox, "Agree");
    check.bounds = check_bounds(0, 0);
    let check = tree.push(tree.root(), check);
    // It can be acted on.
    let mut acting = shown("a", Role::Link, "Agree");
    acting.actionable = true;
    tree.push(check, acting);
    // It says more: a state.
    let mut focused = shown("f", Role::Text, "Agree");
    focused.states.insert(State::Focused);
    tree.push(check, focused);
    // It lies outside the parent's box: where it is drawn is news.
    let mut outside = shown("o", Role::Text, "Agree");
    outside.bounds = check_bounds(500, 500);
    tree.push(check, outside);
    // Its name differs.
    tree.push(check, shown("d", Role::Text, "agree!"));
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert_eq!(out.printed, 6, "{}", out.text);
}

#[test]
fn max_depth_counts_folded_children_as_nothing() {
    let tree = repeating();
    let options = CompactOptions {
        max_depth: Some(0),
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut HandleRegistry::new(), &options);
    assert!(
        out.text.starts_with("#u1 [Window] Doc ([1,2,3,4]) …+5\n"),
        "{}",
        out.text
    );
}

#[test]
fn a_lone_text_child_becomes_its_parents_label() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let mut nick = shown("b", Role::Button, "");
    nick.actionable = true;
    nick.bounds = check_bounds(0, 0);
    let nick = tree.push(tree.root(), nick);
    tree.push(nick, shown("bt", Role::Text, "Nick \"N\""));
    let mut tab = shown("t", Role::TabItem, "Tab");
    tab.states.insert(State::Selected);
    tab.bounds = check_bounds(0, 30);
    let tab = tree.push(tree.root(), tab);
    let mut sunset = shown("tt", Role::Text, "Sunset");
    sunset.bounds = check_bounds(0, 30);
    tree.push(tab, sunset);
    // Two children: neither is the label.
    let mut pair = shown("p", Role::Button, "");
    pair.bounds = check_bounds(0, 60);
    let pair = tree.push(tree.root(), pair);
    let mut one = shown("p1", Role::Text, "Sans");
    one.bounds = check_bounds(0, 60);
    tree.push(pair, one.clone());
    one.id.0 = "p2".into();
    one.name = "12".into();
    tree.push(pair, one);
    let mut registry = HandleRegistry::new();
    let out = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Doc ([1,2,3,4])\n\
         \x20 #u2 [Button] (label: \"Nick \\\"N\\\"\", [0,0,100,20])\n\
         \x20 #u4 [TabItem] Tab (selected, label: \"Sunset\", [0,30,100,20])\n\
         \x20 #u6 [Button] ([0,60,100,20])\n\
         \x20   #u7 [Text] Sans ([0,60,100,20])\n\
         \x20   #u8 [Text] 12 ([0,60,100,20])\n",
    );
    assert_eq!(registry.resolve("#u5".parse().unwrap()).unwrap().id.0, "tt");
    assert_eq!(printed_below(&tree, tree.root()), 5);
    let options = CompactOptions {
        max_depth: Some(0),
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut HandleRegistry::new(), &options);
    assert!(out.text.contains("…+5\n"), "{}", out.text);
}

#[test]
fn a_label_is_found_through_what_folds_and_counted_at_the_depth_limit() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let mut cool = shown("b", Role::Button, "");
    cool.bounds = check_bounds(0, 0);
    let cool = tree.push(tree.root(), cool);
    // An empty anonymous box beside it (GTK4's sort arrow holder) prints nothing.
    tree.push(cool, shown("g", Role::Group, ""));
    let wrapper = tree.push(cool, shown("g2", Role::Pane, ""));
    tree.push(wrapper, shown("bt", Role::Text, "Cool"));
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Doc ([1,2,3,4])\n\
         \x20 #u2 [Button] (label: \"Cool\", [0,0,100,20])\n",
    );
    let options = CompactOptions {
        max_depth: Some(1),
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut HandleRegistry::new(), &options);
    assert!(
        out.text.ends_with("(label: \"Cool\", [0,0,100,20])\n"),
        "{}",
        out.text
    );
    assert_eq!(out.cut, 0);
}

#[test]
fn an_empty_text_prints_nothing_and_an_image_can_label() {
    let mut tree = Tree::new(shown("w", Role::Window, "Doc"));
    let mut slider = shown("s", Role::Slider, "");
    slider.value = Some("50".into());
    slider.bounds = check_bounds(0, 0);
    let slider = tree.push(tree.root(), slider);
    let mut empty = shown("e", Role::Text, "");
    empty.actionable = true;
    tree.push(slider, empty);
    let mut colour = shown("c", Role::Button, "");
    colour.actionable = true;
    colour.bounds = check_bounds(0, 30);
    let colour = tree.push(tree.root(), colour);
    let mut swatch = shown("ci", Role::Image, "Red 19%");
    swatch.bounds = check_bounds(0, 30);
    tree.push(colour, swatch);
    // A focusable empty Text is a field to act on: it stays.
    let mut field = shown("f", Role::Text, "");
    field.states.insert(State::Focusable);
    tree.push(tree.root(), field);
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Doc ([1,2,3,4])\n\
         \x20 #u2 [Slider] (value: \"50\", [0,0,100,20])\n\
         \x20 #u3 [Button] (label: \"Red 19%\", [0,30,100,20])\n\
         \x20 #u5 [Text] ([1,2,3,4])\n",
    );
}

#[test]
fn a_label_beside_the_field_it_names_folds_into_the_field() {
    let mut tree = Tree::new(shown("w", Role::Window, "Form"));
    let mut name = shown("e", Role::Edit, "Name");
    name.states.insert(State::Focusable);
    tree.push(tree.root(), name);
    tree.push(tree.root(), shown("el", Role::Text, "Name"));
    // Before the pane it names (GTK4's "Text Styles").
    tree.push(tree.root(), shown("pl", Role::Text, "Styles"));
    let pane = tree.push(tree.root(), shown("p", Role::ScrollPane, "Styles"));
    tree.push(pane, shown("p1", Role::Text, "Body"));
    tree.push(pane, shown("p2", Role::Text, "Caption"));
    // A label naming nothing beside it stays, and so does a second Text.
    tree.push(tree.root(), shown("s", Role::Text, "Size"));
    tree.push(tree.root(), shown("s2", Role::Text, "Size"));
    // Words beside a button of the same name are a thing of their own.
    tree.push(tree.root(), shown("b", Role::Button, "Save"));
    tree.push(tree.root(), shown("bt", Role::Text, "Save"));
    let mut registry = HandleRegistry::new();
    let out = render(
        &tree,
        tree.root(),
        &mut registry,
        &CompactOptions::default(),
    );
    assert_eq!(
        out.text,
        "#u1 [Window] Form ([1,2,3,4])\n\
         \x20 #u2 [Edit] Name ([1,2,3,4])\n\
         \x20 #u4 [ScrollPane] Styles ([1,2,3,4])\n\
         \x20   #u6 [Text] Body ([1,2,3,4])\n\
         \x20   #u7 [Text] Caption ([1,2,3,4])\n\
         \x20 #u8 [Text] Size ([1,2,3,4])\n\
         \x20 #u9 [Text] Size ([1,2,3,4])\n\
         \x20 #u10 [Button] Save ([1,2,3,4])\n\
         \x20 #u11 [Text] Save ([1,2,3,4])\n",
    );
    assert_eq!(registry.resolve("#u3".parse().unwrap()).unwrap().id.0, "el");
    assert_eq!(registry.resolve("#u5".parse().unwrap()).unwrap().id.0, "pl");
    assert_eq!(printed_below(&tree, tree.root()), 8);
}

#[test]
fn a_description_that_restates_the_value_is_not_printed() {
    let mut tree = Tree::new(shown("w", Role::Window, "Scales"));
    let described = |id: &str, value: &str, description: &str| {
        let mut slider = shown(id, Role::Slider, "");
        slider.value = Some(value.into());
        slider.description = description.into();
        slider
    };
    tree.push(tree.root(), described("same-number", "50", "50.0"));
    tree.push(tree.root(), described("same-text", "low", "low"));
    tree.push(tree.root(), described("other-number", "50", "50.5"));
    tree.push(tree.root(), described("words", "50", "Volume"));
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(!out.text.contains("desc: \"50.0\""), "{}", out.text);
    assert!(!out.text.contains("desc: \"low\""), "{}", out.text);
    assert!(out.text.contains("desc: \"50.5\""), "{}", out.text);
    assert!(out.text.contains("desc: \"Volume\""), "{}", out.text);
}

#[test]
fn lines_read_from_the_pixels_are_held_to_the_budget() {
    // A window without accessibility: the window alone, and what OCR read.
    let tree = Tree::new(shown("w", Role::Window, "Calculator"));
    let read: Vec<String> = (1..=40)
        .map(|n| format!("#o{n} \"key {n}\" [0,{n},20,10] 0.90"))
        .collect();
    let inline = InlineLines::from([(tree.root(), read)]);
    let options = CompactOptions {
        max_chars: 200,
        ..CompactOptions::default()
    };
    let out = render_with(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &options,
        &inline,
    );
    let (kept, closing) = out.text.trim_end().rsplit_once('\n').unwrap();
    assert!(kept.chars().count() <= 200, "{}", out.text);
    assert!(kept.contains("#o1 \"key 1\""), "{}", out.text);
    let shown = kept.lines().filter(|l| l.contains("#o")).count();
    assert_eq!(
        closing,
        format!(
            "[{} more lines read from the pixels past the 200-character budget; raise max_chars to see them]",
            40 - shown
        )
    );
}

#[test]
fn a_terminals_screen_is_printed_as_its_last_rows() {
    let mut tree = Tree::new(shown("w", Role::Window, "Term"));
    let mut terminal = shown("t", Role::Terminal, "Terminal");
    let rows: Vec<String> = (1..=45).map(|n| format!("row {n}")).collect();
    terminal.value = Some(format!("{}\n$ ls \"x\"", rows.join("\n")));
    tree.push(tree.root(), terminal);
    let out = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    let lines: Vec<&str> = out.text.lines().collect();
    // No value attribute: the rows, unquoted, below it; the first ones left out.
    assert_eq!(lines[1], "  #u2 [Terminal] Terminal ([1,2,3,4])");
    assert_eq!(lines[2], "    | … 6 rows above");
    assert_eq!(lines[3], "    | row 7");
    assert_eq!(lines.last(), Some(&"    | $ ls \"x\""));
    assert_eq!(lines.len(), 2 + 1 + 40);
}

#[test]
fn a_budget_shortens_a_long_list_before_it_cuts_the_controls_after_it() {
    // A file chooser: 40 files, the 20th selected, then Cancel and Save.
    let mut tree = Tree::new(shown("w", Role::Dialog, "Save As"));
    let list = tree.push(tree.root(), shown("l", Role::List, "Files"));
    for n in 1..=40 {
        let mut item = shown(&format!("f{n}"), Role::ListItem, &format!("file {n}.txt"));
        if n == 20 {
            item.states.insert(State::Selected);
        }
        tree.push(list, item);
    }
    tree.push(tree.root(), shown("c", Role::Button, "Cancel"));
    tree.push(tree.root(), shown("s", Role::Button, "Save"));
    let options = CompactOptions {
        max_chars: 600,
        ..CompactOptions::default()
    };
    let out = render(&tree, tree.root(), &mut HandleRegistry::new(), &options);
    let text = &out.text;
    for kept in [
        "file 1.txt",
        "file 3.txt",
        "file 20.txt (selected",
        "file 40.txt",
        "[Button] Cancel",
        "[Button] Save",
    ] {
        assert!(text.contains(kept), "{kept} left out:\n{text}");
    }
    assert!(
        !text.contains("file 4.txt") && !text.contains("[cut:"),
        "{text}"
    );
    assert!(
        text.contains("    … 16 more ListItem here: read them with from: \"#u2\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    … 19 more ListItem here: read them with from: \"#u2\"\n"),
        "{text}"
    );
    // Within the budget, nothing is shortened.
    let whole = render(
        &tree,
        tree.root(),
        &mut HandleRegistry::new(),
        &CompactOptions::default(),
    );
    assert!(whole.text.contains("file 4.txt") && !whole.text.contains("more ListItem"));
}
