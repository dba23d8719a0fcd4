"""The compact tree's folds on real apps (issue 13): a child that only repeats its
parent's name, a lone label child and a field's label beside it print no line of
their own, yet keep their handles: find_elements finds them, `from` and
validate_element take their handles, and the handle is the one right after the
line it folds into.

    AXSIGHT_BIN=target/debug/axsight scripts/with-desktop -- \\
        .venv/bin/python -m pytest tests/e2e/test_folding.py
"""
import os
import re

import pytest

from conftest import REPO, launch, stop
from test_mcp_server import parse_tree, run_session

GTK4_FIXTURE = REPO / "tests" / "fixtures" / "gtk4_fixture_app.py"


@pytest.fixture(scope="module")
def gtk4_app(desktop):
    title = f"axsight gtk4 folding {os.getpid()}"
    app = launch(["/usr/bin/python3", str(GTK4_FIXTURE), "--title", title], title)
    yield app
    stop(app)


def handle_of(tree, role, name):
    found = [h for h, (r, n) in parse_tree(tree).items() if (r, n) == (role, name)]
    assert len(found) == 1, (role, name, tree)
    return found[0]


def number(handle):
    return int(re.fullmatch(r"#u(\d+)", handle)[1])


def test_a_gtk4_buttons_own_label_folds_and_stays_reachable(gtk4_app):
    async def body(c):
        tree = await c.ok("get_window_tree", {"app": str(gtk4_app.pid)})
        button = handle_of(tree, "Button", "Open second window")
        # GTK4 gives the button a [Text] of its own label: no line of its own.
        assert "[Text] Open second window" not in tree, tree
        found = await c.ok("find_elements", {
            "app": str(gtk4_app.pid),
            "selector": 'role:Text && name:"Open second window"'})
        label = re.search(r"#u\d+", found)[0]
        assert number(label) == number(button) + 1, (tree, found)
        alone = await c.ok("get_window_tree", {"from": label})
        assert f"{label} [Text] Open second window (" in alone, alone
        checked = await c.ok("validate_element", {"index": label})
        assert "Open second window" in checked, checked
    run_session(body)


def test_a_fields_label_folds_into_the_field(fixture_app):
    async def body(c):
        tree = await c.ok("get_window_tree", {"app": str(fixture_app.pid)})
        field = handle_of(tree, "Edit", "Name")
        assert "[Text] Name (" not in tree, tree
        # A label naming nothing beside it stays.
        handle_of(tree, "Text", "Size")
        found = await c.ok("find_elements", {"app": str(fixture_app.pid),
                                             "selector": "role:Text && name:Name"})
        label = re.search(r"#u\d+", found)[0]
        assert number(label) == number(field) + 1, (tree, found)
    run_session(body)
