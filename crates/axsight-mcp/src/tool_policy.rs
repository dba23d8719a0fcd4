//! Which tools a server offers (`serve --tools`, `--deny-tools`, `--read-only`):
//! tools named one by one or by group. A tool left out is absent from
//! `tools/list` and refused by name, also as a step of `execute_sequence`.

use std::collections::BTreeSet;

/// Each group of tools, by name: every tool is in exactly one.
pub const GROUPS: &[(&str, &[&str])] = &[
    (
        "reading",
        &[
            "get_applications",
            "get_window_tree",
            "find_elements",
            "validate_element",
            "wait_for_element",
            "capture_screenshot",
            "find_element",
        ],
    ),
    (
        "acting",
        &[
            "click_element",
            "type_into_element",
            "press_key",
            "scroll_element",
            "set_value",
            "select_option",
            "set_toggled",
            "invoke_action",
            "mouse_drag",
            "execute_sequence",
        ],
    ),
    (
        "windows",
        &[
            "activate_window",
            "close_window",
            "move_window",
            "resize_window",
            "maximize_window",
            "minimize_window",
        ],
    ),
    ("clipboard", &["clipboard"]),
    ("launch", &["open_application"]),
    ("browser", &["navigate_browser"]),
    ("browser-script", &["execute_browser_script"]),
    ("recording", &["record"]),
];

/// The tools a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPolicy {
    offered: BTreeSet<&'static str>,
}

impl Default for ToolPolicy {
    /// Every tool.
    fn default() -> ToolPolicy {
        ToolPolicy {
            offered: all_tools().collect(),
        }
    }
}

impl ToolPolicy {
    /// The tools `only` names (every tool when empty) less those `deny`
    /// names; each entry a tool's name or a group's.
    ///
    /// ```
    /// use axsight_mcp::ToolPolicy;
    /// let policy = ToolPolicy::new(&["reading".into(), "click_element".into()], &[]).unwrap();
    /// assert!(policy.offers("get_window_tree") && policy.offers("click_element"));
    /// assert!(!policy.offers("open_application"));
    /// let policy = ToolPolicy::new(&[], &["launch".into(), "browser-script".into()]).unwrap();
    /// assert!(!policy.offers("execute_browser_script") && policy.offers("press_key"));
    /// ```
    pub fn new(only: &[String], deny: &[String]) -> Result<ToolPolicy, String> {
        let mut offered: BTreeSet<&'static str> = match only.is_empty() {
            true => all_tools().collect(),
            false => named(only)?,
        };
        for tool in named(deny)? {
            offered.remove(tool);
        }
        if offered.is_empty() {
            return Err("the tool policy leaves no tool to serve".into());
        }
        Ok(ToolPolicy { offered })
    }

    /// Only the reading tools (`serve --read-only`).
    pub fn read_only() -> ToolPolicy {
        ToolPolicy {
            offered: group("reading").collect(),
        }
    }

    /// The tools both `self` and `other` offer: both policies at once.
    pub fn and(&self, other: &ToolPolicy) -> ToolPolicy {
        ToolPolicy {
            offered: self.offered.intersection(&other.offered).copied().collect(),
        }
    }

    /// Whether `tool` is offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.offered.contains(tool)
    }

    /// Whether every tool is offered.
    pub fn offers_all(&self) -> bool {
        all_tools().all(|tool| self.offered.contains(tool))
    }
}

/// Whether `tool` is one of the server's tools at all.
pub fn is_tool(tool: &str) -> bool {
    all_tools().any(|t| t == tool)
}

fn all_tools() -> impl Iterator<Item = &'static str> {
    GROUPS.iter().flat_map(|(_, tools)| tools.iter().copied())
}

fn group(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    GROUPS
        .iter()
        .filter(move |(group, _)| *group == name)
        .flat_map(|(_, tools)| tools.iter().copied())
}

/// The tools `names` (tools and groups) stand for; an unknown name is refused
/// with the groups listed.
fn named(names: &[String]) -> Result<BTreeSet<&'static str>, String> {
    let mut tools = BTreeSet::new();
    for name in names.iter().flat_map(|n| n.split(',')).map(str::trim) {
        if name.is_empty() {
            continue;
        }
        if let Some(tool) = all_tools().find(|t| *t == name) {
            tools.insert(tool);
            continue;
        }
        let before = tools.len();
        tools.extend(group(name));
        if tools.len() == before && !GROUPS.iter().any(|(g, _)| *g == name) {
            let groups: Vec<&str> = GROUPS.iter().map(|(g, _)| *g).collect();
            return Err(format!(
                "`{name}` is neither a tool nor a group of tools; the groups are {}",
                groups.join(", ")
            ));
        }
    }
    Ok(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_the_server_has_is_in_one_group() {
        let tools: Vec<&str> = all_tools().collect();
        let unique: BTreeSet<&str> = tools.iter().copied().collect();
        assert_eq!(tools.len(), unique.len(), "a tool in two groups");
        let server = crate::AxsightServer::<axsight_linux::LinuxEngine>::new();
        let served: BTreeSet<String> = server.tool_names().into_iter().collect();
        let grouped: BTreeSet<String> = unique.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            served, grouped,
            "a tool without a group, or a group's tool gone"
        );
        let reading = server.read_only().tool_names();
        assert_eq!(reading.len(), group("reading").count());
    }

    #[test]
    fn names_and_groups_mix_and_an_unknown_one_is_refused() {
        let policy =
            ToolPolicy::new(&["reading,windows".into()], &["close_window".into()]).unwrap();
        assert!(policy.offers("find_element") && policy.offers("move_window"));
        assert!(!policy.offers("close_window") && !policy.offers("click_element"));
        let error = ToolPolicy::new(&["readin".into()], &[]).unwrap_err();
        assert!(
            error.contains("`readin`") && error.contains("reading, acting"),
            "{error}"
        );
        assert!(ToolPolicy::new(&["reading".into()], &["reading".into()]).is_err());
        assert!(ToolPolicy::default().offers_all());
        assert!(!ToolPolicy::read_only().offers_all());
        let both = ToolPolicy::read_only()
            .and(&ToolPolicy::new(&[], &["capture_screenshot".into()]).unwrap());
        assert!(
            both.offers("get_window_tree")
                && !both.offers("capture_screenshot")
                && !both.offers("click_element")
        );
    }
}
