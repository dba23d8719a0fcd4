//! `axsight serve`: MCP over stdio or streamable HTTP, with what whoever serves
//! lets a client do (the tools, the apps it may start, a shell or none).

use std::sync::Arc;

use anyhow::{bail, Context as _};
use axsight_core::AppScope;
use axsight_linux::LinuxEngine;
use axsight_mcp::{SessionLimits, ToolPolicy};
use axsight_session::{DesktopPolicy, Grounding};

use crate::cli::ServeFlags;

/// Acting calls a minute an HTTP session may make unless told otherwise: far
/// above what an agent waiting for each answer makes, far below a flood.
const HTTP_ACTING_PER_MINUTE: u32 = 600;

/// Serves until the client goes (stdio) or the process is asked to stop.
pub async fn serve(flags: ServeFlags, grounding: Grounding) -> anyhow::Result<()> {
    crate::allocator::return_big_buffers();
    let policy = desktop_policy(&flags)?;
    // Chromium, Firefox and Qt expose their trees only while IsEnabled is true.
    if let Some(bus) = axsight_linux::discover::find_session_bus() {
        if let Err(error) = axsight_linux::discover::accessibility_enabled(&bus, true).await {
            tracing::warn!(%error, "could not turn accessibility on");
        }
    }
    let audit = match &flags.audit_log {
        Some(path) => Some(Arc::new(
            axsight_mcp::AuditLog::open(path, flags.audit_max_bytes)
                .with_context(|| format!("cannot open the audit log {}", path.display()))?,
        )),
        None => None,
    };
    let mut tools =
        ToolPolicy::new(&flags.tools, &flags.deny_tools).map_err(|why| anyhow::anyhow!("{why}"))?;
    if flags.read_only {
        tools = tools.and(&ToolPolicy::read_only());
    }
    let options = axsight_mcp::ServeOptions {
        tools,
        audit,
        policy: Arc::new(policy),
        acting_per_minute: match (flags.rate_limit, flags.http) {
            (Some(0), _) => bail!("--rate-limit 0 would refuse every acting call"),
            (Some(n), _) => Some(n),
            (None, Some(_)) => Some(HTTP_ACTING_PER_MINUTE),
            (None, None) => None,
        },
        confirm: flags.confirm,
    };
    let Some(addr) = flags.http else {
        return axsight_mcp::serve_stdio::<LinuxEngine>(grounding, options)
            .await
            .map_err(|e| anyhow::anyhow!(e));
    };
    let token = match &flags.token_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the token file {}", path.display()))?
                .trim()
                .to_string(),
        ),
        None if !addr.ip().is_loopback() => {
            let token = axsight_mcp::new_token().context("cannot make a token")?;
            eprintln!("axsight: clients must send Authorization: Bearer {token}");
            Some(token)
        }
        None => None,
    };
    let http = axsight_mcp::HttpOptions {
        addr,
        token,
        allowed_origins: flags.allowed_origin.clone(),
        limits: SessionLimits {
            max: flags.max_sessions.max(1),
            idle: flags.idle_timeout,
            bare: flags.idle_timeout.min(SessionLimits::default().bare),
        },
    };
    axsight_mcp::serve_http::<LinuxEngine>(grounding, options, http)
        .await
        .map_err(|e| anyhow::anyhow!(e))
}

/// The apps and shell the flags allow.
fn desktop_policy(flags: &ServeFlags) -> anyhow::Result<DesktopPolicy> {
    let mut apps = flags.allow_app.clone();
    if let Some(path) = &flags.apps {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the app list {}", path.display()))?;
        apps.extend(listed_apps(&text));
    }
    let given = flags.apps.is_some() || !flags.allow_app.is_empty();
    let policy = DesktopPolicy {
        apps: given.then_some(apps),
        shell: flags.allow_shell,
        scope: (!flags.scope.is_empty())
            .then(|| AppScope::new(flags.scope.iter().flat_map(|names| names.split(',')))),
    };
    if let Err(why) = policy.check() {
        bail!("{why}");
    }
    Ok(policy)
}

/// The apps an app list file names: a line each, blank lines and `#`
/// comments skipped.
fn listed_apps(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_app_list_is_a_line_each_without_comments() {
        let text = "# what the agent may start\ngedit\n\n  org.gnome.Calculator.desktop  # the calculator\n";
        let apps: Vec<String> = listed_apps(text).collect();
        assert_eq!(apps, ["gedit", "org.gnome.Calculator.desktop"]);
    }
}
