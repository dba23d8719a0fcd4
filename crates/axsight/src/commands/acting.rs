//! `axsight click`, `type` and `key`: the MCP server's acting tools on the command
//! line, printing the same answer (what was done, then what changed).
//!
//! A handle means something only inside one session, and every command is a new
//! one: so a handle target first reads the window the way `axsight tree` does,
//! which numbers its elements the same way while the window is unchanged.

use crate::stdout::out;
use std::process::ExitCode;
use std::time::Duration;

use axsight_core::Point;
use axsight_session::{ActOptions, ClickOptions, Target, TreeRequest};

use super::Session;
use crate::cli::{ActFlags, Scope};

/// What `target` names: a point (`120,340`), a handle (`#u14`, `u14`), or a selector.
fn parse_target(text: &str, scope: &Scope) -> Target {
    let trimmed = text.trim();
    if let Some((x, y)) = trimmed.split_once(',') {
        if let (Ok(x), Ok(y)) = (x.trim().parse(), y.trim().parse()) {
            return Target::Point(Point { x, y });
        }
    }
    if trimmed.parse::<axsight_core::Handle>().is_ok() {
        return Target::Handle(trimmed.to_string());
    }
    Target::Selector {
        selector: trimmed.to_string(),
        app: scope.app.clone(),
        window: scope.window.clone(),
    }
}

fn options(act: &ActFlags) -> ActOptions {
    ActOptions {
        diff: !act.no_diff,
        timeout: Duration::from_millis(act.timeout_ms),
        ..ActOptions::default()
    }
}

/// Reads the scoped window once so handles are numbered as `axsight tree` numbers
/// them (only needed when the target is a handle).
async fn number_handles(session: &Session, target: &Target, scope: &Scope) -> anyhow::Result<()> {
    if let Target::Handle(handle) = target {
        // OCR reads only for its handles (`#o5`), as `axsight tree` numbers them.
        let spotted = handle
            .parse::<axsight_core::Handle>()
            .is_ok_and(|h| h.source != axsight_core::Source::Tree);
        let request = TreeRequest {
            app: scope.app.clone(),
            window: scope.window.clone(),
            fall_through: Some(spotted),
            ..TreeRequest::default()
        };
        session.window_tree(&request, false).await?;
    }
    Ok(())
}

/// Prints an answer; a failed action is printed on stderr with exit code 1.
fn print(result: Result<String, axsight_session::ToolError>) -> anyhow::Result<ExitCode> {
    match result {
        Ok(text) => {
            out!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("axsight: {error}");
            Ok(ExitCode::from(1))
        }
    }
}

pub struct Click {
    pub button: String,
    pub double: bool,
    pub modifiers: Option<String>,
    pub background: bool,
}

pub async fn click(
    target: &str,
    scope: &Scope,
    click: Click,
    act: &ActFlags,
) -> anyhow::Result<ExitCode> {
    let session = Session::watching();
    let target = parse_target(target, scope);
    number_handles(&session, &target, scope).await?;
    let modifiers = match &click.modifiers {
        Some(text) => axsight_core::Modifier::parse_list(text).map_err(|e| anyhow::anyhow!(e))?,
        None => Vec::new(),
    };
    let options_ = ClickOptions {
        button: click
            .button
            .parse()
            .map_err(|e: String| anyhow::anyhow!(e))?,
        count: if click.double { 2 } else { 1 },
        modifiers,
        background: click.background,
    };
    print(session.click(&target, &options_, &options(act)).await)
}

pub async fn type_text(
    target: &str,
    text: &str,
    scope: &Scope,
    append: bool,
    act: &ActFlags,
) -> anyhow::Result<ExitCode> {
    // "-" reads the text from stdin: a password on the command line would show in
    // `ps` and the shell's history.
    let text = if text == "-" {
        let mut read = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut read)?;
        read.trim_end_matches('\n').to_string()
    } else {
        text.to_string()
    };
    let session = Session::watching();
    let target = parse_target(target, scope);
    number_handles(&session, &target, scope).await?;
    print(
        session
            .type_into(Some(&target), &text, !append, &options(act))
            .await,
    )
}

pub async fn key(
    keys: &str,
    target: Option<&str>,
    scope: &Scope,
    act: &ActFlags,
) -> anyhow::Result<ExitCode> {
    let session = Session::watching();
    let target = target.map(|t| parse_target(t, scope));
    if let Some(target) = &target {
        number_handles(&session, target, scope).await?;
    }
    print(
        session
            .press_key(keys, target.as_ref(), &options(act))
            .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_points_handles_or_selectors() {
        let scope = Scope {
            app: Some("calc".into()),
            window: None,
        };
        assert_eq!(
            parse_target("12, 34", &scope),
            Target::Point(Point { x: 12, y: 34 })
        );
        assert_eq!(parse_target("#u14", &scope), Target::Handle("#u14".into()));
        assert_eq!(
            parse_target("name:7", &scope),
            Target::Selector {
                selector: "name:7".into(),
                app: Some("calc".into()),
                window: None
            }
        );
        assert!(matches!(
            parse_target("name:a,b", &scope),
            Target::Selector { .. }
        ));
    }
}
