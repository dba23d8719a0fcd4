//! The errors of reading and acting over AT-SPI, each saying what went wrong and
//! what to do next. The Linux engine turns each into its own error of the same
//! name and words.

/// An error from the accessibility side.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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
        "the app did not answer within {} ms: it may be hung or stopped; other apps can \
         still be used", crate::dbus::CALL_TIMEOUT.as_millis()
    )]
    NotAnswering,

    #[error(
        "'{app}' is not answering ({since}; a ping got no answer either): it may be hung \
         or stopped; other apps can still be used, and it is read again once it answers"
    )]
    NotAnsweringSince { app: String, since: String },

    #[error(
        "watching events needs a current-thread tokio runtime (the event recorder must run \
         whenever a read yields)"
    )]
    Runtime,
}

impl Error {
    /// Classifies a failed call by the D-Bus error it carries (see [`Error::from_failure`]).
    pub fn from_call(app: &str, method: &'static str, source: zbus::Error) -> Error {
        Error::from_failure(app, crate::dbus::failure_kind(&source), method, source)
    }

    /// Turns a failed call on an app's root or window object into an error: the
    /// object or its whole peer gone is the app gone; no reply is a timeout.
    pub fn from_failure(
        app: &str,
        failure: crate::dbus::Failure,
        method: &'static str,
        source: zbus::Error,
    ) -> Error {
        use crate::dbus::Failure;
        match failure {
            Failure::PeerGone | Failure::ObjectGone => Error::AppGone {
                app: app.to_string(),
            },
            Failure::NoReply => Error::Timeout {
                app: app.to_string(),
                ms: crate::dbus::CALL_TIMEOUT.as_millis() as u64,
            },
            Failure::Other => Error::Call {
                method,
                source: Box::new(source),
            },
        }
    }
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
