//! `axsight gnome-extension`: installs axsight's GNOME Shell extension for the
//! user (GNOME gives a client no window places on Wayland without one) and
//! says how to turn it on. It writes files only; enabling is the user's call.

use crate::stdout::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use axsight_linux::{GNOME_EXTENSION_FILES, GNOME_EXTENSION_UUID};

pub fn run(dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let extensions = match dir {
        Some(dir) => dir.to_path_buf(),
        None => user_extensions()?,
    };
    let folder = extensions.join(GNOME_EXTENSION_UUID);
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot make {}", folder.display()))?;
    for (name, text) in GNOME_EXTENSION_FILES {
        let path = folder.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    outln!("installed {}", folder.display());
    outln!("GNOME reads new extensions when the session starts: log out and in, then run");
    outln!("  gnome-extensions enable {GNOME_EXTENSION_UUID}");
    outln!("and check with `axsight doctor` (its screen line names the window places).");
    Ok(ExitCode::SUCCESS)
}

/// `$XDG_DATA_HOME/gnome-shell/extensions`, else `~/.local/share/…`.
fn user_extensions() -> anyhow::Result<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(data) => PathBuf::from(data),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .context("neither XDG_DATA_HOME nor HOME is set: pass --dir")?;
            PathBuf::from(home).join(".local/share")
        }
    };
    Ok(data.join("gnome-shell/extensions"))
}
