"""scripts/with-desktop --wayland sway|gnome|kde: the compositor runs headless, the fixture
runs natively on Wayland and joins the accessibility bus, and everything goes away
at the end. These check the test bed (test_wayland_tools.py drives axsight's
tools on it), and what `axsight doctor` says of each session."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURE_APP, REPO, PrivateDesktop, kwin_window_list, poll
from test_mcp_server import AXSIGHT_BIN

COMPOSITORS = {"sway": "sway", "gnome": "gnome-shell", "kde": "kwin_wayland"}

# Run by Debian's python3 inside the private desktop (pyatspi binds to the bus of
# the process that imports it, so the check cannot run in this one): the fixture's
# pid and its frame's box.
FIXTURE_FACTS = """
import json, pyatspi
app = next(a for a in pyatspi.Registry.getDesktop(0) if a and a.name == "axsight-fixture")
e = app[0].queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
print(json.dumps({"pid": app.get_process_id(), "frame": [e.x, e.y, e.width, e.height]}))
"""


# mutter ends a RemoteDesktop session when the connection that made it closes, so
# the calls run in one process.
REMOTE_DESKTOP_SESSION = """
from gi.repository import Gio
RD = "org.gnome.Mutter.RemoteDesktop"
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def call(path, iface, method):
    return bus.call_sync(RD, path, iface, method, None, None, 0, 5000, None)
session = call("/org/gnome/Mutter/RemoteDesktop", RD, "CreateSession").unpack()[0]
call(session, RD + ".Session", "Start")
call(session, RD + ".Session", "Stop")
print(session)
"""


def start(kind, tmp_path, apps=(f"/usr/bin/python3 {FIXTURE_APP}",)):
    """A desktop of KIND with APPS (the fixture); its env's AXSIGHT_BIN is the axsight
    to run there: on KDE a copy without debug info, which with-desktop
    authorises (KWin hashes an authorised client's executable at each
    connection: 6 s for the debug build with its debug info)."""
    if not shutil.which(COMPOSITORS[kind]):
        pytest.skip(f"{COMPOSITORS[kind]} is not installed (scripts/install-deps)")
    binary = AXSIGHT_BIN
    if kind == "kde":
        binary = tmp_path / "axsight"
        subprocess.run(["objcopy", "--strip-debug", str(AXSIGHT_BIN), str(binary)], check=True)
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland=kind,
                             env=os.environ | {"AXSIGHT_BIN": str(binary)}, apps=list(apps))
    private.env["AXSIGHT_BIN"] = str(binary)
    return private


def run(env, *argv):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=20,
                          check=True).stdout


def fixture_facts(env):
    return json.loads(run(env, "/usr/bin/python3", "-c", FIXTURE_FACTS))


def sway_window(env, pid):
    todo = [json.loads(run(env, "swaymsg", "-r", "-t", "get_tree"))]
    while todo:
        node = todo.pop()
        if node.get("pid") == pid:
            return node
        todo += node.get("nodes", []) + node.get("floating_nodes", [])
    return None


def owned(env, name):
    out = run(env, "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
              "--object-path", "/org/freedesktop/DBus",
              "--method", "org.freedesktop.DBus.NameHasOwner", name)
    return "true" in out


def gone_after_close(private, paths):
    private.close()
    assert private.proc.returncode == 0, private.proc.stderr.read().decode()
    return poll(lambda: not any(Path(p).exists() for p in paths), timeout=5)


@pytest.mark.parametrize("kind", ["sway", "gnome", "kde"])
def test_the_fixture_runs_natively_on_wayland(kind, tmp_path):
    private = start(kind, tmp_path)
    try:
        env = private.env
        assert "DISPLAY" not in env
        assert env["XDG_SESSION_TYPE"] == "wayland"
        assert env["GDK_BACKEND"] == "wayland" and env["QT_QPA_PLATFORM"] == "wayland"
        socket = Path(env["XDG_RUNTIME_DIR"]) / env["WAYLAND_DISPLAY"]
        assert socket.is_socket()
        facts = fixture_facts(env)
        assert facts["pid"] == int(env["AXSIGHT_APP_PIDS"])
        # A Wayland client does not know where its window is: its frame is at 0,0.
        assert facts["frame"][:2] == [0, 0]
    finally:
        private.close()


def test_sway_lists_the_fixture_and_goes_away(tmp_path):
    private = start("sway", tmp_path)
    env = private.env
    try:
        assert env["XDG_CURRENT_DESKTOP"] == "sway"
        assert Path(env["SWAYSOCK"]).is_socket()
        pid = int(env["AXSIGHT_APP_PIDS"])
        window = sway_window(env, pid)  # wait-for-app waited for sway to map it
        assert window is not None and window["app_id"] == "axsight-fixture"
        assert window["shell"] == "xdg_shell"  # native, not Xwayland
        # The frame AT-SPI reports is the surface sway places (the fixture has no
        # client-side decoration under sway, which draws the title bar itself).
        frame = fixture_facts(env)["frame"]
        assert frame[2:] == [window["window_rect"]["width"], window["window_rect"]["height"]]
    finally:
        # The runtime dirs (ours and sway's own) go with the desktop.
        assert gone_after_close(private, [env["XDG_RUNTIME_DIR"], Path(env["SWAYSOCK"]).parent])


def test_gnome_shell_offers_remote_desktop_with_pipewire(tmp_path):
    private = start("gnome", tmp_path)
    env = private.env
    try:
        assert env["XDG_CURRENT_DESKTOP"] == "GNOME"
        for name in ("org.gnome.Shell.Screenshot", "org.gnome.Mutter.RemoteDesktop",
                     "org.gnome.Mutter.ScreenCast"):
            assert owned(env, name), name
        # A RemoteDesktop session starts only when mutter reaches PipeWire.
        session = run(env, "/usr/bin/python3", "-c", REMOTE_DESKTOP_SESSION)
        assert session.startswith("/org/gnome/Mutter/RemoteDesktop/Session/")
    finally:
        assert gone_after_close(private, [env["XDG_RUNTIME_DIR"]])


@pytest.mark.parametrize("kind, expected", [
    ("sway", ["ok    desktop session: Wayland (sway)",
              "ok    screen: sway (wlroots): input through a virtual pointer and keyboard"]),
    ("gnome", ["ok    desktop session: Wayland (GNOME)",
               "ok    screen: GNOME (mutter): input through mutter's RemoteDesktop"]),
    ("kde", ["ok    desktop session: Wayland (KDE)",
             "ok    screen: KDE (KWin): input through KWin's fake input, screenshots through "
             "KWin's ScreenShot2, window places from KWin scripts"]),
])
def test_doctor_names_the_wayland_session_and_its_screen(kind, expected, tmp_path):
    """axsight itself on the test bed: doctor names the compositor and the screen
    backend in use, and the tree is read (exit 0)."""
    private = start(kind, tmp_path)
    try:
        out = subprocess.run([private.env["AXSIGHT_BIN"], "doctor"], env=private.env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
        for line in expected:
            assert line in out.stdout, out.stdout
        # (The X display line depends on this machine: an X socket of another
        # desktop in /tmp/.X11-unix is found as a stripped environment's display.)
        # gnome-shell is on the bus too.
        assert re.search(r"^ok +applications: [1-9]\d* on the bus", out.stdout, re.M), out.stdout
    finally:
        private.close()


def test_without_the_gnome_extension_axsight_says_what_to_install(tmp_path, monkeypatch):
    """GNOME tells no client where windows are: without axsight's Shell extension,
    doctor says so and names the command that installs it, the tree holds no boxes
    (they would be relative to an unknown window), and a click on an element goes
    through its accessible action, saying why."""
    if not shutil.which("gnome-shell"):
        pytest.skip("gnome-shell is not installed (scripts/install-deps)")
    monkeypatch.setenv("AXSIGHT_GNOME_EXTENSION", "off")
    private = start("gnome", tmp_path)
    try:
        env = private.env
        doctor = subprocess.run([str(AXSIGHT_BIN), "doctor"], env=env, capture_output=True,
                                text=True, timeout=60).stdout
        assert "no window places (axsight's Shell extension is not enabled: run " \
               "`axsight gnome-extension`)" in doctor, doctor
        # Boxes relative to a window nobody can place are left out, not passed
        # off as the screen's.
        tree = run(env, str(AXSIGHT_BIN), "tree", "--app", "axsight-fixture")
        assert "[Button] Count" in tree and not re.search(r"\[-?\d+,-?\d+,\d+,\d+\]", tree), tree
        clicked = run(env, str(AXSIGHT_BIN), "click", "--app", "axsight-fixture",
                      "role:Button && name:Count")
        assert "through its accessible action" in clicked, clicked
        assert "no visible box" in clicked and '-> "Count 1"' in clicked, clicked
    finally:
        private.close()


def test_gnome_extension_installs_the_generation_each_gnome_loads(tmp_path):
    """`axsight gnome-extension --dir` writes, for GNOME 43, exactly the extension
    the test bed's gnome-shell runs (the one the GNOME tests drive), and for GNOME
    45 on the ES-module generation around the same window service."""
    uuid = "axsight@axsight.github.io"
    out = run(dict(os.environ), str(AXSIGHT_BIN), "gnome-extension", "--dir",
              str(tmp_path / "43"), "--shell-version", "43")
    assert f"installed {tmp_path / '43' / uuid} for GNOME 43" in out, out
    assert f"gnome-extensions enable {uuid}" in out, out
    (tmp_path / "desktop").mkdir()
    private = start("gnome", tmp_path / "desktop")
    try:
        running = Path(private.env["XDG_RUNTIME_DIR"]) / "home/.local/share/gnome-shell/extensions" / uuid
        for name in ("metadata.json", "extension.js"):
            assert (tmp_path / "43" / uuid / name).read_text() == (running / name).read_text()
    finally:
        private.close()
    run(dict(os.environ), str(AXSIGHT_BIN), "gnome-extension", "--dir", str(tmp_path / "46"),
        "--shell-version", "46")
    modern = (tmp_path / "46" / uuid / "extension.js").read_text()
    legacy = (tmp_path / "43" / uuid / "extension.js").read_text()
    assert "export default class" in modern and "imports.gi" not in modern
    shared = (REPO / "crates/axsight-screen/gnome-shell/windows.js").read_text()
    assert shared in modern and shared in legacy
    assert "46" in json.loads((tmp_path / "46" / uuid / "metadata.json").read_text())["shell-version"]
    # GNOME 45's loader needs the file to parse as a module (no GNOME 45 here to run it).
    if shutil.which("node"):
        module = tmp_path / "extension.mjs"
        module.write_text(modern)
        subprocess.run(["node", "--check", str(module)], check=True)
    old = subprocess.run([str(AXSIGHT_BIN), "gnome-extension", "--dir", str(tmp_path / "41"),
                          "--shell-version", "41"], capture_output=True, text=True)
    assert old.returncode != 0 and "GNOME 42 and later" in old.stderr, old.stderr


def test_unauthorised_on_kde_axsight_says_what_to_run_and_kde_authorize_grants_it(
        tmp_path, monkeypatch):
    """KWin gives fake input and screenshots only to a program a .desktop file
    names: unauthorised, doctor says what to run, window places still work (boxes
    on screen), and input and screenshots are refused with the same advice; once
    `axsight kde-authorize` has run, in the running session, a new server has both."""
    monkeypatch.setenv("AXSIGHT_KDE_AUTHORIZE", "off")
    private = start("kde", tmp_path)
    try:
        env = private.env
        axsight = env["AXSIGHT_BIN"]
        doctor = run(env, axsight, "doctor")
        # No portals run in this desktop: nothing to fall back to.
        assert "KDE (KWin): no input (KWin offers axsight no fake input and the RemoteDesktop " \
               "portal none: run `axsight kde-authorize`), no screenshots (KWin refuses " \
               "ScreenShot2 and the Screenshot portal gave none: run `axsight kde-authorize`), " \
               "window places from KWin scripts" in doctor, doctor
        tree = run(env, axsight, "tree", "--app", "axsight-fixture")
        frame = [int(n) for n in re.search(r"\[(\d+),(\d+),(\d+),(\d+)\]", tree).groups()]
        assert frame[:2] != [0, 0], tree  # placed on screen though unauthorised
        shot = subprocess.run([axsight, "shot", str(tmp_path / "shot.png")], env=env,
                              capture_output=True, text=True, timeout=30)
        assert shot.returncode != 0 and "axsight kde-authorize" in shot.stderr, shot.stderr
        # As the session's user: KWin's home (private to the test bed) is theirs.
        home = Path(env["XDG_RUNTIME_DIR"]) / "home"
        written = run(env | {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share"),
                             "XDG_CACHE_HOME": str(home / ".cache"),
                             "XDG_CONFIG_HOME": str(home / ".config")}, axsight, "kde-authorize")
        entry = home / ".local/share/applications/io.github.axsight.desktop"
        assert f"wrote {entry}" in written and "kbuildsycoca5 refreshed" in written, written
        assert f"Exec={Path(axsight).resolve()}" in entry.read_text()
        # KWin notices the new file within seconds (KDE's service database is
        # checked for changes at most every second or so).
        granted = "KDE (KWin): input through KWin's fake input, screenshots through KWin's " \
                  "ScreenShot2"
        doctors = []
        assert poll(lambda: doctors.append(run(env, axsight, "doctor")) or granted in doctors[-1],
                    timeout=20), doctors[-1]
        clicked = run(env, axsight, "click", "--app", "axsight-fixture",
                      "role:Button && name:Count")
        assert "with the pointer at" in clicked and '-> "Count 1"' in clicked, clicked
    finally:
        private.close()


def buffer_rect(kind, env, title):
    """The whole surface (shadow included) of the window TITLE, as the compositor
    has it: KWin through a script of the tests' own, GNOME through axsight's Shell
    extension."""
    if kind == "kde":
        return tuple(next(w["buffer"] for w in kwin_window_list(env) if w["title"] == title))
    out = run(env, "gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path",
              "/io/github/axsight/Shell", "--method", "io.github.axsight.Shell1.ListWindows")
    windows = json.loads(out.strip()[2:-3].encode().decode("unicode_escape"))
    return tuple(next(w["buffer"] for w in windows if w["title"] == title))


@pytest.mark.parametrize("kind", ["gnome", "kde"])
def test_a_shadowed_window_starts_where_the_compositor_puts_its_surface(kind, tmp_path):
    """gtk3-widget-factory draws its own header bar and shadow; one of its frame's
    children sits at 0,0, so the children's corner would put the frame on the
    visible window. Its frame is the compositor's whole surface (buffer) rectangle."""
    private = start(kind, tmp_path, apps=["gtk3-widget-factory"])
    try:
        env = private.env
        tree = run(env, env["AXSIGHT_BIN"], "tree", "--app", "gtk3-widget-factory")
        frame = tuple(int(n) for n in re.search(
            r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]", tree.splitlines()[1]).groups())
        assert frame == buffer_rect(kind, env, "gtk3-widget-factory"), tree
    finally:
        private.close()
