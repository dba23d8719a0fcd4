"""Windows moved, resized, maximized and minimized through the MCP tools, on the
suite's bare desktop (the X server itself places them) and on a desktop of its
own with openbox (the window manager is asked); every new place is checked
outside axsight, by pyatspi's extents or xwininfo, and the elements' bounds
follow their window."""
import os
import re
import subprocess

import pytest

from conftest import FIXTURE_APP, PrivateDesktop, launch, stop
from test_mcp_server import DESKTOP_VARS, run_session

BOUNDS = re.compile(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]")


@pytest.fixture(params=["bare", "openbox"])
def windows_desktop(request, desktop, tmp_path):
    """(name, environment) of the desktop the test runs on."""
    if request.param == "bare":
        yield "bare", dict(os.environ)
        return
    private = PrivateDesktop(wm=True, tmp_path=tmp_path)
    try:
        yield "openbox", {**os.environ, **private.env}
    finally:
        private.close()


def launch_on(env, argv, title):
    saved = dict(os.environ)
    os.environ.update({k: env[k] for k in DESKTOP_VARS if k in env})
    try:
        return launch(argv, title)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def x_geometry(env, title):
    """The client window's place on screen, as xwininfo (not axsight) reads it."""
    out = subprocess.run(["xwininfo", "-name", title], capture_output=True, text=True,
                         env={**os.environ, "DISPLAY": env["DISPLAY"]}, check=True).stdout
    field = lambda name: int(re.search(rf"{name}:\s+(-?\d+)", out)[1])
    state = re.search(r"Map State: (\w+)", out)[1]
    return (field("Absolute upper-left X"), field("Absolute upper-left Y"),
            field("Width"), field("Height")), state


def check_bounds(answer):
    line = next(l for l in answer.splitlines() if l.startswith("check: its content is at"))
    return tuple(int(n) for n in BOUNDS.search(line).groups())


def test_a_window_is_moved_resized_maximized_and_minimized(windows_desktop):
    kind, env = windows_desktop
    main = f"placed main {os.getpid()} {kind}"
    small = f"placed small {os.getpid()} {kind}"
    app = launch_on(env, ["/usr/bin/python3", str(FIXTURE_APP), "--title", main,
                          "--second-window", small], small)
    session_env = {k: env[k] for k in DESKTOP_VARS if env.get(k)}
    try:
        async def body(c):
            moved = await c.ok("move_window", {"window": main, "x": 120, "y": 90})
            assert moved.startswith(f"moved '{main}' to (120, 90)"), moved
            at = check_bounds(moved)
            assert at[:2] == (120, 90), moved
            assert x_geometry(env, main)[0][:2] == (120, 90)
            # The elements follow their window, all by as much: one line.
            together = re.search(r"(\d+) elements moved (by \(-?\d+, -?\d+\)|\d+ px \w+): ",
                                 moved)
            assert together and int(together[1]) > 20, moved
            assert "[Button] Save: bounds" not in moved, moved

            if kind == "openbox":
                # The fixture's main window is not resizable, which the window
                # manager holds it to: a clear refusal, naming where it is.
                refused = await c.error("resize_window", {"window": main, "width": 500,
                                                          "height": 400})
                assert "was not resized as asked" in refused and "[120,90,800,600]" in refused, \
                    refused

            resized = await c.ok("resize_window", {"window": small, "width": 420,
                                                   "height": 260})
            assert check_bounds(resized)[2:] == (420, 260), resized
            assert x_geometry(env, small)[0][2:] == (420, 260)
            both = await c.ok("move_window", {"window": small, "x": 300, "y": 200,
                                              "width": 360, "height": 200})
            assert check_bounds(both) == (300, 200, 360, 200), both
            assert x_geometry(env, small)[0] == (300, 200, 360, 200)

            big = await c.ok("maximize_window", {"window": small})
            width, height = check_bounds(big)[2:]
            assert width > 1000 and height > 700, big
            back = await c.ok("maximize_window", {"window": small, "restore": True})
            assert check_bounds(back)[2:] == (360, 200), back

            if kind == "bare":
                none = await c.error("minimize_window", {"window": small})
                assert "minimizing needs a window manager" in none, none
            else:
                gone = await c.ok("minimize_window", {"window": small})
                assert "check: it is off the screen" in gone, gone
                assert x_geometry(env, small)[1] != "IsViewable"
                shown = await c.ok("minimize_window", {"window": small, "restore": True})
                assert check_bounds(shown)[2:] == (360, 200), shown
                assert x_geometry(env, small)[1] == "IsViewable"

            no_window = await c.error("move_window", {"x": 1, "y": 2})
            assert "name the window" in no_window, no_window

        run_session(body, env=session_env)
    finally:
        stop(app)
