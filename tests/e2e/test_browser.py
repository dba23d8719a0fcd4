"""The browser end to end, through the official Python SDK client: `navigate_browser`
starts Chromium on the web fixture's login form (served from loopback), and the test
signs in using nothing but what the tools answered: handles from the tree, typing,
a click, the diff. Also: the DOM section, a #d click, the history, a new tab, and the
script tool, off by default.
"""
import functools
import os
import re
import shutil
import subprocess
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import REPO, launch, poll, stop
from test_mcp_server import parse_tree, run_session

WEB = REPO / "tests" / "fixtures" / "web"
PASSWORD = "s3cret-PASS-e2e"
LOAD = {"timeout_ms": 30000}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def web(desktop):
    """The web fixtures on a loopback HTTP server (the frame must be same-origin)."""
    # A thread per connection: a browser that keeps one open idle must not
    # hold up the others, nor the server's shutdown.
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                        functools.partial(Quiet, directory=str(WEB)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def browsers_running():
    """Processes of browsers an axsight server started (their profile is in the name)."""
    found = subprocess.run(["pgrep", "-f", "--", "--user-data-dir=.*axsight-browser-"],
                           capture_output=True, text=True)
    return found.stdout.split()


def handle(text, role, name):
    """The handle of the one tree line `[role] name` in `text`."""
    found = [h for h, (r, n) in parse_tree(text).items() if (r, n) == (role, name)]
    assert len(found) == 1, f"[{role}] {name}: {found} in:\n{text}"
    return found[0]


def test_sign_in_with_nothing_but_tool_outputs(web):
    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{web}/login.html", **LOAD})
        assert opened.startswith("started the browser on"), opened
        assert "[Document] Sign in" in opened, opened
        email = handle(opened, "Edit", "Email")
        password = handle(opened, "Edit", "Password")
        sign_in = handle(opened, "Button", "Sign in")

        typed = await c.ok("type_into_element", {"index": email, "text": "bob@example.com"})
        assert "bob@example.com" in typed, typed
        secret = await c.ok("type_into_element", {"index": password, "text": PASSWORD})
        assert PASSWORD not in secret, secret

        signed = await c.ok("click_element", {"index": sign_in})
        assert "Welcome, bob@example.com" in signed, signed
        assert "added:" in signed, signed

        # The page's elements with #d handles; the password never shows.
        tree = await c.ok("get_window_tree", {"app": "chromium", "include_dom": True})
        assert '[heading] "Welcome, bob@example.com"' in tree, tree

        # The form replaced itself in place: there is no page to go back to.
        back = await c.error("navigate_browser", {"action": "back", **LOAD})
        assert back == "there is no page to go back to in this tab", back
        # A reload brings the form back, empty.
        again = await c.ok("navigate_browser", {"action": "reload", **LOAD})
        assert again.startswith("reloaded") and "[Edit] Password" in again, again
        assert PASSWORD not in again, again

    run_session(body)
    # The browser the server started ends with the server, profile and all.
    assert poll(lambda: not browsers_running(), timeout=10), "Chromium outlived the server"


def test_dom_handles_tabs_and_the_script_tool(web):
    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{web}/index.html",
                                                 "include_dom": True, **LOAD})
        dom = opened.split("- dom ", 1)[1]
        go = re.search(r"(#d\d+) \[button\] \"Go\"", dom)[1]
        clicked = await c.ok("click_element", {"index": go})
        assert clicked.startswith(f'clicked {go} [button] "Go"'), clicked
        assert "Go clicked" in clicked, clicked

        tab = await c.ok("navigate_browser", {"url": f"{web}/second.html", "new_tab": True,
                                              **LOAD})
        assert tab.startswith("opened a new tab on") and "[Document] Second page" in tab, tab

        off = await c.error("execute_browser_script", {"script": "document.title"})
        assert "--allow-browser-script" in off, off

        bad = await c.error("navigate_browser", {})
        assert "url" in bad and "action" in bad, bad

    run_session(body)


def test_the_script_tool_runs_when_allowed(web):
    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{web}/second.html", **LOAD})
        assert "[Document] Second page" in opened, opened
        title = await c.ok("execute_browser_script", {"script": "document.title"})
        assert title.strip() == '"Second page"', title

    run_session(body, args=["--allow-browser-script"])


def test_a_running_browser_is_attached_through_its_devtools_endpoint(web):
    """A Chromium started by someone else, with a DevTools port: --browser-url reaches it."""
    profile = tempfile.mkdtemp(prefix="axsight-e2e-attach-")
    chromium = "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") \
        else shutil.which("chromium")
    proc = subprocess.Popen(
        [chromium, "--no-sandbox", "--disable-gpu", "--no-first-run", "--password-store=basic",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", f"{web}/second.html"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        assert poll(lambda: os.path.exists(port_file) and open(port_file).read().strip(),
                    timeout=20), "Chromium wrote no DevTools port"
        port = open(port_file).read().split()[0]

        async def body(c):
            moved = await c.ok("navigate_browser", {"url": f"{web}/index.html",
                                                    "include_dom": True, **LOAD})
            # Driven, not started: the page opened in the running browser's tab.
            assert moved.startswith("opened ") and f"pid {proc.pid}" in moved, moved
            assert '[button] "Go"' in moved.split("- dom ", 1)[1], moved

        run_session(body, args=["--browser-url", f"http://127.0.0.1:{port}"])
        assert proc.poll() is None, "an attached browser is not the server's to end"
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def test_div_soup_click_targets_are_found_and_clicked(web):
    """A page whose controls are spans and divs: each is listed as something to
    click where it is, the presentation wrapper is not, and a #d click on each
    shows in the page's own status line."""
    async def body(c):
        opened = await c.ok("navigate_browser", {"url": f"{web}/soup.html",
                                                 "include_dom": True, **LOAD})
        dom = opened[opened.index("- dom "):]
        lines = dom.splitlines()
        # The wrapper is never listed with the span's text, nor given a role.
        assert not any("presentation" in l for l in lines), dom
        assert sum("Confirm order" in l for l in lines) == 1, dom

        def target(name):
            line = next(l for l in lines if f'"{name}"' in l)
            assert re.search(r"\[button\]", line) and "clickable" in line, line
            return re.search(r"(#d\d+)", line)[1]

        for name, status in [("Confirm order", "Order confirmed"),
                             ("Open card", "Card opened"),
                             ("Go to details", "Details shown"),
                             ("Choose tile", "Tile chosen")]:
            clicked = await c.ok("click_element", {"index": target(name)})
            assert status in clicked, clicked
        # The tile's label inherits its parent's cursor: only the tile is listed.
        assert sum("Choose tile" in l for l in lines) == 1, dom
        # A div with nothing but a listener: known once the tracker ran before the
        # page's scripts, from the next document on.
        reloaded = await c.ok("navigate_browser", {"action": "reload", "include_dom": True,
                                                   **LOAD})
        lines = reloaded[reloaded.index("- dom "):].splitlines()
        clicked = await c.ok("click_element", {"index": target("Plain listener")})
        assert "Plain clicked" in clicked, clicked

    run_session(body)


def test_a_chromium_started_by_hand_is_driven_through_its_omnibox(web):
    """No DevTools connection to it (no port, no --browser-url): navigate_browser
    types into its address bar instead of starting another browser."""
    profile = tempfile.mkdtemp(prefix="axsight-e2e-omnibox-")
    chromium = "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") \
        else shutil.which("chromium")
    app = launch([chromium, "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--password-store=basic", f"--user-data-dir={profile}", f"{web}/second.html"],
                 "Second page")
    proc = app.proc
    try:
        async def body(c):
            shown = await c.ok("wait_for_element", {
                "selector": 'role:Document && name:"Second page"', "app": "chromium",
                "timeout_ms": 20000})
            assert "Second page" in shown, shown
            moved = await c.ok("navigate_browser", {"url": f"{web}/index.html", **LOAD})
            assert moved.startswith("opened ") and "through the browser's address bar" in moved, \
                moved
            assert "no DevTools connection" in moved and f"pid {proc.pid}" in moved, moved
            assert "[Document] axsight web fixture" in moved, moved
            back = await c.ok("navigate_browser", {"action": "back", "app": "chromium", **LOAD})
            assert back.startswith("went back to") and "[Document] Second page" in back, back

        run_session(body)
        assert not browsers_running(), "a browser was started beside the one on screen"
        assert proc.poll() is None, "a browser started by hand is not the server's to end"
    finally:
        stop(app)
        shutil.rmtree(profile, ignore_errors=True)


def test_a_server_asked_to_stop_ends_the_browsers_it_started(web):
    """SIGTERM (an orchestrator's stop, a client's terminate) while a session
    still holds a browser it started: the server ends the session on its way
    out, and the browser with it, instead of orphaning it."""
    from test_http import HttpServer, session_over_http
    served = HttpServer()
    try:
        async def body(session):
            opened = await session.call_tool("navigate_browser",
                                             {"url": f"{web}/index.html", **LOAD})
            assert not opened.is_error, opened
            assert browsers_running(), "no browser started"
            served.proc.terminate()
            assert served.proc.wait(timeout=20) == 0, served.stderr()

        session_over_http(served.url, body)
    finally:
        if served.proc.poll() is None:
            served.close()
    assert poll(lambda: not browsers_running(), timeout=10), "the browser outlived the server"
