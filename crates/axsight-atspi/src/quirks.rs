//! What each toolkit's accessibility bridge needs from a reader: which calls are
//! safe, which coordinates its extents are in, which events it forgets.
//!
//! The toolkit is known from `Application.ToolkitName` and `Version`, each read
//! with a single `Properties.Get` — the one kind of property call every bridge
//! answers — before anything else is asked of the app. LibreOffice's GTK3 plug-in
//! reports the toolkit as GTK 3, so it is known by the application's name, read
//! next. Nothing here makes a call.

/// AT-SPI `CoordType`: 0 screen, 1 window.
const SCREEN: u32 = 0;
const WINDOW: u32 = 1;

/// Toolkit quirks that change how an app is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quirks {
    /// GTK4: extents are relative to the window, and SHOWING is set only on
    /// toplevels, so VISIBLE decides what is drawn.
    pub gtk4: bool,
    /// The toolkit fills `AccessibleId` (Chromium does; GTK leaves it empty, Qt
    /// has no such property), so it is worth a call per element.
    pub exports_ids: bool,
    /// The toolkit does not announce every change (Chromium sends no bounds
    /// events when a page is zoomed, nor any for a tab swap): an earlier read
    /// of its windows is never reused.
    pub misses_events: bool,
    /// The bridge answers `Properties.GetAll`, so an object's name, description
    /// and child count come in one call. Qt 5 and 6 crash on it (any object, any
    /// interface), so it is used only for the toolkits known to answer it.
    pub bulk_properties: bool,
    /// Qt 5 and 6: text lengths must be asked first, frames inside a window
    /// are groups, and a nameless field is named by the label before it.
    pub qt: bool,
    /// Combo boxes are named by their current text, not by their label (Qt,
    /// and Java's ATK wrapper): the text is their value, the label their name.
    pub combo_named_by_text: bool,
    /// A nameless field is named by the label just before it, left of it or
    /// above it (Qt's spin box without a buddy; Java relates a label to its
    /// field only from the label's side, `label-for`).
    pub labels_by_place: bool,
    /// Java: an open menu's items are placed from the menu, not from the
    /// popup that shows them (see `menu_popups`).
    pub menu_items_misplaced: bool,
    /// `Text.GetText` with an end offset past the text answers an empty string
    /// (Qt, Gecko), so the text's length is asked first.
    pub bounded_text: bool,
    /// `EditableText.InsertText` and `SetTextContents` answer true and change
    /// nothing (Gecko 153, in pages and in its own address bar): text goes in as
    /// key events instead.
    pub ignores_editable_text: bool,
    /// An element's text lives in its own `Text` interface, not in child text
    /// elements (Gecko folds a paragraph's or a status line's text into it), so a
    /// nameless text-bearing element is named by its text.
    pub text_in_content: bool,
    /// `Action.GetActions` gives the key binding (`;;`) in every field
    /// (Gecko) or empty names (Chromium 156), so action names are asked one by
    /// one with `GetName`.
    pub actions_by_index: bool,
    /// The element's id is the `id` object attribute (Gecko gives the DOM and
    /// chrome ids: `urlbar-input`, `back-button`), not `AccessibleId`.
    pub ids_in_attributes: bool,
    /// Pages are read through the browser's bridge: their plain `div`s are
    /// reshaped into the buttons, fields and words they are to a person
    /// (Gecko, Chromium; see `web_content`).
    pub web_content: bool,
    /// LibreOffice (through its GTK3 plug-in, which reports the toolkit as GTK 3):
    /// it misses events too (see `misses_events`); no `Cache.GetItems`, which has been seen to crash it after a dialog closed
    /// (its cache keeps the defunct objects of closed dialogs); toolbar buttons, separators and
    /// menu items carry a `Value` that only repeats their checked state; a cell's
    /// content is its text (its `Value` is a number even for text); a status bar's
    /// labels have their text in the Text interface only, which answers an end
    /// past the text with nothing (as Qt's does); `GetActions` makes it log two
    /// warnings per action, so action names are asked one by one; and its own widgets'
    /// extents leave out the GTK menu bar above them until the pointer first
    /// moves over the window.
    pub libreoffice: bool,
    /// An action's effects come in one burst, so settling may end at the first
    /// short quiet after what the action predicts (`SettlePolicy::expecting`).
    /// Measured on GTK 3 and 4 (`axsight bench settle`: every answer equal to
    /// the slow reference's). Gecko is left out: with the shorter wait,
    /// `navigate_browser` through Firefox's address bar timed out once in the
    /// e2e suite, and passed with it off; other toolkits are not measured and
    /// keep the general quiet.
    pub settles_in_one_burst: bool,
}

impl Quirks {
    /// The quirks of the toolkit an app reports (`ToolkitName`, `Version`).
    ///
    /// Known: GTK 3 and 4, Chromium, Gecko (Firefox), Qt 5 and 6, and Java
    /// (Swing and AWT through the ATK wrapper, which calls itself
    /// `J2SE-access-bridge`). Any other toolkit gets the careful defaults: one
    /// property per call, screen coordinates.
    ///
    /// Gecko 153 was measured with `gdbus` and a Python probe: `GetAll` on
    /// `Accessible` is answered (about 0.4 ms) on every kind of object, chrome and
    /// page alike, and the app lives on; a page zoom moves every box without a
    /// bounds event, so its windows are read whole.
    pub fn of_toolkit(name: &str, version: &str) -> Quirks {
        let is = |toolkit: &str| name.eq_ignore_ascii_case(toolkit);
        let gtk = is("gtk");
        let chromium = is("chromium");
        let gecko = is("gecko");
        let qt = is("qt");
        // Java announces a button's new name but not a label's new text.
        let java = is("J2SE-access-bridge");
        Quirks {
            gtk4: gtk && version.starts_with("4."),
            exports_ids: chromium,
            misses_events: chromium || gecko || java,
            bulk_properties: gtk || chromium || gecko,
            qt,
            combo_named_by_text: qt || java,
            labels_by_place: qt || java,
            menu_items_misplaced: java,
            bounded_text: qt || gecko,
            ignores_editable_text: gecko,
            text_in_content: gecko,
            actions_by_index: gecko || chromium,
            ids_in_attributes: gecko,
            web_content: gecko || chromium,
            libreoffice: false,
            settles_in_one_burst: gtk,
        }
    }

    /// The quirks of an application: its toolkit's, and LibreOffice's where the
    /// app is LibreOffice (named `soffice`, or `libreoffice…` by some launchers).
    pub fn of_application(app: &str, toolkit: &str, version: &str) -> Quirks {
        let app = app.trim().to_ascii_lowercase();
        let libreoffice = app == "soffice" || app.starts_with("libreoffice");
        let toolkits = Quirks::of_toolkit(toolkit, version);
        Quirks {
            libreoffice,
            // Writer announces no new paragraph (Return in a document sends only
            // the old paragraph's focus loss).
            misses_events: toolkits.misses_events || libreoffice,
            bounded_text: toolkits.bounded_text || libreoffice,
            actions_by_index: toolkits.actions_by_index || libreoffice,
            settles_in_one_burst: toolkits.settles_in_one_burst && !libreoffice,
            ..toolkits
        }
    }

    /// Whether the app's `Cache.GetItems` may be asked for.
    pub fn items_cache(self) -> bool {
        !self.libreoffice
    }

    /// The AT-SPI `CoordType` extents are asked in: screen (0), or window (1) for
    /// GTK4, which cannot give screen coordinates.
    pub fn extent_coords(self) -> u32 {
        if self.gtk4 {
            WINDOW
        } else {
            SCREEN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qt_is_never_asked_in_bulk() {
        for (name, version) in [("Qt", "6.4.2"), ("Qt", "5.15.8"), ("QT", "6.8")] {
            let quirks = Quirks::of_toolkit(name, version);
            assert!(!quirks.bulk_properties, "{name} {version}");
            assert!(quirks.qt && quirks.combo_named_by_text);
            assert!(!quirks.gtk4);
            assert_eq!(quirks.extent_coords(), SCREEN);
        }
    }

    #[test]
    fn unknown_toolkits_are_asked_one_property_at_a_time() {
        for name in ["", "VCL", "J2SE-access-bridge", "ATK"] {
            assert!(!Quirks::of_toolkit(name, "1.0").bulk_properties, "{name}");
        }
    }

    #[test]
    fn gtk_versions_are_told_apart() {
        let gtk3 = Quirks::of_toolkit("GTK", "3.24.38");
        let gtk4 = Quirks::of_toolkit("gtk", "4.8.3");
        assert!(gtk3.bulk_properties && gtk4.bulk_properties);
        assert!(!gtk3.gtk4 && gtk4.gtk4);
        assert_eq!(gtk4.extent_coords(), WINDOW);
        assert!(!gtk3.exports_ids);
    }

    #[test]
    fn java_is_read_whole_and_names_combo_boxes_by_label() {
        let java = Quirks::of_toolkit("J2SE-access-bridge", "1.0");
        assert!(java.misses_events && java.combo_named_by_text && java.labels_by_place);
        assert!(java.menu_items_misplaced);
        assert!(!java.qt && !java.bulk_properties && !java.gtk4);
        assert_eq!(java.extent_coords(), SCREEN);
    }

    #[test]
    fn gecko_is_read_in_bulk_whole_and_typed_into_with_keys() {
        let gecko = Quirks::of_toolkit("Gecko", "153.8.0");
        assert!(gecko.bulk_properties && gecko.misses_events);
        assert!(gecko.ignores_editable_text && gecko.bounded_text);
        assert!(gecko.text_in_content && gecko.ids_in_attributes && gecko.actions_by_index);
        assert!(!gecko.exports_ids && !gecko.qt && !gecko.gtk4);
        assert_eq!(gecko.extent_coords(), SCREEN);
        // Only Gecko ignores EditableText; Qt shares the bounded text reads.
        let qt = Quirks::of_toolkit("Qt", "6.4.2");
        assert!(qt.bounded_text && !qt.ignores_editable_text && !qt.text_in_content);
        let gtk = Quirks::of_toolkit("GTK", "3.24.38");
        assert!(!gtk.bounded_text && !gtk.ignores_editable_text && !gtk.ids_in_attributes);
        assert!(!gtk.actions_by_index && !qt.actions_by_index);
    }

    #[test]
    fn libreoffice_is_known_by_its_name_not_its_toolkit() {
        for name in ["soffice", "LibreOffice", "libreoffice-calc"] {
            let quirks = Quirks::of_application(name, "gtk", "3.24.38");
            assert!(quirks.libreoffice, "{name}");
            assert!(!quirks.items_cache() && quirks.misses_events, "{name}");
            assert!(quirks.bounded_text && quirks.actions_by_index, "{name}");
            // The rest is GTK 3's: its bridge answers GetAll.
            assert!(quirks.bulk_properties && !quirks.gtk4);
        }
        let gedit = Quirks::of_application("gedit", "gtk", "3.24.38");
        assert!(!gedit.libreoffice && gedit.items_cache());
        assert_eq!(gedit, Quirks::of_toolkit("gtk", "3.24.38"));
    }

    #[test]
    fn chromium_is_read_whole_and_exports_ids() {
        let chromium = Quirks::of_toolkit("Chromium", "156.0");
        assert!(chromium.misses_events && chromium.exports_ids && chromium.bulk_properties);
    }
}
