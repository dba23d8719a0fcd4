//! Properties: the parser never panics, and canonical text parses back to the same tree.

use proptest::prelude::*;

use crate::selector::{Atom, Expr, RoleMatch, Selector, Step};
use crate::{Role, State};

/// Pieces selectors are made of, including broken ones.
const PIECES: &[&str] = &[
    "role:",
    "name:",
    "text:",
    "nth:",
    "state:",
    "visible:",
    "id:",
    "Button",
    "Save",
    "-1",
    "2",
    "true",
    "checked",
    "&&",
    "||",
    ">>",
    "!",
    "(",
    ")",
    "\"",
    "\\",
    "&",
    "|",
    ">",
    ":",
    " ",
    "\"Save as\"",
    "é",
    "\t",
    "\u{0}",
    "nth:0",
    "role:\"push button\"",
];

/// Raw AT-SPI names that are not also normalised role names.
const RAW_ROLES: &[&str] = &[
    "push button",
    "menu item",
    "frame",
    "label",
    "entry",
    "panel",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_./#'@:&|>!-]{1,8}",
        "[ a-z\"\\\\()&|>!]{1,8}",
        any::<String>().prop_filter("values are not empty", |s| !s.is_empty()),
    ]
}

fn atom() -> impl Strategy<Value = Atom> {
    let role = prop_oneof![
        proptest::sample::select(Role::ALL).prop_map(RoleMatch::Normalised),
        proptest::sample::select(RAW_ROLES).prop_map(|raw| RoleMatch::Raw(raw.to_string())),
    ];
    prop_oneof![
        role.prop_map(Atom::Role),
        value().prop_map(Atom::Name),
        value().prop_map(Atom::Text),
        value().prop_map(Atom::Id),
        value().prop_map(Atom::Desc),
        value().prop_map(Atom::Value),
        proptest::sample::select(State::ALL).prop_map(Atom::State),
        value().prop_map(Atom::App),
        value().prop_map(Atom::Window),
        any::<bool>().prop_map(Atom::Visible),
        any::<bool>().prop_map(Atom::Enabled),
        any::<bool>().prop_map(Atom::Focused),
        any::<bool>().prop_map(Atom::Checked),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    atom()
        .prop_map(Expr::Atom)
        .prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
                prop::collection::vec(inner.clone(), 2..4).prop_map(Expr::And),
                prop::collection::vec(inner, 2..4).prop_map(Expr::Or),
            ]
        })
}

fn selector() -> impl Strategy<Value = Selector> {
    let step =
        (expr(), proptest::option::of(any::<i64>())).prop_map(|(filter, nth)| Step { filter, nth });
    prop::collection::vec(step, 1..4).prop_map(|steps| Selector { steps })
}

/// Parses `text`; whatever parses must print canonically and parse back the same.
fn parse_is_total_and_stable(text: &str) -> Result<(), TestCaseError> {
    match Selector::parse(text) {
        Ok(parsed) => {
            let printed = parsed.to_string();
            let reparsed = Selector::parse(&printed);
            prop_assert_eq!(reparsed.as_ref(), Ok(&parsed), "printed as {:?}", printed);
        }
        Err(error) => {
            prop_assert!(error.position <= text.chars().count());
            prop_assert!(!error.to_string().is_empty());
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        parse_is_total_and_stable(&text)?;
    }

    #[test]
    fn token_soup_never_panics(pieces in prop::collection::vec(proptest::sample::select(PIECES), 0..16)) {
        parse_is_total_and_stable(&pieces.concat())?;
    }

    #[test]
    fn canonical_text_parses_back_to_the_same_tree(selector in selector()) {
        let printed = selector.to_string();
        prop_assert_eq!(Selector::parse(&printed), Ok(selector), "printed as {:?}", printed);
    }
}
