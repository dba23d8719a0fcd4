"""axsight's MCP server end to end: `axsight serve` driven over stdio by the official
Python SDK client (mcp.ClientSession + mcp.client.stdio.stdio_client), the way an
agent's MCP client starts it, against the fixture app on the desktop of
scripts/with-desktop.

Each test runs one server session in `asyncio.run` (no pytest-asyncio needed) under a
deadline, so a hung server fails the test instead of hanging the suite. Every tool
result of every session, and the server's stderr, is checked for the fixture's
password ("hunter2-SECRET").
"""
import asyncio
import json
import glob
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from conftest import FIXTURE_APP, REPO, SECRET, launch, stop

AXSIGHT_BIN = Path(os.environ.get("AXSIGHT_BIN") or REPO / "target" / "debug" / "axsight")
# Tools that only read (annotated read_only_hint: true), and the acting ones.
READ_ONLY_TOOLS = {"get_applications", "get_window_tree", "find_elements", "validate_element",
                   "wait_for_element", "capture_screenshot", "find_element"}
ACTING_TOOLS = {"click_element", "type_into_element", "press_key", "scroll_element", "set_value",
                "select_option", "set_toggled", "invoke_action", "mouse_drag", "activate_window",
                "open_application", "close_window", "navigate_browser", "execute_browser_script",
                "execute_sequence", "move_window", "resize_window", "maximize_window",
                "minimize_window", "clipboard", "record"}
TOOLS = READ_ONLY_TOOLS | ACTING_TOOLS
# What a client must pass for the server to see this desktop when several run.
DESKTOP_VARS = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR")
SESSION_DEADLINE_S = 60
# `#u12 [Button] Save ([79,221,66,34])`, indented by depth.
LINE = re.compile(r"^(?P<indent> *)(?P<handle>#u\d+) \[(?P<role>\w+)\] ?(?P<rest>.*)$")


def desktop_env():
    """The desktop's variables, and AXSIGHT_LOG when set: a run with it keeps
    the server's log, printed with a failing test's output."""
    return {name: os.environ[name] for name in (*DESKTOP_VARS, "AXSIGHT_LOG")
            if os.environ.get(name)}


class Client:
    """One MCP session with the server; remembers every tool result it got."""

    def __init__(self, session, init):
        self.session = session
        self.init = init
        self.outputs = []

    def _keep(self, result):
        dumped = result.model_dump_json(by_alias=True)
        assert SECRET not in dumped, f"the password leaked: {dumped[:2000]}"
        self.outputs.append(dumped)
        return result

    async def list_tools(self):
        return self._keep(await self.session.list_tools())

    async def call(self, name, args=None, timeout=None):
        """Calls a tool; waits 20 s for its answer, or 10 s past the call's own
        `timeout_ms` (a wait for a slow app must not be cut short here)."""
        if timeout is None:
            own = args.get("timeout_ms") if isinstance(args, dict) else None
            timeout = 20
            if isinstance(own, (int, float)) and not isinstance(own, bool):
                timeout = max(timeout, own / 1000 + 10)
        return self._keep(await self.session.call_tool(name, args or {},
                                                       read_timeout_seconds=timeout))

    async def ok(self, name, args=None):
        """Calls a tool that must succeed; returns its text."""
        result = await self.call(name, args)
        assert not result.is_error, f"{name}({args}) failed: {text_of(result)}"
        return text_of(result)

    async def error(self, name, args=None):
        """Calls a tool that must fail; returns its message."""
        result = await self.call(name, args)
        assert result.is_error, f"{name}({args}) should fail; got: {text_of(result)}"
        return text_of(result)


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


# `AXSIGHT_E2E_TRANSPORT=http` runs every session over streamable HTTP instead of
# stdio (`serve --http 127.0.0.1:0`): the same tests, the other transport.
TRANSPORT = os.environ.get("AXSIGHT_E2E_TRANSPORT", "stdio")


def run_session(body, env=None, deadline=SESSION_DEADLINE_S, args=(), binary=None):
    """Starts `axsight serve [args]`, initializes, runs `await body(client)`, shuts down.

    env=None passes the desktop's variables (most tests: unambiguous when several
    desktops run at once); env={} passes none beyond the SDK's defaults. BINARY
    is the axsight to start, AXSIGHT_BIN unless given.
    """
    binary = binary or AXSIGHT_BIN
    assert binary.exists(), f"{binary} is missing: run cargo build -p axsight"
    if TRANSPORT == "http":
        return run_http_session(body, env, deadline, args, binary)
    params = StdioServerParameters(command=str(binary), args=["serve", *args],
                                   env=desktop_env() if env is None else env)

    async def main(errlog):
        with anyio.fail_after(deadline):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    await body(Client(session, init))

    # A real file: the server's stderr is handed to it as a file descriptor.
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            asyncio.run(main(errlog))
        finally:
            errlog.seek(0)
            stderr = errlog.read()
            if stderr:
                print(f"---- axsight serve stderr ----\n{stderr}")
    assert SECRET not in stderr, "the password leaked into the server's stderr"


def run_http_session(body, env, deadline, args, binary):
    """`run_session` over streamable HTTP: the server started with `--http` on a
    free loopback port, the SDK's HTTP client, the same checks after."""
    import subprocess
    from mcp.client.streamable_http import streamable_http_client
    import httpx2
    # What the SDK's stdio client passes by default, as `env` is given beyond it.
    base = {k: os.environ[k] for k in ("HOME", "PATH", "USER", "LOGNAME", "SHELL", "TERM")
            if k in os.environ}
    server_env = {**base, **(desktop_env() if env is None else env)}
    with tempfile.TemporaryFile("w+") as errlog:
        server = subprocess.Popen([str(binary), "serve", "--http", "127.0.0.1:0", *args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=errlog, env=server_env, text=True)
        try:
            url = None
            started = time.monotonic()
            while url is None and time.monotonic() - started < 20:
                errlog.seek(0)
                found = re.search(r"serving MCP on (http://\S+/mcp)", errlog.read())
                url = found[1] if found else None
                if url is None:
                    assert server.poll() is None, "the HTTP server exited"
                    time.sleep(0.02)
            assert url, "the HTTP server named no address"

            async def main():
                with anyio.fail_after(deadline):
                    async with httpx2.AsyncClient(timeout=deadline) as client:
                        async with streamable_http_client(url, http_client=client) as streams:
                            async with ClientSession(streams[0], streams[1]) as session:
                                init = await session.initialize()
                                await body(Client(session, init))

            asyncio.run(main())
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
            errlog.seek(0)
            stderr = errlog.read()
            if stderr:
                print(f"---- axsight serve --http stderr ----\n{stderr}")
    assert SECRET not in stderr, "the password leaked into the server's stderr"


def parse_tree(text):
    """{handle: (role, name)} of every element line of a text tree."""
    elements = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            # "Save ([x,y,w,h])" or "([x,y,w,h])" for an element without a name
            rest = m["rest"]
            name = "" if rest.startswith("(") else rest.split(" (", 1)[0]
            elements[m["handle"]] = (m["role"], name)
    return elements


def handle_of(elements, role, name):
    found = [h for h, (r, n) in elements.items() if (r, n) == (role, name)]
    assert len(found) == 1, f"{role} {name!r}: {found}"
    return found[0]


def json_nodes(node):
    yield node
    for child in node.get("children", []):
        yield from json_nodes(child)


def test_tools_list_is_small_and_read_only(desktop):
    """All 28 tools, the reading ones (wait_for_element among them) marked read-only
    and the acting ones not, in under 16 KB (18 KB was allowed once the four
    window-placing tools came; shorter descriptions brought it back)."""
    async def body(c):
        listed = await c.list_tools()
        assert {t.name for t in listed.tools} == TOOLS and len(listed.tools) == 28
        for tool in listed.tools:
            read_only = tool.annotations.read_only_hint if tool.annotations else None
            if tool.name in READ_ONLY_TOOLS:
                assert read_only is True, tool.name
            else:
                assert read_only is not True, tool.name
        dumped = listed.model_dump_json()
        wire = listed.model_dump_json(by_alias=True, exclude_none=True)
        print(f"tools/list: {len(dumped.encode())} bytes (model_dump_json), "
              f"{len(wire.encode())} bytes (by_alias, exclude_none)\n{wire}")
        # What goes over the wire (the SDK's own dump adds its null fields).
        assert len(wire.encode()) < 16 * 1024

    run_session(body)


def test_read_only_lists_and_serves_only_the_reading_tools(fixture_app):
    async def body(c):
        listed = await c.list_tools()
        assert {t.name for t in listed.tools} == READ_ONLY_TOOLS, listed
        tree = await c.ok("get_window_tree", {"app": str(fixture_app.pid)})
        assert "[Button] Save" in tree
        # An acting tool is not there to call: a protocol error, as for any
        # tool the server does not have.
        try:
            result = await c.session.call_tool("click_element", {"selector": "name:Save"})
        except MCPError as error:
            assert "not allowed: click_element is not offered by this server" in str(error), error
        else:
            raise AssertionError(f"a tool left out was called: {result}")

    run_session(body, args=["--read-only"])


def test_the_audit_log_records_acting_calls_and_no_secret(desktop, tmp_path):
    log = tmp_path / "audit.jsonl"
    # An app of its own: typing moves the focus, which other tests of the
    # module's fixture look at.
    title = f"audited {os.getpid()}"
    audited = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    app_args = {"app": str(audited.pid), "window": title}

    async def body(c):
        await c.ok("get_window_tree", app_args)
        await c.ok("click_element", {"selector": "role:Button && name:Count", **app_args})
        await c.ok("type_into_element", {"selector": "role:Edit && name:Password",
                                         "text_to_type": "audit-PASS-1234", **app_args})
        await c.error("click_element", {"index": "#u99999"})

    try:
        run_session(body, args=["--audit-log", str(log)])
    finally:
        stop(audited)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["tool"] for e in entries] == ["click_element", "type_into_element",
                                            "click_element"], entries
    click, typed, failed = entries
    assert click["outcome"] == "ok" and "[Button] Count" in click["answer"], click
    assert click["target"]["selector"] == "role:Button && name:Count" and click["ms"] >= 0
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", click["time"]), click
    assert typed["target"]["text"] == "15 characters", typed
    assert failed["outcome"] == "error" and "#u99999" in failed["answer"], failed
    text = log.read_text()
    assert "audit-PASS-1234" not in text and SECRET not in text


def test_initialize_instructions_explain_handles(desktop):
    async def body(c):
        assert c.init.server_info.name == "axsight"
        instructions = c.init.instructions or ""
        assert "handle" in instructions.lower() and "#u" in instructions
        assert "a selector that finds nothing names the elements close to it" in instructions

    run_session(body)


def test_get_applications_lists_the_fixture(fixture_app):
    async def body(c):
        apps = await c.ok("get_applications")
        assert f"axsight-fixture (pid {fixture_app.pid}" in apps
        assert f"[Window] {fixture_app.title}" in apps

    run_session(body)


def test_window_tree_has_save_button_and_masks_the_password(fixture_app, app_args):
    async def body(c):
        tree = await c.ok("get_window_tree", app_args)
        lines = tree.splitlines()
        assert lines[0] == f"app: axsight-fixture (pid {fixture_app.pid})"
        # "active" when it holds the X focus, which depends on what ran before (no
        # window manager here): the acting tests move the pointer and the focus.
        assert re.match(rf"#u\d+ \[Window\] {re.escape(fixture_app.title)} "
                        r"\((?:active, )?\[0,0,800,600\]\)$",
                        lines[1]), lines[1]
        assert any(re.fullmatch(r" +#u\d+ \[Button\] Save \(\[\d+,\d+,\d+,\d+\]\)", l)
                   for l in lines), tree
        password = [l for l in lines if re.match(r" +#u\d+ \[Edit\] Password ", l)]
        assert len(password) == 1, tree
        assert re.search(r"\(password, \[\d+,\d+,\d+,\d+\]\)$", password[0]), password[0]
        assert "value" not in password[0]
        # Everything else that could carry the entry's text: invisible elements,
        # JSON, the entry's own subtree, find and validate on it.
        await c.ok("get_window_tree", {**app_args, "include_invisible": True})
        result = await c.call("get_window_tree", {**app_args, "format": "json",
                                                  "include_invisible": True})
        assert not result.is_error, text_of(result)
        entry = [n for n in json_nodes(result.structured_content["tree"])
                 if n.get("name") == "Password" and n.get("role") == "Edit"]
        assert len(entry) == 1 and entry[0]["raw_role"] == "password text"
        assert "value" not in entry[0] or SECRET not in str(entry[0]["value"])
        pw = handle_of(parse_tree(tree), "Edit", "Password")
        await c.ok("find_elements", {"selector": "role:Edit"})
        # (not the whole secret in the selector: the answer echoes the selector)
        no_match = await c.ok("find_elements", {"selector": 'text:"hunter2"'})
        assert no_match.startswith("No element matches"), no_match
        await c.ok("validate_element", {"selector": "role:Edit && name:Password"})
        await c.call("get_window_tree", {**app_args, "from": pw})
        await c.call("validate_element", {"index": pw})
        assert len(c.outputs) >= 8 and not any(SECRET in out for out in c.outputs)

    run_session(body)


def test_handles_are_stable_across_calls(app_args):
    async def body(c):
        first = parse_tree(await c.ok("get_window_tree", app_args))
        second = parse_tree(await c.ok("get_window_tree", app_args))
        assert len(first) > 30
        assert first == second

    run_session(body)


@pytest.fixture
def second_app(fixture_app):
    """A second fixture window, for this test only: of two windows at most one is
    active, so handles must lead to their own window, not to the active one."""
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", "second fixture"],
                 "second fixture")
    yield app
    stop(app)


def test_from_handle_prints_that_subtree(app_args, second_app):
    async def body(c):
        apps = await c.ok("get_applications")
        print(apps)
        for args in (app_args, {"app": str(second_app.pid)}):
            tree = await c.ok("get_window_tree", args)
            elements = parse_tree(tree)
            table = handle_of(elements, "Table", "Fruits")
            sub = await c.ok("get_window_tree", {"from": table})
            body_lines = [l for l in sub.splitlines() if LINE.match(l)]
            assert body_lines and body_lines[0].startswith(f"{table} [Table] Fruits"), sub
            assert sub.splitlines()[0] == tree.splitlines()[0]  # app: NAME (pid N)
            sub_elements = parse_tree(sub)
            assert set(sub_elements) < set(elements)
            assert ("Cell", "Apple") in sub_elements.values()
            assert ("Button", "Save") not in sub_elements.values()
            # The same handles as in the whole tree.
            assert all(elements[h] == v for h, v in sub_elements.items())

    run_session(body)


def test_json_format_gives_structured_content_once(app_args):
    async def body(c):
        text_tree = parse_tree(await c.ok("get_window_tree", app_args))
        result = await c.call("get_window_tree", {**app_args, "format": "json"})
        assert not result.is_error, text_of(result)
        data = result.structured_content
        assert isinstance(data, dict) and "tree" in data
        assert data["tree"]["role"] == "Window"
        # A short pointer in the text content, not the tree a second time.
        text = text_of(result)
        assert len(text) < 200 and "#u" not in text and "Save" not in text, text
        save = [n for n in json_nodes(data["tree"])
                if n.get("role") == "Button" and n.get("name") == "Save"]
        assert len(save) == 1
        assert save[0]["handle"] == handle_of(text_tree, "Button", "Save")

    run_session(body)


def test_find_elements_gives_the_tree_handle(fixture_app, app_args):
    async def body(c):
        save = handle_of(parse_tree(await c.ok("get_window_tree", app_args)), "Button", "Save")
        found = await c.ok("find_elements", {"selector": "role:Button && name:Save",
                                             "app": "axsight-fixture"})
        lines = [l.strip() for l in found.splitlines() if LINE.match(l.strip())]
        assert f"in '{fixture_app.title}' (axsight-fixture):" in found, found
        assert len(lines) == 1 and lines[0].startswith(f"{save} [Button] Save (["), found

    run_session(body)


def test_malformed_selector_is_an_error_with_a_column(fixture_app):
    async def body(c):
        message = await c.error("find_elements", {"selector": "role:Button &&"})
        assert "column" in message

    run_session(body)


def test_unknown_app_is_an_error_naming_the_running_apps(fixture_app):
    async def body(c):
        message = await c.error("get_window_tree", {"app": "no-such-app-xyz"})
        assert "no-such-app-xyz" in message and "axsight-fixture" in message, message

    run_session(body)


def test_validate_by_selector_found_and_not_found(fixture_app):
    async def body(c):
        found = await c.ok("validate_element", {"selector": "role:Button && name:Save",
                                                "app": "axsight-fixture"})
        assert found.startswith("exists: #u") and "[Button] Save" in found, found
        missing = await c.ok("validate_element", {"selector": "role:Button && name:NoSuchButton",
                                                  "app": "axsight-fixture"})
        assert missing.startswith("not found"), missing

    run_session(body)


def test_validate_by_handle(app_args, second_app):
    async def body(c):
        tree = parse_tree(await c.ok("get_window_tree", app_args))
        assert tree["#u1"][0] == "Window"
        by_handle = await c.ok("validate_element", {"index": "#u1"})
        assert by_handle.startswith("exists: #u1 [Window]"), by_handle
        by_number = await c.ok("validate_element", {"index": 1, "vision_type": "ui_tree"})
        assert by_number.startswith("exists: #u1 [Window]"), by_number
        # A handle in the other window too (of two windows, at most one is active).
        second = parse_tree(await c.ok("get_window_tree", {"app": str(second_app.pid)}))
        cancel = handle_of(second, "Button", "Cancel")
        answer = await c.ok("validate_element", {"index": cancel})
        assert answer.startswith(f"exists: {cancel} [Button] Cancel"), answer
        assert "second fixture" in answer, answer

    run_session(body)


def test_validate_unknown_handle_is_an_error(app_args):
    async def body(c):
        await c.ok("get_window_tree", app_args)
        message = await c.error("validate_element", {"index": "#u9999"})
        assert "never given out" in message, message

    run_session(body)


def test_killed_app_gives_a_clear_error_not_a_hang(fixture_app):
    doomed = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", "doomed"], "doomed")
    try:
        async def body(c):
            args = {"app": str(doomed.pid), "window": "doomed"}
            tree = await c.ok("get_window_tree", args)
            assert "[Window] doomed" in tree
            doomed.proc.send_signal(signal.SIGKILL)
            doomed.proc.wait(timeout=5)
            t0 = time.monotonic()
            message = await c.error("get_window_tree", args)
            assert time.monotonic() - t0 < 5
            assert str(doomed.pid) in message or "doomed" in message or "gone" in message, message
            apps = await c.ok("get_applications")
            assert f"pid {fixture_app.pid}" in apps
            # The registry may take a moment to drop the dead app.
            deadline = time.monotonic() + 3
            while "doomed" in apps and time.monotonic() < deadline:
                await anyio.sleep(0.1)
                apps = await c.ok("get_applications")
            assert "doomed" not in apps, apps
            assert time.monotonic() - t0 < 8

        run_session(body, deadline=30)
    finally:
        stop(doomed)


def test_handle_of_killed_app_validates_as_gone(fixture_app):
    """validate_element answers "not found" (not an error) for a handle whose app died."""
    doomed = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", "doomed too"], "doomed too")
    try:
        async def body(c):
            tree = parse_tree(await c.ok("get_window_tree", {"app": str(doomed.pid)}))
            save = handle_of(tree, "Button", "Save")
            assert (await c.ok("validate_element", {"index": save})).startswith("exists: ")
            doomed.proc.send_signal(signal.SIGKILL)
            doomed.proc.wait(timeout=5)
            answer = await c.ok("validate_element", {"index": save})
            assert answer.startswith("not found"), answer

        run_session(body, deadline=30)
    finally:
        stop(doomed)


def test_server_finds_the_desktop_without_env(fixture_app):
    """The SDK's stdio_client passes only HOME, PATH, USER... unless told: the server
    must find the display (the only X socket) and the AT-SPI bus (the AT_SPI_BUS
    property of the X root window) by itself."""
    sockets = glob.glob("/tmp/.X11-unix/X*")
    if len(sockets) > 1:
        # Several desktops run at once (other test runs): "the only X socket" is
        # ambiguous, so pass DISPLAY alone; the AT-SPI bus must still come from the
        # X root window property (no DBUS_SESSION_BUS_ADDRESS/AT_SPI_BUS_ADDRESS).
        env = {"DISPLAY": os.environ["DISPLAY"]}
    else:
        env = {}
    print(f"X sockets: {sockets}; env given to the server beyond the SDK's defaults: {env}")

    async def body(c):
        apps = await c.ok("get_applications")
        assert f"axsight-fixture (pid {fixture_app.pid}" in apps, apps
        tree = await c.ok("get_window_tree", {"app": str(fixture_app.pid)})
        assert "[Button] Save" in tree

    run_session(body, env=env)


def test_several_displays_are_named_and_one_is_chosen_with_display(fixture_app, tmp_path):
    """With a second desktop running and a client that passes no DISPLAY, the errors
    name the displays; `--display` picks one, whose bus the X root window names."""
    from conftest import PrivateDesktop
    other = PrivateDesktop(wm=False, tmp_path=tmp_path)
    try:
        displays = sorted(":" + s.rsplit("X", 1)[1] for s in glob.glob("/tmp/.X11-unix/X*"))
        assert len(displays) >= 2, displays

        async def unnamed(c):
            error = await c.error("get_applications")
            assert "several X displays run" in error and "--display" in error, error
            for display in (os.environ["DISPLAY"], other.env["DISPLAY"]):
                assert display in error, error

        run_session(unnamed, env={})

        async def chosen(c):
            apps = await c.ok("get_applications")
            assert f"axsight-fixture (pid {fixture_app.pid}" in apps, apps

        run_session(chosen, env={}, args=["--display", os.environ["DISPLAY"]])
    finally:
        other.close()


def test_no_display_at_all_is_a_clear_error(desktop, tmp_path):
    """With no way to find the desktop the server still starts and answers with an
    error saying what it tried, instead of crashing or hanging."""
    env = {"DISPLAY": ":4242", "XDG_RUNTIME_DIR": str(tmp_path)}

    async def body(c):
        message = await c.error("get_applications")
        print(message)
        assert ":4242" in message and len(message) < 2000, message

    run_session(body, env=env, deadline=20)


def test_a_selector_that_finds_nothing_names_what_it_missed(app_args):
    """The fixture's File is a [Menu] and its Open button is `Open dialog later`:
    the refusal and find_elements name them, and how to find them."""
    async def body(c):
        missed = await c.error("click_element",
                               {"selector": "role:MenuItem && name:File", **app_args})
        assert re.search(r"; close to it: #u\d+ \[Menu\] File \(its role differs\)", missed), \
            missed
        found = await c.ok("find_elements", {"selector": "role:Button && name:Open", **app_args})
        assert re.search(r'#u\d+ \[Button\] Open dialog later \(its name differs '
                         r'\(text:"Open" finds it\)\)', found), found
        # An option that is not there: the whole list, and the closest.
        refused = await c.error("select_option", {
            "selector": "role:ComboBox && name:Colour", **app_args, "option": "Gren"})
        assert "has no option 'Gren'; its 3 options: Red, Green, Blue; closest: Green" \
            in refused, refused

    run_session(body)


def test_keys_into_an_untitled_popup_name_the_window_it_is_over(app_args, fixture_app):
    """GTK 3's combo box opens its list in an untitled window of its own: a key
    pressed there names the app and the window the popup is over, not ''."""
    async def body(c):
        opened = await c.ok("click_element",
                            {"selector": "role:ComboBox && name:Colour", **app_args})
        assert "[MenuItem] Green" in opened, opened
        closed = await c.ok("press_key", {"key": "Escape"})
        assert (f"pressed Escape in an untitled window of axsight-fixture (a popup or menu "
                f"over '{fixture_app.title}')") in closed, closed
        assert "window ''" not in closed, closed

    run_session(body)


def test_a_budget_shortens_the_long_list_not_the_buttons_after_it(app_args):
    """The fixture's long list comes before its bottom buttons: a budget a
    little short of the whole tree leaves rows of the list out, says so, and
    still prints the buttons."""
    async def body(c):
        whole = await c.ok("get_window_tree", app_args)
        assert "[Button] Refresh" in whole and "Row item 5" in whole, whole
        short = await c.ok("get_window_tree", {**app_args, "max_chars": len(whole) - 120})
        assert "[Button] Refresh" in short and "[Text] Ready" in short, short
        assert re.search(r'… \d+ more Text here: read them with from: "#u\d+"', short), short
        assert "Row item 1" in short and "Row item 5" not in short, short

    run_session(body)


def test_a_file_choosers_buttons_outlast_a_folder_of_500_files(desktop, tmp_path):
    """GTK's Save As over 500 files under a tight budget: the file list's
    middle is left out and said so, its Cancel and Save buttons are printed."""
    for n in range(500):
        (tmp_path / f"file_{n}.txt").write_text("")
    chooser = subprocess.Popen(["/usr/bin/python3", str(FIXTURE_APP.parent / "file_chooser.py"),
                                str(tmp_path)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        async def body(c):
            window = {"app": str(chooser.pid), "window": "Save As"}
            deadline = time.monotonic() + 20
            while "[Cell] file_" not in (tree := text_of(await c.call("get_window_tree",
                                                                       window))):
                assert time.monotonic() < deadline, tree
                await asyncio.sleep(0.2)
            short = await c.ok("get_window_tree", {**window, "max_chars": 5000})
            assert "[Button] Cancel" in short and "[Button] Save" in short, short
            assert re.search(r'… \d+ more Cell here: read them with from: "#u\d+"', short), short
            assert "[cut:" not in short, short

        run_session(body)
    finally:
        chooser.kill()
        chooser.wait()


def test_a_click_on_a_disabled_control_says_it_is_disabled(desktop):
    """gtk3-widget-factory's insensitive check button: the click is sent, and the
    answer says the control is disabled rather than leave a quiet diff unexplained."""
    async def body(c):
        opened = text_of(await c.call("open_application", {
            "app": "gtk3-widget-factory", "timeout_ms": 30_000}, timeout=60))
        pid = int(re.search(r", pid (\d+)\)", opened.splitlines()[0])[1])
        try:
            clicked = await c.ok("click_element", {
                "app": "gtk3-widget-factory",
                "selector": "role:CheckBox && name:checkbutton && enabled:false"})
            assert "check: it is disabled, so the app may have ignored the click" in clicked, \
                clicked
            enabled = await c.ok("click_element", {
                "app": "gtk3-widget-factory",
                "selector": "role:CheckBox && name:checkbutton && enabled:true"})
            assert "it is disabled" not in enabled, enabled
        finally:
            os.kill(pid, signal.SIGTERM)

    run_session(body)
