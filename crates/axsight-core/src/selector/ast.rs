//! The parsed form of a selector, and its canonical text (`Display`), which parses
//! back to the same tree.

use std::fmt;

use crate::{Role, State};

/// A parsed selector: one or more steps joined by `>>`. Each step after the first
/// selects among the descendants of the previous step's matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub(super) steps: Vec<Step>,
}

/// One step of a chain: a filter, and optionally which of its ordered matches to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// What an element must satisfy.
    pub filter: Expr,
    /// `nth:N`: keep only the N-th match (0 = first, -1 = last).
    pub nth: Option<i64>,
}

/// A boolean expression over one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Atom(Atom),
    Not(Box<Expr>),
    /// All of the operands (at least two).
    And(Vec<Expr>),
    /// Any of the operands (at least two).
    Or(Vec<Expr>),
}

/// One `key:value` test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    Role(RoleMatch),
    Name(String),
    Text(String),
    Id(String),
    Desc(String),
    Value(String),
    State(State),
    App(String),
    Window(String),
    Visible(bool),
    Enabled(bool),
    Focused(bool),
    Checked(bool),
}

/// What a `role:` atom compares against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleMatch {
    /// A normalised role (`role:button`, `role:MenuItem`).
    Normalised(Role),
    /// A raw AT-SPI role name, lower case (`role:"push button"`).
    Raw(String),
}

impl Selector {
    /// The steps of the chain, first to last; never empty.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
}

impl Atom {
    /// The key that introduces this atom.
    pub fn key(&self) -> &'static str {
        match self {
            Atom::Role(_) => "role",
            Atom::Name(_) => "name",
            Atom::Text(_) => "text",
            Atom::Id(_) => "id",
            Atom::Desc(_) => "desc",
            Atom::Value(_) => "value",
            Atom::State(_) => "state",
            Atom::App(_) => "app",
            Atom::Window(_) => "window",
            Atom::Visible(_) => "visible",
            Atom::Enabled(_) => "enabled",
            Atom::Focused(_) => "focused",
            Atom::Checked(_) => "checked",
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(" >> ")?;
            }
            write!(f, "{step}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.nth {
            None => write!(f, "{}", self.filter),
            Some(nth) => {
                // `nth:` is one more top-level conjunct, so the filter is printed as
                // the left operand of an `&&`.
                write_operand(f, &self.filter, Precedence::And)?;
                write!(f, " && nth:{nth}")
            }
        }
    }
}

/// Binding strength, loosest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Or,
    And,
    Not,
    Atom,
}

impl Expr {
    fn precedence(&self) -> Precedence {
        match self {
            Expr::Or(_) => Precedence::Or,
            Expr::And(_) => Precedence::And,
            Expr::Not(_) => Precedence::Not,
            Expr::Atom(_) => Precedence::Atom,
        }
    }
}

/// Writes `expr` as an operand of an operator of strength `within`. Operands are
/// parenthesised unless they bind tighter, so `(a && b) && c` keeps its grouping.
fn write_operand(f: &mut fmt::Formatter<'_>, expr: &Expr, within: Precedence) -> fmt::Result {
    let bare = match within {
        // A `!` operand binds at least as tightly as `!` itself.
        Precedence::Not => expr.precedence() >= Precedence::Not,
        _ => expr.precedence() > within,
    };
    if bare {
        write!(f, "{expr}")
    } else {
        write!(f, "({expr})")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (operands, operator, within) = match self {
            Expr::Atom(atom) => return write!(f, "{atom}"),
            Expr::Not(inner) => {
                f.write_str("!")?;
                return write_operand(f, inner, Precedence::Not);
            }
            Expr::And(operands) => (operands, " && ", Precedence::And),
            Expr::Or(operands) => (operands, " || ", Precedence::Or),
        };
        for (i, operand) in operands.iter().enumerate() {
            if i > 0 {
                f.write_str(operator)?;
            }
            write_operand(f, operand, within)?;
        }
        Ok(())
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.key())?;
        match self {
            Atom::Role(RoleMatch::Normalised(role)) => write!(f, "{role}"),
            Atom::Role(RoleMatch::Raw(raw)) => write_value(f, raw),
            Atom::Name(text)
            | Atom::Text(text)
            | Atom::Id(text)
            | Atom::Desc(text)
            | Atom::Value(text)
            | Atom::App(text)
            | Atom::Window(text) => write_value(f, text),
            Atom::State(state) => write!(f, "{state}"),
            Atom::Visible(flag)
            | Atom::Enabled(flag)
            | Atom::Focused(flag)
            | Atom::Checked(flag) => {
                write!(f, "{flag}")
            }
        }
    }
}

/// Writes a value bare when it reads back as the same bare word, else quoted.
fn write_value(f: &mut fmt::Formatter<'_>, value: &str) -> fmt::Result {
    if reads_back_bare(value) {
        return f.write_str(value);
    }
    f.write_str("\"")?;
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

/// Whether `value`, written right after `key:`, lexes back as exactly itself.
fn reads_back_bare(value: &str) -> bool {
    !value.is_empty()
        && !value
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '(' | ')' | '"'))
        && !["&&", "||", ">>"].iter().any(|op| value.contains(op))
}
