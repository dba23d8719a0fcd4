//! The one place that knows every display server: which backend serves the
//! desktop session the engine found, connected within its deadline, and the
//! clipboard the engine holds (the screen's own, else the X display's). The
//! backends themselves know only the seam (`crate::screen`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::desktop_session::{Compositor, DesktopSession};
use crate::screen::clipboard::Clipboard;
use crate::screen::{off_thread, Screen, SharedScreen};
use axsight_screen::Result;

/// The longest connecting to the display server may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(2);
/// Through the portals, connecting waits for the user to answer the
/// desktop's dialogs.
const PORTAL_CONNECT_DEADLINE: Duration =
    Duration::from_secs(crate::screen::portals::APPROVAL_DEADLINE.as_secs() + 10);
/// KWin hashes the executable of a client it authorised when the client
/// connects to its Wayland socket (20 ms a MB measured: 0.6 s for a stripped
/// debug build, 6 s for one with its debug info), and answers nothing
/// meanwhile. KDE's portals, for what KWin does not allow, come after, with
/// the portals' deadline.
const KDE_CONNECT_DEADLINE: Duration = Duration::from_secs(8);

/// Connects to the screen `session` calls for: sway's on a sway session,
/// GNOME's or KDE's (over `session_bus`, each falling back to the desktop
/// portals) on theirs, the desktop portals' on another Wayland compositor,
/// else the X display `display` (on X11, or a named XWayland display where no
/// Wayland backend serves the compositor).
/// `None` with the reason when there is none.
pub async fn connect(
    session: &DesktopSession,
    display: Option<&str>,
    session_bus: Option<&str>,
) -> (Option<SharedScreen>, Option<String>) {
    let mut problems = Vec::new();
    let portals_wanted = crate::screen::portals::wanted(|name| std::env::var(name).ok());
    if let DesktopSession::Wayland { compositor, .. } = session {
        let bus = session_bus.map(str::to_string);
        let screen = match (compositor, bus) {
            (Compositor::Sway, _) if !portals_wanted => {
                backend(
                    "sway",
                    CONNECT_DEADLINE,
                    crate::sway::Sway::connect,
                    &mut problems,
                )
                .await
            }
            (Compositor::Gnome, Some(bus)) => {
                use crate::gnome::{Gnome, Through};
                let own = match portals_wanted {
                    true => None,
                    false => {
                        let bus = bus.clone();
                        let connect = move || Gnome::connect(&bus, Through::Mutter);
                        backend("GNOME", CONNECT_DEADLINE, connect, &mut problems).await
                    }
                };
                match own {
                    Some(screen) => Some(screen),
                    None => {
                        let connect = move || Gnome::connect(&bus, Through::Portals);
                        let label = "GNOME through the portals";
                        backend(label, PORTAL_CONNECT_DEADLINE, connect, &mut problems).await
                    }
                }
            }
            (Compositor::Kde, Some(bus)) => {
                use crate::kde::{Kde, Through};
                let through = match portals_wanted {
                    true => Through::Portals,
                    false => Through::Kwin,
                };
                let kwin = {
                    let bus = bus.clone();
                    move || Kde::connect(&bus, through)
                };
                match connected("KDE", KDE_CONNECT_DEADLINE, kwin, &mut problems).await {
                    Some(kde) => {
                        let portals = move || kde.with_portals(&bus);
                        let label = "KDE's portals";
                        backend(label, PORTAL_CONNECT_DEADLINE, portals, &mut problems).await
                    }
                    None => None,
                }
            }
            (Compositor::Gnome | Compositor::Kde, None) => {
                problems.push(format!(
                    "{}: no session bus, which its backend talks to",
                    compositor.name()
                ));
                None
            }
            (_, Some(bus)) => {
                let connect = move || crate::portal::Portal::connect(&bus);
                let label = format!("{} through the portals", compositor.name());
                backend(&label, PORTAL_CONNECT_DEADLINE, connect, &mut problems).await
            }
            (other, None) => {
                problems.push(format!(
                    "{}: no session bus, which the desktop portals answer on",
                    other.name()
                ));
                None
            }
        };
        if screen.is_some() {
            return (screen, None);
        }
    }
    // On Wayland an X display is the session's only when it is named (XWayland
    // sets DISPLAY): the only socket in /tmp/.X11-unix may be another desktop's.
    let display = match session {
        DesktopSession::Wayland {
            xwayland: false, ..
        } => None,
        _ => display,
    };
    if let Some(display) = display {
        let name = display.to_string();
        let connect = move || crate::x11::X11::connect(&name);
        let label = format!("display {display}");
        if let Some(screen) = backend(&label, CONNECT_DEADLINE, connect, &mut problems).await {
            return (Some(screen), None);
        }
    }
    let problem = (!problems.is_empty()).then(|| problems.join("; "));
    (None, problem)
}

/// One backend's screen, connected within `deadline`; `None` with why noted in
/// `problems` under `name`.
async fn backend<S: Screen + 'static>(
    name: &str,
    deadline: Duration,
    connect: impl FnOnce() -> Result<S> + Send + 'static,
    problems: &mut Vec<String>,
) -> Option<SharedScreen> {
    let screen = connected(name, deadline, connect, problems).await?;
    Some(Arc::new(Mutex::new(screen)))
}

/// A backend's screen (or a step of connecting it) within `deadline`, as
/// [`backend`] but not yet shared.
async fn connected<S: Send + 'static>(
    name: &str,
    deadline: Duration,
    connect: impl FnOnce() -> Result<S> + Send + 'static,
    problems: &mut Vec<String>,
) -> Option<S> {
    match off_thread(deadline, connect).await {
        Ok(screen) => Some(screen),
        Err(error) => {
            tracing::warn!(%error, "no screen through {name}");
            problems.push(format!("{name}: {error}"));
            None
        }
    }
}

/// The clipboard the engine holds: the one `screen` brings (Wayland's), else
/// the X display's at `display`; `None` where there is neither.
pub fn clipboard(
    screen: Option<Box<dyn Clipboard>>,
    display: Option<&str>,
) -> Option<Arc<dyn Clipboard>> {
    match screen {
        Some(own) => Some(Arc::from(own)),
        None => display
            .map(|display| Arc::new(crate::x11::Clipboard::new(display)) as Arc<dyn Clipboard>),
    }
}
