"""The clipboard tool end to end: a value carried from the fixture to
gtk3-widget-factory and back, pasted with real keys and checked by a separate
pyatspi process; text set and read with its escapes; what a password field's
copy leaves on the clipboard never shown."""
import os
import re

import pytest

from conftest import FIXTURE_APP, SECRET, atspi_application, launch, poll, stop
from test_mcp_server import run_session

HANDLE = re.compile(r"^(#u\d+) ")


def entry_text(pid, pick):
    """The text of the first `text` element of process PID that PICK accepts."""
    pyatspi = pytest.importorskip("pyatspi")
    app = atspi_application(pid)
    fields = pyatspi.findAllDescendants(app, lambda x: x.getRoleName() == "text" and pick(x))
    return fields[0].queryText().getText(0, -1)


def test_a_value_goes_from_the_fixture_to_the_widget_factory_and_back(desktop):
    title = f"clipboard fixture {os.getpid()}"
    fixture = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    factory = launch(["gtk3-widget-factory"], "")
    here = {"app": "axsight-fixture", "window": title}
    try:
        async def body(c):
            name = {"selector": "role:Edit && name:Name", **here}
            await c.ok("type_into_element", {**name, "text_to_type": "Ada Lovelace"})
            tree = await c.ok("get_window_tree", here)
            name_handle = next(HANDLE.match(l.strip())[1] for l in tree.splitlines()
                               if "[Edit] Name" in l)
            copied = await c.ok("clipboard", {"from": name_handle})
            assert copied.startswith('copied "Ada Lovelace" from ' + name_handle), copied
            assert await c.ok("clipboard", {}) == \
                'the clipboard holds 12 characters: "Ada Lovelace"\n'

            # Pasted into the widget factory's empty entry with real keys.
            found = await c.ok("find_elements", {"selector": "role:Edit",
                                                 "app": "gtk3-widget-factory"})
            lines = [l.strip() for l in found.splitlines()]
            empty = next(HANDLE.match(l)[1] for l in lines
                         if HANDLE.match(l) and "value:" not in l and "disabled" not in l)
            await c.ok("click_element", {"index": empty})
            pasted = await c.ok("press_key", {"index": empty, "key": "ctrl+v"})
            assert 'value "" -> "Ada Lovelace"' in pasted or "Ada Lovelace" in pasted, pasted

            # And back: copied there with ctrl+c, read, pasted into the fixture.
            await c.ok("type_into_element", {"index": empty, "text_to_type": "Grace Hopper"})
            await c.ok("press_key", {"index": empty, "key": "ctrl+a"})
            copied_there = await c.ok("press_key", {"index": empty, "key": "ctrl+c"})
            # The copy's answer says it took, and how much it took.
            assert ("check: the clipboard holds 12 characters from gtk3-widget-factory now, the "
                    "clipboard tool reads them") in copied_there, copied_there
            again = await c.ok("press_key", {"index": empty, "key": "ctrl+c"})
            assert "the clipboard holds the same 12 characters as before" in again, again
            held = await c.ok("clipboard", {})
            assert held == 'the clipboard holds 12 characters: "Grace Hopper"\n', held
            await c.ok("click_element", name)
            await c.ok("press_key", {**name, "key": "ctrl+a"})
            back = await c.ok("press_key", {**name, "key": "ctrl+v"})
            assert '-> "Grace Hopper"' in back, back

            # Text set directly keeps its line breaks and tabs, printed as escapes.
            put = await c.ok("clipboard", {"text": "one\ttwo\nthree"})
            assert r'"one\ttwo\nthree"' in put, put
            assert await c.ok("clipboard", {}) == \
                'the clipboard holds 13 characters: "one\\ttwo\\nthree"\n'

            # A copy out of the password field is never shown.
            password = {"selector": "role:Edit && name:Password", **here}
            await c.ok("press_key", {**password, "key": "ctrl+a"})
            # GTK lets nothing out of a password field: the copy says nothing new
            # was copied, and the clipboard holds what it held.
            secret_copy = await c.ok("press_key", {**password, "key": "ctrl+c"})
            assert "the clipboard holds the same 13 characters as before" in secret_copy, \
                secret_copy
            hidden = await c.ok("clipboard", {})
            assert hidden == 'the clipboard holds 13 characters: "one\\ttwo\\nthree"\n', hidden
            refused = await c.error("clipboard", {"from": "#u1", "text": "x"})
            assert "give `text` or `from`, not both" in refused, refused
            for answer in (copied, pasted, held, back, put, hidden, secret_copy, copied_there):
                assert SECRET not in answer

        run_session(body)
        assert entry_text(fixture.pid, lambda x: x.name == "Name") == "Grace Hopper"
        factory_texts = poll(lambda: entry_text(
            factory.pid, lambda x: x.queryText().getText(0, -1) == "Grace Hopper"))
        assert factory_texts == "Grace Hopper"
    finally:
        stop(factory)
        stop(fixture)
