//! The recursive-descent parser: tokens to [`Selector`], with every error positioned.
//!
//! Parsing first builds [`Term`]s, which still carry `nth:` atoms and parentheses, then
//! lowers each chain step to a [`Step`], checking that `nth:` sits only as a top-level
//! `&&` conjunct of its step.

use super::ast::{Atom, Expr, Selector, Step};
use super::keys::{self, Reading};
use super::lexer::{tokenize, Token, TokenKind};
use super::SelectorError;

/// Parses a whole selector.
pub(super) fn parse(selector: &str) -> Result<Selector, SelectorError> {
    let mut parser = Parser {
        selector,
        tokens: tokenize(selector)?,
        next: 0,
        depth: 0,
    };
    parser.selector()
}

/// A parsed expression before lowering: like [`Expr`], plus `nth:` and parentheses.
enum Term {
    Atom(Atom),
    Nth { index: i64, position: usize },
    Not(Box<Term>),
    And(Vec<Term>),
    Or(Vec<Term>),
    Group(Box<Term>),
}

struct Parser<'a> {
    selector: &'a str,
    tokens: Vec<Token>,
    next: usize,
    /// How many `(` and `!` enclose the term being parsed.
    depth: usize,
}

/// The deepest nesting of `(` and `!` accepted, so hostile input cannot exhaust the
/// stack of the recursive parser, matcher or printer.
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn error(&self, position: usize, message: impl Into<String>) -> SelectorError {
        SelectorError::new(self.selector, position, message)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    /// Consumes the next token if it is `kind`.
    fn eat(&mut self, kind: &TokenKind) -> bool {
        let found = self.peek().is_some_and(|token| &token.kind == kind);
        if found {
            self.next += 1;
        }
        found
    }

    /// The position just past the last character.
    fn end(&self) -> usize {
        self.selector.chars().count()
    }

    /// `selector := step (">>" step)*`, then nothing.
    fn selector(&mut self) -> Result<Selector, SelectorError> {
        if self.tokens.is_empty() {
            return Err(self.error(
                0,
                "empty selector: expected a term such as role:Button && name:Save",
            ));
        }
        let mut steps = vec![self.step()?];
        while self.eat(&TokenKind::Chain) {
            steps.push(self.step()?);
        }
        match self.peek() {
            None => Ok(Selector { steps }),
            Some(token) if token.kind == TokenKind::Close => {
                Err(self.error(token.start, "unexpected ')' with no matching '('"))
            }
            Some(token) => Err(self.error(
                token.start,
                expected_operator(token, "'&&', '||', '>>' or the end"),
            )),
        }
    }

    fn step(&mut self) -> Result<Step, SelectorError> {
        let term = self.or()?;
        self.lower_step(term)
    }

    /// `or := and ("||" and)*`
    fn or(&mut self) -> Result<Term, SelectorError> {
        let mut operands = vec![self.and()?];
        while self.eat(&TokenKind::Or) {
            operands.push(self.and()?);
        }
        Ok(if operands.len() == 1 {
            operands.swap_remove(0)
        } else {
            Term::Or(operands)
        })
    }

    /// `and := unary ("&&" unary)*`
    fn and(&mut self) -> Result<Term, SelectorError> {
        let mut operands = vec![self.unary()?];
        while self.eat(&TokenKind::And) {
            operands.push(self.unary()?);
        }
        Ok(if operands.len() == 1 {
            operands.swap_remove(0)
        } else {
            Term::And(operands)
        })
    }

    /// `unary := "!" unary | primary`
    fn unary(&mut self) -> Result<Term, SelectorError> {
        match self.peek().cloned() {
            Some(bang) if bang.kind == TokenKind::Not => {
                self.next += 1;
                let inner = self.nested(&bang, Self::unary)?;
                Ok(Term::Not(Box::new(inner)))
            }
            _ => self.primary(),
        }
    }

    /// `primary := "(" or ")" | key:value | word | "quoted"`
    fn primary(&mut self) -> Result<Term, SelectorError> {
        let Some(token) = self.peek().cloned() else {
            return Err(self.missing_term(self.end(), "the end"));
        };
        self.next += 1;
        match &token.kind {
            TokenKind::Open => {
                let inner = self.nested(&token, |parser| parser.group(&token))?;
                Ok(Term::Group(Box::new(inner)))
            }
            TokenKind::Word(word) => self.word(word, &token),
            TokenKind::Quoted(text) if text.is_empty() => {
                Err(self.error(token.start, "expected text between the quotes"))
            }
            TokenKind::Quoted(text) => Ok(Term::Atom(Atom::Text(text.clone()))),
            TokenKind::Close
            | TokenKind::And
            | TokenKind::Or
            | TokenKind::Chain
            | TokenKind::Not => {
                self.next -= 1;
                Err(self.missing_term(token.start, &token.describe()))
            }
        }
    }

    /// Runs `parse` one nesting level deeper, `opener` being the `!` or `(` that opened it.
    fn nested(
        &mut self,
        opener: &Token,
        parse: impl FnOnce(&mut Self) -> Result<Term, SelectorError>,
    ) -> Result<Term, SelectorError> {
        if self.depth == MAX_DEPTH {
            return Err(self.error(
                opener.start,
                format!("expected at most {MAX_DEPTH} nested '(' and '!'"),
            ));
        }
        self.depth += 1;
        let inner = parse(self);
        self.depth -= 1;
        inner
    }

    /// The error for a term missing at `position`, where `found` is.
    fn missing_term(&self, position: usize, found: &str) -> SelectorError {
        let before = self.next.checked_sub(1).and_then(|i| self.tokens.get(i));
        let after = before.map_or(String::new(), |token| {
            format!(" after {}", token.describe())
        });
        self.error(
            position,
            format!("expected a term (such as role:Button or \"Save\"){after}, found {found}"),
        )
    }

    /// The rest of `( or )`, the `(` being `open`.
    fn group(&mut self, open: &Token) -> Result<Term, SelectorError> {
        let inner = self.or()?;
        match self.peek() {
            Some(token) if token.kind == TokenKind::Close => {
                self.next += 1;
                Ok(inner)
            }
            None => Err(self.error(open.start, "unclosed '(': expected a matching ')'")),
            Some(token) if token.kind == TokenKind::Chain => Err(self.error(
                token.start,
                "'>>' cannot be used inside parentheses: chain whole steps, as in role:Dialog >> role:Button",
            )),
            Some(token) => Err(self.error(token.start, expected_operator(token, "'&&', '||' or ')'"))),
        }
    }

    /// A bare word: `key:value`, `key:"quoted"`, or plain text.
    fn word(&mut self, word: &str, token: &Token) -> Result<Term, SelectorError> {
        let Some((key, value)) = word.split_once(':') else {
            return Ok(Term::Atom(Atom::Text(word.to_string())));
        };
        let (name, key) = keys::lookup(key).map_err(|message| self.error(token.start, message))?;
        let mut value = value.to_string();
        let mut value_position = token.start + name.len() + 1;
        let adjacent = self.peek().filter(|next| next.start == token.end).cloned();
        if let Some(Token {
            kind: TokenKind::Quoted(quoted),
            start,
            ..
        }) = adjacent.filter(|_| value.is_empty())
        {
            value_position = start;
            value = quoted;
            self.next += 1;
        }
        if value.is_empty() {
            return Err(self.error(value_position, format!("expected a value after '{name}:'")));
        }
        match keys::read(name, key, value) {
            Ok(Reading::Atom(atom)) => Ok(Term::Atom(atom)),
            Ok(Reading::Nth(index)) => Ok(Term::Nth {
                index,
                position: token.start,
            }),
            Err(message) => Err(self.error(value_position, message)),
        }
    }

    /// Turns one chain step's term into a [`Step`], pulling out its `nth:`.
    fn lower_step(&self, term: Term) -> Result<Step, SelectorError> {
        let conjuncts = match term {
            Term::And(operands) => operands,
            other => vec![other],
        };
        let mut nth: Option<(i64, usize)> = None;
        let mut rest = Vec::new();
        for conjunct in conjuncts {
            match conjunct {
                Term::Nth { position, .. } if nth.is_some() => {
                    return Err(self.error(position, "a step takes at most one 'nth:'"));
                }
                Term::Nth { index, position } => nth = Some((index, position)),
                other => rest.push(self.lower(other)?),
            }
        }
        let filter = match (rest.len(), nth) {
            (0, Some((_, position))) => {
                return Err(self.error(
                    position,
                    "'nth:' needs something to pick from, as in role:Button && nth:0",
                ))
            }
            (1, _) => rest.swap_remove(0),
            _ => Expr::And(rest),
        };
        Ok(Step {
            filter,
            nth: nth.map(|(index, _)| index),
        })
    }

    /// Turns a term below the top level into an [`Expr`]; `nth:` is not allowed there.
    fn lower(&self, term: Term) -> Result<Expr, SelectorError> {
        let lower_all = |operands: Vec<Term>| -> Result<Vec<Expr>, SelectorError> {
            operands.into_iter().map(|t| self.lower(t)).collect()
        };
        Ok(match term {
            Term::Atom(atom) => Expr::Atom(atom),
            Term::Nth { position, .. } => {
                return Err(self.error(
                    position,
                    "'nth:' must be joined to its whole step with '&&', as in \
                     role:Button && nth:0; it cannot sit inside '||', '!' or parentheses",
                ))
            }
            Term::Not(inner) => Expr::Not(Box::new(self.lower(*inner)?)),
            Term::And(operands) => Expr::And(lower_all(operands)?),
            Term::Or(operands) => Expr::Or(lower_all(operands)?),
            Term::Group(inner) => self.lower(*inner)?,
        })
    }
}

/// The message for `token` found where one of `alternatives` should be.
fn expected_operator(token: &Token, alternatives: &str) -> String {
    let hint = match token.kind {
        TokenKind::Word(_) | TokenKind::Quoted(_) => {
            "; join terms with an operator, and quote text with spaces (name:\"Save As\")"
        }
        _ => "",
    };
    format!("expected {alternatives}, found {}{hint}", token.describe())
}
