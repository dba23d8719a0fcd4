//! The errors of the screens, each saying what went wrong and what to do next.
//! The Linux engine turns each into its own error of the same name and words.

/// An error from a screen.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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

    #[error("the window is gone: it was closed or its app exited")]
    WindowGone,

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
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
