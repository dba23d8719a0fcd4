"""Placeholders are hints, not values: a field that shows grey hint text while it
is empty is printed `hint: "…"` and never as filled (GTK 3's and GTK 4's
`placeholder-text` attribute; LibreOffice Impress's "Click to add …" shapes are
in test_libreoffice.py)."""
import os

from conftest import FIXTURE_APP, REPO, launch, stop
from test_mcp_server import run_session

GTK4_FIXTURE = REPO / "tests" / "fixtures" / "gtk4_fixture_app.py"


def field_line(tree, name):
    lines = [line for line in tree.splitlines() if f"[Edit] {name} (" in line]
    assert len(lines) == 1, tree
    return lines[0]


def test_a_gtk3_placeholder_is_a_hint_until_the_field_is_typed_into(desktop):
    title = f"hints {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", f"main {os.getpid()}",
                  "--tricky-window", title], title)
    try:
        async def body(c):
            empty = field_line(await c.ok("get_window_tree", {"window": title}), "Search")
            assert 'value: "", hint: "Search here"' in empty, empty
            typed = await c.ok("type_into_element", {"selector": "role:Edit && name:Search",
                                                     "window": title, "text": "figs"})
            assert 'check: the field holds "figs"' in typed, typed
            filled = field_line(await c.ok("get_window_tree", {"window": title}), "Search")
            assert 'value: "figs"' in filled and "hint" not in filled, filled

        run_session(body)
    finally:
        stop(app)


def test_a_gtk4_placeholder_is_a_hint(desktop):
    title = f"gtk4 hints {os.getpid()}"
    app = launch(["/usr/bin/python3", str(GTK4_FIXTURE), "--title", title], title)
    try:
        async def body(c):
            line = field_line(await c.ok("get_window_tree", {"window": title}), "Search")
            assert 'hint: "Search here"' in line, line
            assert 'value: "Search here"' not in line, line

        run_session(body)
    finally:
        stop(app)
