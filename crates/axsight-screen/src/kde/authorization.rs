//! What KWin asks before it lets a client send input or take screenshots: a
//! `.desktop` file, in the KService database, whose `Exec` is the client's
//! executable and which names the interfaces it may use
//! (`X-KDE-Wayland-Interfaces` for fake input, `X-KDE-DBUS-Restricted-Interfaces`
//! for ScreenShot2). KWin looks it up when a client connects or calls, so a file
//! written while KWin runs counts from the next connection once `kbuildsycoca5`
//! (or 6) has run. `axsight kde-authorize` writes it.

use std::path::Path;

/// The file's name in `$XDG_DATA_HOME/applications`.
pub const DESKTOP_FILE: &str = "io.github.axsight.desktop";

/// What to do when KWin refuses axsight.
pub const ADVICE: &str = "KWin lets only authorised programs send input and take \
    screenshots: run `axsight kde-authorize` (it writes \
    ~/.local/share/applications/io.github.axsight.desktop for this axsight binary) and start \
    axsight again";

/// The `.desktop` entry that authorises the executable at `exec`.
pub fn desktop_entry(exec: &Path) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=axsight\n\
         Comment=Accessibility-first desktop control for AI agents\n\
         Exec={}\n\
         NoDisplay=true\n\
         X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n\
         X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n",
        exec.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_names_the_executable_and_both_interfaces() {
        let entry = desktop_entry(Path::new("/usr/bin/axsight"));
        assert!(entry.starts_with("[Desktop Entry]\n"));
        assert!(entry.contains("\nExec=/usr/bin/axsight\n"));
        assert!(entry.contains("X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"));
        assert!(entry.contains("X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n"));
    }
}
