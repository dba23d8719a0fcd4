//! Each key, operator, chain and `nth:` rule, checked on one small gedit-like tree.

use crate::{Bounds, Element, MatchContext, NodeId, Role, Selector, State, StateSet, Tree};

const CONTEXT: MatchContext<'static> = MatchContext {
    app: "gedit",
    window: "Untitled Document 1 - gedit",
};

/// An element named `name` with raw AT-SPI role `raw_role`, its id being `id`.
fn element(id: &str, raw_role: &str, name: &str, states: &[State]) -> Element {
    let mut element = Element::new(id, Role::from_atspi_name(raw_role), raw_role);
    element.name = name.to_string();
    element.states = StateSet::from_iter(states.iter().copied());
    element.bounds = Bounds::from_extents(0, 0, 10, 10);
    element
}

/// ```text
/// window                     frame "Untitled Document 1 - gedit"
///   menubar                  menu bar
///     file, edit             menu item "File", "Edit"
///   panel                    panel
///     save                   push button "Save" (enabled)
///     open                   push button "Open" (disabled)
///     search                 text (Edit) "Search", value "Hello World", desc
///     password               password text "Password", value "hunter2"
///     wrap                   check box "Wrap lines" (checked)
///   dialog                   dialog "Save As"
///     label                  label "File name:"
///     cancel                 push button "Cancel"
///     ok                     push button "OK" (focused, id ok-button)
///     inner                  panel
///       hidden               push button " ok " (not showing)
/// ```
fn gedit() -> Tree {
    use State::*;
    let shown = [Showing, Visible];
    let usable = [Showing, Visible, Enabled, Sensitive];
    let mut tree = Tree::new(element(
        "window",
        "frame",
        "Untitled Document 1 - gedit",
        &shown,
    ));
    let root = tree.root();
    let menubar = tree.push(root, element("menubar", "menu bar", "", &shown));
    tree.push(menubar, element("file", "menu item", "File", &usable));
    tree.push(menubar, element("edit", "menu item", "Edit", &usable));
    let panel = tree.push(root, element("panel", "panel", "", &shown));
    tree.push(panel, element("save", "push button", "Save", &usable));
    tree.push(panel, element("open", "push button", "Open", &shown));
    let mut search = element("search", "text", "Search", &usable);
    search.value = Some("Hello World".into());
    search.description = "Find in the document".into();
    tree.push(panel, search);
    let mut password = element("password", "password text", "Password", &usable);
    // Engines never read a secret's value; the matcher must not rely on that.
    password.value = Some("hunter2".into());
    tree.push(panel, password);
    tree.push(
        panel,
        element("wrap", "check box", "Wrap lines", &[Showing, Checked]),
    );
    let dialog = tree.push(root, element("dialog", "dialog", "Save As", &shown));
    tree.push(dialog, element("label", "label", "File name:", &shown));
    tree.push(dialog, element("cancel", "push button", "Cancel", &usable));
    let mut ok = element(
        "ok",
        "push button",
        "OK",
        &[Showing, Enabled, Sensitive, Focused],
    );
    ok.accessible_id = "ok-button".into();
    tree.push(dialog, ok);
    let inner = tree.push(dialog, element("inner", "panel", "", &shown));
    tree.push(
        inner,
        element("hidden", "push button", " ok ", &[Enabled, Sensitive]),
    );
    tree
}

/// The ids of the elements `selector` finds in the gedit tree, in order.
fn find(selector: &str) -> Vec<String> {
    let tree = gedit();
    let selector = Selector::parse(selector).unwrap_or_else(|e| panic!("{e}"));
    ids(&tree, &selector.find(&tree, &CONTEXT))
}

fn ids(tree: &Tree, nodes: &[NodeId]) -> Vec<String> {
    nodes
        .iter()
        .map(|&n| tree.element(n).id.0.clone())
        .collect()
}

#[test]
fn role_matches_normalised_names_ignoring_case() {
    let buttons = ["save", "open", "cancel", "ok", "hidden"];
    assert_eq!(find("role:Button"), buttons);
    assert_eq!(find("role:button"), buttons);
    assert_eq!(find("role:BUTTON"), buttons);
    assert_eq!(find("role:menuitem"), ["file", "edit"]);
    assert_eq!(find("role:Edit"), ["search", "password"]);
}

#[test]
fn role_matches_raw_atspi_names() {
    assert_eq!(find("role:\"menu item\""), ["file", "edit"]);
    assert_eq!(find("role:\"Password Text\""), ["password"]);
    assert_eq!(find("role:frame"), ["window"]);
    // `text` is a normalised role (labels) before it is a raw name (entries).
    assert_eq!(find("role:text"), ["label"]);
}

#[test]
fn name_is_whole_trimmed_and_ignores_case() {
    assert_eq!(find("name:ok"), ["ok", "hidden"]);
    assert_eq!(find("name:\"  OK \""), ["ok", "hidden"]);
    assert_eq!(find("name:Sav"), Vec::<String>::new());
    assert_eq!(find("name:\"save as\""), ["dialog"]);
}

#[test]
fn text_searches_name_value_and_description() {
    assert_eq!(find("text:SAVE"), ["save", "dialog"]);
    assert_eq!(find("text:world"), ["search"]);
    assert_eq!(find("text:\"in the doc\""), ["search"]);
}

#[test]
fn bare_words_and_quoted_strings_mean_text() {
    assert_eq!(find("Save"), find("text:Save"));
    assert_eq!(find("\"save as\""), ["dialog"]);
    assert_eq!(find("world"), ["search"]);
}

#[test]
fn secrets_are_never_matched_by_their_value() {
    assert_eq!(find("value:hunter"), Vec::<String>::new());
    assert_eq!(find("text:hunter2"), Vec::<String>::new());
    assert_eq!(find("hunter2"), Vec::<String>::new());
    // The name of a password field is not secret.
    assert_eq!(find("text:password"), ["password"]);
}

#[test]
fn value_is_a_substring_ignoring_case() {
    assert_eq!(find("value:HELLO"), ["search"]);
    assert_eq!(find("value:\"o w\""), ["search"]);
}

#[test]
fn id_is_exact_and_case_sensitive() {
    assert_eq!(find("id:ok-button"), ["ok"]);
    assert_eq!(find("id:OK-button"), Vec::<String>::new());
    assert_eq!(find("id:ok"), Vec::<String>::new());
}

#[test]
fn desc_is_a_substring_ignoring_case() {
    assert_eq!(find("desc:DOCUMENT"), ["search"]);
    assert_eq!(find("desc:search"), Vec::<String>::new());
}

#[test]
fn states_and_flags() {
    assert_eq!(find("state:checked"), ["wrap"]);
    assert_eq!(find("state:FOCUSED"), ["ok"]);
    assert_eq!(find("checked:true"), ["wrap"]);
    assert_eq!(find("focused:true"), ["ok"]);
    assert_eq!(
        find("role:Button && focused:false"),
        ["save", "open", "cancel", "hidden"]
    );
    assert_eq!(find("role:Button && enabled:false"), ["open"]);
    assert_eq!(
        find("role:Button && enabled:TRUE"),
        ["save", "cancel", "ok", "hidden"]
    );
    assert_eq!(find("role:Button && visible:false"), ["hidden"]);
    assert_eq!(find("role:CheckBox && checked:false"), Vec::<String>::new());
}

#[test]
fn visible_needs_showing_and_an_area() {
    let mut tree = gedit();
    let save = NodeId(5);
    assert_eq!(tree.element(save).id.0, "save");
    tree.element_mut(save).bounds = Bounds::from_extents(0, 0, 0, 0);
    let selector = Selector::parse("role:Button && visible:true").unwrap();
    assert_eq!(
        ids(&tree, &selector.find(&tree, &CONTEXT)),
        ["open", "cancel", "ok"]
    );
}

#[test]
fn app_and_window_test_the_context() {
    let all = find("role:Button");
    assert_eq!(find("app:GEDIT && role:Button"), all);
    assert_eq!(find("window:\"untitled document\" && role:Button"), all);
    assert_eq!(find("app:firefox"), Vec::<String>::new());
    assert_eq!(find("window:Preferences || name:OK"), ["ok", "hidden"]);
}

#[test]
fn not_and_or_and_parentheses() {
    assert_eq!(find("role:Button && !enabled:true"), ["open"]);
    assert_eq!(find("name:Save || name:Open"), ["save", "open"]);
    assert_eq!(
        find("role:MenuItem && (name:File || name:Cancel)"),
        ["file"]
    );
    assert_eq!(find("!!role:Dialog"), ["dialog"]);
    assert_eq!(find("(role:Dialog)"), ["dialog"]);
}

#[test]
fn and_binds_tighter_than_or() {
    assert_eq!(
        find("role:MenuItem || role:Button && text:save"),
        ["file", "edit", "save"]
    );
    assert_eq!(
        find("(role:MenuItem || role:Button) && text:save"),
        ["save"]
    );
    assert_eq!(
        find("text:save && role:Button || role:Dialog"),
        ["save", "dialog"]
    );
}

#[test]
fn not_binds_tighter_than_and() {
    assert_eq!(find("!visible:true && role:Button"), ["hidden"]);
    assert_eq!(
        find("!(visible:true && role:Group)").len(),
        gedit().len() - 2
    );
}

#[test]
fn chains_select_descendants_of_the_previous_step() {
    assert_eq!(
        find("role:Dialog >> role:Button && name:OK"),
        ["ok", "hidden"]
    );
    assert_eq!(find("role:Dialog >> role:Group >> role:Button"), ["hidden"]);
    assert_eq!(
        find("role:Group >> role:Button"),
        ["save", "open", "hidden"]
    );
    assert_eq!(find("role:Window >> role:Window"), Vec::<String>::new());
    assert_eq!(find("role:Dialog >> role:Dialog"), Vec::<String>::new());
    // Precedence: `>>` is loosest.
    assert_eq!(
        find("role:Dialog || name:File >> name:ok || role:Group"),
        ["ok", "inner", "hidden"]
    );
}

#[test]
fn chain_results_are_in_document_order_without_duplicates() {
    // Both the window and the dialog are ancestors of the dialog's buttons.
    assert_eq!(
        find("role:Window || role:Dialog >> name:Cancel || name:Save"),
        ["save", "cancel"]
    );
}

#[test]
fn nth_picks_from_the_ordered_matches() {
    assert_eq!(find("role:Button && nth:0"), ["save"]);
    assert_eq!(find("nth:1 && role:Button"), ["open"]);
    assert_eq!(find("role:Button && nth:-1"), ["hidden"]);
    assert_eq!(find("role:Button && nth:-5"), ["save"]);
    assert_eq!(find("role:Button && nth:5"), Vec::<String>::new());
    assert_eq!(find("role:Button && nth:-6"), Vec::<String>::new());
    assert_eq!(
        find("role:Button && nth:-9223372036854775808"),
        Vec::<String>::new()
    );
    assert_eq!(
        find("role:Button && nth:9223372036854775807"),
        Vec::<String>::new()
    );
}

#[test]
fn nth_applies_per_step() {
    assert_eq!(find("role:Dialog >> role:Button && nth:1"), ["ok"]);
    assert_eq!(find("role:Group && nth:0 >> role:Button"), ["save", "open"]);
    assert_eq!(find("role:Group && nth:-1 >> role:Button"), ["hidden"]);
    assert_eq!(
        find("role:Group && nth:7 >> role:Button"),
        Vec::<String>::new()
    );
}

#[test]
fn matches_element_checks_ancestors_and_ignores_nth() {
    let tree = gedit();
    let check = |selector: &str, id: &str| {
        let selector = Selector::parse(selector).unwrap();
        let node = tree.find(&crate::ElementId(id.into())).unwrap();
        selector.matches_element(&tree, node, &CONTEXT)
    };
    assert!(check("name:OK", "ok"));
    assert!(check("role:Dialog >> name:OK", "ok"));
    assert!(check("role:Window >> role:Dialog >> role:Button", "hidden"));
    assert!(check("role:Dialog >> role:Group >> role:Button", "hidden"));
    assert!(!check("role:Group >> role:Dialog >> role:Button", "hidden"));
    assert!(!check("role:Dialog >> name:Save", "save"));
    assert!(!check("role:Button >> role:Button", "ok"));
    assert!(check("role:Button && nth:3", "save"));
}

#[test]
fn an_empty_tree_has_no_matches() {
    let selector = Selector::parse("role:Button").unwrap();
    assert!(selector.find(&Tree::default(), &CONTEXT).is_empty());
}
