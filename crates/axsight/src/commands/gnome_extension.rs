//! `axsight gnome-extension`: installs axsight's GNOME Shell extension for the
//! user (GNOME gives a client no window places on Wayland without one) and
//! says how to turn it on. It writes files only; enabling is the user's call.

use crate::stdout::outln;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use axsight_linux::{gnome_extension_files, GNOME_EXTENSION_UUID};

pub fn run(dir: Option<&Path>, shell_version: Option<u32>) -> anyhow::Result<ExitCode> {
    let major = match shell_version {
        Some(major) => major,
        None => installed_shell()?,
    };
    let files = gnome_extension_files(major).map_err(anyhow::Error::msg)?;
    let extensions = match dir {
        Some(dir) => dir.to_path_buf(),
        None => super::xdg::data_home()?.join("gnome-shell/extensions"),
    };
    let folder = extensions.join(GNOME_EXTENSION_UUID);
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot make {}", folder.display()))?;
    for (name, text) in files {
        let path = folder.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    outln!("installed {} for GNOME {major}", folder.display());
    outln!("GNOME reads new extensions when the session starts: log out and in, then run");
    outln!("  gnome-extensions enable {GNOME_EXTENSION_UUID}");
    outln!("and check with `axsight doctor` (its screen line names the window places).");
    Ok(ExitCode::SUCCESS)
}

/// The major version of the GNOME Shell installed here (`gnome-shell --version`
/// says `GNOME Shell 43.9`).
fn installed_shell() -> anyhow::Result<u32> {
    let out = std::process::Command::new("gnome-shell")
        .arg("--version")
        .output()
        .context("cannot run `gnome-shell --version` to tell which extension to install: pass --shell-version")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .last()
        .and_then(|version| version.split('.').next())
        .and_then(|major| major.parse().ok())
        .with_context(|| {
            format!(
                "`gnome-shell --version` said {:?}: pass --shell-version",
                text.trim()
            )
        })
}
