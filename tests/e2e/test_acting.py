"""axsight's acting tools end to end, through the official Python SDK client: open an
app, click by selector, by handle and by the Windows-era (index, vision_type) pair,
type into fields, and the errors an agent gets for bad targets.

Sessions, the client and the tree parsing are test_mcp_server's (every result is
checked there for the fixture's password). Acting by pointer needs the target
window on top; the server raises it itself. pytest runs these tests one at a time,
so no two act on the desktop at once.
"""
import os
import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURE_APP, SECRET, launch, poll, stop
from test_mcp_server import LINE, handle_of, parse_tree, run_session

# "opened axsight-fixture (`...`, pid 4828): window '...' after 495 ms"
PID = re.compile(r"\bpid (\d+)\b")


def section(answer, name):
    """The element lines of one section ("added", "removed", "changed") of an action's
    diff, as {handle: (role, name)}, in the order printed."""
    lines = answer.splitlines()
    if f"{name}:" not in lines:
        return {}
    out = []
    for line in lines[lines.index(f"{name}:") + 1:]:
        if not line.startswith(" "):
            break
        out.append(line.strip())
    if name == "changed":
        # "#u9 [Edit] Name: value "" -> "hi"; focused no -> yes"
        found = (re.match(r"(#u\d+) \[(\w+)\] (.*?): ", l) for l in out)
        return {m[1]: (m[2], m[3]) for m in found if m}
    return parse_tree("\n".join(out))


def alive(pid):
    """Whether process PID runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def plain(message):
    """An error message fit for an agent: one short line, no Rust debug output."""
    assert message and "\n" not in message.strip() and len(message) < 300, message
    assert not re.search(r"\w+\(|\{ ?\w+:|Error\b", message), message
    return message


def test_open_application_click_through_a_delayed_dialog(desktop):
    title = f"axsight-acting-{os.getpid()}"
    command = shlex.join(["/usr/bin/python3", str(FIXTURE_APP), "--title", title])
    pids = []

    async def body(c):
        opened = await c.ok("open_application", {"app": command})
        first = opened.splitlines()[0]
        assert first.startswith("opened axsight-fixture") and f"'{title}'" in first, first
        pids.append(int(PID.search(first)[1]))
        tree = parse_tree(opened)
        assert f"[Window] {title}" in opened and "[Button] Count" in opened, opened
        count = handle_of(tree, "Button", "Count")

        # A selector, limited to the new window: the dialog comes 500 ms after the
        # click, and the answer waits for it.
        later = await c.ok("click_element", {"selector": 'name:"Open dialog later"',
                                             "window": title})
        assert later.startswith("clicked #u") and "[Button] Open dialog later" in later, later
        added = section(later, "added")
        dialogs = [h for h, element in added.items() if element == ("Dialog", "Delayed dialog")]
        assert len(dialogs) == 1, later
        ok = handle_of(added, "Button", "OK")
        assert ok not in tree
        # The OK button is printed inside the dialog (indented under it).
        lines = later.splitlines()
        dialog_line = next(l for l in lines if f"{dialogs[0]} [Dialog]" in l)
        ok_line = next(l for l in lines if l.strip().startswith(f"{ok} [Button] OK"))
        assert LINE.match(ok_line)["indent"] > LINE.match(dialog_line)["indent"], later

        # The handle as printed: the dialog goes away.
        closed = await c.ok("click_element", {"index": ok})
        assert closed.startswith(f"clicked {ok} [Button] OK"), closed
        removed = section(closed, "removed")
        assert removed.get(dialogs[0]) == ("Dialog", "Delayed dialog"), closed
        assert "added:" not in closed, closed

        # Its OK button went with it.
        stale = await c.error("click_element", {"index": ok})
        assert "stale" in stale and ok in stale, stale

        # The Windows-era pair: a number from the tree with vision_type "ui_tree".
        counted = await c.ok("click_element", {"index": int(count.removeprefix("#u")),
                                               "vision_type": "ui_tree"})
        assert counted.startswith(f"clicked {count} [Button] Count"), counted
        assert section(counted, "changed").get(count) == ("Button", "Count 1"), counted
        assert 'name "Count" -> "Count 1"' in counted, counted

        gone = await c.ok("close_window", {"window": title})
        assert ("Window", title) in section(gone, "removed").values(), gone

    try:
        run_session(body)
        assert pids, "open_application gave no pid"
        # Asked to close, the fixture quits.
        assert poll(lambda: not alive(pids[0]), timeout=5), f"pid {pids[0]} still runs"
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_type_into_name_field_reads_it_back(fixture_app, app_args):
    async def body(c):
        typed = await c.ok("type_into_element", {"selector": "role:Edit && name:Name",
                                                 "text_to_type": "e2e ✓{Enter}", **app_args})
        assert typed.startswith('typed "e2e ✓" into #u') and "[Edit] Name" in typed, typed
        assert "pressed Return" in typed, typed
        # Read back before Return, which may end a dialog: it says so.
        assert 'check: before Return, the field held "e2e ✓"' in typed.splitlines(), typed
        changed = [l for l in typed.splitlines() if "[Edit] Name:" in l]
        assert len(changed) == 1 and 'value "" -> "e2e ✓"' in changed[0], typed
        # The tree reads it the same.
        tree = await c.ok("get_window_tree", app_args)
        assert re.search(r'\[Edit\] Name \([^)]*\bvalue: "e2e ✓"', tree), tree

    run_session(body)


def test_typing_over_a_selection_replaces_it(fixture_app, app_args, atspi_app):
    name = {"selector": "role:Edit && name:Name", **app_args}

    async def body(c):
        await c.ok("type_into_element", {**name, "text_to_type": "Alpha Bravo"})
        await c.ok("press_key", {**name, "key": "ctrl+a"})
        typed = await c.ok("type_into_element", {**name, "text_to_type": "Charlie",
                                                 "clear_before_typing": False})
        assert 'check: the field holds "Charlie"' in typed.splitlines(), typed
        # Without a selection the text goes in at the caret, left after the last typing.
        more = await c.ok("type_into_element", {**name, "text_to_type": " Delta",
                                                "clear_before_typing": False})
        assert 'check: the field holds "Charlie Delta"' in more.splitlines(), more

    run_session(body)
    # Read by a separate pyatspi process's view of the app, not by axsight.
    pyatspi = pytest.importorskip("pyatspi")
    entry = next(a for a in pyatspi.findAllDescendants(atspi_app, lambda x: x.name == "Name")
                 if a.getRoleName() == "text")
    text = entry.queryText()
    assert text.getText(0, -1) == "Charlie Delta"


def test_typing_that_reads_back_wrong_is_undone_and_typed_with_keys(desktop):
    # A field whose hint is its text (LibreOffice's placeholders): EditableText
    # puts the text in front of the hint; the keyboard replaces the hint.
    title = f"hinted {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", f"main {os.getpid()}",
                  "--tricky-window", title], title)
    try:
        async def body(c):
            shown = await c.ok("get_window_tree", {"window": title})
            assert 'value: "Click to add Title"' in shown, shown
            typed = await c.ok("type_into_element", {"selector": "role:Edit && name:Title",
                                                     "window": title,
                                                     "text_to_type": "Owners and budget"})
            assert "typed through EditableText, which read back wrong, so it was undone " \
                   "and typed again with key events, which read back right" in typed, typed
            assert 'check: the field holds "Owners and budget"' in typed.splitlines(), typed

        run_session(body)
        pyatspi = pytest.importorskip("pyatspi")
        field = poll(lambda: next(
            (a for a in pyatspi.findAllDescendants(pyatspi.Registry.getDesktop(0),
                                                   lambda x: x.name == "Title"
                                                   and x.getRoleName() == "text")), None))
        assert field is not None
        assert field.queryText().getText(0, -1) == "Owners and budget"
    finally:
        stop(app)


def test_a_stale_handle_names_its_element_found_again_and_heals(fixture_app, app_args):
    async def body(c):
        tree = parse_tree(await c.ok("get_window_tree", app_args))
        rename = handle_of(tree, "Button", "Rename me")
        # Renamed while the agent looks away (no diff): the handle is stale.
        await c.ok("click_element", {"index": rename, "ui_diff_before_after": False})
        stale = await c.error("click_element", {"index": rename})
        assert f"{rename} is stale: it was [Button] 'Rename me' and is now [Button] " \
               "'Renamed 1'" in stale, stale
        assert f"it is still the same element, {rename} [Button] Renamed 1" in stale, stale
        assert "heal: true" in stale, stale
        # The refusal showed the new name: the handle is fresh again. Renamed
        # unseen once more, it is healed on the spot.
        await c.ok("click_element", {"index": rename, "ui_diff_before_after": False})
        healed = await c.ok("click_element", {"index": rename, "heal": True})
        first = healed.splitlines()[0]
        assert first.startswith(f"clicked {rename} [Button] Renamed 2 (healed: {rename} was "
                                "stale, it was [Button] 'Renamed 1' and is now [Button] "
                                "'Renamed 2'; found again by identity, place, neighbours, box)"), first
        assert 'name "Renamed 2" -> "Renamed 3"' in healed, healed

    run_session(body)


def test_a_recreated_button_is_found_again_and_healed(desktop):
    title = f"tricky {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", f"main {os.getpid()}",
                  "--tricky-window", title], title)
    try:
        async def body(c):
            tree = parse_tree(await c.ok("get_window_tree", {"window": title}))
            old = handle_of(tree, "Button", "Recreate me")
            clicked = await c.ok("click_element", {"index": old})
            assert "Rebuilt 1" in clicked, clicked
            added = section(clicked, "added")
            new = handle_of(added, "Button", "Recreate me")
            assert new != old
            stale = await c.error("click_element", {"index": old})
            assert f"{old} is stale: its element no longer exists; the same element is now " \
                   f"{new} [Button] Recreate me, by name, place, neighbours, box" in stale, stale
            healed = await c.ok("click_element", {"index": old, "heal": True})
            assert healed.startswith(f"clicked {new} [Button] Recreate me (healed: {old} was "
                                     "stale, its element no longer exists; found again by "
                                     "name, place, neighbours, box)"), healed
            assert "Rebuilt 2" in healed, healed

            # Made anew just as it was: no change, and the handle goes on naming it.
            tree = parse_tree(await c.ok("get_window_tree", {"window": title}))
            alike = handle_of(tree, "Button", "Rebuild alike")
            rebuilt = await c.ok("click_element", {"index": alike})
            assert 'name "Rebuilt 2" -> "Rebuilt alike 1"' in rebuilt, rebuilt
            assert "Rebuild alike" not in rebuilt.split("\n", 1)[1], rebuilt
            again = await c.ok("click_element", {"index": alike})
            assert 'name "Rebuilt alike 1" -> "Rebuilt alike 2"' in again, again
            tree = parse_tree(await c.ok("get_window_tree", {"window": title}))
            assert handle_of(tree, "Button", "Rebuild alike") == alike, tree

        run_session(body)
        pyatspi = pytest.importorskip("pyatspi")
        status = poll(lambda: next(
            (a for a in pyatspi.findAllDescendants(pyatspi.Registry.getDesktop(0),
                                                   lambda x: x.getRoleName() == "label"
                                                   and x.name.startswith("Rebuilt"))), None))
        assert status is not None and status.name == "Rebuilt alike 2"
    finally:
        stop(app)


def test_type_into_password_field_echoes_nothing(fixture_app, app_args, atspi_app):
    typed_text = "typed-pw-XYZ"

    def password_length():
        import pyatspi
        field = pyatspi.findDescendant(atspi_app, lambda n: n.getRoleName() == "password text")
        return field.queryText().characterCount

    before = password_length()
    assert before == len(SECRET)

    async def body(c):
        # Appended to the secret: any read-back of the field would show it.
        typed = await c.ok("type_into_element", {"selector": "role:Edit && name:Password",
                                                 "text_to_type": typed_text,
                                                 "clear_before_typing": False, **app_args})
        assert typed.startswith(f"typed {len(typed_text)} characters into #u"), typed
        assert "[Edit] Password" in typed, typed
        assert typed_text not in typed and "XYZ" not in typed and "hunter2" not in typed, typed
        assert not any("value" in l for l in typed.splitlines() if "Password" in l), typed
        tree = await c.ok("get_window_tree", app_args)
        assert typed_text not in tree and "hunter2" not in tree

    run_session(body)
    assert poll(lambda: password_length() == len(SECRET) + len(typed_text)), \
        f"the field holds {password_length()} characters"


def test_click_without_a_target_is_an_error(fixture_app):
    async def body(c):
        message = plain(await c.error("click_element", {}))
        assert "selector" in message and "index" in message, message

    run_session(body)


def test_click_with_selector_and_index_is_an_error(fixture_app, app_args):
    async def body(c):
        tree = parse_tree(await c.ok("get_window_tree", app_args))
        save = handle_of(tree, "Button", "Save")
        message = plain(await c.error("click_element", {"selector": "role:Button && name:Save",
                                                        "index": save}))
        assert "exactly one" in message, message
        # Nothing was clicked: Save is still where it was, and the status unchanged.
        after = parse_tree(await c.ok("get_window_tree", app_args))
        assert after == tree

    run_session(body)


def test_click_unknown_handle_is_an_error(fixture_app, app_args):
    async def body(c):
        await c.ok("get_window_tree", app_args)
        message = plain(await c.error("click_element", {"index": "#u99999"}))
        assert "#u99999" in message and "never given out" in message, message

    run_session(body)


def test_a_point_inside_an_element_is_clicked_there(fixture_app, app_args):
    """`#u3@140,35` is the point 140 right of #u3's left edge and 35 below its top:
    the fixture's canvas says where in its own pixels the click landed. A point
    outside the box, or a malformed one, is refused and clicks nothing."""
    async def body(c):
        tree = parse_tree(await c.ok("get_window_tree", app_args))
        canvas = handle_of(tree, "Canvas", "Canvas")
        for bad, says in ((f"{canvas}@900,10", "lies outside its box"),
                          (f"{canvas}@12", "#u3@120,45"),
                          ("#o1@1,1", "tree handle")):
            message = plain(await c.error("click_element", {"index": bad}))
            assert says in message, message
        answer = await c.ok("click_element", {"index": f"{canvas}@140,35"})
        assert "Canvas clicked at 140,35" in answer, answer
        after = await c.ok("get_window_tree", app_args)
        assert "Canvas clicked at 140,35" in after, after

    run_session(body)


def test_capture_screenshot_is_image_content_with_its_mapping(fixture_app, app_args):
    """A window's screenshot comes back as MCP image content (a real PNG of the
    window's size, scaled to max_dimension) with a caption that maps pixels back."""
    import base64
    import struct

    async def body(c):
        result = await c.call("capture_screenshot", {"window": fixture_app.title,
                                                     "annotate": True, "max_dimension": 400})
        assert not result.is_error, result
        images = [b for b in result.content if b.type == "image"]
        assert len(images) == 1 and images[0].mime_type == "image/png"
        png = base64.b64decode(images[0].data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png[16:24])
        assert width == 400 and height == 300, (width, height)
        caption = "".join(b.text for b in result.content if b.type == "text")
        assert "image x / 0.5" in caption and "elements marked" in caption, caption
        bad = await c.error("capture_screenshot", {"window": fixture_app.title, "zoom": 2})
        assert "zoom" in bad

    run_session(body)


def test_a_window_another_app_opens_is_told_with_its_app(desktop):
    # As a desktop portal's file chooser or a polkit prompt: the click changes
    # nothing in its own app, and another process shows a window a second or
    # so later. It is told in the click's answer when it came in time, else in
    # the next action's, with its app named either way.
    title = f"launcher {os.getpid()}"
    main = f"main {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", main,
                  "--launcher-window", title], title)
    pyatspi = pytest.importorskip("pyatspi")
    ask = {"selector": 'role:Button && name:"Ask another app"', "window": title}
    count = {"selector": "role:Button && text:Count", "window": main}
    meanwhile = re.compile(r"meanwhile, before this action, another app opened a window: "
                           r"\"Authentication required\" \(axsight-prompt, pid \d+\)")

    def prompt_shown():
        return poll(lambda: any(a is not None and a.name == "axsight-prompt" and a.childCount > 0
                                for a in pyatspi.Registry.getDesktop(0)), timeout=15)

    try:
        async def body(c):
            # Opened while no answer watched: told by the next action.
            await c.ok("click_element", count)
            await c.ok("click_element", {**ask, "ui_diff_before_after": False})
            assert prompt_shown()
            told = await c.ok("click_element", count)
            assert meanwhile.search(told), told
            again = await c.ok("click_element", count)
            assert "Authentication required" not in again, "told twice: " + again
            subprocess.run(["pkill", "-f", "fixture_app.py --prompt"], check=False)
            # Opened during the click's answer: in its diff, under its app.
            clicked = await c.ok("click_element", ask)
            if "Authentication required" in clicked:
                assert re.search(r"a window of another app, axsight-prompt, pid \d+, opened "
                                 r"meanwhile:\n +#u\d+ \[Window\] Authentication required \(",
                                 clicked), clicked
                assert "[Edit] Password (password" in clicked, clicked
            else:  # it came later than the answer waited
                assert prompt_shown()
                told = await c.ok("click_element", count)
                assert meanwhile.search(told), told

        run_session(body)
    finally:
        subprocess.run(["pkill", "-f", "fixture_app.py --prompt"], check=False)
        stop(app)


def test_a_control_the_app_disabled_since_the_last_answer_says_so(desktop):
    # KeePassXC saved by itself between two calls and disabled its Save: the
    # click on it said "disabled" where the last answer had shown it enabled.
    title = f"launcher {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", f"main {os.getpid()}",
                  "--launcher-window", title], title)
    pyatspi = pytest.importorskip("pyatspi")
    try:
        async def body(c):
            tree = parse_tree(await c.ok("get_window_tree", {"window": title}))
            later = handle_of(tree, "Button", "Save by itself")
            armed = await c.ok("click_element", {"selector": 'role:Button && name:"Arm it"',
                                                 "window": title})
            # It turns disabled after this answer, unseen.
            assert "Save by itself" not in armed, armed

            def insensitive():
                for a in pyatspi.Registry.getDesktop(0):
                    for node in pyatspi.findAllDescendants(a, lambda x: x.name == "Save by itself"):
                        return not node.getState().contains(pyatspi.STATE_SENSITIVE)
                return False
            assert poll(insensitive, timeout=10)
            clicked = await c.ok("click_element", {"index": later})
            assert "check: it is disabled (the app disabled it after the last answer, which " \
                   "showed it enabled)" in clicked, clicked
            # validate_element says so too, on the element's own line.
            shown = (await c.ok("validate_element", {"index": later})).splitlines()[0]
            assert re.search(r"\bdisabled\b", shown), shown

        run_session(body)
    finally:
        stop(app)
