//! Which kind of graphical session axsight runs in: X11, or Wayland and which
//! compositor, as the environment names it (`WAYLAND_DISPLAY`,
//! `XDG_SESSION_TYPE`, `XDG_CURRENT_DESKTOP`, `SWAYSOCK`, `DISPLAY`).
//!
//! It only names the session, from plain data; it connects to nothing. The engine
//! picks its screen from it (sway's backend on sway, X11 elsewhere), and
//! [`DesktopSession::limits`] says what a session leaves out.

/// A Wayland compositor, as far as the environment tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compositor {
    /// sway (it sets `SWAYSOCK`), or another wlroots compositor naming itself so.
    Sway,
    /// GNOME Shell (mutter).
    Gnome,
    /// KDE Plasma (KWin).
    Kde,
    /// Another compositor: the desktop's name, or empty when nothing names it.
    Other(String),
}

impl Compositor {
    /// Its name: `sway`, `GNOME`, `KDE`, or what the desktop calls itself.
    pub fn name(&self) -> &str {
        match self {
            Compositor::Sway => "sway",
            Compositor::Gnome => "GNOME",
            Compositor::Kde => "KDE",
            Compositor::Other(name) if name.is_empty() => "compositor not named",
            Compositor::Other(name) => name,
        }
    }
}

/// The kind of graphical session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DesktopSession {
    /// An X server (Xorg or Xvfb).
    X11,
    /// A Wayland compositor; `xwayland` when an X display is there too.
    Wayland {
        compositor: Compositor,
        xwayland: bool,
    },
    /// Neither a Wayland socket nor an X display is named.
    Unknown,
}

impl DesktopSession {
    /// The session the environment variables that `var` reads name (an empty
    /// value counts as unset).
    ///
    /// ```
    /// use axsight_linux::{Compositor, DesktopSession};
    /// let env = |name: &str| match name {
    ///     "WAYLAND_DISPLAY" => Some("wayland-1".to_string()),
    ///     "SWAYSOCK" => Some("/run/user/0/sway-ipc.sock".to_string()),
    ///     _ => None,
    /// };
    /// assert_eq!(
    ///     DesktopSession::from_env(env),
    ///     DesktopSession::Wayland { compositor: Compositor::Sway, xwayland: false }
    /// );
    /// ```
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> DesktopSession {
        let var = |name: &str| var(name).filter(|value| !value.trim().is_empty());
        let session_type = var("XDG_SESSION_TYPE").map(|t| t.to_ascii_lowercase());
        let display = var("DISPLAY").is_some();
        let wayland =
            var("WAYLAND_DISPLAY").is_some() || session_type.as_deref() == Some("wayland");
        if wayland {
            return DesktopSession::Wayland {
                compositor: compositor(var("SWAYSOCK").is_some(), var("XDG_CURRENT_DESKTOP")),
                xwayland: display,
            };
        }
        if display || session_type.as_deref() == Some("x11") {
            return DesktopSession::X11;
        }
        DesktopSession::Unknown
    }

    /// The session of this process's environment; X11 also when nothing is named
    /// but the display is found as axsight finds it from a stripped environment
    /// (the only X socket, see [`crate::discover::find_display`]).
    pub fn current() -> DesktopSession {
        match DesktopSession::from_env(|name| std::env::var(name).ok()) {
            DesktopSession::Unknown if crate::discover::find_display().is_ok() => {
                DesktopSession::X11
            }
            session => session,
        }
    }

    /// A short name: `X11`, `Wayland (sway)`, `Wayland (GNOME) with XWayland`.
    pub fn describe(&self) -> String {
        match self {
            DesktopSession::X11 => "X11".into(),
            DesktopSession::Unknown => "none named (no WAYLAND_DISPLAY or DISPLAY)".into(),
            DesktopSession::Wayland {
                compositor,
                xwayland,
            } => {
                let name = compositor.name();
                match xwayland {
                    true => format!("Wayland ({name}) with XWayland"),
                    false => format!("Wayland ({name})"),
                }
            }
        }
    }

    /// What axsight cannot do in this session, or `None` when nothing is missing.
    pub fn limits(&self) -> Option<String> {
        match self {
            DesktopSession::X11 => None,
            DesktopSession::Unknown => {
                Some("no display is named: set DISPLAY to the X server the apps run on".into())
            }
            // Their backends say on doctor's screen line what they lack (GNOME:
            // window places without axsight's Shell extension; KDE: input and
            // screenshots unless authorised).
            DesktopSession::Wayland {
                compositor: Compositor::Sway | Compositor::Gnome | Compositor::Kde,
                ..
            } => None,
            DesktopSession::Wayland {
                compositor,
                xwayland,
            } => Some(format!(
                "axsight has no Wayland backend for {} yet (sway, GNOME and KDE have one): trees of native \
                 Wayland apps are read, with boxes relative to their windows, and accessible \
                 actions work, but the pointer, keys, screenshots and window placement go \
                 through X11{}; run apps under XWayland (GDK_BACKEND=x11, \
                 QT_QPA_PLATFORM=xcb) or log in to an X11 session",
                compositor.name(),
                match xwayland {
                    true => ", which reaches only the apps under XWayland",
                    false => ", and this session has no X display",
                }
            )),
        }
    }
}

/// The compositor a Wayland session's variables name.
fn compositor(swaysock: bool, desktop: Option<String>) -> Compositor {
    if swaysock {
        return Compositor::Sway;
    }
    let Some(desktop) = desktop else {
        return Compositor::Other(String::new());
    };
    // A colon-separated list, most specific first ("ubuntu:GNOME").
    let names: Vec<String> = desktop
        .split(':')
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    let has = |wanted: &str| names.iter().any(|name| name == wanted);
    if has("sway") {
        Compositor::Sway
    } else if has("gnome") {
        Compositor::Gnome
    } else if has("kde") {
        Compositor::Kde
    } else {
        Compositor::Other(desktop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(vars: &[(&str, &str)]) -> DesktopSession {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        DesktopSession::from_env(move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn the_environment_names_the_session() {
        assert_eq!(session(&[("DISPLAY", ":0")]), DesktopSession::X11);
        assert_eq!(session(&[("XDG_SESSION_TYPE", "x11")]), DesktopSession::X11);
        assert_eq!(session(&[]), DesktopSession::Unknown);
        // Empty counts as unset.
        assert_eq!(
            session(&[("DISPLAY", ""), ("WAYLAND_DISPLAY", " ")]),
            DesktopSession::Unknown
        );
        assert_eq!(
            session(&[
                ("WAYLAND_DISPLAY", "wayland-0"),
                ("DISPLAY", ":0"),
                ("XDG_CURRENT_DESKTOP", "ubuntu:GNOME"),
            ]),
            DesktopSession::Wayland {
                compositor: Compositor::Gnome,
                xwayland: true
            }
        );
        assert_eq!(
            session(&[
                ("XDG_SESSION_TYPE", "wayland"),
                ("XDG_CURRENT_DESKTOP", "KDE")
            ]),
            DesktopSession::Wayland {
                compositor: Compositor::Kde,
                xwayland: false
            }
        );
        assert_eq!(
            session(&[
                ("WAYLAND_DISPLAY", "wayland-1"),
                ("XDG_CURRENT_DESKTOP", "Hyprland")
            ]),
            DesktopSession::Wayland {
                compositor: Compositor::Other("Hyprland".into()),
                xwayland: false
            }
        );
    }

    #[test]
    fn what_each_session_lacks() {
        assert_eq!(DesktopSession::X11.limits(), None);
        let sway = session(&[("WAYLAND_DISPLAY", "wayland-1"), ("SWAYSOCK", "/tmp/s")]);
        assert_eq!(sway.describe(), "Wayland (sway)");
        assert_eq!(sway.limits(), None);
        let hyprland = session(&[
            ("WAYLAND_DISPLAY", "wayland-1"),
            ("XDG_CURRENT_DESKTOP", "Hyprland"),
        ]);
        let limits = hyprland.limits().unwrap();
        assert!(
            limits.contains("no Wayland backend for Hyprland"),
            "{limits}"
        );
        assert!(limits.contains("no X display"), "{limits}");
        let gnome = session(&[
            ("WAYLAND_DISPLAY", "wayland-0"),
            ("DISPLAY", ":1"),
            ("XDG_CURRENT_DESKTOP", "GNOME"),
        ]);
        assert_eq!(gnome.describe(), "Wayland (GNOME) with XWayland");
        assert_eq!(gnome.limits(), None);
        let kde = session(&[
            ("WAYLAND_DISPLAY", "wayland-0"),
            ("DISPLAY", ":1"),
            ("XDG_CURRENT_DESKTOP", "KDE"),
        ]);
        assert_eq!(kde.describe(), "Wayland (KDE) with XWayland");
        assert_eq!(kde.limits(), None);
        assert!(DesktopSession::Unknown
            .limits()
            .unwrap()
            .contains("DISPLAY"));
    }
}
