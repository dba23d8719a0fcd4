//! The user's XDG data folder, where the commands that install something for
//! the user (a GNOME Shell extension, KWin's authorisation) write.

use std::path::PathBuf;

use anyhow::Context as _;

/// `$XDG_DATA_HOME`, else `~/.local/share`.
pub fn data_home() -> anyhow::Result<PathBuf> {
    match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(data) => Ok(PathBuf::from(data)),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .context("neither XDG_DATA_HOME nor HOME is set: pass --dir")?;
            Ok(PathBuf::from(home).join(".local/share"))
        }
    }
}
