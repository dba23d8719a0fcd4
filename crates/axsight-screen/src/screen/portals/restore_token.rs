//! The RemoteDesktop portal's restore token, kept between runs under
//! `$XDG_STATE_HOME/axsight` (else `~/.local/state/axsight`) so that a later
//! session is let in without the dialog (portals of RemoteDesktop version 2
//! and later give one). A token is good once: each start leaves the new one.

use std::path::{Path, PathBuf};

/// The token file: `STATE/axsight/remote-desktop-portal.token`.
pub fn path(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let state = match var("XDG_STATE_HOME").filter(|v| v.starts_with('/')) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(var("HOME").filter(|v| !v.is_empty())?).join(".local/state"),
    };
    Some(state.join("axsight").join("remote-desktop-portal.token"))
}

/// The kept token, if there is a readable one.
pub fn load(file: &Path) -> Option<String> {
    let token = std::fs::read_to_string(file).ok()?;
    let token = token.trim();
    (!token.is_empty() && token.len() < 512).then(|| token.to_string())
}

/// Keeps `token` (readable by the user alone: it lets a process in without
/// asking), or forgets the old one when there is none.
pub fn store(file: &Path, token: Option<&str>) -> std::io::Result<()> {
    let Some(token) = token else {
        return match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let scratch = file.with_extension("token.new");
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&scratch)?;
    out.write_all(token.as_bytes())?;
    std::fs::rename(&scratch, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_lives_in_the_state_directory() {
        let env = |state: Option<&'static str>| {
            move |name: &str| match name {
                "XDG_STATE_HOME" => state.map(str::to_string),
                "HOME" => Some("/home/ada".to_string()),
                _ => None,
            }
        };
        assert_eq!(
            path(env(Some("/var/state"))).unwrap(),
            Path::new("/var/state/axsight/remote-desktop-portal.token")
        );
        // A relative XDG_STATE_HOME is not valid: the default then.
        assert_eq!(
            path(env(Some("state"))).unwrap(),
            Path::new("/home/ada/.local/state/axsight/remote-desktop-portal.token")
        );
        assert_eq!(path(|_| None), None);
    }

    #[test]
    fn a_token_is_kept_for_the_user_alone_and_forgotten() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("axsight-token-{}", std::process::id()));
        let file = dir.join("axsight/remote-desktop-portal.token");
        assert_eq!(load(&file), None);
        store(&file, Some("3f1c-token")).unwrap();
        assert_eq!(load(&file).as_deref(), Some("3f1c-token"));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        store(&file, Some("next")).unwrap();
        assert_eq!(load(&file).as_deref(), Some("next"));
        store(&file, None).unwrap();
        assert_eq!(load(&file), None);
        store(&file, None).unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }
}
