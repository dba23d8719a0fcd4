//! sway's window tree (`get_tree`) as the views it shows, in stacking order,
//! with where each view's content sits: pure data, tested on plain trees.

use axsight_core::Bounds;
use swayipc::{Node, NodeType, ShellType};

/// One window sway shows (or hides in the scratchpad or on another workspace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The container id (`[con_id=…]`).
    pub id: i64,
    pub pid: Option<u32>,
    pub title: String,
    /// The Wayland app id, or an X11 client's `WM_CLASS` instance.
    pub class: String,
    /// The client's visible window on screen: `rect` plus `window_rect`'s
    /// offset (the border), `window_rect`'s size. Title bars are outside it.
    pub content: Bounds,
    /// On a workspace shown on an output.
    pub visible: bool,
    pub focused: bool,
    pub floating: bool,
    pub fullscreen: bool,
    /// An X11 client (XWayland), whose accessible extents are screen ones.
    pub xwayland: bool,
}

/// The views of `tree`, bottom first: each workspace's tiled views, then its
/// floating ones in their stacking order, then any fullscreen view.
pub fn views(tree: &Node) -> Vec<View> {
    let mut all = Vec::new();
    collect(tree, false, &mut all);
    // A fullscreen view covers the rest of its output.
    let (fullscreen, mut rest): (Vec<View>, Vec<View>) =
        all.into_iter().partition(|view| view.fullscreen);
    rest.extend(fullscreen);
    rest
}

fn collect(node: &Node, floating: bool, into: &mut Vec<View>) {
    let is_view = matches!(node.node_type, NodeType::Con | NodeType::FloatingCon)
        && node.nodes.is_empty()
        && node.floating_nodes.is_empty()
        && (node.pid.is_some() || node.app_id.is_some() || node.window.is_some());
    if is_view {
        into.push(view_of(node, floating));
        return;
    }
    for child in &node.nodes {
        collect(child, floating, into);
    }
    for child in &node.floating_nodes {
        collect(child, true, into);
    }
}

fn view_of(node: &Node, floating: bool) -> View {
    let (rect, inner) = (&node.rect, &node.window_rect);
    View {
        id: node.id,
        pid: node.pid.and_then(|pid| u32::try_from(pid).ok()),
        title: node.name.clone().unwrap_or_default(),
        class: node
            .app_id
            .clone()
            .or_else(|| {
                let properties = node.window_properties.as_ref()?;
                properties.instance.clone().or(properties.class.clone())
            })
            .unwrap_or_default(),
        content: Bounds {
            x: rect.x + inner.x,
            y: rect.y + inner.y,
            width: inner.width,
            height: inner.height,
        },
        visible: node.visible.unwrap_or(false),
        focused: node.focused,
        floating: floating || node.node_type == NodeType::FloatingCon,
        fullscreen: node.fullscreen_mode.is_some_and(|mode| mode > 0),
        xwayland: node.shell == Some(ShellType::Xwayland),
    }
}

/// The topmost visible view whose content holds (`x`, `y`).
pub fn view_at(views: &[View], x: i32, y: i32) -> Option<&View> {
    views
        .iter()
        .rev()
        .find(|view| view.visible && view.content.contains(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree as sway 1.7 sends it: one output, a workspace with a tiled
    /// calculator and two floating windows (a GTK3 one with a header bar).
    fn tree() -> Node {
        let view = |id: i64,
                    name: &str,
                    kind: &str,
                    rect: [i32; 4],
                    window: [i32; 4],
                    geometry: [i32; 4]| {
            let r = |a: [i32; 4]| serde_json::json!({"x": a[0], "y": a[1], "width": a[2], "height": a[3]});
            serde_json::json!({
                "id": id, "name": name, "type": kind, "border": "normal",
                "current_border_width": 2, "layout": "none", "orientation": "none",
                "percent": null, "rect": r(rect), "window_rect": r(window),
                "deco_rect": r([0, 0, 0, 0]), "geometry": r(geometry), "urgent": false,
                "sticky": false, "marks": [], "focused": id == 7, "focus": [], "nodes": [],
                "floating_nodes": [], "fullscreen_mode": 0, "pid": 40 + id, "app_id": "x",
                "visible": true, "shell": "xdg_shell"
            })
        };
        let workspace = serde_json::json!({
            "id": 3, "name": "1", "type": "workspace", "border": "none",
            "current_border_width": 0, "layout": "splith", "orientation": "horizontal",
            "percent": null, "rect": {"x": 0, "y": 0, "width": 1920, "height": 1080},
            "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0},
            "deco_rect": {"x": 0, "y": 0, "width": 0, "height": 0},
            "geometry": {"x": 0, "y": 0, "width": 0, "height": 0},
            "urgent": false, "sticky": false, "marks": [], "focused": false, "focus": [],
            "nodes": [view(5, "Calculator", "con", [0, 25, 1920, 1055], [2, 0, 1916, 1053], [0, 0, 1916, 1053])],
            "floating_nodes": [
                view(6, "fixture", "floating_con", [558, 240, 804, 602], [2, 0, 800, 600], [0, 0, 800, 600]),
                view(7, "csd3", "floating_con", [760, 366, 400, 347], [0, 0, 400, 347], [26, 23, 400, 347]),
            ]
        });
        let root = serde_json::json!({
            "id": 1, "name": "root", "type": "root", "border": "none",
            "current_border_width": 0, "layout": "splith", "orientation": "horizontal",
            "percent": null, "rect": {"x": 0, "y": 0, "width": 1920, "height": 1080},
            "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0},
            "deco_rect": {"x": 0, "y": 0, "width": 0, "height": 0},
            "geometry": {"x": 0, "y": 0, "width": 0, "height": 0},
            "urgent": false, "sticky": false, "marks": [], "focused": false, "focus": [],
            "nodes": [workspace], "floating_nodes": []
        });
        serde_json::from_value(root).expect("a sway tree")
    }

    #[test]
    fn views_come_bottom_first_with_their_content_boxes() {
        let all = views(&tree());
        let ids: Vec<i64> = all.iter().map(|v| v.id).collect();
        assert_eq!(ids, [5, 6, 7]);
        assert_eq!(
            all[1].content,
            Bounds {
                x: 560,
                y: 240,
                width: 800,
                height: 600
            }
        );
        assert!(all[1].floating && !all[0].floating);
        assert_eq!(all[2].pid, Some(47));
        assert!(all[2].focused);
    }

    #[test]
    fn the_point_belongs_to_the_topmost_view_holding_it() {
        let all = views(&tree());
        // Over the fixture, which floats above the tiled calculator.
        assert_eq!(view_at(&all, 600, 300).map(|v| v.id), Some(6));
        // The header-bar window floats above the fixture where they overlap.
        assert_eq!(view_at(&all, 800, 400).map(|v| v.id), Some(7));
        assert_eq!(view_at(&all, 10, 100).map(|v| v.id), Some(5));
        assert_eq!(view_at(&all, 10, 10), None); // a title bar
    }
}
