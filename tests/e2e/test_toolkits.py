"""One real task per toolkit beyond GTK, through the official Python SDK client,
each checked outside axsight: the file the app wrote.

- Qt 6: the Qt fixture (PyQt6), a form filled in with handles and selectors, a modal
  dialog answered, and Save, which writes the form to a file.
- Qt 5: FeatherPad (Debian's package), text typed into a document (its line break
  printed as an escape), then selected with ctrl+a and typed over, and saved with
  ctrl+s.

Qt's bridge must survive every read: each test checks that the app still runs.
"""
import os
import re
import shutil

import pytest

from conftest import REPO, launch, poll, stop
from test_acting import alive, section
from test_mcp_server import handle_of, parse_tree, run_session

QT_FIXTURE = REPO / "tests" / "fixtures" / "qt_fixture_app.py"
QT_SECRET = "hunter2-QT-SECRET"


def launch_qt(argv, title):
    """Start a Qt app as open_application does: Qt 6.4 joins the accessibility bus
    only without AT_SPI_BUS_ADDRESS in its environment."""
    return launch(argv, title, drop_env=("AT_SPI_BUS_ADDRESS",))


@pytest.fixture
def qt_fixture(desktop, tmp_path):
    saved = tmp_path / "form.txt"
    title = f"axsight qt fixture {os.getpid()}"
    app = launch_qt(
        ["/usr/bin/python3", str(QT_FIXTURE), "--title", title, "--save-to", str(saved)], title)
    app.saved = saved
    yield app
    assert alive(app.pid), "the Qt fixture died while axsight read it"
    stop(app)


def value_of(tree_text, handle):
    """The quoted value printed on HANDLE's line."""
    line = next(l for l in tree_text.splitlines() if l.strip().startswith(handle + " "))
    m = re.search(r'value: "((?:[^"\\]|\\.)*)"', line)
    return m[1] if m else None


def test_qt6_form_filled_dialog_answered_and_saved(qt_fixture):
    app = {"app": "axsight-qt-fixture"}

    async def body(c):
        listed = await c.ok("get_applications", {})
        assert "axsight-qt-fixture" in listed and "Qt 6" in listed, listed
        text = await c.ok("get_window_tree", app)
        assert QT_SECRET not in text
        tree = parse_tree(text)
        assert f"[Window] {qt_fixture.title}" in text, text
        # Qt names a combo box by its current text: axsight names it by its label.
        colour = handle_of(tree, "ComboBox", "Colour")
        assert value_of(text, colour) == "Red", text
        # A spin box with neither name nor buddy, named by the label beside it.
        copies = handle_of(tree, "SpinButton", "Copies")
        name = handle_of(tree, "Edit", "Name")

        typed = await c.ok("type_into_element", {"index": name, "text_to_type": "Ada"})
        assert 'the field holds "Ada"' in typed, typed
        # A password is checked by its length, never its text.
        secret = await c.ok("type_into_element", {
            "selector": "role:Edit && name:Password", **app, "text_to_type": "s3cret-Qt"})
        assert "check: the field holds 9 characters, as many as were typed" in secret, secret
        assert "s3cret-Qt" not in secret, secret
        # Qt's closed combo box takes its item's action and ignores it: the
        # answer must not claim a selection the app did not make.
        chosen = await c.ok("select_option", {"index": colour, "option": "Green"})
        assert f'{colour} [ComboBox] Colour: value "Red" -> "Green"' in chosen, chosen
        await c.ok("set_value", {"index": copies, "value": "3"})
        await c.ok("set_toggled", {"selector": 'role:CheckBox && name:"Remember me"',
                                   **app, "state": True})

        # The modal dialog, through the menu.
        menu = await c.ok("click_element", {"selector": "role:MenuItem && name:File", **app})
        ask = handle_of(section(menu, "added"), "MenuItem", "Ask name…")
        opened = await c.ok("click_element", {"index": ask})
        added = section(opened, "added")
        assert ("Dialog", "Ask name") in added.values() or ("Window", "Ask name") in added.values(), opened
        # The app named alone shows its modal dialog, and lists its main window.
        shown = await c.ok("get_window_tree", app)
        lines = shown.splitlines()
        assert lines[1].startswith("#u") and "[Dialog] Ask name" in lines[1], shown
        others = lines[lines.index("other windows of this app (get_window_tree from: HANDLE):") + 1:]
        assert len(others) == 1 and f"[Window] {qt_fixture.title}" in others[0], shown
        your_name = handle_of(added, "Edit", "Your name")
        await c.ok("type_into_element", {"index": your_name, "text_to_type": "Grace"})
        answered = await c.ok("click_element", {"index": handle_of(added, "Button", "OK")})
        assert "Hello, Grace" in answered, answered

        saved = await c.ok("click_element", {"selector": "role:Button && name:Save", **app})
        assert "Saved" in saved, saved
        # A settings grid made labels first: each nameless field is named by
        # the label on its row.
        advanced = await c.ok("click_element", {"selector": "role:TabItem && name:Advanced",
                                                **app})
        assert re.search(r"\[SpinButton\] Double click interval: \(.*value: \"400\"", advanced), \
            advanced
        assert "[ComboBox] Theme: (" in advanced, advanced
        # An empty editable combo box named by its app: its name is no value.
        username = [line for line in advanced.splitlines() if "[ComboBox] Username" in line]
        assert username, advanced
        username = username[0]
        assert 'value: "Username field"' not in username, advanced
        for result in (text, typed, chosen, menu, opened, answered, saved):
            assert QT_SECRET not in result

    run_session(body)
    written = poll(lambda: qt_fixture.saved.exists() and qt_fixture.saved.read_text())
    assert written == ("name=Ada\ncolour=Green\ncopies=3\nremember=True\n"
                       "greeting=Hello, Grace\n"), written


@pytest.mark.skipif(not shutil.which("featherpad"), reason="featherpad is not installed")
def test_qt5_featherpad_types_and_saves_a_document(desktop, tmp_path):
    document = tmp_path / "notes.txt"
    document.write_text("")
    app = launch_qt(["featherpad", str(document)], "notes.txt")
    try:
        async def body(c):
            listed = await c.ok("get_applications", {})
            assert "FeatherPad" in listed and "Qt 5" in listed, listed
            text = await c.ok("get_window_tree", {"app": "FeatherPad"})
            # Qt 5 flags the editor, its viewport and the current tab focused:
            # the focus is printed once, on the editor; the tab is the selected one.
            focused = [l for l in text.splitlines() if "focused" in l]
            assert len(focused) == 1 and "[Edit]" in focused[0], text
            assert re.search(r"\[TabItem\] \S*notes\.txt \(selected", text), text
            # The document is the first nameless field; the search bar's comes later.
            editor = next(h for h, element in parse_tree(text).items() if element == ("Edit", ""))
            # Qt 5's toolbar buttons offer no action and no focus: disabled all
            # the same, in the tree and in the diff alike.
            for button in ("Save", "Undo"):
                assert re.search(rf"\[Button\] {button} \(disabled\b", text), text
            typed = await c.ok("type_into_element", {"index": editor,
                                                    "text_to_type": "Alpha 1234\nBravo 5678"})
            assert "MISMATCH" not in typed, typed
            for button in ("Save", "Undo"):
                assert re.search(rf"\[Button\] {button}: enabled no -> yes", typed), typed
            toolbar = await c.ok("get_window_tree", {"app": "FeatherPad"})
            assert re.search(r"\[Button\] Undo \(", toolbar), toolbar
            assert not re.search(r"\[Button\] Undo \(disabled\b", toolbar), toolbar
            # A screenshot's caption names the window as it is now, modified.
            shot = await c.call("capture_screenshot", {"app": "FeatherPad"})
            caption = "".join(b.text for b in shot.content if b.type == "text")
            assert re.search(r"window '\*[^']*notes\.txt'", caption), caption
            # Qt 5 marks the window modified (`*notes.txt`) without an event: the
            # diff and the trees say so all the same.
            assert re.search(r'\[Window\] \*\S*notes\.txt: name "[^"*]*notes\.txt" -> '
                             r'"\*[^"]*notes\.txt"', typed), typed
            # The line break is printed as an escape, in the check, the diff and
            # the tree alike: never flattened into a space.
            escaped = r'"Alpha 1234\nBravo 5678"'
            assert f"check: the field holds {escaped}" in typed, typed
            assert f'-> {escaped}' in typed, typed
            reread = await c.ok("get_window_tree", {"app": "FeatherPad"})
            assert f"value: {escaped}" in reread, reread
            found = await c.ok("find_elements", {"selector": f"role:Edit && value:{escaped}",
                                                 "app": "FeatherPad"})
            assert editor in found, found
            # Typing over a selection replaces it, as the keyboard does.
            await c.ok("press_key", {"key": "ctrl+a", "index": editor})
            replaced = await c.ok("type_into_element", {
                "index": editor, "text_to_type": "Alpha 1234\nCharlie 9012",
                "clear_before_typing": False})
            assert r'check: the field holds "Alpha 1234\nCharlie 9012"' in replaced, replaced
            saved = await c.ok("press_key", {"key": "ctrl+s", "app": "FeatherPad"})
            assert re.search(r'name "\*[^"]*notes\.txt" -> "[^"*]*notes\.txt"', saved), saved
            assert re.search(r"\[Button\] Save: enabled yes -> no", saved), saved
            header = (await c.ok("get_window_tree", {"app": "FeatherPad"})).splitlines()[1]
            assert "[Window] *" not in header and "notes.txt" in header, header

        run_session(body)
        written = poll(lambda: document.read_text())
        # FeatherPad ends a saved file with a newline of its own.
        assert written == "Alpha 1234\nCharlie 9012\n", repr(written)
        assert alive(app.pid), "FeatherPad died while axsight read it"
    finally:
        stop(app)
