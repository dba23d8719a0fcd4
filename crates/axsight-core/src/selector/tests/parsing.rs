//! What parses to what, the canonical text, and where each error points.

use crate::selector::{Atom, Expr, RoleMatch, Selector, SelectorError, Step};
use crate::{Role, State};

fn error(selector: &str) -> SelectorError {
    match Selector::parse(selector) {
        Ok(parsed) => panic!("{selector:?} parsed as {parsed}"),
        Err(error) => error,
    }
}

fn canonical(selector: &str) -> String {
    Selector::parse(selector)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string()
}

#[test]
fn builds_the_expected_tree() {
    let parsed = Selector::parse("role:dialog >> (!state:checked || Save) && nth:-1").unwrap();
    let expected = [
        Step {
            filter: Expr::Atom(Atom::Role(RoleMatch::Normalised(Role::Dialog))),
            nth: None,
        },
        Step {
            filter: Expr::Or(vec![
                Expr::Not(Box::new(Expr::Atom(Atom::State(State::Checked)))),
                Expr::Atom(Atom::Text("Save".into())),
            ]),
            nth: Some(-1),
        },
    ];
    assert_eq!(parsed.steps(), expected);
}

#[test]
fn prints_canonical_text() {
    let cases = [
        ("role:button&&name:Save", "role:Button && name:Save"),
        ("Save", "text:Save"),
        ("\"Save as\"", "text:\"Save as\""),
        ("ROLE:\"Push Button\"", "role:\"push button\""),
        ("name:\"OK\"", "name:OK"),
        ("nth:2 && role:Button", "role:Button && nth:2"),
        ("(a || b) && nth:-1", "(text:a || text:b) && nth:-1"),
        ("a && (b && c)", "text:a && (text:b && text:c)"),
        ("(a && b) || c", "text:a && text:b || text:c"),
        ("a && (b || c)", "text:a && (text:b || text:c)"),
        ("!(a && b) && !!c", "!(text:a && text:b) && !!text:c"),
        (
            "state:FOCUSED && visible:TRUE",
            "state:focused && visible:true",
        ),
        (
            "name:\"say \\\"hi\\\" \\\\ bye\"",
            "name:\"say \\\"hi\\\" \\\\ bye\"",
        ),
        ("name:a:b&c!", "name:a:b&c!"),
        ("name:\"a&&b\"", "name:\"a&&b\""),
        (
            "role:Dialog>>role:Button>>Save",
            "role:Dialog >> role:Button >> text:Save",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(canonical(input), expected, "canonical form of {input:?}");
        assert_eq!(canonical(expected), expected, "{expected:?} is not stable");
    }
}

#[test]
fn keys_and_values_are_read_as_documented() {
    let atom = |selector: &str| match Selector::parse(selector).unwrap().steps() {
        [Step {
            filter: Expr::Atom(atom),
            nth: None,
        }] => atom.clone(),
        other => panic!("not one atom: {other:?}"),
    };
    assert_eq!(atom("Name:x"), Atom::Name("x".into()));
    assert_eq!(atom("id:\"a b\""), Atom::Id("a b".into()));
    assert_eq!(atom("desc:x"), Atom::Desc("x".into()));
    assert_eq!(atom("value:x"), Atom::Value("x".into()));
    assert_eq!(atom("app:gedit"), Atom::App("gedit".into()));
    assert_eq!(atom("window:\"Save As\""), Atom::Window("Save As".into()));
    assert_eq!(atom("enabled:false"), Atom::Enabled(false));
    assert_eq!(atom("focused:true"), Atom::Focused(true));
    assert_eq!(atom("checked:False"), Atom::Checked(false));
    assert_eq!(atom("visible:true"), Atom::Visible(true));
    assert_eq!(atom("name:!x"), Atom::Name("!x".into()));
    assert_eq!(
        atom("text:http://x/#a'b@c"),
        Atom::Text("http://x/#a'b@c".into())
    );
    assert_eq!(
        atom("role:entry"),
        Atom::Role(RoleMatch::Raw("entry".into()))
    );
}

#[test]
fn errors_point_at_the_problem() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 0, "empty selector: expected a term such as role:Button && name:Save"),
        ("   ", 0, "empty selector"),
        ("name:\"abc", 5, "unclosed quote: expected a closing '\"'"),
        ("name:\"a\\qb\"", 7, "unknown escape"),
        ("(role:Button && name:x", 0, "unclosed '(': expected a matching ')'"),
        ("role:Button)", 11, "unexpected ')' with no matching '('"),
        ("role:Button &&", 14, "expected a term (such as role:Button or \"Save\") after '&&', found the end"),
        ("role:Button && || x", 15, "after '&&', found '||'"),
        ("&& role:Button", 0, "expected a term (such as role:Button or \"Save\"), found '&&'"),
        ("a >>", 4, "after '>>', found the end"),
        ("!", 1, "after '!', found the end"),
        ("()", 1, "after '(', found ')'"),
        ("role:Button & name:x", 12, "expected '&&' (a single '&' is not an operator)"),
        ("a | b", 2, "expected '||'"),
        ("a > b", 2, "expected '>>'"),
        ("rol:Button", 0, "unknown key 'rol' (did you mean role?): expected one of role, name, text, id, desc, value, state, app, window, visible, enabled, focused, checked, nth"),
        (":x", 0, "expected a key before ':'"),
        ("role:", 5, "expected a value after 'role:'"),
        ("role: Button", 5, "expected a value after 'role:'"),
        ("a && name:\"\"", 10, "expected a value after 'name:'"),
        ("\"\"", 0, "expected text between the quotes"),
        ("nth:x && a", 4, "expected an integer after 'nth:' (0 is the first match, -1 the last), found 'x'"),
        ("a && nth:1.5", 9, "expected an integer after 'nth:'"),
        ("role:Buton", 5, "unknown role 'Buton' (did you mean Button?)"),
        ("state:chekced", 6, "unknown state 'chekced' (did you mean checked?): expected one of active, checked,"),
        ("visible:yes", 8, "expected true or false after 'visible:', found 'yes'"),
        ("a || nth:1", 5, "'nth:' must be joined to its whole step with '&&'"),
        ("!nth:1 && a", 1, "'nth:' must be joined"),
        ("(a && nth:1)", 6, "'nth:' must be joined"),
        ("nth:0", 0, "'nth:' needs something to pick from, as in role:Button && nth:0"),
        ("a >> nth:0 >> b", 5, "'nth:' needs something to pick from"),
        ("a && nth:0 && nth:1", 14, "a step takes at most one 'nth:'"),
        ("Save As", 5, "expected '&&', '||', '>>' or the end, found 'As'; join terms with an operator, and quote text with spaces (name:\"Save As\")"),
        ("\"a\"b", 3, "found 'b'"),
        ("a !b", 2, "found '!'"),
        ("(a >> b)", 3, "'>>' cannot be used inside parentheses"),
        ("(a b)", 3, "expected '&&', '||' or ')', found 'b'"),
        ("é && ü:x", 5, "unknown key 'ü'"),
    ];
    for &(selector, position, message) in cases {
        let error = error(selector);
        assert_eq!(
            error.position, position,
            "position for {selector:?}: {error}"
        );
        assert!(
            error.message.contains(message),
            "message for {selector:?}: {:?} does not contain {message:?}",
            error.message
        );
    }
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{}a{}", "(".repeat(64), ")".repeat(64));
    assert!(Selector::parse(&deep).is_ok());
    let deeper = format!("{}a{}", "(".repeat(65), ")".repeat(65));
    assert_eq!(error(&deeper).position, 64);
    assert_eq!(error(&"!".repeat(100_000)).position, 64);
}

#[test]
fn error_display_shows_a_caret() {
    let missing_value = error("role:Button && role:");
    assert_eq!(
        missing_value.to_string(),
        "selector error at column 21: expected a value after 'role:'\n  role:Button && role:\n                      ^"
    );
    // Control characters are echoed as spaces so the caret stays aligned.
    let tabs = error("a\t\tb").to_string();
    assert!(tabs.ends_with("\n  a  b\n     ^"), "{tabs}");
}
