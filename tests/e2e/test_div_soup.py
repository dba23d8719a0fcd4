"""A "div soup" web app (tests/fixtures/web/div_soup.html: no <button>, no
<label>, no roles, every control a plain div) in a browser the user started
themselves, with no DevTools connection, so no `#d` elements: the page is read
through the browser's accessibility bridge alone, as Firefox ESR and Chromium
give it, through the official Python SDK client with no image ever asked for.

The task: fill in the traveller (a contenteditable div), toggle an extra (a
chip that only changes its class: no accessibility event follows), book (a
div with a click listener). The end state is checked outside axsight: the page
POSTs its state to this test's own loopback server.
"""
import functools
import json
import os
import shutil
import tempfile
import threading
from http.server import HTTPServer, SimpleHTTPRequestHandler

import pytest

from conftest import REPO, launch, poll, stop
from test_fall_through import no_images
from test_mcp_server import run_session

WEB = REPO / "tests" / "fixtures" / "web"
FIREFOX = shutil.which("firefox-esr") or shutil.which("firefox")
CHROMIUM = "/usr/lib/chromium/chromium" if os.path.exists("/usr/lib/chromium/chromium") \
    else shutil.which("chromium")
LOAD = {"timeout_ms": 30000}


class Booking(SimpleHTTPRequestHandler):
    """The web fixtures, and /state, which records each state the page POSTs."""

    states = None  # set per server: a list shared with the test

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.states.append(json.loads(self.rfile.read(length).decode()))
        self.send_response(204)
        self.end_headers()


@pytest.fixture(scope="module")
def booking(desktop):
    """The loopback server: its base URL, and the states it received."""
    states = []
    handler = type("BookingHandler", (Booking,), {"states": states})
    server = HTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(WEB)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", states
    server.shutdown()


def start_browser(name, url):
    """A browser started by hand on URL, in a profile of its own: (app, profile)."""
    profile = tempfile.mkdtemp(prefix=f"axsight-e2e-soup-{name}-")
    if name == "firefox":
        if not FIREFOX:
            pytest.skip("Firefox is not installed")
        shutil.copy(REPO / "tests" / "fixtures" / "firefox" / "user.js",
                    os.path.join(profile, "user.js"))
        argv = [FIREFOX, "-no-remote", "-profile", profile, url]
    else:
        if not CHROMIUM:
            pytest.skip("Chromium is not installed")
        argv = [CHROMIUM, "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--password-store=basic", f"--user-data-dir={profile}", url]
    return launch(argv, "Trip booking"), profile


@pytest.mark.parametrize("browser", ["firefox", "chromium"])
def test_a_div_soup_page_is_read_as_controls_filled_and_booked(booking, browser):
    base, states = booking
    states.clear()
    app, profile = start_browser(browser, f"{base}/div_soup.html")
    name = {"app": "Firefox" if browser == "firefox" else "chromium"}
    try:
        async def body(c):
            await c.ok("wait_for_element", {**name, "selector": "role:Button && name:Book", **LOAD})
            tree = await c.ok("get_window_tree", name)
            page = tree[tree.index("[Document] Trip booking"):]
            # Divs with a listener of their own are buttons, named by their words;
            # contenteditable divs and a labelled input are fields named by the
            # words beside them; words alone are text.
            for line in ("[Button] Window seat", "[Button] Book", "[Edit] Traveller",
                         "[Edit] Promo code", "[Edit] Phone", "[Text] Destination"):
                assert line in page, page
            # A div without a listener of its own is not called a button.
            assert "[Text] Apply coupon" in page, page
            # What the tree says is not read again by OCR.
            assert '"Save draft"' not in page and '"Window seat"' not in page, page

            found = await c.ok("find_element", {**name, "description": "Traveller text field"})
            assert "[Edit] Traveller" in found.splitlines()[0], found

            typed = await c.ok("type_into_element", {
                **name, "selector": "role:Edit && name:Traveller", "text": "Ada Lovelace"})
            assert 'the field holds "Ada Lovelace"' in typed, typed

            # The chip changes only its colour: no event, but the pixels say so.
            chip = await c.ok("click_element", {
                **name, "selector": 'role:Button && name:"Window seat"'})
            assert "pixels changed" in chip and "no change" not in chip, chip

            booked = await c.ok("click_element", {**name, "selector": "role:Button && name:Book"})
            assert "Booked for Ada Lovelace" in booked, booked
            no_images(c)

        run_session(body)
        assert poll(lambda: states, timeout=10), "the page never posted its state"
        state = states[-1]
        assert state["booked"] is True, state
        assert state["traveller"] == "Ada Lovelace", state
        assert state["extras"] == ["window"], state
    finally:
        stop(app)
        shutil.rmtree(profile, ignore_errors=True)
