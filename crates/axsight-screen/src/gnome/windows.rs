//! GNOME's windows, through axsight's GNOME Shell extension
//! (`crates/axsight-screen/gnome-shell`, object `/io/github/axsight/Shell`
//! of `org.gnome.Shell`): GNOME Shell gives a session client no window places
//! otherwise. Its `ListWindows` answers in the JSON of
//! [`crate::screen::compositor_window`].

/// The extension's id, as GNOME names it (`gnome-extensions enable …`).
pub const EXTENSION_UUID: &str = "axsight@axsight.github.io";

/// The window service both generations of the extension share.
const WINDOWS: &str = include_str!("../../gnome-shell/windows.js");
/// Where an extension.js takes the window service.
const WINDOWS_MARKER: &str = "// @windows.js\n";
/// The extension for GNOME 42 to 44 (scripts with `imports`), and for GNOME 45
/// and later (ES modules): metadata and the extension's frame.
const IMPORTS: (&str, &str) = (
    include_str!("../../gnome-shell/imports/metadata.json"),
    include_str!("../../gnome-shell/imports/extension.js"),
);
const MODULES: (&str, &str) = (
    include_str!("../../gnome-shell/modules/metadata.json"),
    include_str!("../../gnome-shell/modules/extension.js"),
);

/// The extension's files (name, text) for GNOME Shell `major` (43 of 43.9), as
/// `axsight gnome-extension` installs them; an error for a GNOME older than 42,
/// which the extension does not serve.
///
/// ```
/// let files = axsight_screen::gnome::extension_files(46).unwrap();
/// assert_eq!(files[1].0, "extension.js");
/// assert!(files[1].1.contains("export default class"));
/// ```
pub fn extension_files(major: u32) -> Result<Vec<(&'static str, String)>, String> {
    let (metadata, frame) = match major {
        42..=44 => IMPORTS,
        45.. => MODULES,
        _ => {
            return Err(format!(
                "axsight's GNOME Shell extension serves GNOME 42 and later, not {major}"
            ))
        }
    };
    Ok(vec![
        ("metadata.json", metadata.to_string()),
        ("extension.js", frame.replacen(WINDOWS_MARKER, WINDOWS, 1)),
    ])
}

/// The extension's D-Bus object and interface.
pub const PATH: &str = "/io/github/axsight/Shell";
pub const INTERFACE: &str = "io.github.axsight.Shell1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gnome_gets_the_generation_it_loads_with_the_windows_inside() {
        let old = extension_files(43).unwrap();
        assert!(old[0].1.contains(r#""shell-version": ["42", "43", "44"]"#));
        assert!(old[1].1.contains("imports.gi") && old[1].1.contains("function init()"));
        let new = extension_files(48).unwrap();
        assert!(new[0].1.contains(r#""45", "46", "47", "48""#));
        assert!(new[1].1.contains("import Gio from 'gi://Gio'"));
        for (_, text) in [&old[1], &new[1]] {
            assert!(text.contains("class Windows") && !text.contains(WINDOWS_MARKER));
        }
        assert!(extension_files(41).is_err());
    }
}
