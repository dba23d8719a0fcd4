"""Shared pytest fixtures for axsight's end-to-end tests.

Run under scripts/with-desktop (scripts/test does), with the repo's .venv (made with
--system-site-packages, so Debian's gi and pyatspi import too):

    scripts/with-desktop -- .venv/bin/python -m pytest tests/e2e
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE_APP = REPO / "tests" / "fixtures" / "fixture_app.py"
WAIT_FOR_APP = REPO / "scripts" / "wait-for-app"
SECRET = "hunter2-SECRET"


def poll(predicate, timeout=5.0, interval=0.05):
    """Return predicate()'s first truthy value within timeout seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


class PrivateDesktop:
    """A desktop of its own (scripts/with-desktop, with openbox when wm=True, or the
    Wayland compositor WAYLAND, with the apps APPS) beside the suite's, for a test
    that needs what the suite's desktop lacks, and the desktop portals with
    PORTALS, its X screen SIZE ("WxH") where given, and with-desktop's FLAGS
    beside; it lives until close()."""

    def __init__(self, wm, tmp_path, wayland=None, apps=(), env=None, portals=False, size=None,
                 flags=()):
        env_file = tmp_path / "desktop.env"
        flags = list(flags) + (["--wm"] if wm else [])
        flags += ["--size", size] if size else []
        flags += ["--wayland", wayland] if wayland else []
        flags += ["--portals"] if portals else []
        for app in apps:
            flags += ["--app", app]
        # The command writes its environment, then waits for its stdin to close.
        self.proc = subprocess.Popen(
            [str(REPO / "scripts" / "with-desktop"), "-q", *flags, "--",
             "bash", "-c", 'env -0 > "$0.part" && mv "$0.part" "$0" && exec cat >/dev/null',
             str(env_file)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if not poll(env_file.exists, timeout=30):
            self.close()
            pytest.fail("the private desktop did not start")
        pairs = (item.split("=", 1) for item in env_file.read_text().split("\0") if "=" in item)
        self.env = dict(pairs)

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="session")
def desktop():
    """The environment of the desktop made by scripts/with-desktop."""
    if not os.environ.get("AT_SPI_BUS_ADDRESS"):
        pytest.skip("no desktop: run under scripts/with-desktop")
    return os.environ


class LaunchedApp:
    def __init__(self, proc, title):
        self.proc = proc
        self.pid = proc.pid
        self.title = title


def launch(argv, title, drop_env=(), add_env=None, log=None):
    """Start an app, without the variables DROP_ENV names and with those of ADD_ENV,
    and wait until its window shows in the accessibility tree. Its output goes to a
    pipe read when it stops, or to the file LOG for an app that writes more than a
    pipe holds (it would block on a full pipe)."""
    env = {k: v for k, v in os.environ.items() if k not in drop_env} | (add_env or {})
    output = open(log, "wb") if log else subprocess.PIPE
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=output,
                            stderr=subprocess.STDOUT, env=env)
    if log:
        output.close()
    wait = subprocess.run([str(WAIT_FOR_APP), str(proc.pid)], capture_output=True, text=True)
    if wait.returncode != 0:
        proc.kill()
        out = (proc.communicate()[0] or b"").decode(errors="replace")
        pytest.fail(f"{argv} did not show its window: {wait.stderr.strip()}\n{out}")
    return LaunchedApp(proc, title)


def atspi_application(pid, timeout=10.0):
    """The pyatspi application of process PID, as a separate client sees it. The
    registry's pending events are let in first: pyatspi keeps the desktop's list
    of apps and learns of new ones from events, which need the main loop."""
    pyatspi = pytest.importorskip("pyatspi")
    from gi.repository import GLib

    def find():
        context = GLib.MainContext.default()
        while context.iteration(False):
            pass
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.get_process_id() == pid:
                return app
        return None

    app = poll(find, timeout=timeout)
    assert app is not None, f"pid {pid} is not on the accessibility bus"
    return app


def stop(app):
    """Stop an app (the signal is skipped if it already exited); return its output."""
    app.proc.terminate()
    try:
        out = app.proc.communicate(timeout=5)[0]
    except subprocess.TimeoutExpired:
        app.proc.kill()
        try:
            out = app.proc.communicate(timeout=5)[0]
        except subprocess.TimeoutExpired:
            # Its children (a browser's helpers, a page it opened) hold its
            # output open: read no further.
            app.proc.stdout.close()
            app.proc.wait(timeout=5)
            out = b""
    return out.decode(errors="replace")


@pytest.fixture(scope="module")
def fixture_app(desktop):
    """tests/fixtures/fixture_app.py, running with a title unique to the module."""
    title = f"axsight fixture {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    yield app
    out = stop(app)
    assert out == "", f"the fixture app printed:\n{out}"


@pytest.fixture(scope="module")
def atspi_app(fixture_app):
    """The fixture app's pyatspi Accessible (role application)."""
    pyatspi = pytest.importorskip("pyatspi")

    def find():
        for app in pyatspi.Registry.getDesktop(0):
            if app is not None and app.get_process_id() == fixture_app.pid:
                return app
        return None

    app = poll(find)
    assert app is not None, "fixture app not under the registry root"
    return app


@pytest.fixture(scope="module")
def app_args(fixture_app):
    """Tool arguments naming the module's fixture window (app and window title)."""
    return {"app": "axsight-fixture", "window": fixture_app.title}


# Run by Debian's python3 inside a KWin desktop: a KWin script of the test's own
# answers with every window's caption, frame (title bar included), client surface
# and focus, through a D-Bus object this script serves.
KWIN_WINDOWS = """
import json, os, sys, tempfile
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
node = Gio.DBusNodeInfo.new_for_xml('<node><interface name="test.Windows"><method '
    'name="Reply"><arg type="s" direction="in"/></method></interface></node>')
got, loop = [], GLib.MainLoop()
def on_call(conn, sender, path, iface, method, params, invocation):
    got.append(params.unpack()[0]); invocation.return_value(None); loop.quit()
bus.register_object("/test", node.interfaces[0], on_call, None, None)
rect = "r => [r.x, r.y, r.width, r.height]"
script = ("const rect = %s; callDBus(%s, '/test', 'test.Windows', 'Reply', JSON.stringify("
          "workspace.clientList().map(w => ({title: w.caption, frame: rect(w.frameGeometry), "
          "buffer: rect(w.bufferGeometry), focused: w === workspace.activeClient, "
          "minimized: w.minimized}))));"
          % (rect, json.dumps(bus.get_unique_name())))
path = tempfile.mktemp(suffix=".js", dir=os.environ["XDG_RUNTIME_DIR"])
open(path, "w").write(script)
def call(obj, iface, method, args=None):
    return bus.call_sync("org.kde.KWin", obj, iface, method, args, None, 0, 5000, None)
sid = call("/Scripting", "org.kde.kwin.Scripting", "loadScript",
           GLib.Variant("(ss)", (path, "test-windows"))).unpack()[0]
call(f"/{sid}", "org.kde.kwin.Script", "run")
GLib.timeout_add(5000, loop.quit)
loop.run()
call("/Scripting", "org.kde.kwin.Scripting", "unloadScript", GLib.Variant("(s)", ("test-windows",)))
os.remove(path)
print(got[0])
"""


def kwin_window_list(env):
    """Every window KWin manages, as a KWin script of the tests' own reports it
    (caption as title, frame and buffer rectangles, focus, minimized): what a test checks
    axsight's answers against on KDE."""
    out = subprocess.run(["/usr/bin/python3", "-c", KWIN_WINDOWS], env=env, capture_output=True,
                         text=True, timeout=20, check=True).stdout
    return json.loads(out)
