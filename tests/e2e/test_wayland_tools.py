"""The MCP tools on a native Wayland session, through the official Python SDK client,
once per backend: a headless compositor (scripts/with-desktop --wayland sway|gnome|kde),
GNOME once more through the desktop portals (AXSIGHT_SCREEN=portal, with-desktop
--portals, their dialogs answered by tests/fixtures/portal_user.py), and KDE once
more with axsight unauthorised, so that it falls back to KDE's portals,
the fixture (GTK3), gnome-calculator (GTK4) and the Qt 6 fixture running as Wayland
clients, no X display at all.

Every answer is checked outside axsight where the desktop allows: where the
compositor put each window (sway's IPC; on GNOME, which tells no client, the Shell
extension's report of mutter's own rectangles; on KDE a KWin script of the test's
own), what the apps report about
themselves (pyatspi, window-relative on Wayland), and the screen's pixels (grim, a
separate screencopy client, on sway).
"""
import asyncio
import json
import os
import re
import shutil
import subprocess

import pytest

from pathlib import Path

from conftest import FIXTURE_APP, PrivateDesktop, kwin_window_list, poll
from test_mcp_server import AXSIGHT_BIN, parse_tree, handle_of, run_session

BOUNDS = re.compile(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]")
# What a client must pass for the server to reach a Wayland session.
WAYLAND_VARS = ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "XDG_CURRENT_DESKTOP",
                "XDG_SESSION_TYPE", "SWAYSOCK", "DBUS_SESSION_BUS_ADDRESS",
                "AT_SPI_BUS_ADDRESS", "AXSIGHT_SCREEN", "XDG_STATE_HOME")
PORTAL_USER = FIXTURE_APP.parent / "portal_user.py"
# Where install-deps unpacks the portals (with-desktop --portals finds them there).
PORTALS = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "axsight/portals"
MAIN = "axsight fixture"
SECOND = "second fixture window"
HEADER_BAR = "header bar fixture"
HEADER_BAR_APP = FIXTURE_APP.parent / "header_bar_app.py"
# Qt 6 joins the bus only without AT_SPI_BUS_ADDRESS (see the README's toolkits).
QT_APP = f"env -u AT_SPI_BUS_ADDRESS /usr/bin/python3 {FIXTURE_APP.parent / 'qt_fixture_app.py'}"

# Run by Debian's python3 inside the desktop (pyatspi binds to the bus of the
# process that imports it): each fixture element's name and window-relative box.
APP_FACTS = """
import json, sys, pyatspi
app = next(a for a in pyatspi.Registry.getDesktop(0) if a and a.name == sys.argv[1])
out = {}
def walk(node, window):
    try:
        e = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        out.setdefault(window, []).append(
            [node.getRoleName(), node.name, [e.x, e.y, e.width, e.height]])
    except NotImplementedError:
        pass
    for child in node:
        if child is not None:
            walk(child, window)
for window in app:
    walk(window, window.name)
print(json.dumps(out))
"""


COMPOSITORS = {"sway": "sway", "gnome": "gnome-shell", "kde": "kwin_wayland"}


@pytest.fixture(scope="module", params=["sway", "gnome", "gnome-portals", "kde", "kde-portals"])
def wayland(request, tmp_path_factory):
    """(compositor, environment) of a Wayland desktop with the fixture (and its
    second window), gnome-calculator and a header-bar window. On KDE the server
    is a copy of AXSIGHT_BIN without its debug info, which `axsight kde-authorize`
    (in with-desktop) authorises: KWin hashes an authorised client's executable
    at each connection, 6 s for the debug build with its debug info. Through
    the portals, the portal user answers every dialog while the module runs
    (its answers in env["AXSIGHT_PORTAL_LOG"], its mode in
    env["AXSIGHT_PORTAL_MODE"]). On KDE through the portals axsight is left
    unauthorised, so that KWin refuses it and it falls back to KDE's portals
    by itself (they ask nothing of an unsandboxed program)."""
    kind, _, through = request.param.partition("-")
    portals = through == "portals"
    if not shutil.which(COMPOSITORS[kind]):
        pytest.skip(f"{COMPOSITORS[kind]} is not installed (scripts/install-deps)")
    backend = {"gnome": "usr/libexec/xdg-desktop-portal-gnome",
               "kde": "usr/lib/*/libexec/xdg-desktop-portal-kde"}.get(kind)
    if portals and not list(PORTALS.glob(backend)):
        pytest.skip(f"the desktop portals are not unpacked in {PORTALS} (scripts/install-deps)")
    tmp = tmp_path_factory.mktemp(request.param)
    binary = AXSIGHT_BIN
    if kind == "kde":
        binary = tmp / "axsight"
        subprocess.run(["objcopy", "--strip-debug", str(AXSIGHT_BIN), str(binary)], check=True)
    authorize = {"AXSIGHT_KDE_AUTHORIZE": "off"} if portals and kind == "kde" else {}
    private = PrivateDesktop(
        wm=False, tmp_path=tmp, wayland=kind,
        env=os.environ | {"AXSIGHT_BIN": str(binary)} | authorize,
        apps=[f"/usr/bin/python3 {FIXTURE_APP} --second-window '{SECOND}'",
              "gnome-calculator", f"/usr/bin/python3 {HEADER_BAR_APP}", QT_APP],
        portals=portals)
    private.env["AXSIGHT_BIN"] = str(binary)
    private.env["AXSIGHT_TEST_DESKTOP"] = request.param
    user = None
    if portals and kind == "gnome":
        private.env |= {"AXSIGHT_SCREEN": "portal", "XDG_STATE_HOME": str(tmp / "state"),
                        "AXSIGHT_PORTAL_LOG": str(tmp / "answers.log"),
                        "AXSIGHT_PORTAL_MODE": str(tmp / "mode")}
        user = subprocess.Popen(["/usr/bin/python3", str(PORTAL_USER),
                                 private.env["AXSIGHT_PORTAL_LOG"],
                                 private.env["AXSIGHT_PORTAL_MODE"]],
                                env=private.env, stdin=subprocess.DEVNULL)
    try:
        yield kind, private.env
    finally:
        if user:
            user.kill()
            user.wait()
        private.close()


def session_env(env):
    return {k: env[k] for k in WAYLAND_VARS if env.get(k)}


def session(body, env):
    """An MCP session with the desktop's server binary, given only the session's
    variables."""
    run_session(body, env=session_env(env), binary=Path(env["AXSIGHT_BIN"]))


def run(env, *argv):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=20,
                          check=True).stdout


def app_facts(env, app):
    return json.loads(run(env, "/usr/bin/python3", "-c", APP_FACTS, app))


def sway_views(env):
    """{title: (content box on screen, surface offset)} as sway's IPC reports them."""
    views, todo = {}, [json.loads(run(env, "swaymsg", "-r", "-t", "get_tree"))]
    while todo:
        node = todo.pop()
        if node.get("pid"):
            r, w, g = node["rect"], node["window_rect"], node["geometry"]
            views[node["name"]] = ((r["x"] + w["x"], r["y"] + w["y"], w["width"], w["height"]),
                                   node["focused"])
        todo += node.get("nodes", []) + node.get("floating_nodes", [])
    return views


def shell_windows(env):
    """{title: (visible window box, focused)} as GNOME Shell (mutter's frame
    rectangles, reported by axsight's extension) has them."""
    out = run(env, "gdbus", "call", "--session", "--dest", "org.gnome.Shell",
              "--object-path", "/io/github/axsight/Shell",
              "--method", "io.github.axsight.Shell1.ListWindows")
    # ('[...]',)
    windows = json.loads(out.strip()[2:-3].encode().decode("unicode_escape"))
    return {w["title"]: (tuple(w["frame"]), w["focused"]) for w in windows}


def kwin_windows(env):
    """{title: (client area, focused)} as KWin has them: the client's surface
    where it lies inside the frame (KWin draws the title bar), else the frame
    (the app draws its own decorations)."""
    out = {}
    windows = kwin_window_list(env)
    for w in windows:
        (fx, fy, fw, fh), (bx, by, bw, bh) = w["frame"], w["buffer"]
        inside = fx <= bx and fy <= by and bx + bw <= fx + fw and by + bh <= fy + fh
        box = w["buffer"] if inside else w["frame"]
        out[w["title"]] = (tuple(round(v) for v in box), w["focused"])
    return out


def windows_of(kind, env):
    return {"sway": sway_views, "gnome": shell_windows, "kde": kwin_windows}[kind](env)


def frame_inset(facts_of_window, content):
    """Where the visible window starts inside an app's accessible frame: (0, 0)
    when the frame is the window, else its children's corner (a header bar
    starts at the visible window; the rest is a client-side shadow)."""
    boxes = [box for _, _, box in facts_of_window]
    frame = boxes[0]
    if abs(frame[2] - content[2]) <= 2 and abs(frame[3] - content[3]) <= 2:
        return 0, 0
    inside = [b for b in boxes[1:] if b[2] > 0 and b[3] > 0 and 0 <= b[0] < frame[2]
              and 0 <= b[1] < frame[3]]
    return min(b[0] for b in inside), min(b[1] for b in inside)


def bounds_in(line):
    return tuple(int(n) for n in BOUNDS.search(line).groups())


def tree_line(tree, role, name):
    return next(l for l in tree.splitlines() if f"[{role}] {name} (" in l or
                f"[{role}] {name}:" in l)


def grim_rgb(env, box):
    """The pixels of BOX as grim (not axsight) copies them, as raw PPM bytes."""
    x, y, w, h = box
    out = subprocess.run(["grim", "-t", "ppm", "-g", f"{x},{y} {w}x{h}", "-"], env=env,
                         capture_output=True, timeout=20, check=True).stdout
    # P6\nW H\n255\n then the pixels
    header_end = 0
    for _ in range(3):
        header_end = out.index(b"\n", header_end) + 1
    return out[header_end:]


def test_doctor_names_the_wayland_backend(wayland):
    kind, env = wayland
    out = subprocess.run([env["AXSIGHT_BIN"], "doctor"],
                         env=session_env(env) | {"PATH": os.environ["PATH"]},
                         capture_output=True, text=True, timeout=30).stdout
    screen = next(l for l in out.splitlines() if "screen:" in l)
    named = {"sway": "sway (wlroots)",
             "gnome": "GNOME (mutter): input through mutter's RemoteDesktop, screenshots "
                      "through GNOME Shell, window places from axsight's Shell extension",
             "gnome-portals": "GNOME (mutter) through the desktop portals: input through the "
                              "RemoteDesktop portal, screenshots through the Screenshot portal, "
                              "window places from axsight's Shell extension",
             "kde": "KDE (KWin): input through KWin's fake input, screenshots through KWin's "
                    "ScreenShot2, window places from KWin scripts",
             "kde-portals": "KDE (KWin): input through the RemoteDesktop portal, screenshots "
                            "through the Screenshot portal, window places from KWin scripts"}
    assert screen.startswith("ok") and named[env["AXSIGHT_TEST_DESKTOP"]] in screen, out


def test_tree_bounds_are_the_window_place_plus_the_element_place(wayland):
    kind, env = wayland
    views = windows_of(kind, env)
    facts = app_facts(env, "axsight-fixture")

    async def body(c):
        for title in (MAIN, SECOND):
            tree = await c.ok("get_window_tree", {"app": "axsight-fixture", "window": title})
            frame = bounds_in(tree.splitlines()[1])
            (x, y, w, h), _ = views[title]
            # On GNOME every GTK3 window draws its own decorations and shadow.
            left, top = frame_inset(facts[title], (x, y, w, h))
            fw, fh = facts[title][0][2][2:]
            assert frame == (x - left, y - top, fw, fh), (title, frame, views[title])
            for role, name, (ex, ey, ew, eh) in facts[title]:
                if role != "push button" or not name or ex < 0:
                    continue
                line = tree_line(tree, "Button", name)
                assert bounds_in(line) == (x - left + ex, y - top + ey, ew, eh), (line, ex, ey)

    session(body, env)


def test_a_header_bar_window_with_its_shadow_is_placed_and_clicked(wayland):
    """GTK3 with a header bar, floating: its accessible frame holds a shadow
    around the window sway shows, thinner at the top than at the bottom."""
    kind, env = wayland
    if kind != "sway":
        pytest.skip("the other backends' windows all float (and GNOME's GTK3 ones all "
                    "draw shadows: the bounds test covers them; KDE's calculator too)")
    run(env, "swaymsg", f'[title="{HEADER_BAR}"] floating enable')
    # Floating, then settled: sway drops its title bar once it sees the window
    # draws its own, which moves the window.
    seen = []

    def settled():
        seen.append(sway_views(env)[HEADER_BAR][0])
        return len(seen) > 3 and seen[-1][2] < 500 and len(set(seen[-4:])) == 1

    assert poll(settled), seen
    (x, y, w, h) = seen[-1]
    facts = app_facts(env, "header_bar_app.py")[HEADER_BAR]
    boxes = [box for _, _, box in facts]
    frame = boxes[0]
    assert frame[2] > w and frame[3] > h, (frame, w, h)
    # The header bar, the frame's first child, starts at the visible window
    # (elements off screen report no real box).
    inside = [b for b in boxes[1:] if b[2] > 0 and b[3] > 0 and 0 <= b[0] < frame[2]
              and 0 <= b[1] < frame[3]]
    left, top = min(b[0] for b in inside), min(b[1] for b in inside)
    assert (left, top) != (0, 0) and top < (frame[3] - h) - top, (left, top)
    hx, hy, hw, hh = next(box for _, name, box in facts if name == "Hit")

    async def body(c):
        tree = await c.ok("get_window_tree", {"app": "header_bar_app.py"})
        assert bounds_in(tree_line(tree, "Button", "Hit")) == (x - left + hx, y - top + hy,
                                                               hw, hh), (tree, left, top)
        clicked = await c.ok("click_element", {"app": "header_bar_app.py",
                                               "selector": "role:Button && name:Hit"})
        assert '"Hit" -> "Hit 1"' in clicked, clicked

    try:
        session(body, env)
    finally:
        # Out of the middle, where it would lie over the fixture's own floating
        # window, which the later tests click (tiled again, it would narrow the
        # Qt window's tile below the window's width).
        run(env, "swaymsg", f'[title="{HEADER_BAR}"] move position 1500 700')


def test_clicks_keys_and_text_land_and_answer_with_the_diff(wayland):
    kind, env = wayland

    async def body(c):
        args = {"app": "axsight-fixture", "window": MAIN}
        clicked = await c.ok("click_element", {**args, "selector": "role:Button && name:Count"})
        assert "with the pointer at" in clicked, clicked
        assert '"Count" -> "Count 1"' in clicked, clicked
        # Typed through the keyboard (a point, not an element): any Unicode.
        tree = await c.ok("get_window_tree", args)
        x, y, w, h = bounds_in(tree_line(tree, "Edit", "Name"))
        text = {"sway": "Grüße, 日本 € ✓ ω", "gnome": "Hello, GNOME! (1+2=3)",
                "kde": "Hello, KDE! (1+2=3)"}[kind]
        typed = await c.ok("type_into_element", {"x": x + w // 2, "y": y + h // 2,
                                                 "text": text})
        assert f'-> "{text}"' in typed, typed
        if kind != "sway":
            # mutter and KWin type only what the layout has: refused, not half typed.
            refused = await c.error("press_key", {**args, "key": "€"})
            assert "only what the keyboard layout has" in refused, refused
        # Chords: select all, then delete.
        keys = await c.ok("press_key", {**args, "key": "ctrl+a BackSpace"})
        assert f'"{text}" -> ""' in keys, keys
        shifted = await c.ok("press_key", {**args, "key": "shift+w a y"})
        assert '-> "Way"' in shifted, shifted
        # The clipboard: held by axsight, pasted by the app, read back.
        await c.ok("clipboard", {"text": "pasted ✓"})
        pasted = await c.ok("press_key", {**args, "key": "ctrl+a ctrl+v"})
        assert '"Way" -> "pasted ✓"' in pasted, pasted
        await c.ok("press_key", {**args, "key": "ctrl+a BackSpace"})
        read = await c.ok("clipboard", {})
        assert '"pasted ✓"' in read, read

    session(body, env)
    facts = app_facts(env, "axsight-fixture")[MAIN]
    assert any(name == "Count 1" for _, name, _ in facts), facts


def test_an_open_menus_items_have_no_boxes_and_take_their_action(wayland):
    """A GTK 3 menu's popup is a surface of its own, which no compositor
    places, and its items report boxes relative to it: they are printed
    without boxes rather than one popup away from where they are drawn, and a
    click on one takes its accessible action."""
    kind, env = wayland
    if env.get("AXSIGHT_SCREEN") == "portal":
        pytest.skip("no window places through the portals alone: no boxes anywhere")

    async def body(c):
        args = {"app": "axsight-fixture", "window": MAIN}
        opened = await c.ok("click_element", {**args, "selector": "role:Menu && name:File"})
        line = next(l for l in opened.splitlines() if re.search(r"\[MenuItem\] Open( \(|$)", l))
        assert not BOUNDS.search(line), opened
        assert BOUNDS.search(tree_line(await c.ok("get_window_tree", args), "Menu", "File"))
        handle = line.split()[0]
        chosen = await c.ok("click_element", {"index": handle})
        assert "through its accessible action" in chosen and "Open chosen" in chosen, chosen

    session(body, env)


def test_a_gtk4_calculator_is_driven_by_clicks(wayland):
    kind, env = wayland

    async def body(c):
        tree = await c.ok("get_window_tree", {"app": "gnome-calculator"})
        elements = parse_tree(tree)
        seven = handle_of(elements, "Button", "7")
        frame = bounds_in(tree.splitlines()[1])
        assert frame[:2] != (0, 0) or windows_of(kind, env)["Calculator"][0][:2] == (0, 0), tree
        for key in ("7", "×", "6", "="):
            handle = handle_of(elements, "Button", key)
            await c.ok("click_element", {"app": "gnome-calculator", "index": handle})
        shown = await c.ok("get_window_tree", {"app": "gnome-calculator"})
        assert "42" in shown, shown
        assert seven

    session(body, env)


def test_a_qt_window_is_clicked_where_it_is(wayland):
    """Qt 6, native on Wayland: sway draws its title bar, while on GNOME Qt draws
    its own outside its accessible frame; the pointer lands on Save either way."""
    kind, env = wayland

    async def body(c):
        args = {"app": "axsight-qt-fixture"}
        # Other windows may lie over it (sway tiles them, GNOME stacks them).
        await c.ok("activate_window", args)
        saved = await c.ok("click_element", {**args, "selector": "role:Button && name:Save"})
        assert "with the pointer at" in saved, saved
        assert '"Ready" -> "Saved"' in saved, saved

    session(body, env)


def test_screenshots_hold_the_pixels_of_the_element_boxes(wayland, tmp_path):
    kind, env = wayland

    async def body(c):
        # On top, so that the button's pixels are its own.
        await c.ok("activate_window", {"app": "axsight-fixture", "window": MAIN})
        tree = await c.ok("get_window_tree", {"app": "axsight-fixture", "window": MAIN})
        box = bounds_in(tree_line(tree, "Button", "Save"))
        picture = await picture_of(c, {"region": list(box)})
        assert picture.size == box[2:], picture.size
        if kind == "sway":
            assert picture.tobytes() == grim_rgb(env, box)
        else:
            # No screenshot tool but the shell's own: the region is the same
            # pixels as that part of the whole screen, and not blank.
            whole = await picture_of(c, {"max_dimension": 4000})
            x, y, w, h = box
            assert whole.crop((x, y, x + w, y + h)).tobytes() == picture.tobytes()
            assert len(set(picture.getdata())) > 10

    session(body, env)


async def picture_of(c, args):
    import base64
    import io
    from PIL import Image
    shot = await c.call("capture_screenshot", args)
    assert not shot.is_error, shot
    image = next(b for b in shot.content if b.type == "image")
    return Image.open(io.BytesIO(base64.b64decode(image.data))).convert("RGB")


def test_windows_are_activated_moved_and_a_dialog_shows_in_the_diff(wayland):
    kind, env = wayland

    async def body(c):
        activated = await c.ok("activate_window", {"app": "axsight-fixture",
                                                   "window": SECOND})
        assert poll(lambda: windows_of(kind, env)[SECOND][1]), activated
        moved = await c.ok("move_window", {"app": "axsight-fixture", "window": SECOND,
                                           "x": 300, "y": 200})
        # The app's part of the window goes there, under KWin's title bar too
        # (as on X11 and sway), and the answer says where it is.
        content = windows_of(kind, env)[SECOND][0]
        assert content[:2] == (300, 200), moved
        assert "check: its content is at [{},{},{},{}]".format(*content) in moved, moved
        tree = await c.ok("get_window_tree", {"app": "axsight-fixture", "window": SECOND})
        facts = app_facts(env, "axsight-fixture")[SECOND]
        left, top = frame_inset(facts, content)
        # The content is the frame, but under KWin's title bar.
        assert bounds_in(tree.splitlines()[1])[:2] == (content[0] - left, content[1] - top), tree
        # The main window first: a click that also moves the focus settles on
        # the focus change, before a dialog that opens later.
        await c.ok("activate_window", {"app": "axsight-fixture", "window": MAIN})
        assert poll(lambda: windows_of(kind, env)[MAIN][1])
        opened = await c.ok("click_element", {"app": "axsight-fixture", "window": MAIN,
                                              "selector": 'role:Button && name:"Open dialog later"'})
        assert "Delayed dialog" in opened, opened
        dialog = await c.ok("get_window_tree", {"app": "axsight-fixture",
                                                "window": "Delayed dialog"})
        (x, y, w, h), _ = windows_of(kind, env)["Delayed dialog"]
        facts = app_facts(env, "axsight-fixture")["Delayed dialog"]
        left, top = frame_inset(facts, (x, y, w, h))
        fw, fh = facts[0][2][2:]
        assert bounds_in(dialog.splitlines()[1]) == (x - left, y - top, fw, fh), dialog
        closed = await c.ok("click_element", {"app": "axsight-fixture",
                                              "window": "Delayed dialog",
                                              "selector": "role:Button && name:OK"})
        assert "Delayed dialog" in closed, closed

    session(body, env)


def placed(kind, env, title):
    """(visible frame, minimized) of the window TITLE as the compositor has it."""
    if kind == "kde":
        w = next(w for w in kwin_window_list(env) if w["title"] == title)
    else:
        out = run(env, "gdbus", "call", "--session", "--dest", "org.gnome.Shell",
                  "--object-path", "/io/github/axsight/Shell",
                  "--method", "io.github.axsight.Shell1.ListWindows")
        windows = json.loads(out.strip()[2:-3].encode().decode("unicode_escape"))
        w = next(w for w in windows if w["title"] == title)
    return tuple(round(v) for v in w["frame"]), w["minimized"]


def test_a_window_is_maximized_minimized_and_restored(wayland):
    """On the stacking desktops (sway's maximize is its fullscreen, its minimize
    the scratchpad: its own test bed's), each answer against the compositor."""
    kind, env = wayland
    if kind == "sway":
        pytest.skip("sway tiles: maximize and minimize mean other things there")
    args = {"app": "gnome-calculator"}

    async def body(c):
        before, _ = placed(kind, env, "Calculator")
        big = await c.ok("maximize_window", args)
        frame, _ = placed(kind, env, "Calculator")
        assert frame[2] > 1000 and frame[3] > 700, (big, frame)
        assert bounds_in(big)[2:] == frame[2:], (big, frame)
        back = await c.ok("maximize_window", {**args, "restore": True})
        # GTK4's calculator sizes its restored window itself (12 px taller here).
        (_, _, width, height), _ = placed(kind, env, "Calculator")
        assert width == before[2] and abs(height - before[3]) <= 20, (back, before)
        gone = await c.ok("minimize_window", args)
        assert placed(kind, env, "Calculator")[1], gone
        shown = await c.ok("minimize_window", {**args, "restore": True})
        assert not placed(kind, env, "Calculator")[1], shown

    session(body, env)


def test_kdes_portal_pointer_starts_where_kwin_shows_it(wayland):
    """Unauthorised on KDE, the pointer moves through KDE's RemoteDesktop portal
    by relative motion from where KWin shows it: after another program moved it
    (a CLI click in a field), the server's next click on Count lands on Count,
    not where the server left the pointer."""
    kind, env = wayland
    if env["AXSIGHT_TEST_DESKTOP"] != "kde-portals":
        pytest.skip("KDE's portal pointer")
    args = {"app": "axsight-fixture", "window": MAIN}
    count = {**args, "selector": "role:Button && text:Count"}

    async def body(c):
        tree = await c.ok("get_window_tree", args)
        n = int(re.search(r"\[Button\] Count (\d+)", tree).group(1))
        first = await c.ok("click_element", count)
        assert f'"Count {n}" -> "Count {n + 1}"' in first and "with the pointer at" in first, first
        x, y, w, h = bounds_in(tree_line(tree, "Edit", "Name"))
        other = subprocess.run([env["AXSIGHT_BIN"], "click", f"{x + w // 2},{y + h // 2}"],
                               env=session_env(env), capture_output=True, text=True,
                               timeout=60)
        assert other.returncode == 0 and "with the pointer" in other.stdout, other
        second = await c.ok("click_element", count)
        assert f'"Count {n + 1}" -> "Count {n + 2}"' in second, second

    session(body, env)


def test_a_compositor_without_a_backend_is_served_through_the_portals_alone(wayland):
    """A compositor axsight has no backend for (the session names Weston) gets
    the portals' own screen: no window places, so the tree has no boxes and an
    element's click takes its accessible action, while the pointer and keys act
    at a point and screenshots come whole."""
    kind, env = wayland
    if env.get("AXSIGHT_SCREEN") != "portal":
        pytest.skip("the portals' own test")
    # On top first, through GNOME's screen (the portals alone move no window).
    session(lambda c: c.ok("activate_window", {"app": "axsight-fixture", "window": MAIN}),
            env)
    other = env | {"XDG_CURRENT_DESKTOP": "Weston", "AXSIGHT_SCREEN": ""}
    out = subprocess.run([env["AXSIGHT_BIN"], "doctor"],
                         env=session_env(other) | {"PATH": os.environ["PATH"]},
                         capture_output=True, text=True, timeout=60).stdout
    screen = next(l for l in out.splitlines() if "screen:" in l)
    assert screen.startswith("ok") and (
        "Wayland through the desktop portals: input through the RemoteDesktop portal, "
        "screenshots through the Screenshot portal; no window places") in screen, out
    (wx, wy, ww, wh), _ = shell_windows(env)[MAIN]
    facts = app_facts(env, "axsight-fixture")[MAIN]
    left, top = frame_inset(facts, (wx, wy, ww, wh))
    bx, by, bw, bh = next(box for role, name, box in facts
                          if name.startswith("Count") and role == "push button")
    x, y = wx - left + bx + bw // 2, wy - top + by + bh // 2

    async def body(c):
        args = {"app": "axsight-fixture", "window": MAIN}
        tree = await c.ok("get_window_tree", args)
        assert not any(BOUNDS.search(line) for line in tree.splitlines()), tree
        # Clicked before in this desktop: "Count 1" by now.
        clicked = await c.ok("click_element", {**args, "selector": "role:Button && text:Count"})
        assert "accessible action" in clicked and '-> "Count ' in clicked, clicked
        # Keys through the portal's keyboard, into the field that has the focus.
        field = {**args, "selector": "role:Edit && name:Name"}
        keyed = await c.ok("press_key", {**field, "key": "p o r t a l"})
        assert '"" -> "portal"' in keyed, keyed
        await c.ok("press_key", {**field, "key": "ctrl+a BackSpace"})
        # The pointer at a point (where mutter put the button), as a point from
        # a screenshot's source would be clicked.
        count = re.search(r"\[Button\] Count (\d+)",
                          await c.ok("get_window_tree", args)).group(1)
        # No window is known there: clicked blind, with no diff.
        pointed = await c.ok("click_element", {"x": x, "y": y})
        assert f"at ({x}, {y}) with the pointer; no diff" in pointed, pointed
        # A blind click waits for nothing: the counter is read until it shows.
        for _ in range(50):
            after = await c.ok("get_window_tree", args)
            if f"Count {int(count) + 1}" in after:
                break
            await asyncio.sleep(0.1)
        assert f"Count {int(count) + 1}" in after, (pointed, after)
        whole = await picture_of(c, {"max_dimension": 4000})
        assert whole.size == (1920, 1080) and len(set(whole.getdata())) > 10, whole.size

    session(body, other)


def test_the_portals_ask_the_user_and_a_refusal_is_told(wayland):
    """Through the portals every server above started a remote desktop the user
    allowed in GNOME's dialog (RemoteDesktop version 1 here: no restore token, so
    it asks each time), and the Screenshot portal asked once; a refused dialog
    leaves no screen, and says so."""
    kind, env = wayland
    if env.get("AXSIGHT_SCREEN") != "portal":
        pytest.skip("the portals' own test")
    answers = Path(env["AXSIGHT_PORTAL_LOG"]).read_text().splitlines()
    asked = [a for a in answers if a.startswith("allowed xdg-desktop-portal-gnome Remote desktop")]
    assert len(asked) >= 5, answers
    assert sum("xdg-desktop-portal-gtk" in a for a in answers) == 1, answers
    token = Path(env["XDG_STATE_HOME"]) / "axsight/remote-desktop-portal.token"
    assert not token.exists(), "a version 1 portal gives no token to keep"

    Path(env["AXSIGHT_PORTAL_MODE"]).write_text("deny")
    try:
        doctor = subprocess.run([env["AXSIGHT_BIN"], "doctor"],
                                env=session_env(env) | {"PATH": os.environ["PATH"],
                                                        "AXSIGHT_LOG": "warn"},
                                capture_output=True, text=True, timeout=60)
    finally:
        Path(env["AXSIGHT_PORTAL_MODE"]).write_text("allow")
    screen = next(l for l in doctor.stdout.splitlines() if "screen:" in l)
    # No screen, and no fallback to an X display the session does not name (the
    # suite's own Xvfb may be the only X socket here).
    assert screen.startswith("warn") and "RemoteDesktop.Start was refused" in screen, doctor
    assert Path(env["AXSIGHT_PORTAL_LOG"]).read_text().splitlines()[-1].startswith(
        "denied xdg-desktop-portal-gnome Remote desktop"), doctor
