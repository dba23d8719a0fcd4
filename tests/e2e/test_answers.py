"""Every answer true: the parts of an action's answer an agent leans on, each
checked on a real app — where the caret is and what is selected, where the
focus went, what validate_element says of an element's states, what a cut put on
the clipboard, each change of a scroll told once, and a GTK 4 password checked by
its length alone. Real agents spent calls on each of these when an answer was
silent or said it twice."""
import os
import re
import subprocess
from collections import Counter

from conftest import FIXTURE_APP, REPO, launch, stop
from test_mcp_server import run_session
from test_terminal import needs

GTK4_FIXTURE = REPO / "tests" / "fixtures" / "gtk4_fixture_app.py"


def test_typing_says_where_the_caret_is_and_a_selection_what_it_holds(fixture_app, app_args):
    name = {"selector": "role:Edit && name:Name", **app_args}

    async def body(c):
        typed = await c.ok("type_into_element", {**name, "text_to_type": "caret here"})
        assert re.search(r"^caret in #u\d+ \[Edit\] Name at 10 of 10$", typed, re.M), typed
        # Keys into the field that has the focus leave its caret where it is
        # (focusing it again would select all of it).
        selected = await c.ok("press_key", {**name, "key": "shift+Home"})
        assert re.search(r'^caret in #u\d+ \[Edit\] Name at 0 of 10; selected 0–10 '
                         r'"caret here"$', selected, re.M), selected
        left = await c.ok("press_key", {"key": "End shift+Left", **app_args})
        assert re.search(r'^caret in #u\d+ \[Edit\] Name at 9 of 10; selected 9–10 "e"$',
                         left, re.M), left

    run_session(body)


def test_a_key_that_moves_the_focus_says_where_it_went(fixture_app, app_args):
    async def body(c):
        await c.ok("click_element", {"selector": "role:Edit && name:Name", **app_args})
        moved = await c.ok("press_key", {"key": "Tab", **app_args})
        changed = [line for line in moved.splitlines() if "focused" in line]
        assert len([line for line in changed if "focused no -> yes" in line]) == 1, moved
        assert any("[Edit] Password" in line and "focused no -> yes" in line
                   for line in changed), moved
        assert any("[Edit] Name" in line and "focused yes -> no" in line
                   for line in changed), moved

    run_session(body)


def test_validate_element_gives_an_elements_states(fixture_app, app_args):
    remember = {"selector": "role:CheckBox && name:\"Remember me\"", **app_args}
    name = {"selector": "role:Edit && name:Name", **app_args}

    async def body(c):
        await c.ok("set_toggled", {**remember, "state": True})
        shown = (await c.ok("validate_element", remember)).splitlines()[0]
        assert shown.startswith("exists: #u") and re.search(r"\bchecked\b", shown), shown
        await c.ok("set_toggled", {**remember, "state": False})
        shown = (await c.ok("validate_element", remember)).splitlines()[0]
        assert not re.search(r"\bchecked\b", shown), shown
        await c.ok("click_element", name)
        shown = (await c.ok("validate_element", name)).splitlines()[0]
        assert re.search(r"\bfocused\b", shown), shown

    run_session(body)


def test_a_cut_says_what_the_clipboard_took(fixture_app, app_args):
    name = {"selector": "role:Edit && name:Name", **app_args}

    async def body(c):
        await c.ok("type_into_element", {**name, "text_to_type": "cut 7 me"})
        await c.ok("press_key", {**name, "key": "ctrl+a"})
        cut = await c.ok("press_key", {**name, "key": "ctrl+x"})
        assert ("check: the clipboard holds 8 characters from axsight-fixture now, the clipboard "
                "tool reads them") in cut, cut
        assert 'value "cut 7 me" -> ""' in cut, cut
        assert await c.ok("clipboard", {}) == 'the clipboard holds 8 characters: "cut 7 me"\n'

    run_session(body)


def test_each_change_of_a_scroll_is_told_once(fixture_app, app_args):
    long_list = {"selector": "role:ScrollPane && name:\"Long list\"", **app_args}

    async def body(c):
        scrolled = await c.ok("scroll_element", {**long_list, "direction": "down", "amount": 5})
        assert "[ScrollBar]" in scrolled and "value" in scrolled, scrolled
        told = [line.strip() for line in scrolled.splitlines() if re.match(r"\s+#u\d+ ", line)]
        assert told, scrolled
        twice = [line for line, n in Counter(told).items() if n > 1]
        assert not twice, scrolled
        # Nor one element's changes on two lines.
        handles = Counter(line.split()[0] for line in told)
        assert all(n == 1 for n in handles.values()), scrolled
        back = await c.ok("scroll_element", {**long_list, "direction": "up", "amount": 5})
        assert "[ScrollBar]" in back, back

    run_session(body)


def test_a_gtk4_password_is_checked_by_its_length_never_its_text(desktop):
    title = f"gtk4 password {os.getpid()}"
    app = launch(["/usr/bin/python3", str(GTK4_FIXTURE), "--title", title], title)
    try:
        async def body(c):
            typed = await c.ok("type_into_element", {
                "selector": "role:Edit && name:Password", "window": title,
                "text_to_type": "gtk4-Secret-42"})
            assert "check: the field holds 14 characters, as many as were typed" in typed, typed
            assert "gtk4-Secret-42" not in typed and "Secret" not in typed, typed
            tree = await c.ok("get_window_tree", {"window": title})
            assert "Secret" not in tree, tree

        run_session(body)
    finally:
        stop(app)


@needs("notify-send")
def test_a_notification_is_told_with_its_text_under_its_daemons_name(desktop):
    # A desktop notification is a window of the notification daemon, which D-Bus
    # starts: told in the click's answer, or in the next action's when it came
    # later, never silently missed.
    title = f"launcher {os.getpid()}"
    main = f"main {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", main,
                  "--launcher-window", title], title)
    notify = {"selector": "role:Button && name:Notify", "window": title}
    count = {"selector": "role:Button && text:Count", "window": main}
    try:
        async def body(c):
            clicked = await c.ok("click_element", notify)
            print(clicked)
            told = clicked
            if "xfce4-notifyd" not in clicked:
                told = await c.ok("click_element", count)
                print(told)
            assert re.search(r"xfce4-notifyd, pid \d+", told), told
            assert "Backup finished" in told, told

        run_session(body)
    finally:
        subprocess.run(["pkill", "-f", "xfce4/notifyd/xfce4-notifyd"], check=False)
        stop(app)
