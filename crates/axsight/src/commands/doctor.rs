//! `axsight doctor`: checks each thing axsight needs and says how to fix what fails.
//! Exits non-zero when a check that reading depends on fails; `warn` lines do not.

use crate::stdout::outln;
use std::process::ExitCode;

use axsight_linux::discover;
use axsight_linux::{DesktopSession, LinuxEngine};

fn ok(what: &str, detail: &str) {
    outln!("ok    {what}: {detail}");
}

fn warn(what: &str, detail: &str) {
    outln!("warn  {what}: {detail}");
}

fn bad(what: &str, detail: &str) {
    outln!("FAIL  {what}: {detail}");
}

pub async fn run() -> anyhow::Result<ExitCode> {
    let mut healthy = true;
    let session = DesktopSession::current();
    match session.limits() {
        None => ok("desktop session", &session.describe()),
        Some(limits) => warn(
            "desktop session",
            &format!("{}: {limits}", session.describe()),
        ),
    }
    match discover::find_display() {
        Ok(display) => ok("X display", &display),
        // Reading needs no display: on Wayland the missing X server is what the
        // session line above already warns of.
        Err(error) if matches!(session, DesktopSession::Wayland { .. }) => {
            warn("X display", &error.to_string())
        }
        Err(error) => {
            bad("X display", &error.to_string());
            healthy = false;
        }
    }
    let session_bus = discover::find_session_bus();
    match &session_bus {
        Some(address) => ok("session bus", address),
        None => warn(
            "session bus",
            "not found: reading works without it, but turning accessibility on needs it \
             (set DBUS_SESSION_BUS_ADDRESS)",
        ),
    }
    let discovery = match discover::discover().await {
        Ok(discovery) => discovery,
        Err(error) => {
            bad("accessibility bus", &error.to_string());
            return Ok(ExitCode::FAILURE);
        }
    };
    ok(
        "accessibility bus",
        &format!(
            "{} (from {})",
            discovery.a11y_bus, discovery.a11y_bus_source
        ),
    );
    if let Some(address) = &session_bus {
        match discover::accessibility_enabled(address, false).await {
            Ok(true) => ok("accessibility enabled", "org.a11y.Status.IsEnabled is true"),
            Ok(false) => {
                bad(
                    "accessibility enabled",
                    "IsEnabled is false: Chromium, Firefox and Qt apps hide their trees; `axsight serve` turns it on, or run: \
                     gsettings set org.gnome.desktop.interface toolkit-accessibility true",
                );
                healthy = false;
            }
            Err(error) => warn(
                "accessibility enabled",
                &format!("cannot read IsEnabled: {error}"),
            ),
        }
    }
    match LinuxEngine::connect().await {
        Ok(engine) => {
            match engine.screen() {
                Ok(screen) => ok("screen", &screen),
                // Reading needs no screen: a warning, not a failure.
                Err(why) => warn(
                    "screen",
                    &format!(
                        "none ({why}): trees are read, but input, screenshots and window \
                         control fail"
                    ),
                ),
            }
            report_outputs(&engine).await;
            match engine.applications().await {
                Ok(apps) => {
                    let windows: usize = apps.iter().map(|a| a.windows.len()).sum();
                    ok(
                        "applications",
                        &format!("{} on the bus, {windows} windows", apps.len()),
                    );
                    if apps.is_empty() {
                        outln!("      no app is on the bus: apps started with NO_AT_BRIDGE=1 (GTK3) or GTK_A11Y=none (GTK4) hide themselves");
                    }
                    report_app_scales(&engine).await;
                }
                Err(error) => {
                    bad("applications", &error.to_string());
                    healthy = false;
                }
            }
        }
        Err(error) => {
            bad("connection", &error.to_string());
            healthy = false;
        }
    }
    Ok(if healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The monitors and their scales: what a scaled or multi-monitor set-up looks
/// like to axsight.
async fn report_outputs(engine: &LinuxEngine) {
    match engine.outputs().await {
        Ok(outputs) if outputs.is_empty() => {}
        Ok(outputs) => {
            let listed: Vec<String> = outputs
                .iter()
                .map(|output| {
                    let b = output.bounds;
                    let primary = if output.primary { ", primary" } else { "" };
                    format!(
                        "{} [{},{},{},{}] scale {}{primary}",
                        output.name, b.x, b.y, b.width, b.height, output.scale
                    )
                })
                .collect();
            ok("outputs", &listed.join("; "));
        }
        Err(error) => warn("outputs", &format!("the screen did not list them: {error}")),
    }
}

/// The apps that draw at a scale of their own, which boxes are scaled by.
async fn report_app_scales(engine: &LinuxEngine) {
    if let Ok(scaled) = engine.app_scales().await {
        if !scaled.is_empty() {
            let listed: Vec<String> = scaled
                .iter()
                .map(|(name, pid, scale)| match pid {
                    Some(pid) => format!("{name} (pid {pid}) at {scale}"),
                    None => format!("{name} at {scale}"),
                })
                .collect();
            ok(
                "app scales",
                &format!(
                    "{}; their boxes are scaled to screen pixels",
                    listed.join(", ")
                ),
            );
        }
    }
}
