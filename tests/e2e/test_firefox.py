"""Firefox ESR end to end, through the official Python SDK client, on a local page
served by the test's own loopback server, each result checked outside axsight:

- a Firefox axsight starts (`navigate_browser` with `browser: "firefox"`): its page's
  `#d` elements over WebDriver BiDi, a form filled in with handles from the tree and
  sent with a `#d` click; the test's server checks what was POSTed;
- a Firefox started by hand (its own profile, no protocol connection): read, its own
  UI clicked and typed into, `navigate_browser` driving it through its address bar
  (no Chromium appears; the window's document, read over D-Bus by the test, shows
  the new address), history through its keys, the form filled and posted again, and
  `include_dom` saying in one line why there is no DOM section.

The password is never in any answer. The Firefox the server started ends with it.
"""
import asyncio
import functools
import os
import re
import shutil
import tempfile
import threading
import time
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import REPO, launch, poll, stop
from test_acting import alive, section
from test_mcp_server import parse_tree, run_session

WEB = REPO / "tests" / "fixtures" / "web"
PROFILE_PREFS = REPO / "tests" / "fixtures" / "firefox" / "user.js"
PASSWORD = "s3cret-FOX-e2e"
LOAD = {"timeout_ms": 30000}
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")

pytestmark = pytest.mark.skipif(not FIREFOX, reason="Firefox is not installed")


class Shop(SimpleHTTPRequestHandler):
    """The web fixtures, and /order, which records each POSTed form."""

    orders = None  # set per server: a list shared with the test

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        self.orders.append({k: v[0] for k, v in form.items()})
        name = form.get("name", [""])[0]
        body = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
                f"<title>Order received</title></head><body><h1>Thank you, {name}</h1></body>"
                f"</html>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def running_shop():
    """The web fixtures on loopback, and /order: yields the base URL and the list
    of orders received (what a browser sent, read outside axsight), then stops.
    A thread per connection: a browser that keeps one open idle must not hold up
    the others."""
    orders = []
    handler = type("ShopHandler", (Shop,), {"orders": orders})
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(handler, directory=str(WEB)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", orders
    server.shutdown()


@pytest.fixture(scope="module")
def shop(desktop):
    """The loopback server: its base URL, and the orders it received."""
    yield from running_shop()


def processes(needle):
    """Pids of live processes whose command line contains NEEDLE."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline and alive(int(entry)):
            found.append(int(entry))
    return found


def started_browsers():
    """Pids of browsers an axsight server on this desktop started: their profiles
    are in its runtime dir (other desktops on the machine have their own)."""
    return processes(os.path.join(os.environ["XDG_RUNTIME_DIR"], "axsight-browser-"))


def one(text, role, name):
    """The handle of the one tree line `[role] name` in TEXT."""
    found = [h for h, (r, n) in parse_tree(text).items() if (r, n) == (role, name)]
    assert len(found) == 1, f"[{role}] {name}: {found} in:\n{text}"
    return found[0]


def shown_document_urls(pid):
    """The addresses of the web documents process PID shows, read over D-Bus with
    the desktop's accessibility bus (not through axsight)."""
    from gi.repository import Gio, GLib
    bus = Gio.DBusConnection.new_for_address_sync(
        os.environ["AT_SPI_BUS_ADDRESS"],
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
        | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def call(name, path, iface, method, args=None):
        return bus.call_sync(name, path, iface, method, args, None, 0, 1000, None).unpack()

    accessible = "org.a11y.atspi.Accessible"
    apps = call("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", accessible,
                "GetChildren")[0]
    urls = []
    for name, root in apps:
        owner = call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                     "GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)))[0]
        if owner != pid:
            continue
        todo = [root]
        while todo:
            path = todo.pop()
            states = call(name, path, accessible, "GetState")[0]
            if path != root and not states[0] & (1 << 25):  # SHOWING
                continue
            if call(name, path, accessible, "GetRole")[0] == 95:  # document web
                urls.append(call(name, path, "org.a11y.atspi.Document", "GetAttributeValue",
                                 GLib.Variant("(s)", ("DocURL",)))[0])
            todo.extend(p for _, p in call(name, path, accessible, "GetChildren")[0])
    return urls


def no_password_in(c):
    for output in c.outputs:
        assert PASSWORD not in output, f"the password leaked: {output[:2000]}"


# First in the module, before the hand-started Firefox is on screen: with one on
# screen, navigate_browser drives it instead of starting another.
def test_a_firefox_axsight_starts_reads_its_page_over_bidi(shop):
    base, orders = shop

    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{base}/order.html", "browser": "firefox",
                                                 "include_dom": True, **LOAD})
        assert opened.startswith(f"started the browser on {base}/order.html"), opened
        assert "[Document] Order" in opened, opened
        dom = opened.split("- dom ", 1)[1]
        assert '[textbox] "Password" (password)' in dom, dom
        place = re.search(r'(#d\d+) \[button\] "Place order"', dom)[1]
        # A #d element points at its tree element.
        name_d = re.search(r'\[textbox\] "Name" value="" \[[\d,]+\] = (#u\d+)', dom)[1]
        assert name_d == one(opened, "Edit", "Name"), dom

        typed = await c.ok("type_into_element", {"index": name_d, "text": "Ada"})
        assert 'the field holds "Ada"' in typed, typed
        assert "Typed: Ada" in typed, typed
        secret = await c.ok("type_into_element", {"index": one(opened, "Edit", "Password"),
                                                  "text": PASSWORD})
        # Checked by its length, never its text.
        assert f"the field holds {len(PASSWORD)} characters, as many as were typed" in secret, \
            secret
        assert PASSWORD not in secret, secret
        sent = await c.ok("click_element", {"index": place})
        assert sent.startswith(f'clicked {place} [button] "Place order"'), sent

        shown = await c.ok("get_window_tree", {"app": "Firefox", "include_dom": True})
        assert "[Heading] Thank you, Ada" in shown, shown
        assert '[heading] "Thank you, Ada"' in shown.split("- dom ", 1)[1], shown
        no_password_in(c)

    run_session(body, deadline=120)
    assert orders == [{"name": "Ada", "password": PASSWORD}], orders
    # The Firefox the server started ends with the server, content processes and all.
    assert poll(lambda: not started_browsers(), timeout=15), "Firefox outlived the server"


@pytest.fixture(scope="module")
def firefox(shop):
    """A Firefox started by hand, in a profile of its own, on the web fixture."""
    base, _ = shop
    profile = tempfile.mkdtemp(prefix="axsight-e2e-firefox-")
    shutil.copy(PROFILE_PREFS, os.path.join(profile, "user.js"))
    app = launch([FIREFOX, "-no-remote", "-profile", profile, f"{base}/index.html"],
                 "axsight web fixture")
    # Its window shows before its page does.
    assert poll(lambda: f"{base}/index.html" in shown_document_urls(app.pid), timeout=20), \
        shown_document_urls(app.pid)
    yield app
    assert alive(app.pid), "Firefox died while axsight read it"
    stop(app)
    shutil.rmtree(profile, ignore_errors=True)


def test_firefox_and_its_own_ui_are_read_and_acted_on(firefox, tmp_path):
    app = {"app": "Firefox"}
    saved = tmp_path / "saved-page.html"

    async def body(c):
        listed = await c.ok("get_applications", {})
        assert re.search(r"Firefox \(pid \d+, Gecko 1\d\d\.", listed), listed
        text = await c.ok("get_window_tree", app)
        assert "[Document] axsight web fixture" in text, text
        # The address bar by the id Gecko gives it; the page's password redacted.
        bar = await c.ok("find_elements", {"selector": "id:urlbar-input", **app})
        assert "[ComboBox]" in bar and "index.html" in bar, bar
        assert "[Edit] Password (password" in text and "hunter2-SECRET" not in text, text
        # The page's status line: Gecko keeps its text in the element itself.
        assert "[StatusBar] Ready" in text, text

        # Firefox's own UI: a toolbar button opens a tab, shown in the diff.
        new_tab = await c.ok("click_element", {"selector": 'role:Button && name:"Open a new tab (Ctrl+T)"',
                                               **app})
        assert ("TabItem", "New Tab") in section(new_tab, "added").values(), new_tab
        closed = await c.ok("press_key", {"key": "ctrl+w", **app})
        assert ("TabItem", "New Tab") in section(closed, "removed").values(), closed

        # Its address bar typed into and read back (EditableText does nothing in
        # Gecko: keys), then given up with Escape, which puts the address back.
        typed_bar = await c.ok("type_into_element", {"selector": "id:urlbar-input", **app,
                                                     "text": "typed by axsight"})
        assert 'the field holds "typed by axsight"' in typed_bar, typed_bar
        await c.ok("press_key", {"key": "Escape Escape", **app})
        bar = await c.ok("find_elements", {"selector": "id:urlbar-input", **app})
        assert "typed by axsight" not in bar and "index.html" in bar, bar

        # A click in the page and typing with read-back: the diff shows the status.
        clicked = await c.ok("click_element", {"selector": "role:Button && name:Go", **app})
        assert "[StatusBar] Go clicked" in clicked, clicked
        # The accessible way, by the action's real name (GetActions says ";;").
        counted = await c.ok("click_element", {"selector": "role:Button && name:Count", **app,
                                               "background": True})
        assert "through its accessible action 'press'" in counted, counted
        assert 'name "Count" -> "Count 1"' in counted, counted
        typed = await c.ok("type_into_element", {"selector": "role:Edit && name:Name", **app,
                                                 "text": "Grace"})
        assert 'the field holds "Grace"' in typed and "typed with key events" in typed, typed
        assert 'value "" -> "Grace"' in typed, typed

        # A modal dialog: Save Page As, a GTK file chooser inside Firefox, is
        # what the app named alone shows; the page is saved where it is told.
        asked = await c.ok("press_key", {"key": "ctrl+s", **app})
        assert any(r == "Dialog" and n.startswith("Save As")
                   for r, n in section(asked, "added").values()), asked
        dialog = await c.ok("get_window_tree", app)
        assert "[Dialog] Save As" in dialog.splitlines()[1], dialog
        answered = await c.ok("type_into_element", {"selector": 'role:Edit && name:"Name:"',
                                                    "app": "Firefox", "window": "Save As",
                                                    "text": f"{saved}{{Enter}}"})
        assert f'before Return, the field held "{saved}"' in answered, answered
        assert poll(lambda: saved.exists() and "Portal tooltip" in saved.read_text(),
                    timeout=10), "the page was not saved"
        windows = await c.ok("get_applications", {})
        assert "Save As" not in windows, windows
        # Firefox 153 then opens its downloads panel, which keeps the keyboard
        # (navigate_browser's typing would go there): closed as a person would,
        # once it shows (older Firefoxes show none).
        panel = "[ListItem] saved-page.html Completed"
        deadline = time.monotonic() + 5
        while panel not in (tree := await c.ok("get_window_tree", app)):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        if panel in tree:
            closed = await c.ok("press_key", {"key": "Escape", **app})
            assert panel not in await c.ok("get_window_tree", app), closed

        # include_dom says in one line why this Firefox has no DOM section.
        dom = await c.ok("get_window_tree", {**app, "include_dom": True})
        note = [l for l in dom.splitlines() if l.startswith("- dom")]
        assert note == ["- dom: none (axsight did not start this Firefox, so it has no "
                        "WebDriver BiDi connection to it; pages of browsers axsight starts "
                        "(navigate_browser, open_application) or attaches to (--browser-url) "
                        "have one)"], dom

    run_session(body)


def test_navigate_browser_drives_the_firefox_on_screen(firefox, shop):
    base, orders = shop

    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{base}/order.html", **LOAD})
        assert opened.startswith(f"opened {base}/order.html (\"Order\") in 'Order — Mozilla "
                                 "Firefox' through the browser's address bar"), opened
        assert "no WebDriver BiDi connection" in opened, opened
        assert f"Firefox (pid {firefox.pid})" in opened, opened

        await c.ok("type_into_element", {"index": one(opened, "Edit", "Name"), "text": "Grace"})
        await c.ok("type_into_element", {"index": one(opened, "Edit", "Password"),
                                         "text": PASSWORD})
        await c.ok("set_toggled", {"index": one(opened, "CheckBox", "Gift wrap"), "state": True})
        sent = await c.ok("click_element", {"index": one(opened, "Button", "Place order")})
        assert ("Heading", "Thank you, Grace") in section(sent, "added").values(), sent

        back = await c.ok("navigate_browser", {"action": "back", "app": "Firefox", **LOAD})
        assert back.startswith(f"went back to {base}/order.html") and "alt+Left" in back, back
        again = await c.ok("navigate_browser", {"action": "reload", **LOAD})
        assert again.startswith(f"reloaded {base}/order.html") and "with F5" in again, again
        # No other browser was started for any of it.
        listed = await c.ok("get_applications", {})
        assert "Chromium" not in listed and listed.count("Gecko") == 1, listed
        no_password_in(c)

    run_session(body, deadline=90)
    assert orders[-1] == {"name": "Grace", "password": PASSWORD, "gift": "yes"}, orders
    assert not started_browsers()
    # Firefox's own document shows the page, as the bus says.
    assert shown_document_urls(firefox.pid) == [f"{base}/order.html"]
    assert alive(firefox.pid)


def test_open_application_starts_firefox_with_its_page_in_the_tree(shop, tmp_path):
    """Started as any app is (its own profile, no protocol): accessibility is on."""
    base, _ = shop
    shutil.copy(PROFILE_PREFS, tmp_path / "user.js")
    started = []

    async def body(c):
        opened = await c.ok("open_application", {
            "app": f"{FIREFOX} -no-remote -profile {tmp_path} {base}/second.html"})
        assert opened.startswith("opened Firefox"), opened
        started.append(int(re.search(r", pid (\d+)\)", opened)[1]))
        shows = await c.ok("wait_for_element", {"selector": 'role:Document && name:"Second page"',
                                                "app": "Firefox", "timeout_ms": 20000})
        assert "Second page" in shows, shows

    try:
        run_session(body)
        assert f"{base}/second.html" in shown_document_urls(started[0])
    finally:
        for pid in started:
            os.kill(pid, 15)
        assert poll(lambda: not any(alive(p) for p in started), timeout=10)


def test_a_gecko_page_that_moves_without_events_is_never_read_stale(firefox, shop):
    # Gecko sends no bounds event for a CSS move, a scroll or a zoom: a read
    # kept from events alone would show the mover where it first was. Spot
    # checks of the page's boxes vouch for a kept read, or it is read whole.
    base, _ = shop
    app = {"app": "Firefox"}

    async def body(c):
        await c.ok("navigate_browser", {"url": f"{base}/clock.html", **app})
        reads = []
        until = time.time() + 5
        while time.time() < until:
            began = time.time()
            tree = await c.ok("get_window_tree", {**app, "window": "Clock"})
            reads.append((tree, began, time.time()))
        seen = set()
        for tree, began, ended in reads:
            tick = int(re.search(r"Tick (\d+)", tree)[1])
            assert int((began - 0.4) * 1000) // 700 <= tick <= int(ended * 1000) // 700, \
                (tick, began, ended, tree)
            # A read that no tick fell into shows the mover where that tick put it.
            if int((began - 0.15) * 1000) // 700 == int(ended * 1000) // 700:
                anchor = re.search(r"\[Button\] Anchor \(.*?\[(-?\d+),", tree)
                mover = re.search(r"\[Button\] Mover \(.*?\[(-?\d+),", tree)
                assert int(mover[1]) - int(anchor[1]) == (tick % 10) * 20, (tick, tree)
                seen.add(tick)
        assert len(seen) >= 4, seen
        await c.ok("navigate_browser", {"url": f"{base}/index.html", **app})

    run_session(body)


class LateListener(Shop):
    """The web fixtures, and the switch late_listener.html polls: `GET /listen`
    says `hash` once the test sets `move`, else `on` once it sets `listen`;
    `POST /listening` and `POST /moved` set those events."""

    # Set per server: threading.Event each.
    listen = listening = move = moved = None

    def do_GET(self):
        if self.path != "/listen":
            return super().do_GET()
        body = b"hash" if self.move.is_set() else b"on" if self.listen.is_set() else b"off"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        if self.path not in ("/listening", "/moved"):
            return super().do_POST()
        (self.listening if self.path == "/listening" else self.moved).set()
        self.send_response(204)
        self.end_headers()


def test_a_click_listener_or_address_a_page_changes_late_is_never_read_stale(firefox):
    # A script that gives a shown div a click listener (a late addEventListener,
    # a framework hydrating its page) makes it a button with no accessibility
    # event at all, and one that moves the page's address (a `#`, pushState)
    # says nothing either: a read kept from events would go on calling it words
    # at the old address. (The div it makes contenteditable does send events.)
    listen, listening, move, moved = (threading.Event() for _ in range(4))
    handler = type("LateListenerHandler", (LateListener,),
                   {"orders": [], "listen": listen, "listening": listening,
                    "move": move, "moved": moved})
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(handler, directory=str(WEB)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    app = {"app": "Firefox"}
    window = {**app, "window": "Late listener"}

    async def body(c):
        await c.ok("navigate_browser", {"url": f"{base}/late_listener.html", **app})
        await c.ok("wait_for_element", {**window, "selector": "name:Bravo", **LOAD})
        # Read twice: the second read is the kept one, and both call Bravo words.
        for _ in range(2):
            tree = await c.ok("get_window_tree", window)
            assert "[Text] Bravo" in tree and "[Button] Bravo" not in tree, tree
        listen.set()
        assert await asyncio.to_thread(listening.wait, 20), "the page never listened"
        # Gecko gives the new action a moment after the script ran (the
        # contenteditable's events can come first), so this waits; a read kept
        # from events alone would never show it.
        await c.ok("wait_for_element", {**window, "selector": "role:Button && name:Bravo",
                                        "timeout_ms": 10000})
        tree = await c.ok("get_window_tree", window)
        assert "[Button] Bravo" in tree and re.search(r"\[Edit\] \(value: \"Charlie\"", tree), tree
        clicked = await c.ok("click_element", {**window, "selector": "role:Button && name:Bravo"})
        assert "Bravo clicked" in clicked, clicked

        page = f'value: "{base}/late_listener.html'
        tree = await c.ok("get_window_tree", window)
        assert f'{page}"' in tree, tree
        move.set()
        assert await asyncio.to_thread(moved.wait, 20), "the page never moved its address"
        await c.ok("wait_for_element", {**window, "selector": "role:Document && value:moved",
                                        "timeout_ms": 10000})
        tree = await c.ok("get_window_tree", window)
        assert f'{page}#moved"' in tree, tree
        await c.ok("navigate_browser", {"url": f"{base}/index.html", **app})

    try:
        run_session(body)
    finally:
        server.shutdown()
