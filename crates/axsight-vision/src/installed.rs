//! Where axsight's install scripts put the model files it runs:
//! `${XDG_DATA_HOME:-~/.local/share}/axsight/`. Finding a file there is all
//! this does; what to do without one is each caller's.

use std::path::PathBuf;

/// The installed file `name`, if it is there.
pub(crate) fn installed_file(name: &str) -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share"))
        })?;
    let path = data.join("axsight").join(name);
    path.is_file().then_some(path)
}
