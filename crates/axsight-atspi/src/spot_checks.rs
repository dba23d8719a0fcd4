//! Spot checks: whether a kept read of a window still holds, for toolkits that
//! change what they show without an event. A few values of the kept read, the
//! ones such a change would move, are read again and compared; a kept read
//! whose checks hold is brought up to date from events as a GTK one is, and
//! one whose checks fail is read whole.
//!
//! What each toolkit leaves unannounced was measured on Debian 12 (the table
//! in docs/toolkits.md):
//! - **Java** (the ATK wrapper): a label's or a button's new text (only
//!   `visible-data-changed` comes), a combo box's choice, children added (a
//!   popup, a component), a window moved (its frame reports no extents);
//! - **Gecko**: page layout (scrolling, zoom, a CSS move, what shifts under
//!   an insert sends no bounds event), a document a link replaced, which
//!   goes defunct without a word, a click listener a page's script adds to a
//!   `div` it has shown (a late `addEventListener`, a framework's hydration),
//!   which makes the `div` a button, and the page's address a script changes
//!   (a `#`, `pushState`);
//! - **LibreOffice**: a new paragraph (Return announces only the old one's
//!   focus loss), the document scrolled or zoomed (no bounds event).
//!
//! This module reads and compares; it keeps nothing.

use futures_util::future::join_all;
use zbus::Connection;

use crate::dbus::{self, ObjRef};
use crate::quirks::Quirks;
use crate::roles::role_name;
use crate::states;
use crate::walk::RawNode;

/// Past this many values to read again, reading the window whole is about
/// as cheap (a call is about 0.15 ms; a Firefox page of 90 elements is read
/// whole in 35 ms).
const MOST_PROBES: usize = 300;

/// The longest the checks may take: an app slow to answer them (a page still
/// loading) is read whole, under the walk's own deadlines, rather than waited
/// for here.
const CHECKS_DEADLINE: std::time::Duration = std::time::Duration::from_millis(300);

/// Which toolkit's silent changes a window is checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpotCheck {
    Java,
    Gecko,
    LibreOffice,
}

/// One value of the kept read, read again.
#[derive(Debug)]
enum Probe<'a> {
    /// Its name, as the kept read has it.
    Name(&'a ObjRef, &'a str),
    /// Its number of children, as the kept read has them.
    ChildCount(&'a ObjRef, usize),
    /// Its extents, as the kept read has them.
    Extents(&'a ObjRef, Option<(i32, i32, i32, i32)>),
    /// Its first child, as the kept read has it (a document replaced).
    FirstChild(&'a ObjRef, &'a ObjRef),
    /// Its text, as the kept read has it (its value).
    Text(&'a ObjRef, &'a str),
    /// The name of its first action, as the kept read has it ("" for none).
    FirstAction(&'a ObjRef, &'a str),
    /// A page's address, as the kept read has it as its value ("" for none).
    DocumentUrl(&'a ObjRef, &'a str),
}

/// Whether the kept read `raw` of a window of an app with `quirks` still
/// holds, as far as its spot checks can tell (none: it does not).
pub async fn hold(conn: &Connection, quirks: Quirks, raw: &RawNode) -> bool {
    let Some(check) = quirks.spot_check else {
        return false;
    };
    let mut probes = Vec::new();
    collect(check, raw, None, &mut probes);
    if probes.len() > MOST_PROBES {
        return false;
    }
    let began = std::time::Instant::now();
    let checks = probes.iter().map(|probe| holds(conn, probe, quirks));
    let held = tokio::time::timeout(CHECKS_DEADLINE, join_all(checks))
        .await
        .is_ok_and(|held| held.into_iter().all(|held| held));
    tracing::debug!(probes = probes.len(), held, took = ?began.elapsed(), "spot checks");
    held
}

/// Whether one value read again is as kept, read as the walk read it; a value
/// that cannot be read is not (the object went).
async fn holds(conn: &Connection, probe: &Probe<'_>, quirks: Quirks) -> bool {
    let coords = quirks.extent_coords();
    match *probe {
        Probe::Name(obj, kept) => dbus::property::<String>(conn, obj, dbus::ACCESSIBLE, "Name")
            .await
            .is_ok_and(|name| name == kept),
        Probe::ChildCount(obj, kept) => {
            dbus::property::<i32>(conn, obj, dbus::ACCESSIBLE, "ChildCount")
                .await
                .is_ok_and(|count| usize::try_from(count).is_ok_and(|count| count == kept))
        }
        Probe::Extents(obj, kept) => dbus::extents(conn, obj, coords)
            .await
            .is_ok_and(|extents| Some(extents) == kept),
        Probe::FirstChild(obj, kept) => {
            dbus::call::<_, ObjRef>(conn, obj, dbus::ACCESSIBLE, "GetChildAtIndex", (0i32,))
                .await
                .is_ok_and(|child| &child == kept)
        }
        Probe::Text(obj, kept) => {
            crate::walk::read_text_head(conn, obj, quirks)
                .await
                .unwrap_or_default()
                == kept
        }
        // Gecko answers "" past the last action; an object gone fails its
        // extents probe too.
        Probe::FirstAction(obj, kept) => {
            dbus::call::<_, String>(conn, obj, dbus::ACTION, "GetName", (0i32,))
                .await
                .unwrap_or_default()
                .eq_ignore_ascii_case(kept)
        }
        Probe::DocumentUrl(obj, kept) => dbus::document_url(conn, obj)
            .await
            .is_ok_and(|url| url == kept),
    }
}

/// The probes of `node` and everything below it.
fn collect<'a>(
    check: SpotCheck,
    node: &'a RawNode,
    parent: Option<&'a RawNode>,
    out: &mut Vec<Probe<'a>>,
) {
    let Some(obj) = node.obj.as_ref() else { return };
    let role = role_name(node.role);
    let shown = states::has_bit(node.state_mask, states::SHOWING);
    match check {
        SpotCheck::Java => {
            // Text a program sets without a name event.
            if shown && names_itself(role) {
                out.push(Probe::Name(obj, &node.name));
            }
            // A combo box is named by its choice; the read keeps that as its value.
            if shown && role == "combo box" {
                if let Some(choice) = node.value.as_deref() {
                    out.push(Probe::Name(obj, choice));
                }
            }
            // Children added without an event: a popup, a component.
            if shown && !node.children.is_empty() && holds_parts(role) {
                out.push(Probe::ChildCount(obj, node.children.len()));
            }
            // The frame reports no extents; its root pane says where it is.
            if parent.is_some_and(|p| p.obj.is_some() && role_name(p.role) == "frame")
                && role == "root pane"
            {
                out.push(Probe::Extents(obj, node.extents));
            }
        }
        SpotCheck::Gecko => {
            // A page's layout moves without bounds events: every box of it.
            if role == "document web" {
                // A background tab's page is not read, nor printed; it says
                // when it shows.
                if !shown {
                    return;
                }
                if let Some(frame) = parent.and_then(|p| p.obj.as_ref()) {
                    out.push(Probe::FirstChild(frame, obj));
                }
                // A script's new address (a `#` or `pushState`) is not told.
                out.push(Probe::DocumentUrl(
                    obj,
                    node.value.as_deref().unwrap_or_default(),
                ));
                page_probes(node, out);
                return;
            }
        }
        SpotCheck::LibreOffice => {
            // Return makes a paragraph no event announces; scrolling and
            // zooming move the document's content without bounds events.
            if role == "document text" || role == "document presentation" {
                out.push(Probe::ChildCount(obj, node.children.len()));
                if let Some(first) = node.children.first().and_then(|c| c.obj.as_ref()) {
                    out.push(Probe::Extents(first, node.children[0].extents));
                }
            }
            // Calc's formula bar changes its text without an event.
            if role == "paragraph" && parent.is_some_and(|p| p.name.trim() == "Input line") {
                out.push(Probe::Text(obj, node.value.as_deref().unwrap_or_default()));
            }
        }
    }
    for child in &node.children {
        collect(check, child, Some(node), out);
    }
}

/// The probes of a page's shown elements: their extents, and the first
/// action of those whose actions make them a button or words (see
/// [`may_be_reshaped`](crate::web_content::may_be_reshaped)).
fn page_probes<'a>(node: &'a RawNode, out: &mut Vec<Probe<'a>>) {
    if let Some(obj) = node.obj.as_ref() {
        out.push(Probe::Extents(obj, node.extents));
        // Actions not asked for (`actionable` with none read) cannot be compared.
        let actions_read = !(node.actionable && node.actions.is_empty());
        let role = axsight_core::Role::from_atspi_name(role_name(node.role));
        if actions_read && crate::web_content::may_be_reshaped(role) {
            let first = node.actions.first().map_or("", String::as_str);
            out.push(Probe::FirstAction(obj, first));
        }
    }
    for child in &node.children {
        if states::has_bit(child.state_mask, states::SHOWING) {
            page_probes(child, out);
        }
    }
}

/// Roles whose name is their own text, which a Java program may change
/// without an event (a label, a button): never a field, whose name a read
/// may have taken from its label.
fn names_itself(role: &str) -> bool {
    matches!(
        role,
        "label"
            | "push button"
            | "toggle button"
            | "check box"
            | "radio button"
            | "menu"
            | "menu item"
            | "check menu item"
            | "radio menu item"
            | "page tab"
    )
}

/// Roles that hold other elements and may gain some without an event; never
/// a list or table, whose rows a read makes anew.
fn holds_parts(role: &str) -> bool {
    matches!(
        role,
        "frame"
            | "dialog"
            | "root pane"
            | "layered pane"
            | "panel"
            | "filler"
            | "scroll pane"
            | "viewport"
            | "menu bar"
            | "menu"
            | "popup menu"
            | "combo box"
            | "tool bar"
            | "split pane"
            | "page tab list"
            | "internal frame"
            | "option pane"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(role: &str, name: &str, path: &str, children: Vec<RawNode>) -> RawNode {
        let role = (0..200).find(|&r| role_name(r) == role).expect(role);
        RawNode {
            obj: Some(ObjRef {
                bus: ":1.1".into(),
                path: zbus::zvariant::OwnedObjectPath::try_from(path).unwrap(),
            }),
            role,
            name: name.into(),
            state_mask: 1 << states::SHOWING,
            extents: Some((0, 0, 10, 10)),
            children,
            ..RawNode::default()
        }
    }

    fn kinds(probes: &[Probe<'_>]) -> Vec<String> {
        probes
            .iter()
            .map(|p| match p {
                Probe::Name(o, n) => format!("name {} {n}", o.path.as_str()),
                Probe::ChildCount(o, c) => format!("count {} {c}", o.path.as_str()),
                Probe::Extents(o, _) => format!("extents {}", o.path.as_str()),
                Probe::FirstChild(o, c) => {
                    format!("first {} {}", o.path.as_str(), c.path.as_str())
                }
                Probe::Text(o, t) => format!("text {} {t}", o.path.as_str()),
                Probe::FirstAction(o, a) => format!("action {} {a}", o.path.as_str()),
                Probe::DocumentUrl(o, u) => format!("url {} {u}", o.path.as_str()),
            })
            .collect()
    }

    #[test]
    fn a_swing_window_checks_its_labels_buttons_containers_and_place() {
        let window = node(
            "frame",
            "Swing",
            "/f",
            vec![node(
                "root pane",
                "",
                "/r",
                vec![node(
                    "panel",
                    "",
                    "/p",
                    vec![
                        node("label", "Ready", "/l", vec![]),
                        node("push button", "Count", "/b", vec![]),
                        node("text", "Name", "/t", vec![]),
                    ],
                )],
            )],
        );
        let mut probes = Vec::new();
        collect(SpotCheck::Java, &window, None, &mut probes);
        assert_eq!(
            kinds(&probes),
            [
                "count /f 1",
                "count /r 1",
                "extents /r",
                "count /p 3",
                "name /l Ready",
                "name /b Count",
            ]
        );
    }

    #[test]
    fn a_gecko_window_checks_its_page_layout_document_and_click_listeners() {
        let window = node(
            "frame",
            "Firefox",
            "/f",
            vec![
                node("tool bar", "Navigation", "/n", vec![]),
                node(
                    "internal frame",
                    "",
                    "/i",
                    vec![node(
                        "document web",
                        "Page",
                        "/d",
                        vec![
                            node("push button", "Mover", "/m", vec![]),
                            // A div a script listens to, one it may yet
                            // listen to, and one whose actions were not read.
                            RawNode {
                                actions: vec!["click".into()],
                                actionable: true,
                                ..node("section", "Book", "/b", vec![])
                            },
                            node("section", "Bravo", "/v", vec![]),
                            RawNode {
                                actionable: true,
                                ..node("section", "Unread", "/u", vec![])
                            },
                        ],
                    )],
                ),
                // A background tab: neither read nor checked.
                node(
                    "internal frame",
                    "",
                    "/j",
                    vec![RawNode {
                        state_mask: 0,
                        ..node(
                            "document web",
                            "Other tab",
                            "/o",
                            vec![node("push button", "Hidden", "/h", vec![])],
                        )
                    }],
                ),
            ],
        );
        let mut probes = Vec::new();
        collect(SpotCheck::Gecko, &window, None, &mut probes);
        assert_eq!(
            kinds(&probes),
            [
                "first /i /d",
                "url /d ",
                "extents /d",
                "extents /m",
                "extents /b",
                "action /b click",
                "extents /v",
                "action /v ",
                "extents /u",
            ]
        );
    }

    #[test]
    fn a_writer_window_checks_its_paragraph_count_and_first_paragraph() {
        let window = node(
            "frame",
            "Writer",
            "/f",
            vec![node(
                "document text",
                "",
                "/d",
                vec![
                    node("paragraph", "", "/p1", vec![]),
                    node("paragraph", "", "/p2", vec![]),
                ],
            )],
        );
        let mut probes = Vec::new();
        collect(SpotCheck::LibreOffice, &window, None, &mut probes);
        assert_eq!(kinds(&probes), ["count /d 2", "extents /p1"]);
    }
}
