"""True geometry on scaled X11 screens: every box an agent gets is in the
screen's pixels, whatever scale the app draws at.

On X11 an app scales itself (GTK's GDK_SCALE, Qt's QT_SCALE_FACTOR, Chromium's
device scale factor) and reports logical pixels (GTK4 window-relative ones;
Chromium's pages device pixels). For each toolkit and scale, on a desktop with a
window manager (windows placed away from the screen's corner, so that a box
that is only scaled, or only moved, is wrong):

- the box of a button is the scale-1 box times the scale, give or take the
  rounding of its edges;
- the pixels agree: OCR reads the button's label inside that box (the `#o` line
  names the button's handle);
- a pointer click at the box's centre, by coordinates, presses the button.
"""
import asyncio
import os
import re
import shlex
import shutil
import signal
import subprocess
import time

import pytest

from conftest import REPO, PrivateDesktop
from test_fall_through import onnxruntime_library, sightings
from test_wayland_tools import WAYLAND_VARS
from conftest import WAIT_FOR_APP
from test_mcp_server import (AXSIGHT_BIN, DESKTOP_VARS, handle_of, parse_tree, run_session,
                             text_of)

GTK3_FIXTURE = REPO / "tests" / "fixtures" / "fixture_app.py"
GTK4_FIXTURE = REPO / "tests" / "fixtures" / "gtk4_fixture_app.py"
QT_FIXTURE = REPO / "tests" / "fixtures" / "qt_fixture_app.py"
PID = re.compile(r", pid (\d+)\)")
BOUNDS = re.compile(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]\)?$")
CHROMIUM = next((c for c in ("/usr/lib/chromium/chromium", shutil.which("chromium") or "")
                 if c and os.path.exists(c)), None)
PAGE = ('data:text/html,<title>scale probe</title><body style="margin:0">'
        '<button style="position:absolute;left:100px;top:80px;width:200px;height:40px" '
        'onclick="this.textContent=\'Count \'+(++window.n)">Count</button>'
        '<script>window.n=0</script>')


def gtk3(scale, title):
    return (f"env GDK_SCALE={scale} /usr/bin/python3 {GTK3_FIXTURE} --title {shlex.quote(title)}",
            "Count", "Count 1")


def gtk4(scale, title):
    return (f"env GDK_SCALE={scale} /usr/bin/python3 {GTK4_FIXTURE} --title {shlex.quote(title)}",
            "Open modal", None)


def qt(scale, title):
    # Qt 6.4 joins the accessibility bus only without AT_SPI_BUS_ADDRESS.
    return (f"env -u AT_SPI_BUS_ADDRESS QT_SCALE_FACTOR={scale} /usr/bin/python3 {QT_FIXTURE} "
            f"--title {shlex.quote(title)}", "Count", "Count 1")


def chromium(scale, title, profile):
    return (shlex.join([CHROMIUM, "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--password-store=basic", "--force-renderer-accessibility",
                        f"--force-device-scale-factor={scale}", f"--user-data-dir={profile}",
                        PAGE]), "Count", "Count 1")


@pytest.fixture(scope="module")
def openbox(tmp_path_factory):
    """A desktop of its own with openbox, which places each window away from (0, 0)."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path_factory.mktemp("scaling"))
    try:
        env = {name: private.env[name] for name in DESKTOP_VARS if private.env.get(name)}
        library = onnxruntime_library()
        if library:
            env["AXSIGHT_ONNXRUNTIME"] = library
        yield env
    finally:
        private.close()


def box_on(text, handle):
    line = next(l for l in text.splitlines() if l.strip().startswith(handle + " "))
    bounds = BOUNDS.search(line)
    assert bounds, f"{handle} has no box:\n{text}"
    return tuple(int(n) for n in bounds.groups())


def inside(inner, outer, slack=4):
    """Whether INNER lies in OUTER, give or take SLACK pixels (OCR pads its lines)."""
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return (ox - slack <= x and oy - slack <= y
            and x + w <= ox + ow + slack and y + h <= oy + oh + slack)


async def until_listed(c, app, label, timeout=30):
    """Waits until the window APP names shows a button LABEL (a page loads late)."""
    async def shown():
        result = await c.call("get_window_tree", app)
        return not result.is_error and f"[Button] {label}" in text_of(result)
    deadline = time.monotonic() + timeout
    while not await shown():
        assert time.monotonic() < deadline, f"{app} showed no {label!r} button"
        await asyncio.sleep(0.25)


def read_at_scales(env, toolkit, scales, tmp_path, scale_screen=None, binary=None):
    """Opens the app at each scale in turn (the app's own, or the screen's
    through SCALE_SCREEN(scale) where given); for each, checks the button's box
    against OCR and a pointer click, and returns the boxes by scale. BINARY is
    the axsight to serve, AXSIGHT_BIN unless given."""
    boxes = {}

    async def body(c):
        for scale in scales:
            if scale_screen:
                scale_screen(scale)
            title = f"scaled {toolkit} {str(scale).replace('.', '_')} {os.getpid()}"
            if toolkit == "chromium":
                # Started by hand: open_application would start it its own way,
                # through DevTools.
                command, label, pressed = chromium(scale, title, tmp_path / f"profile-{scale}")
                app = {"app": "chromium"}
                proc = subprocess.Popen(shlex.split(command), env=os.environ | env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                pid = proc.pid
                await until_listed(c, app, label)
            else:
                command, label, pressed = TOOLKITS[toolkit](scale, title)
                app = {"app": APP_NAMES[toolkit], "window": title}
                opened = text_of(await c.call("open_application",
                                              {"app": command, "timeout_ms": 30_000}, timeout=60))
                started = PID.search(opened.splitlines()[0])
                assert started, opened
                pid = int(started[1])
            try:
                text = await c.ok("get_window_tree", {**app, "include_ocr": True})
                button = handle_of(parse_tree(text), "Button", label)
                box = box_on(text, button)
                boxes[scale] = box
                # The pixels: OCR reads the label inside the box, and names the button.
                read = [(t, b) for t, b in sightings(text).values() if label.lower() in t.lower()]
                assert read, f"{toolkit} at {scale}: OCR did not read {label!r}:\n{text}"
                assert any(inside(b, box) for _, b in read), \
                    f"{toolkit} at {scale}: {label!r} is read at {read}, not inside {box}"
                assert re.search(rf'"[^"]*{label}[^"]*" \[[^]]*\] [\d.]+ = {button}\b', text), text
                # Input: a pointer click at the box's centre presses it.
                x, y, w, h = box
                clicked = await c.ok("click_element", {"x": x + w // 2, "y": y + h // 2})
                assert "with the pointer" in clicked, clicked
                if pressed:
                    assert f'"{label}" -> "{pressed}"' in clicked, clicked
                elif "[Dialog] Modal question" not in clicked:
                    # The press is what is tested: on a loaded machine the
                    # dialog may show after the click's answer has settled.
                    await c.ok("wait_for_element", {
                        "app": app["app"], "selector": 'role:Dialog && name:"Modal question"',
                        "timeout_ms": 10_000})
            finally:
                os.kill(pid, signal.SIGTERM)
                if toolkit == "chromium":
                    # The next scale's browser must not find this one's window.
                    proc.wait(timeout=20)

    run_session(body, env=env, deadline=240, binary=binary)
    return boxes


def gtk3_wayland(_scale, title):
    """The GTK3 fixture as a Wayland client, which the compositor scales."""
    return (f"env GDK_BACKEND=wayland /usr/bin/python3 {GTK3_FIXTURE} "
            f"--title {shlex.quote(title)}", "Count", "Count 1")


def gtk4_wayland(_scale, title):
    return (f"env GDK_BACKEND=wayland /usr/bin/python3 {GTK4_FIXTURE} "
            f"--title {shlex.quote(title)}", "Open modal", None)


def qt_wayland(_scale, title):
    return (f"env -u AT_SPI_BUS_ADDRESS QT_QPA_PLATFORM=wayland /usr/bin/python3 {QT_FIXTURE} "
            f"--title {shlex.quote(title)}", "Count", "Count 1")


TOOLKITS = {"gtk3": gtk3, "gtk4": gtk4, "qt": qt, "gtk3-wayland": gtk3_wayland,
            "gtk4-wayland": gtk4_wayland, "qt-wayland": qt_wayland}
APP_NAMES = {"gtk3": "axsight-fixture", "gtk4": "axsight-gtk4-fixture",
             "qt": "axsight-qt-fixture", "gtk3-wayland": "axsight-fixture",
             "gtk4-wayland": "axsight-gtk4-fixture", "qt-wayland": "axsight-qt-fixture"}


def assert_scaled(boxes, reference=1):
    """Each box is the reference box times its scale, edges rounded."""
    _, _, width, height = boxes[reference]
    for scale, (_, _, w, h) in boxes.items():
        assert abs(w - width * scale) <= 2 and abs(h - height * scale) <= 2, \
            f"at {scale}: {w}x{h}, at {reference}: {width}x{height}"


@pytest.mark.parametrize("toolkit,scales", [
    ("gtk3", [1, 2]),
    ("gtk4", [1, 2]),
    ("qt", [1, 1.5, 2]),
])
def test_boxes_are_screen_pixels_at_every_scale(openbox, toolkit, scales, tmp_path):
    assert_scaled(read_at_scales(openbox, toolkit, scales, tmp_path))


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_chromium_pages_are_device_pixels_and_its_toolbar_is_scaled(openbox, tmp_path):
    boxes = read_at_scales(openbox, "chromium", [1, 2], tmp_path)
    assert_scaled(boxes)


def test_an_app_scaled_on_a_desktop_without_a_window_manager(desktop, tmp_path):
    """The suite's bare desktop: the window at the screen's corner, no frame."""
    env = {name: os.environ[name] for name in DESKTOP_VARS if os.environ.get(name)}
    library = onnxruntime_library()
    if library:
        env["AXSIGHT_ONNXRUNTIME"] = library
    assert_scaled(read_at_scales(env, "gtk3", [1, 2], tmp_path))


def test_doctor_names_the_outputs_and_each_scaled_app(openbox):
    env = os.environ | openbox
    app = subprocess.Popen(["/usr/bin/python3", str(GTK3_FIXTURE), "--title", "doctor scale"],
                           env=env | {"GDK_SCALE": "2"}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        waited = subprocess.run([str(WAIT_FOR_APP), str(app.pid)], env=env,
                                capture_output=True, text=True)
        assert waited.returncode == 0, waited.stderr
        doctor = subprocess.run([str(AXSIGHT_BIN), "doctor"], env=env, capture_output=True,
                                text=True, timeout=60)
        out = doctor.stdout
        assert re.search(r"^ok +outputs: \S+ \[0,0,\d+,\d+\] scale 1", out, re.M), out
        assert f"axsight-fixture (pid {app.pid}) at 2" in out, out
    finally:
        app.terminate()
        app.wait(timeout=10)


@pytest.mark.skipif(not shutil.which("sway"), reason="sway is not installed")
@pytest.mark.parametrize("toolkit,scales", [
    ("gtk3-wayland", [1, 1.5, 2]),
    ("gtk4-wayland", [1, 1.5, 2]),
    ("qt-wayland", [1, 1.5, 2]),
])
def test_sway_output_scales_keep_one_logical_screen(toolkit, scales, tmp_path):
    """On Wayland the screen is the compositor's layout, in logical pixels:
    input goes there, apps report their boxes in it, and screenshots are
    sampled to it. At output scales 1, 1.5 and 2 a window's boxes stay the
    same, OCR reads the button inside its box, and a click at its centre
    presses it."""
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland="sway")
    try:
        env = {k: private.env[k] for k in WAYLAND_VARS if private.env.get(k)}
        library = onnxruntime_library()
        if library:
            env["AXSIGHT_ONNXRUNTIME"] = library

        def scale_output(scale):
            subprocess.run(["swaymsg", "output", "HEADLESS-1", "scale", str(scale)],
                           env=private.env, check=True, capture_output=True)

        boxes = read_at_scales(env, toolkit, scales, tmp_path, scale_output)
        # A tiled window fills the output's logical size, which the scale
        # changes: a button's height stays, its width may follow the window's.
        _, _, _, height = boxes[1]
        assert all(abs(h - height) <= 1 for _, _, _, h in boxes.values()), boxes
    finally:
        private.close()


SET_GNOME_MONITORS = REPO / "tests" / "fixtures" / "set_gnome_monitors.py"
WAYLAND_TOOLKITS = ["gtk3-wayland", "gtk4-wayland", "qt-wayland"]


@pytest.fixture(scope="module", params=["logical", "physical"])
def gnome(request, tmp_path_factory):
    """GNOME (mutter 43) with one 1920×1080 monitor, in each of its layout
    modes: logical (fractional scaling on: the screen is the apps' logical
    pixels) and physical (mutter's default: the screen is device pixels, and
    an app on a monitor at 2 draws at 2 and reports halved boxes). Yields the
    mode, the environment, and a function that sets the monitor's scale."""
    if not shutil.which("gnome-shell"):
        pytest.skip("gnome-shell is not installed")
    mode = request.param
    flags = ["--fractional"] if mode == "logical" else []
    private = PrivateDesktop(wm=False, tmp_path=tmp_path_factory.mktemp(f"gnome-{mode}"),
                             wayland="gnome", size="1920x1080", flags=flags)
    try:
        env = {k: private.env[k] for k in WAYLAND_VARS if private.env.get(k)}
        library = onnxruntime_library()
        if library:
            env["AXSIGHT_ONNXRUNTIME"] = library

        def scale_monitor(scale):
            subprocess.run(["/usr/bin/python3", str(SET_GNOME_MONITORS), f"Meta-0:{scale}@0,0"],
                           env=private.env, check=True, capture_output=True)

        yield mode, env, scale_monitor
    finally:
        private.close()


@pytest.mark.parametrize("toolkit", WAYLAND_TOOLKITS)
def test_gnome_monitor_scales_in_either_layout(gnome, toolkit, tmp_path):
    """At monitor scales 1, 1.5 and 2 in the logical layout (1 and 2 in the
    physical one, which has no fractional scales): the button's box is where
    OCR reads its label and a pointer click at its centre presses it. In the
    logical layout the boxes keep their size; in the physical one they are
    the scale-1 boxes times the scale."""
    mode, env, scale_monitor = gnome
    scales = [1, 1.5, 2] if mode == "logical" else [1, 2]
    boxes = read_at_scales(env, toolkit, scales, tmp_path, scale_monitor)
    if mode == "physical":
        assert_scaled(boxes)
    else:
        _, _, _, height = boxes[1]
        assert all(abs(h - height) <= 1 for _, _, _, h in boxes.values()), boxes


@pytest.fixture(scope="module", params=[1, 1.5, 2])
def kde(request, tmp_path_factory):
    """KWin (5.27) with one output started at each scale (`kwin_wayland
    --scale`): 1920×1080 logical pixels of 1920, 2880 or 3840 device pixels.
    Yields the scale, the environment and the server binary (a copy without
    debug info, which KWin authorises: see test_wayland_tools)."""
    if not shutil.which("kwin_wayland"):
        pytest.skip("kwin_wayland is not installed")
    tmp = tmp_path_factory.mktemp(f"kde-{request.param}")
    binary = tmp / "axsight"
    subprocess.run(["objcopy", "--strip-debug", str(AXSIGHT_BIN), str(binary)], check=True)
    private = PrivateDesktop(wm=False, tmp_path=tmp, wayland="kde", size="1920x1080",
                             env=os.environ | {"AXSIGHT_BIN": str(binary)},
                             flags=["--scale", str(request.param)])
    try:
        env = {k: private.env[k] for k in WAYLAND_VARS if private.env.get(k)}
        library = onnxruntime_library()
        if library:
            env["AXSIGHT_ONNXRUNTIME"] = library
        yield request.param, env, binary
    finally:
        private.close()


@pytest.mark.parametrize("toolkit", WAYLAND_TOOLKITS)
def test_kde_output_scales(kde, toolkit, tmp_path):
    """On KWin's output at 1, 1.5 and 2 the screen stays its logical pixels:
    the output is listed with its scale, the button's box is where OCR reads
    its label, and a pointer click at its centre presses it."""
    scale, env, binary = kde
    boxes = read_at_scales(env, toolkit, [scale], tmp_path, binary=binary)
    assert boxes[scale][2] > 0, boxes
    if scale != 1:
        doctor = subprocess.run([str(binary), "doctor"], env=os.environ | env,
                                capture_output=True, text=True, timeout=60)
        assert re.search(rf"outputs: \S+ \[0,0,1920,1080\] scale {scale}\b", doctor.stdout), \
            doctor.stdout


@pytest.mark.skipif(not shutil.which("gnome-calculator"), reason="gnome-calculator is not installed")
def test_a_gtk4_app_with_an_undeclared_border_at_scale_2(openbox):
    """gnome-calculator at GDK_SCALE=2 under openbox draws a resize border around
    its frame without declaring it (a 355×486 frame in a 730×992 window): its
    window is still found, so its buttons have boxes and a click on one goes
    through the pointer."""

    async def body(c):
        opened = text_of(await c.call("open_application", {
            "app": "env GDK_SCALE=2 gnome-calculator", "timeout_ms": 30_000}, timeout=60))
        pid = int(PID.search(opened.splitlines()[0])[1])
        try:
            text = await c.ok("get_window_tree", {"app": "gnome-calculator"})
            window = box_on(text, "#u1")
            nine = box_on(text, handle_of(parse_tree(text), "Button", "9"))
            assert inside(nine, window, slack=0) and nine[2] >= 60, (nine, window, text)
            clicked = await c.ok("click_element", {"selector": "role:Button && name:9",
                                                   "app": "gnome-calculator"})
            assert "with the pointer" in clicked and '"9"' in clicked, clicked
        finally:
            os.kill(pid, signal.SIGTERM)

    run_session(body, env=openbox, deadline=120)
