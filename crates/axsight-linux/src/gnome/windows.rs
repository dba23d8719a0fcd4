//! GNOME's windows, through axsight's GNOME Shell extension
//! (`crates/axsight-linux/gnome-shell/axsight@axsight.github.io`, object `/io/github/axsight/Shell`
//! of `org.gnome.Shell`): GNOME Shell gives a session client no window places
//! otherwise. Its `ListWindows` answers in the JSON of
//! [`crate::screen::compositor_window`].

/// The extension's id, as GNOME names it (`gnome-extensions enable …`).
pub const EXTENSION_UUID: &str = "axsight@axsight.github.io";

/// The extension's files (name, text), for `axsight gnome-extension` to install.
pub const EXTENSION_FILES: &[(&str, &str)] = &[
    (
        "metadata.json",
        include_str!("../../gnome-shell/axsight@axsight.github.io/metadata.json"),
    ),
    (
        "extension.js",
        include_str!("../../gnome-shell/axsight@axsight.github.io/extension.js"),
    ),
];

/// The extension's D-Bus object and interface.
pub const PATH: &str = "/io/github/axsight/Shell";
pub const INTERFACE: &str = "io.github.axsight.Shell1";
