"""Several monitors, and points read off screenshots.

One screen space holds every monitor: on X11 the X screen, which RandR divides
into monitors; on Wayland the compositor's layout, in logical pixels, where an
output may sit left of or above the primary (negative origins) and have a scale
of its own. For each layout a window is read, seen (OCR agrees with its boxes)
and clicked by pointer on each monitor and across the edge between two.

A point an agent reads off a screenshot is mapped back by the caption's line
(`screen x = X + image x / S`): the tests find the fixture's blue rectangle in
the image by its colour, as an agent's eye would, click the mapped point, and
check where the app says the click landed (its canvas names the point in its
own pixels). That holds for an image scaled down for the client, on a scaled
app, on a second monitor and on a scaled output.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

import pytest

from conftest import REPO, PrivateDesktop
from test_fall_through import onnxruntime_library, sightings
from test_mcp_server import (AXSIGHT_BIN, DESKTOP_VARS, handle_of, parse_tree, run_session,
                             text_of)
from test_scaling import GTK3_FIXTURE, PID, QT_FIXTURE, SET_GNOME_MONITORS, box_on, inside
from test_wayland_tools import WAYLAND_VARS, picture_of

SET_MONITORS = REPO / "tests" / "fixtures" / "set_monitors.py"
# The fixture's canvas paints a rectangle of this colour from (10, 10) to (90, 60)
# of its own pixels, and its status line says where a click on the canvas landed.
BLUE = (51, 102, 204)
BLUE_CENTRE = (50, 35)
MAPPING = re.compile(r"screen x = (-?\d+) \+ image x / ([\d.]+), "
                     r"screen y = (-?\d+) \+ image y / ([\d.]+)")
LANDED = re.compile(r"Canvas clicked at (\d+),(\d+)")


def environment_of(private, names):
    env = {name: private.env[name] for name in names if private.env.get(name)}
    library = onnxruntime_library()
    if library:
        env["AXSIGHT_ONNXRUNTIME"] = library
    return env


def colour_centre(picture, colour, tolerance=16):
    """The centre, in image pixels, of the largest patch of COLOUR in PICTURE (a
    PIL image): other things of a like colour (a title bar, a tab's underline)
    are smaller."""
    width, height = picture.size
    pixels = picture.load()
    matching = {(x, y) for y in range(height) for x in range(width)
                if all(abs(a - b) <= tolerance for a, b in zip(pixels[x, y], colour))}
    largest = []
    while matching:
        patch, todo = [], [matching.pop()]
        while todo:
            x, y = todo.pop()
            patch.append((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in matching:
                    matching.remove(near)
                    todo.append(near)
        largest = max(largest, patch, key=len)
    assert largest, f"no pixel of {colour} in the {width}x{height} image"
    xs = [x for x, _ in largest]
    ys = [y for _, y in largest]
    return (min(xs) + max(xs) + 1) / 2, (min(ys) + max(ys) + 1) / 2


async def click_read_off_the_image(c, app, shot_args, tolerance=4):
    """Captures SHOT_ARGS, finds the fixture's blue rectangle in the image, clicks
    the screen point the caption maps its centre to, and checks that APP's
    canvas says the click landed at the rectangle's centre."""
    # The status line says something else first, so that the click must change it.
    await c.ok("click_element", {**app, "selector": "role:Button && name:Save"})
    shot = await c.call("capture_screenshot", shot_args)
    caption = text_of(shot)
    mapping = MAPPING.search(caption)
    assert mapping, caption
    left, x_scale, top, y_scale = (float(v) for v in mapping.groups())
    picture = await picture_of(c, shot_args)
    image_x, image_y = colour_centre(picture, BLUE)
    x, y = round(left + image_x / x_scale), round(top + image_y / y_scale)
    clicked = await c.ok("click_element", {"x": x, "y": y})
    landed = LANDED.search(clicked)
    assert "with the pointer" in clicked and landed, clicked
    at = (int(landed[1]), int(landed[2]))
    assert all(abs(a - b) <= tolerance for a, b in zip(at, BLUE_CENTRE)), \
        f"read off the image at ({image_x}, {image_y}) -> ({x}, {y}); landed at {at}: {caption}"
    return caption


async def open_fixture(c, title, env_prefix="", fixture=GTK3_FIXTURE):
    opened = text_of(await c.call("open_application", {
        "app": f"{env_prefix}/usr/bin/python3 {fixture} --title {shlex.quote(title)}",
        "timeout_ms": 30_000}, timeout=60))
    started = PID.search(opened.splitlines()[0])
    assert started, opened
    return int(started[1])


async def qt_read_and_clicked_at(c, x, y):
    """Opens the Qt fixture on Wayland, moves it to (X, Y) (Qt counts its boxes
    from its screen's place in the layout, not from its window), and reads and
    clicks its Count button there."""
    title = f"qt at {x},{y} {os.getpid()}"
    pid = await open_fixture(c, title, "env -u AT_SPI_BUS_ADDRESS QT_QPA_PLATFORM=wayland ",
                             QT_FIXTURE)
    try:
        app = {"app": "axsight-qt-fixture", "window": title}
        await c.ok("move_window", {**app, "x": x, "y": y})
        box = await read_and_click(c, app, "Button", "Count", '"Count" -> "Count 1"')
        assert box[0] >= x, box
    finally:
        os.kill(pid, signal.SIGTERM)


async def read_and_click(c, app, role, label, pressed):
    """Reads APP's tree with OCR, checks that OCR reads the LABEL of its ROLE
    element inside the element's box, clicks the box's centre and checks the
    answer holds PRESSED. Returns the box."""
    text = await c.ok("get_window_tree", {**app, "include_ocr": True})
    box = box_on(text, handle_of(parse_tree(text), role, label))
    read = [b for t, b in sightings(text).values() if label.lower() in t.lower()]
    # OCR pads its lines by a few pixels: the centre of what it read is inside.
    assert any(inside((x + w // 2, y + h // 2, 0, 0), box, slack=0) for x, y, w, h in read), \
        (label, read, box, text)
    x, y, w, h = box
    clicked = await c.ok("click_element", {"x": x + w // 2, "y": y + h // 2})
    assert "with the pointer" in clicked and pressed in clicked, clicked
    return box


def test_two_monitors_on_x11(tmp_path):
    """Two RandR monitors side by side on one X screen: get_applications names
    them; a window on the right one is read, seen, clicked and captured there; a
    window across the edge is clicked on each side of it; and a point read off
    a screenshot scaled down for the client lands where it was read."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path, size="2560x800")
    try:
        subprocess.run([sys.executable, str(SET_MONITORS), "LEFT=1280x800+0+0",
                        "RIGHT=1280x800+1280+0"], env=private.env, check=True,
                       capture_output=True)
        title = f"right monitor {os.getpid()}"
        app = {"app": "axsight-fixture", "window": title}

        async def body(c):
            pid = await open_fixture(c, title)
            try:
                listed = await c.ok("get_applications")
                assert "screen: 2 outputs: LEFT [0,0,1280,800] primary; " \
                       "RIGHT [1280,0,1280,800]" in listed, listed
                moved = await c.ok("move_window", {**app, "x": 1400, "y": 100})
                assert "[1400,100," in moved, moved
                box = await read_and_click(c, app, "Button", "Count", '"Count" -> "Count 1"')
                assert box[0] >= 1400, box
                caption = await click_read_off_the_image(
                    c, app, {"region": [1280, 0, 1280, 800], "max_dimension": 800})
                assert "screen x = 1280 + image x / 0.625" in caption, caption

                # Across the edge at x = 1280: the left column on LEFT, the
                # notebook's tabs on RIGHT.
                await c.ok("move_window", {**app, "x": 900, "y": 100})
                count = await read_and_click(c, app, "Button", "Count 1", '"Count 1" -> "Count 2"')
                tab = await read_and_click(c, app, "TabItem", "Advanced", "selected no -> yes")
                assert count[0] + count[2] < 1280 < tab[0], (count, tab)
                await click_read_off_the_image(c, app, {**app, "max_dimension": 500})
            finally:
                os.kill(pid, signal.SIGTERM)

        run_session(body, env=environment_of(private, DESKTOP_VARS), deadline=180)
    finally:
        private.close()


def test_a_point_read_off_an_image_of_a_scaled_app(tmp_path):
    """GTK at GDK_SCALE=2 under openbox: the window's screenshot, scaled down for
    the client, maps a point read off it to where the app draws it."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path, size="2400x1600")
    try:
        title = f"scaled image {os.getpid()}"

        async def body(c):
            pid = await open_fixture(c, title, env_prefix="env GDK_SCALE=2 ")
            try:
                app = {"app": "axsight-fixture", "window": title}
                await c.ok("move_window", {**app, "x": 300, "y": 200})
                await click_read_off_the_image(c, app, {**app, "max_dimension": 700})
            finally:
                os.kill(pid, signal.SIGTERM)

        run_session(body, env=environment_of(private, DESKTOP_VARS), deadline=120)
    finally:
        private.close()


@pytest.mark.skipif(not shutil.which("sway"), reason="sway is not installed")
def test_two_sway_outputs_of_different_scales(tmp_path):
    """sway with a second output at scale 2 left of and above the primary (its
    logical box [-1000,-200,1000,700]): the layout's outputs are listed, a
    window on the second output is read, seen and clicked there, a window
    across both is clicked on each side, and points read off screenshots of
    each land where they were read."""
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland="sway", size="1280x800")
    try:
        def swaymsg(*command):
            subprocess.run(["swaymsg", "--", *command], env=private.env, check=True,
                           capture_output=True)

        swaymsg("create_output")
        swaymsg("output", "HEADLESS-1", "pos", "0", "0")
        swaymsg("output", "HEADLESS-2", "mode", "2000x1400", "pos", "-1000", "-200",
                "scale", "2")
        title = f"second output {os.getpid()}"
        app = {"app": "axsight-fixture", "window": title}

        async def body(c):
            pid = await open_fixture(c, title, env_prefix="env GDK_BACKEND=wayland ")
            try:
                listed = await c.ok("get_applications")
                assert re.search(r"screen: 2 outputs: HEADLESS-1 \[0,0,1280,800\].*; "
                                 r"HEADLESS-2 \[-1000,-200,1000,700\] scale 2", listed), listed
                swaymsg(f"[title=\"{title}\"]", "move", "to", "output", "HEADLESS-2")
                box = await read_and_click(c, app, "Button", "Count", '"Count" -> "Count 1"')
                assert box[0] < 0 and box[1] < 500, box
                await click_read_off_the_image(c, app, {**app, "max_dimension": 600})
                caption = await click_read_off_the_image(
                    c, app, {"region": [-1000, -200, 1000, 700]})
                assert "screen x = -1000 + image x / 1" in caption, caption

                # Across the edge at x = 0: made floating and moved.
                moved = await c.ok("move_window", {**app, "x": -360, "y": -150})
                assert "[-360,-150," in moved, moved
                count = await read_and_click(c, app, "Button", "Count 1", '"Count 1" -> "Count 2"')
                tab = await read_and_click(c, app, "TabItem", "Advanced", "selected no -> yes")
                assert count[0] + count[2] < 0 < tab[0], (count, tab)
                await click_read_off_the_image(c, app, {**app, "max_dimension": 500})
            finally:
                os.kill(pid, signal.SIGTERM)
            await qt_read_and_clicked_at(c, -900, -150)

        run_session(body, env=environment_of(private, WAYLAND_VARS), deadline=180)
    finally:
        private.close()


def test_two_gnome_monitors_of_different_scales(tmp_path):
    """GNOME in its logical layout with a monitor at scale 2 left of the
    primary at 1 (mutter places none at negative or detached origins): the
    outputs are listed, a window on the scaled monitor is read, seen and
    clicked there, one across the edge is clicked on each side, points read
    off screenshots land where they were read, and Qt on the primary (at
    x = 960) is placed right."""
    if not shutil.which("gnome-shell"):
        pytest.skip("gnome-shell is not installed")
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland="gnome", size="1920x1080",
                             flags=["--monitors", "2", "--fractional"])
    try:
        subprocess.run(["/usr/bin/python3", str(SET_GNOME_MONITORS), "Meta-1:1@960,0",
                        "Meta-0:2@0,0"], env=private.env, check=True, capture_output=True)
        title = f"gnome monitors {os.getpid()}"
        app = {"app": "axsight-fixture", "window": title}

        async def body(c):
            listed = await c.ok("get_applications")
            assert "screen: 2 outputs: Meta-1 [960,0,1920,1080] primary; " \
                   "Meta-0 [0,0,960,540] scale 2" in listed, listed
            pid = await open_fixture(c, title, env_prefix="env GDK_BACKEND=wayland ")
            try:
                await c.ok("move_window", {**app, "x": 40, "y": 0})
                box = await read_and_click(c, app, "Button", "Count", '"Count" -> "Count 1"')
                assert box[0] + box[2] < 960 and box[1] + box[3] < 540, box
                await click_read_off_the_image(c, app, {**app, "max_dimension": 600})
                caption = await click_read_off_the_image(c, app, {"region": [0, 0, 960, 540]})
                assert "screen x = 0 + image x / 1," in caption, caption

                # Across the edge at x = 960.
                await c.ok("move_window", {**app, "x": 600, "y": 0})
                count = await read_and_click(c, app, "Button", "Count 1", '"Count 1" -> "Count 2"')
                tab = await read_and_click(c, app, "TabItem", "Advanced", "selected no -> yes")
                assert count[0] + count[2] < 960 < tab[0], (count, tab)
            finally:
                os.kill(pid, signal.SIGTERM)
            await qt_read_and_clicked_at(c, 1300, 200)

        run_session(body, env=environment_of(private, WAYLAND_VARS), deadline=180)
    finally:
        private.close()


def test_two_kde_outputs(tmp_path):
    """KWin with two outputs at scale 2 side by side: both are listed with their
    scale, and the GTK fixture and Qt (which counts its boxes from its output's
    place) are read, seen and clicked on the second."""
    if not shutil.which("kwin_wayland"):
        pytest.skip("kwin_wayland is not installed")
    binary = tmp_path / "axsight"
    # KWin hashes an authorised client's executable: without debug info it is quick.
    subprocess.run(["objcopy", "--strip-debug", str(AXSIGHT_BIN), str(binary)], check=True)
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland="kde", size="1280x800",
                             env=os.environ | {"AXSIGHT_BIN": str(binary)},
                             flags=["--monitors", "2", "--scale", "2"])
    try:
        title = f"second kde output {os.getpid()}"
        app = {"app": "axsight-fixture", "window": title}

        async def body(c):
            listed = await c.ok("get_applications")
            assert re.search(r"screen: 2 outputs: \S+ \[0,0,1280,800\] scale 2; "
                             r"\S+ \[1280,0,1280,800\] scale 2", listed), listed
            pid = await open_fixture(c, title, env_prefix="env GDK_BACKEND=wayland ")
            try:
                await c.ok("move_window", {**app, "x": 1400, "y": 60})
                box = await read_and_click(c, app, "Button", "Count", '"Count" -> "Count 1"')
                assert box[0] > 1400, box
                await click_read_off_the_image(c, app, {**app, "max_dimension": 500})
            finally:
                os.kill(pid, signal.SIGTERM)
            await qt_read_and_clicked_at(c, 1500, 100)

        run_session(body, env=environment_of(private, WAYLAND_VARS), deadline=180,
                    binary=binary)
    finally:
        private.close()
