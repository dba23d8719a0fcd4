"""Java Swing through the ATK wrapper: one real task through the official Python
SDK client, checked outside axsight (the file the app wrote).

The Swing fixture (tests/fixtures/SwingFixture.java) is started by
open_application with no accessibility flags of its own: axsight switches the
wrapper on through JAVA_TOOL_OPTIONS. The form is filled in, a menu opened, its
modal dialog answered, and Save writes the form to a file. Once on the suite's
bare desktop, once on a desktop of its own with a window manager: there the
wrapper misplaces an open menu's items (see menu_popups.rs), and a click on
the item must still open the dialog.
"""
import os
import re
import shlex
import shutil
import signal
import time

import pytest

from conftest import REPO, PrivateDesktop, poll
from test_acting import alive, section
from test_mcp_server import DESKTOP_VARS, handle_of, parse_tree, run_session
from test_toolkits import value_of

SWING_FIXTURE = REPO / "tests" / "fixtures" / "SwingFixture.java"
SWING_SECRET = "hunter2-SWING-SECRET"
ATK_WRAPPER = "/usr/share/java/java-atk-wrapper.jar"
PID = re.compile(r", pid (\d+)\)")
BOUNDS = re.compile(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]")

pytestmark = pytest.mark.skipif(
    not (shutil.which("java") and os.path.exists(ATK_WRAPPER)),
    reason="java or the ATK wrapper (libatk-wrapper-java-jni) is not installed")


def bounds_of(text, handle):
    """The bounds printed on HANDLE's line, as (x, y, width, height)."""
    line = next(l for l in text.splitlines() if l.strip().startswith(handle + " "))
    return tuple(int(n) for n in BOUNDS.search(line).groups())


def inside(inner, outer):
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


@pytest.fixture(params=["bare", "openbox"])
def swing_desktop(request, desktop, tmp_path):
    """The variables of the desktop the test runs on: the suite's, or one of its
    own with openbox."""
    if request.param == "bare":
        yield None
        return
    private = PrivateDesktop(wm=True, tmp_path=tmp_path)
    try:
        yield {name: private.env[name] for name in DESKTOP_VARS if private.env.get(name)}
    finally:
        private.close()


def test_swing_form_filled_menu_dialog_answered_and_saved(swing_desktop, tmp_path):
    saved = tmp_path / "form.txt"
    title = f"axsight swing fixture {os.getpid()}"
    command = shlex.join(["java", str(SWING_FIXTURE), "--title", title,
                          "--save-to", str(saved)])
    app = {"app": title}
    pids = []

    async def body(c):
        opened = await c.ok("open_application", {"app": command, "timeout_ms": 60_000})
        started = PID.search(opened.splitlines()[0])
        assert started, opened
        pids.append(int(started[1]))
        listed = await c.ok("get_applications", {})
        assert "J2SE-access-bridge" in listed, listed
        text = await c.ok("get_window_tree", app)
        assert SWING_SECRET not in text
        tree = parse_tree(text)
        window = handle_of(tree, "Window", title)
        # Java's frame reports no extents: its X window places it.
        window_box = bounds_of(text, window)
        assert window_box[2] > 300 and window_box[3] > 200, text
        # Swing names a combo box by its selected item: axsight by its label.
        colour = handle_of(tree, "ComboBox", "Colour")
        assert value_of(text, colour) == "Red", text
        # Buttons carry no value (Swing gives each a 0 or 1 Value).
        save_line = next(l for l in text.splitlines() if "[Button] Save" in l)
        assert "value:" not in save_line, save_line

        name = handle_of(tree, "Edit", "Name")
        typed = await c.ok("type_into_element", {"index": name, "text_to_type": "Ada"})
        assert 'the field holds "Ada"' in typed, typed
        chosen = await c.ok("select_option", {"index": colour, "option": "Green"})
        assert f'{colour} [ComboBox] Colour: value "Red" -> "Green"' in chosen, chosen
        toggled = await c.ok("set_toggled", {"selector": 'role:CheckBox && name:"Remember me"',
                                             **app, "state": True})
        # Swing's labels announce no new text: the whole window is read again,
        # and the answer's head does not deny the change its diff shows.
        assert "Remember me: on" in toggled, toggled
        assert "no event but focus" not in toggled.splitlines()[0], toggled

        # The menu: its items are drawn in its popup, below the menu bar.
        menu = await c.ok("click_element", {"selector": "role:Menu && name:File", **app})
        added = section(menu, "added")
        assert ("MenuItem", "Ask name…") in added.values(), menu
        ask = handle_of(added, "MenuItem", "Ask name…")
        file_box = bounds_of(text, handle_of(tree, "Menu", "File"))
        ask_box = bounds_of(menu, ask)
        assert ask_box[1] >= file_box[1] + file_box[3], menu
        assert inside(ask_box, window_box), menu
        opened_dialog = await c.ok("click_element", {"index": ask})
        dialog_added = section(opened_dialog, "added")
        assert ("Dialog", "Ask name") in dialog_added.values(), opened_dialog
        # The app named alone shows its modal dialog, and lists its main window.
        shown = await c.ok("get_window_tree", app)
        lines = shown.splitlines()
        assert "[Dialog] Ask name" in lines[1] and "modal" in lines[1], shown
        others = lines[lines.index("other windows of this app (get_window_tree from: HANDLE):") + 1:]
        assert len(others) == 1 and f"[Window] {title}" in others[0], shown
        your_name = handle_of(dialog_added, "Edit", "Your name")
        await c.ok("type_into_element", {"index": your_name, "text_to_type": "Grace"})
        answered = await c.ok("click_element", {"index": handle_of(dialog_added, "Button", "OK")})
        assert "Hello, Grace" in answered, answered

        wrote = await c.ok("click_element", {"selector": "role:Button && name:Save", **app})
        assert "Saved" in wrote, wrote
        for result in (opened, text, typed, chosen, toggled, menu, opened_dialog, shown,
                       answered, wrote):
            assert SWING_SECRET not in result

    try:
        # The server gets the desktop's variables only: the JVM must get the
        # wrapper from axsight.
        run_session(body, env=swing_desktop, deadline=120)
        written = poll(lambda: saved.exists() and saved.read_text())
        assert written == ("name=Ada\ncolour=Green\nremember=true\n"
                           "greeting=Hello, Grace\n"), written
        assert pids and alive(pids[0]), "the Swing fixture died while axsight read it"
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def ticks_follow_the_clock(reads, at_least):
    """Each (tree, began, ended) read shows the tick of the wall clock between
    its start (less what the app takes to show a tick) and its end: a kept read
    never answers stale. At least `at_least` different ticks are seen."""
    seen = set()
    for tree, began, ended in reads:
        tick = int(re.search(r"Tick (\d+)", tree)[1])
        assert int((began - 0.4) * 1000) // 700 <= tick <= int(ended * 1000) // 700, \
            (tick, began, ended, tree)
        seen.add(tick)
    assert len(seen) >= at_least, seen


def test_a_swing_label_that_changes_without_an_event_is_never_read_stale(desktop, tmp_path):
    # The ATK wrapper sends no name event for a label's new text: a read kept
    # from events alone would show its first tick for ever. Spot checks of the
    # labels' names vouch for a kept read, or it is read whole.
    title = f"axsight swing ticker {os.getpid()}"
    command = shlex.join(["java", str(SWING_FIXTURE), "--title", title, "--ticker"])
    app = {"app": title}
    pids = []

    async def body(c):
        opened = await c.ok("open_application", {"app": command, "timeout_ms": 60_000})
        pids.append(int(PID.search(opened.splitlines()[0])[1]))
        reads = []
        until = time.time() + 5
        while time.time() < until:
            began = time.time()
            tree = await c.ok("get_window_tree", app)
            reads.append((tree, began, time.time()))
        ticks_follow_the_clock(reads, 4)

    try:
        run_session(body)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
