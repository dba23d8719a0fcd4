//! What each toolkit's accessibility bridge needs from a reader: which calls are
//! safe, which coordinates its extents are in, which events it forgets.
//!
//! The toolkit is known from `Application.ToolkitName` and `Version`, each read
//! with a single `Properties.Get` — the one kind of property call every bridge
//! answers — before anything else is asked of the app. LibreOffice's GTK3 plug-in
//! reports the toolkit as GTK 3, so it is known by the application's name, read
//! next. Nothing here makes a call.
//!
//! # The quirks handled
//!
//! - **Web pages are div soup.** Inside a `document web` (Gecko, Chromium: the
//!   `web_content` quirk), `web_content::reshape_pages` runs after normalizing: a
//!   section whose first action is `click` (its own listener; descendants get
//!   `clickAncestor`) with one label below is a `Button`, an editable focusable
//!   section an `Edit`, a nameless field is named by the words just left of or above
//!   it, and a section of words with no action of its own is `Text`. Chromium's
//!   `Action.GetActions` gives empty names, so both browsers are asked action by
//!   action (`actions_by_index`). The reshaping needs the action names, which a
//!   watching session reads; a one-shot read without them leaves the page as given.
//!
//! - **GTK4 extents are window-relative.** For GTK4 the walker asks for
//!   window coordinates (CoordType 1). `x11.rs` finds each window's own toplevel X
//!   window (see Real input and windows (see `axsight-screen`'s crate documentation)), and
//!   translates its origin to the root. It then adds the client-side decoration
//!   margin: `_GTK_FRAME_EXTENTS` where set, else half the difference between the X
//!   window's size and the accessible frame's. Without a usable X11 connection the
//!   origin is (0, 0).
//! - **GTK4 sets SHOWING only on toplevels.** The walker decides what is drawn by
//!   VISIBLE for GTK4 (SHOWING otherwise). `normalize` adds SHOWING to a VISIBLE GTK4
//!   element that has a non-empty box, so core's single rule (`is_shown`) holds for
//!   every toolkit.
//! - **Qt 5 and 6** (see `docs/toolkits.md` for what was measured). Never asked
//!   `GetAll` (`Quirks::bulk_properties` is off: any toolkit not known to take it is
//!   read one property per call). Text is read up to `CharacterCount` (Qt answers an
//!   end past the text with nothing). A combo box's current text becomes its value and
//!   its `labelled-by` label its name (`walk::label_of`, used for every nameless field
//!   of any toolkit too); a nameless field takes the name of the label just before it
//!   when the label sits left of or above it (`normalize::children_of`, Qt and Java
//!   only: `labels_by_place`); a `frame` inside a window is a `Group`. `select_option` reads a combo box that shows
//!   its option back, and opens it and clicks the option with the pointer when the
//!   accessible ways were ignored (Qt's closed combo box takes an item's action and
//!   does nothing).
//! - **Java Swing and AWT** (the ATK wrapper, `ToolkitName` `J2SE-access-bridge`). A
//!   JVM loads the wrapper only when told: `launch` sets `JAVA_TOOL_OPTIONS` to put
//!   Debian's `java-atk-wrapper.jar` on the boot class path and name it the assistive
//!   technology, keeping the user's own options (and leaving them alone when they
//!   already name one). A frame answers `GetExtents` with -1s: the window is placed by
//!   its X window (above). Every button, menu and check box carries a `Value` (0 or
//!   1): the walker reads `Value` only for roles that hold a quantity
//!   (`Role::carries_value`). Combo boxes are named by their selected item
//!   (`combo_named_by_text`, as Qt); labels relate to fields only from their own side
//!   (`label-for`), so a nameless field is named by place (`labels_by_place`). A
//!   label's new text is announced by no event (`misses_events`): a kept read
//!   of a Java window is vouched for by spot checks of its names
//!   (`spot_check`). Under a window manager the wrapper places an open menu's
//!   items from the menu in the menu bar instead of from the popup that holds them;
//!   `menu_popups::place_menu_items` moves each open menu's items by the offset
//!   between the menu and the popup they then fit in (plain data, unit-tested). An
//!   `option pane` below a dialog is that dialog's body: a `Group`.
//! - **GTK4 names.** `clean_name` drops mnemonic underscores (`Page _2`), halves
//!   doubled labels (`7 7`, `_OK OK`), and blanks class names given to unlabelled
//!   widgets (`GtkEntry`); `class_role` turns a class name that names a widget kind
//!   into the role where it says more (`GtkSwitch`, reported as a check box, becomes
//!   a `Switch`; AT-SPI's own `switch` role, number 130, maps there too);
//!   `is_gtk4_role_placeholder` blanks the words GTK 4.8 names every notebook tab
//!   (`Tab`) and tab strip (`Tab list`) with, which say only the role (the tab's
//!   words are its label child's). For all toolkits it trims and collapses whitespace (GTK3
//!   menu items carry trailing spaces).
//! - **GTK3 events and cache.** GTK3's bridge sends only the event kinds some client
//!   has registered, so a match rule alone receives nothing; hence `RegisterEvent`,
//!   with the three-argument form of at-spi2-core 2.46 and a one-argument fallback.
//!   The same bridge publishes its `/org/a11y/atspi/cache` object only once a client
//!   has registered for an event. So every engine registers one event kind when it
//!   connects (`cache::wake_app_caches`), before its first read. If that fails, an app
//!   without a cache is simply read object by object.
//! - **GTK3 scrolled viewports.** After a scroll, GTK3 drops the viewport's SHOWING
//!   and reports `-2147483648` for its position, while its content stays on screen
//!   with correct states. A VISIBLE viewport therefore counts as drawn (walker and
//!   `normalize`), or every scrolled list would vanish from the tree.
//! - **GTK4 window titles** are kept as the app sets them (mnemonic cleaning would eat
//!   underscores in file names) and matched against the X11 title as such; a window
//!   whose X11 origin cannot be found is logged as a warning.
//! - **Enabled.** GTK4 sets SENSITIVE but not ENABLED. `StateSet::is_enabled` accepts
//!   either one.
//! - **Role names.** `atspi-common` spells role 43 `button`. Toolkits, Accerciser and
//!   AT-SPI's own `GetRoleName` say `push button`, and that is what axsight keeps as
//!   the raw role (`normalize::role_name`).
//! - **Action names** are lowercased. They may be localised; `perform` looks the name
//!   up in `GetActions` (any case; Gecko's through `GetName`) and calls `DoAction` by
//!   its index.
//! - **GTK3 actions and modal dialogs.** `DoAction` on a menu item that opens a modal
//!   dialog returns, but the app then answers nothing until the dialog closes, and keys
//!   sent meanwhile can deadlock it. Hence the 400 ms action deadline and the pointer by default (see
//!   Settling (see `axsight-atspi`'s `events` module)).
//! - **GTK4 accessible clicks** take effect about 250 ms after the call. Hence the
//!   settle rule's `expect` window.
//! - **GTK3 relayout.** A window that gains the focus re-lays out and sends
//!   `bounds-changed` for much of its tree; gtk3-widget-factory's spinners do so
//!   without end. Bounds events therefore count as input feedback when settling.
//! - **GDK reads the keyboard map late**, when it reads a key event, so temporary key
//!   bindings stay until a `_NET_WM_PING` round trip shows the keys were read.
//! - **GTK double clicks** merge presses in one widget within 400 ms, whatever the
//!   distance. Hence the 450 ms click spacing, for all but clicks on two different
//!   buttons.
//! - **GTK menus** show their items in an override-redirect popup, an X window of its
//!   own, far from the menu's box. Menus do not clip their items when aiming, and
//!   pointer input on a popup of the same X client counts as reaching the app's
//!   window.
//! - **Untitled windows.** gtk3-widget-factory's window has no title; its X window is
//!   found by size and pid.
//! - **Gecko** (Firefox; see `docs/toolkits.md` for what was measured). Asked in bulk
//!   (`GetAll` on `Accessible` is safe everywhere); a page zoom moves every box
//!   without a bounds event and a late click listener turns a `div` into a button
//!   without any, so a kept read is vouched for by spot checks (`SpotCheck::Gecko`:
//!   the page's boxes and its plain elements' first actions). Text is read up to `CharacterCount`
//!   (`bounded_text`, shared with Qt). `EditableText` answers and does nothing, so the
//!   engine refuses `SetText` and `InsertText` (`ignores_editable_text`,
//!   `Accessibility::perform`, which finds an element's quirks by its bus name) and
//!   typing falls back to keys. A nameless paragraph, status line, cell or section is
//!   named by the text of its own Text interface without the U+FFFC placeholders of
//!   its children (`text_in_content`): Gecko has no text children. Action names come
//!   from `GetName` one by one (`actions_by_index`, `dbus::action_names`, used by the
//!   walker and by `DoAction`): `GetActions` gives `;;` in every field. The element id is
//!   the `id` object attribute (`ids_in_attributes`). For every toolkit, a `document
//!   web`'s value is its `DocURL`, read through the Document interface (Chromium gives
//!   none).
//! - **LibreOffice** (7.4, through its GTK3 plug-in; see `docs/toolkits.md` for what
//!   was measured). Its bridge is at-spi2-atk and reports the toolkit as `gtk` 3.24, so
//!   `Quirks::of_application` knows it by the application's name (`soffice`), read
//!   after the toolkit. Then: no `Cache.GetItems` (`Quirks::items_cache`; reported to
//!   crash it after a dialog closed, and its cache keeps the defunct objects of closed
//!   dialogs); a kept read is vouched for by spot checks (`misses_events`,
//!   `spot_check`: Writer announces no new paragraph); `Value` is read only for
//!   roles that show a number (toolbar
//!   buttons carry their checked state as one); an editable object's content is its
//!   text (a cell's `Value` is a number even for text) and text is read up to
//!   `CharacterCount`; a nameless status bar label is named by its text; a cell's
//!   `Formula` attribute becomes its description (with its `=`); action names are
//!   read one by one (`GetActions` makes it log two warnings per action); and a `root
//!   pane` reported elsewhere than its GTK parent of the same size is moved onto it,
//!   with everything inside (`normalize::placed_like_parent`: until the pointer first
//!   moves over the window, LibreOffice's own widgets report themselves 25 px too
//!   high, without the GTK menu bar). Its sheets are read as above (huge
//!   containers). `type_into_element` empties a cell with Delete (ctrl+a would select
//!   the sheet, and BackSpace opens a dialog) and, where the field did not hold the
//!   text before the trailing keys, reads it again after them (a cell takes its text
//!   on Enter); a cell that shows the result of a typed formula holds it.
//! - **Chromium tabs.** A Chromium window keeps the documents of its other tabs in its
//!   tree, not drawn: the page is the first drawn `Document`. Switching tabs swaps the
//!   page and retitles the window without an event for the swap, and zooming moves
//!   every box without one: Chromium's windows are read whole each time, unless the
//!   browser's pages vouch that nothing changed (see event-driven warm reads). A window is
//!   titled after its front tab (`PAGE - Chromium`), which
//!   is how a window is matched with its tab.

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
    /// A page's boxes are in device pixels while the window's own (its frame,
    /// the toolbar) are in logical ones: Chromium under a device scale factor
    /// (measured at 2: a page button drawn at (508, 646) is reported there, the
    /// frame of a 1800×1400 window as 900×700). The page is placed unscaled.
    pub document_in_device_pixels: bool,
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
    /// A field's placeholder is its `placeholder-text` object attribute (GTK 3
    /// and 4; kept whether the field is empty or not), worth a call per field.
    /// Qt gives it as the description, where no tooltip or description is set:
    /// nothing tells the two apart. LibreOffice's are the text itself (see
    /// `normalize::presentation_placeholder`).
    pub placeholder_attribute: bool,
    /// The spot checks that vouch for a kept read of a toolkit that misses
    /// events (see `spot_checks`): Java, LibreOffice and Gecko. Without them
    /// (Chromium without its DevTools witness) its windows are read whole.
    pub spot_check: Option<crate::spot_checks::SpotCheck>,
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
    /// bounds event, so a kept read is vouched for by spot checks.
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
            document_in_device_pixels: chromium,
            libreoffice: false,
            settles_in_one_burst: gtk,
            placeholder_attribute: gtk,
            spot_check: match (gecko, java) {
                (true, _) => Some(crate::spot_checks::SpotCheck::Gecko),
                (_, true) => Some(crate::spot_checks::SpotCheck::Java),
                _ => None,
            },
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
            placeholder_attribute: toolkits.placeholder_attribute && !libreoffice,
            spot_check: match libreoffice {
                true => Some(crate::spot_checks::SpotCheck::LibreOffice),
                false => toolkits.spot_check,
            },
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
