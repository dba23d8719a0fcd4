"""A window another process opens for the app acted on: the desktop portal's file
chooser, as Firefox's Save As on a desktop with xdg-desktop-portal. GNOME (Wayland)
with its portals; the fixture asks for the chooser through GTK_USE_PORTAL=1, so the
dialog belongs to xdg-desktop-portal-gnome, not to the fixture. The click's answer
must show it, under the portal's name (or, if it comes later than the answer
waited, the next action's answer must)."""
import re
import shutil

import pytest

from conftest import FIXTURE_APP, PrivateDesktop
from test_firefox import FIREFOX, PROFILE_PREFS
from test_mcp_server import AXSIGHT_BIN
from test_wayland_tools import PORTALS, session

LAUNCHER = "launcher window"
MAIN = "portal fixture"


def test_the_portals_file_chooser_is_told_as_another_apps_window(tmp_path):
    if not shutil.which("gnome-shell"):
        pytest.skip("gnome-shell is not installed (scripts/install-deps)")
    if not list(PORTALS.glob("usr/libexec/xdg-desktop-portal-gnome")):
        pytest.skip(f"the desktop portals are not unpacked in {PORTALS} (scripts/install-deps)")
    private = PrivateDesktop(
        wm=False, tmp_path=tmp_path, wayland="gnome", portals=True,
        apps=[f"env GTK_USE_PORTAL=1 /usr/bin/python3 {FIXTURE_APP} --title '{MAIN}' "
              f"--launcher-window '{LAUNCHER}'"])
    private.env["AXSIGHT_BIN"] = str(AXSIGHT_BIN)
    try:
        async def body(c):
            clicked = await c.ok("click_element", {"selector": 'role:Button && name:"Choose a file"',
                                                   "window": LAUNCHER})
            told = clicked
            if "Pick a report" not in clicked:
                # Later than the answer waited: the next action tells it.
                await c.ok("wait_for_element", {"selector": 'name:"Pick a report"',
                                                "timeout_ms": 20000})
                told = await c.ok("click_element", {"selector": "role:Button && text:Count",
                                                    "window": MAIN})
                assert re.search(r'another app opened a window: "Pick a report" '
                                 r"\(xdg-desktop-portal-\w+, pid \d+\)", told), told
            else:
                assert re.search(r"a window of another app, xdg-desktop-portal-\w+, pid \d+, "
                                 r"opened meanwhile:\n +#u\d+ \[\w+\] Pick a report", clicked), clicked
            print(told)

        session(body, private.env)
    finally:
        private.close()


def test_firefoxs_save_as_through_the_portal_is_told_as_another_apps_window(tmp_path):
    # What an agent met: Firefox on a desktop with xdg-desktop-portal opens Save As
    # in the portal's process, and the answer to ctrl+s said nothing of it.
    if not shutil.which("gnome-shell") or not FIREFOX:
        pytest.skip("gnome-shell or Firefox is not installed (scripts/install-deps)")
    if not list(PORTALS.glob("usr/libexec/xdg-desktop-portal-gnome")):
        pytest.skip(f"the desktop portals are not unpacked in {PORTALS} (scripts/install-deps)")
    profile = tmp_path / "profile"
    profile.mkdir()
    # The file picker through the portal, as a sandboxed or portal-using Firefox has it.
    (profile / "user.js").write_text(
        PROFILE_PREFS.read_text()
        + 'user_pref("widget.use-xdg-desktop-portal.file-picker", 1);\n')
    (tmp_path / "desktop").mkdir()
    page = tmp_path / "report.html"
    page.write_text("<title>Quarterly report</title><h1>Quarterly report</h1>")
    private = PrivateDesktop(
        wm=False, tmp_path=tmp_path / "desktop", wayland="gnome", portals=True,
        apps=[f"{FIREFOX} -no-remote -profile {profile} file://{page}"])
    private.env["AXSIGHT_BIN"] = str(AXSIGHT_BIN)
    try:
        async def body(c):
            await c.ok("wait_for_element", {"selector": 'role:Document && name:"Quarterly report"',
                                            "app": "Firefox", "timeout_ms": 30000})
            pressed = await c.ok("press_key", {"key": "ctrl+s", "app": "Firefox"})
            told = pressed
            if "xdg-desktop-portal" not in pressed:
                await c.ok("wait_for_element", {"selector": "role:Dialog || role:Window",
                                                "app": "xdg-desktop-portal-gnome",
                                                "timeout_ms": 20000})
                told = await c.ok("press_key", {"key": "shift", "app": "Firefox"})
            print(told)
            assert re.search(r"xdg-desktop-portal-\w+, pid \d+", told), told
            assert "Save" in told, told
            await c.call("close_window", {"app": "xdg-desktop-portal-gnome"})

        session(body, private.env)
    finally:
        private.close()
