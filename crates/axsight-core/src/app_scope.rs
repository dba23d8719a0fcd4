//! The apps whose windows a served session may see and act on (`serve
//! --scope`): plain data the session hands the engine when it connects. The
//! engine keeps every other app's windows out of its listings and reads, and
//! refuses input that would land on them; this module only says which apps are
//! in, by name.

/// The apps in scope, by name (as `get_applications` names them, any case).
///
/// ```
/// use axsight_core::AppScope;
/// let scope = AppScope::new(["gedit", "Chromium"]);
/// assert!(scope.holds("chromium") && !scope.holds("KeePassXC"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppScope {
    apps: Vec<String>,
}

impl AppScope {
    /// The scope of the apps `names`.
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> AppScope {
        AppScope {
            apps: names
                .into_iter()
                .map(Into::into)
                .map(|name: String| name.trim().to_string())
                .filter(|name| !name.is_empty())
                .collect(),
        }
    }

    /// Whether the app named `name` is in scope.
    pub fn holds(&self, name: &str) -> bool {
        self.apps
            .iter()
            .any(|app| app.eq_ignore_ascii_case(name.trim()))
    }

    /// The apps in scope, for a refusal: `gedit, Chromium`.
    pub fn listed(&self) -> String {
        self.apps.join(", ")
    }

    /// Whether no app is named.
    pub fn is_empty(&self) -> bool {
        self.apps.is_empty()
    }
}
