//! The errors of the Linux engine, each saying what went wrong and what to do next.

/// An error from the Linux engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What the server's scope (`serve --scope`) keeps the session from.
    #[error("not allowed: {what}, and this server shows only {apps} (serve --scope)")]
    OutOfScope { what: String, apps: String },

    #[error(
        "no X display found ({detail}); set DISPLAY to the display the apps run on, \
         for example DISPLAY=:0"
    )]
    NoDisplay { detail: String },

    #[error(
        "axsight cannot reach this Wayland session's screen, which real input, screenshots \
         and window control need ({detail}); run `axsight doctor`"
    )]
    NoScreen { detail: String },

    #[error(
        "several X displays run ({displays}) and none is named: set DISPLAY to the one the \
         apps run on, or pass it to axsight (`axsight --display :1 serve`); MCP clients \
         that pass only a few variables need the latter, or DISPLAY in the server's env"
    )]
    SeveralDisplays { displays: String },

    #[error(
        "cannot find the accessibility bus (tried: {tried}); run axsight in the desktop \
         session, or set AT_SPI_BUS_ADDRESS, or DBUS_SESSION_BUS_ADDRESS of a session whose \
         at-spi-bus-launcher runs (Debian package at-spi2-core)"
    )]
    NoBus { tried: String },

    #[error("cannot connect to the D-Bus bus at {address}: {source}")]
    Connect {
        address: String,
        #[source]
        source: Box<zbus::Error>,
    },

    #[error(
        "the accessibility bus stopped answering ({source}); the next call connects \
         again, and if that fails too the desktop session has probably ended"
    )]
    BusLost {
        #[source]
        source: Box<zbus::Error>,
    },

    #[error("no application matches '{query}'; running: {available}")]
    AppNotFound { query: String, available: String },

    #[error("'{app}' has no window matching '{query}'; its windows: {available}")]
    WindowNotFound {
        app: String,
        query: String,
        available: String,
    },

    #[error(
        "no window is shown: no application on the accessibility bus has one, and the \
         display lists none either; run `axsight doctor`"
    )]
    NoApplications,

    #[error("no window is active; name an app (running: {available})")]
    NoActiveWindow { available: String },

    #[error(
        "'{app}' did not answer within {ms} ms: it may be hung or stopped; other apps can \
         still be used"
    )]
    Timeout { app: String, ms: u64 },

    #[error("'{app}' is gone: it exited or closed its window while being read")]
    AppGone { app: String },

    #[error("the window is gone: it was closed or its app exited")]
    WindowGone,

    #[error("D-Bus call {method} failed: {source}")]
    Call {
        method: &'static str,
        #[source]
        source: Box<zbus::Error>,
    },

    #[error(
        "watching events needs a current-thread tokio runtime (the event recorder must run \
         whenever a read yields)"
    )]
    Runtime,

    #[error("X11 request failed: {0}")]
    X11(String),

    /// The display server (X or a Wayland compositor) failed or did not answer.
    #[error("{0}")]
    Screen(String),

    #[error("Wayland compositor request failed: {0}")]
    Wayland(String),

    #[error(
        "the X display stopped answering ({0}); the next call connects again, and if that \
         fails too the display is gone"
    )]
    DisplayLost(String),

    #[error("'{0}' is not an element identity this engine gave out")]
    BadElement(String),

    #[error("the element is gone: it was removed or its app exited")]
    ElementGone,

    #[error("the element does not support {interface}: try another way to act on it")]
    Unsupported { interface: String },

    #[error("the element has no action '{action}'; its actions: {available}")]
    NoSuchAction { action: String, available: String },

    #[error("the element would not {what}")]
    Refused { what: String },

    #[error(
        "'{app}' is not answering ({since}; a ping got no answer either): it may be hung \
         or stopped; other apps can still be used, and it is read again once it answers"
    )]
    NotAnsweringSince { app: String, since: String },

    /// A window could not be placed as asked: why, and where it is.
    #[error("{0}")]
    Placement(String),

    /// The screen knows no window's place (the desktop portals): windows can
    /// be neither found on it, raised, moved nor closed.
    #[error("{0}")]
    NoWindowControl(String),

    /// The clipboard could not be read or held: why.
    #[error("{0}")]
    Clipboard(String),

    #[error(
        "the app did not answer within {} ms: it may be hung or stopped; other apps can \
         still be used", crate::dbus::CALL_TIMEOUT.as_millis()
    )]
    NotAnswering,

    #[error("cannot start '{command}': {why}")]
    Launch { command: String, why: String },
}

/// An accessibility error, as the same error of the engine: the same words, and
/// the same kind of failure for the session.
impl From<axsight_atspi::Error> for Error {
    fn from(error: axsight_atspi::Error) -> Error {
        use axsight_atspi::Error as Atspi;
        match error {
            Atspi::Connect { address, source } => Error::Connect { address, source },
            Atspi::BusLost { source } => Error::BusLost { source },
            Atspi::AppNotFound { query, available } => Error::AppNotFound { query, available },
            Atspi::WindowNotFound {
                app,
                query,
                available,
            } => Error::WindowNotFound {
                app,
                query,
                available,
            },
            Atspi::NoApplications => Error::NoApplications,
            Atspi::NoActiveWindow { available } => Error::NoActiveWindow { available },
            Atspi::Timeout { app, ms } => Error::Timeout { app, ms },
            Atspi::AppGone { app } => Error::AppGone { app },
            Atspi::WindowGone => Error::WindowGone,
            Atspi::Call { method, source } => Error::Call { method, source },
            Atspi::BadElement(what) => Error::BadElement(what),
            Atspi::ElementGone => Error::ElementGone,
            Atspi::Unsupported { interface } => Error::Unsupported { interface },
            Atspi::NoSuchAction { action, available } => Error::NoSuchAction { action, available },
            Atspi::Refused { what } => Error::Refused { what },
            Atspi::NotAnswering => Error::NotAnswering,
            Atspi::NotAnsweringSince { app, since } => Error::NotAnsweringSince { app, since },
            Atspi::Runtime => Error::Runtime,
        }
    }
}

/// A screen's error, as the same error of the engine: the same words, and the
/// same kind of failure for the session.
impl From<axsight_screen::Error> for Error {
    fn from(error: axsight_screen::Error) -> Error {
        use axsight_screen::Error as Screen;
        match error {
            Screen::X11(why) => Error::X11(why),
            Screen::Screen(why) => Error::Screen(why),
            Screen::Wayland(why) => Error::Wayland(why),
            Screen::DisplayLost(why) => Error::DisplayLost(why),
            Screen::WindowGone => Error::WindowGone,
            Screen::Placement(why) => Error::Placement(why),
            Screen::NoWindowControl(why) => Error::NoWindowControl(why),
            Screen::Clipboard(why) => Error::Clipboard(why),
        }
    }
}

impl axsight_core::EngineError for Error {
    fn kind(&self) -> axsight_core::FailureKind {
        use axsight_core::FailureKind;
        match self {
            Error::WindowGone | Error::WindowNotFound { .. } => FailureKind::WindowGone,
            Error::ElementGone => FailureKind::ElementGone,
            Error::AppGone { .. } => FailureKind::AppGone,
            Error::BusLost { .. } | Error::DisplayLost(_) => FailureKind::ConnectionLost,
            Error::Timeout { .. } | Error::NotAnswering | Error::NotAnsweringSince { .. } => {
                FailureKind::NotAnswering
            }
            Error::Unsupported { .. }
            | Error::Refused { .. }
            | Error::NoSuchAction { .. }
            | Error::Placement(_)
            | Error::NoWindowControl(_)
            | Error::Clipboard(_)
            | Error::OutOfScope { .. } => FailureKind::Refused,
            _ => FailureKind::Other,
        }
    }
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
