//! Electron apps: Chromium inside, with Chromium's switches, but the user's own
//! app with the user's own data. An Electron app is known by how it is
//! installed (the Electron runtime's resources beside its binary), started with
//! its page tree and a DevTools port on, and, unlike a browser axsight starts,
//! keeps its own profile: its data is the user's (logins, documents), so no
//! `--user-data-dir` is given, and the DevTools port is one axsight picks.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};

use super::is_root;

/// Whether the program at `program` (a path or a name on `PATH`) is an Electron
/// app: the `electron` runtime itself, or a binary installed beside Electron's
/// resources (`resources/app.asar` or `resources/app/`, and a Chromium `.pak`).
/// Symbolic links are followed: `/usr/bin/APP` often points into `/opt/APP/`.
pub fn is_electron_app(program: &str) -> bool {
    let Some(path) = resolve(program) else {
        return false;
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    // The runtime itself: `electron`, or a versioned `electron28`.
    if name
        .strip_prefix("electron")
        .is_some_and(|version| version.bytes().all(|b| b.is_ascii_digit()))
    {
        return true;
    }
    let Some(dir) = path.parent() else {
        return false;
    };
    let resources = dir.join("resources");
    let has_app = resources.join("app.asar").is_file() || resources.join("app").is_dir();
    let has_pak = ["resources.pak", "chrome_100_percent.pak"]
        .iter()
        .any(|pak| dir.join(pak).is_file());
    has_app && has_pak
}

/// The flags that start an Electron app with its page tree in the accessibility
/// tree and a DevTools endpoint on loopback `port` (root needs `--no-sandbox`).
///
/// ```
/// let flags = axsight_browser::electron_flags(9333);
/// assert!(flags.contains(&"--force-renderer-accessibility".to_string()));
/// assert!(flags.contains(&"--remote-debugging-port=9333".to_string()));
/// assert!(!flags.iter().any(|f| f.starts_with("--user-data-dir")));
/// ```
pub fn electron_flags(port: u16) -> Vec<String> {
    let mut flags = vec![
        "--force-renderer-accessibility".to_string(),
        format!("--remote-debugging-port={port}"),
    ];
    if is_root() {
        flags.push("--no-sandbox".into());
    }
    flags
}

/// A loopback port no one listens on now, for an app's DevTools endpoint.
pub fn free_port() -> std::io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

/// `program` as a file: itself when it names one, else the first match on
/// `PATH`, with symbolic links followed.
fn resolve(program: &str) -> Option<PathBuf> {
    let given = Path::new(program);
    let found = if program.contains('/') {
        given.to_path_buf()
    } else {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())?
    };
    std::fs::canonicalize(found).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder laid out as an installed app, removed when dropped.
    struct Install(PathBuf);

    impl Install {
        fn new(name: &str, files: &[&str], dirs: &[&str]) -> Install {
            let root = std::env::temp_dir().join(format!(
                "axsight-electron-test-{}-{name}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&root);
            for dir in dirs {
                std::fs::create_dir_all(root.join(dir)).unwrap();
            }
            for file in files {
                let path = root.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, b"").unwrap();
            }
            Install(root)
        }

        fn program(&self, name: &str) -> String {
            self.0.join(name).display().to_string()
        }
    }

    impl Drop for Install {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn an_app_beside_electrons_resources_is_electron() {
        let app = Install::new(
            "asar",
            &["notes", "resources/app.asar", "resources.pak"],
            &[],
        );
        assert!(is_electron_app(&app.program("notes")));
        let unpacked = Install::new(
            "unpacked",
            &["chat", "chrome_100_percent.pak"],
            &["resources/app"],
        );
        assert!(is_electron_app(&unpacked.program("chat")));
    }

    #[test]
    fn a_link_to_the_binary_is_followed() {
        let app = Install::new(
            "linked",
            &["editor", "resources/app.asar", "resources.pak"],
            &[],
        );
        let link = app.0.join("bin-editor");
        std::os::unix::fs::symlink(app.0.join("editor"), &link).unwrap();
        assert!(is_electron_app(&link.display().to_string()));
    }

    #[test]
    fn other_programs_are_not() {
        // Resources without a Chromium pack, or a pack without an app.
        let half = Install::new("half", &["tool", "resources/app.asar"], &[]);
        assert!(!is_electron_app(&half.program("tool")));
        let other = Install::new("other", &["game", "resources.pak"], &[]);
        assert!(!is_electron_app(&other.program("game")));
        assert!(!is_electron_app("/no/such/program"));
        assert!(!is_electron_app("gedit-that-is-not-installed"));
    }

    #[test]
    fn the_runtime_is_known_by_its_name() {
        let runtime = Install::new("runtime", &["electron", "electron28"], &[]);
        assert!(is_electron_app(&runtime.program("electron")));
        assert!(is_electron_app(&runtime.program("electron28")));
    }

    #[test]
    fn flags_open_a_devtools_port_and_keep_the_users_profile() {
        let flags = electron_flags(45678);
        assert_eq!(flags[0], "--force-renderer-accessibility");
        assert_eq!(flags[1], "--remote-debugging-port=45678");
        assert!(!flags.iter().any(|f| f.starts_with("--user-data-dir")));
        assert_eq!(flags.contains(&"--no-sandbox".to_string()), is_root());
        let port = free_port().unwrap();
        assert!(port > 0);
    }
}
