//! Role normalisation: AT-SPI role names mapped onto the UIA-style role names that
//! axsight prints, so prompts written for Windows agents carry over.
//!
//! The raw AT-SPI name (`push button`) is kept on every element beside the normalised
//! [`Role`]; selectors accept either.

use std::fmt;

macro_rules! roles {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// A normalised element role, printed with its UIA-style name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        pub enum Role { $($variant),* }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[$(Role::$variant),*];

            /// The printed name, such as `Button` or `MenuItem`.
            pub fn as_str(self) -> &'static str {
                match self { $(Role::$variant => $name),* }
            }
        }
    };
}

roles! {
    Application => "Application",
    Window => "Window",
    Dialog => "Dialog",
    Alert => "Alert",
    Button => "Button",
    ToggleButton => "ToggleButton",
    CheckBox => "CheckBox",
    Switch => "Switch",
    RadioButton => "RadioButton",
    Edit => "Edit",
    Terminal => "Terminal",
    Text => "Text",
    ComboBox => "ComboBox",
    List => "List",
    ListItem => "ListItem",
    Tree => "Tree",
    TreeItem => "TreeItem",
    Table => "Table",
    Row => "Row",
    Cell => "Cell",
    Header => "Header",
    HeaderItem => "HeaderItem",
    Tab => "Tab",
    TabItem => "TabItem",
    Menu => "Menu",
    MenuBar => "MenuBar",
    MenuItem => "MenuItem",
    CheckMenuItem => "CheckMenuItem",
    RadioMenuItem => "RadioMenuItem",
    ToolBar => "ToolBar",
    ToolTip => "ToolTip",
    StatusBar => "StatusBar",
    Slider => "Slider",
    SpinButton => "SpinButton",
    ScrollBar => "ScrollBar",
    ProgressBar => "ProgressBar",
    Link => "Link",
    Image => "Image",
    Canvas => "Canvas",
    Document => "Document",
    Group => "Group",
    Pane => "Pane",
    ScrollPane => "ScrollPane",
    Heading => "Heading",
    Paragraph => "Paragraph",
    Separator => "Separator",
    Calendar => "Calendar",
    Notification => "Notification",
    TitleBar => "TitleBar",
    Unknown => "Unknown",
}

impl Role {
    /// Maps an AT-SPI role name, as `GetRoleName` or the `atspi` crate spells it, to a role.
    ///
    /// ```
    /// use axsight_core::Role;
    /// assert_eq!(Role::from_atspi_name("push button"), Role::Button);
    /// assert_eq!(Role::from_atspi_name("password text"), Role::Edit);
    /// assert_eq!(Role::from_atspi_name("no such role"), Role::Unknown);
    /// ```
    pub fn from_atspi_name(name: &str) -> Role {
        use Role::*;
        match name {
            "application" => Application,
            "frame" | "window" | "internal frame" => Window,
            "dialog" | "file chooser" | "color chooser" | "font chooser" | "option pane" => Dialog,
            "alert" => Alert,
            "push button" | "button" | "push button menu" => Button,
            "toggle button" => ToggleButton,
            "check box" => CheckBox,
            "switch" => Switch,
            "radio button" => RadioButton,
            "text" | "entry" | "password text" | "editbar" | "date editor" | "autocomplete" => Edit,
            "terminal" => Terminal,
            "label" | "static" | "accelerator label" | "caption" | "description term"
            | "description value" | "footnote" | "mark" | "subscript" | "superscript"
            | "block quote" | "definition" | "comment" => Text,
            "combo box" => ComboBox,
            "list" | "list box" | "description list" => List,
            "list item" => ListItem,
            "tree" | "tree table" => Tree,
            "tree item" => TreeItem,
            "table" | "document spreadsheet" => Table,
            "table row" => Row,
            "table cell" => Cell,
            "column header" | "row header" | "table column header" | "table row header" => {
                HeaderItem
            }
            "header" | "footer" => Header,
            "page tab list" => Tab,
            "page tab" => TabItem,
            "menu" | "popup menu" => Menu,
            "menu bar" => MenuBar,
            "menu item" | "tearoff menu item" => MenuItem,
            "check menu item" => CheckMenuItem,
            "radio menu item" => RadioMenuItem,
            "tool bar" => ToolBar,
            "tool tip" => ToolTip,
            "status bar" | "info bar" | "log" | "timer" | "marquee" => StatusBar,
            "slider" | "dial" | "rating" => Slider,
            "spin button" => SpinButton,
            "scroll bar" => ScrollBar,
            "progress bar" | "level bar" => ProgressBar,
            "link" => Link,
            "image" | "icon" | "desktop icon" | "animation" | "image map" | "chart" | "video"
            | "audio" => Image,
            "canvas" | "drawing area" => Canvas,
            "document frame"
            | "document web"
            | "document text"
            | "document email"
            | "document presentation"
            | "article"
            | "math" => Document,
            "panel" | "filler" | "section" | "form" | "grouping" | "landmark"
            | "html container" | "embedded" | "layered pane" | "glass pane" | "root pane"
            | "page" | "static text" | "directory pane" | "desktop frame" => Group,
            "split pane" => Pane,
            "scroll pane" | "viewport" => ScrollPane,
            "heading" => Heading,
            "paragraph" => Paragraph,
            "separator" => Separator,
            "calendar" => Calendar,
            "notification" => Notification,
            "title bar" => TitleBar,
            _ => Unknown,
        }
    }

    /// Parses a printed role name, case-insensitively (`button`, `MenuItem`).
    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL
            .iter()
            .copied()
            .find(|role| role.as_str().eq_ignore_ascii_case(name))
    }

    /// Roles whose elements carry a value or text worth printing.
    pub fn carries_value(self) -> bool {
        matches!(
            self,
            Role::Edit
                | Role::ComboBox
                | Role::Slider
                | Role::SpinButton
                | Role::ScrollBar
                | Role::ProgressBar
        )
    }

    /// Roles of the controls a form labels: what a label beside them names.
    pub fn is_field(self) -> bool {
        matches!(
            self,
            Role::Edit | Role::ComboBox | Role::Slider | Role::SpinButton | Role::List
        )
    }

    /// Roles of controls that are whole widgets in every toolkit and count
    /// their own clicks: a click on one never joins a click on another into a
    /// double click. Parts of a larger widget (a list's rows, a text field's
    /// characters, a menu's items in Qt) are not: their widget counts clicks
    /// across them (measured in a GTK3 entry: two presses 80 px apart within
    /// 450 ms were one multiple click).
    pub fn counts_own_clicks(self) -> bool {
        matches!(
            self,
            Role::Button | Role::ToggleButton | Role::CheckBox | Role::Switch | Role::RadioButton
        )
    }

    /// Roles that only group other elements; nameless ones with one child are folded.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            Role::Group | Role::Pane | Role::ScrollPane | Role::Unknown
        )
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_names_round_trip_through_parse() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(*role));
            assert_eq!(Role::parse(&role.as_str().to_lowercase()), Some(*role));
        }
    }

    #[test]
    fn common_atspi_roles_normalise() {
        assert_eq!(Role::from_atspi_name("frame"), Role::Window);
        assert_eq!(Role::from_atspi_name("page tab"), Role::TabItem);
        assert_eq!(Role::from_atspi_name("page tab list"), Role::Tab);
        assert_eq!(Role::from_atspi_name("toggle button"), Role::ToggleButton);
        assert_eq!(Role::from_atspi_name("table cell"), Role::Cell);
        assert_eq!(Role::from_atspi_name("filler"), Role::Group);
    }
}
