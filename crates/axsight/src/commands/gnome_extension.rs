//! `axsight gnome-extension`: installs axsight's GNOME Shell extension for the
//! user (GNOME gives a client no window places on Wayland without one) and
//! says how to turn it on. It writes files only; enabling is the user's call.

use crate::stdout::outln;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use axsight_linux::{GNOME_EXTENSION_FILES, GNOME_EXTENSION_UUID};

pub fn run(dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let extensions = match dir {
        Some(dir) => dir.to_path_buf(),
        None => super::xdg::data_home()?.join("gnome-shell/extensions"),
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
