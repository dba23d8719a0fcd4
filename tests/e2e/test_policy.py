"""What a served desktop lets a client do, tried as a client would, over the
transport the suite runs on (stdio, or HTTP with AXSIGHT_E2E_TRANSPORT=http):
`--tools` and `--deny-tools` decide which tools are listed and callable;
open_application starts programs from an argv and never runs a caller's text
through a shell; `--allow-shell` is the explicit way back; `--allow-app` and
`--apps` name what may start, and the audit log records what was refused.
"""
import http.client
import json
import os
import re
import shlex
import signal
import subprocess

import pytest
from mcp.shared.exceptions import MCPError

from conftest import FIXTURE_APP, poll
from test_acting import PID, alive
from test_mcp_server import READ_ONLY_TOOLS, TOOLS, TRANSPORT, run_session

WINDOWS = {"activate_window", "close_window", "move_window", "resize_window",
           "maximize_window", "minimize_window"}


def kill_all(pids):
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_shell_line_in_open_application_runs_nothing(desktop, tmp_path):
    """`$(…)`, `;` and backquotes in the app's text are refused, saying why, and
    the file each would have created stays absent. Served with --allow-shell, the
    same line runs: the refusal is the policy's, not an accident of quoting."""
    made = [tmp_path / f"made-{n}" for n in range(5)]
    lines = [f"true $(touch {made[0]})", f"true; touch {made[1]}", f"true `touch {made[2]}`"]
    # A shell started as the program runs a line as well.
    shells = [f"sh -c 'touch {made[3]}'", f"env A=1 /bin/bash -c 'touch {made[4]}'"]

    async def refused(c):
        for line in lines:
            message = await c.error("open_application", {"app": line, "timeout_ms": 1000})
            assert "not a shell line" in message and "quote it" in message, message
        for line in shells:
            message = await c.error("open_application", {"app": line, "timeout_ms": 1000})
            assert message.startswith("not allowed: `") and "is a shell" in message, message
        # A quoted metacharacter is an argument like any other.
        quoted = await c.error("open_application",
                               {"app": f"true '$(touch {made[0]})'", "timeout_ms": 1000})
        assert "no new window" in quoted or "timed out" in quoted, quoted

    run_session(refused)
    assert not any(path.exists() for path in made), [p for p in made if p.exists()]

    async def allowed(c):
        await c.error("open_application", {"app": lines[0], "timeout_ms": 1000})

    run_session(allowed, args=["--allow-shell"])
    assert poll(made[0].exists, timeout=10), "--allow-shell did not run the line"


def test_only_the_apps_the_allow_list_names_start(desktop, tmp_path):
    """`--apps FILE` (and `--allow-app`): the fixture, started by the interpreter
    the list names, opens; any other program is refused with the list, runs
    nothing, and the audit log records the refusal."""
    listed = tmp_path / "apps.txt"
    listed.write_text("# what the agent may start\n/usr/bin/python3\n")
    audit = tmp_path / "audit.jsonl"
    made = tmp_path / "made"
    title = f"axsight-allowed-{os.getpid()}"
    pids = []

    async def body(c):
        message = await c.error("open_application", {"app": f"touch {made}"})
        assert message.startswith("not allowed: open_application may start only "
                                  "gedit, /usr/bin/python3; "), message
        assert f"`touch {made}` is none of them" in message, message
        # The same program by another path is not the one listed.
        other = await c.error("open_application", {"app": f"/tmp/python3 {FIXTURE_APP}"})
        assert other.startswith("not allowed:"), other
        opened = await c.ok("open_application", {"app": shlex.join(
            ["/usr/bin/python3", str(FIXTURE_APP), "--title", title])})
        assert f"'{title}'" in opened.splitlines()[0], opened
        pids.append(int(PID.search(opened)[1]))

    try:
        run_session(body, args=["--apps", str(listed), "--allow-app", "gedit",
                                "--audit-log", str(audit)])
    finally:
        kill_all(pids)
    assert not made.exists()
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    outcomes = [(e["tool"], e["outcome"]) for e in entries]
    assert outcomes == [("open_application", "refused"), ("open_application", "refused"),
                        ("open_application", "ok")], entries
    assert entries[0]["answer"].startswith("not allowed: "), entries[0]


def test_a_policy_that_contradicts_itself_is_refused_at_start(desktop, tmp_path):
    from test_mcp_server import AXSIGHT_BIN
    done = subprocess.run([str(AXSIGHT_BIN), "serve", "--allow-app", "gedit", "--allow-shell"],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "--allow-shell and an app allow-list cannot go together" in done.stderr, done.stderr


async def refused_by_name(c, tool, arguments):
    """Calls TOOL, which the policy leaves out: a protocol error that says so."""
    try:
        result = await c.session.call_tool(tool, arguments)
    except MCPError as error:
        assert f"not allowed: {tool} is not offered by this server" in str(error), error
        return
    raise AssertionError(f"{tool}, left out, was called: {result}")


def test_tools_named_or_grouped_are_all_a_client_sees_and_can_call(fixture_app, tmp_path):
    """`--tools reading,windows` lists exactly those groups; `--deny-tools
    click_element,launch` lists the rest, refuses the two by name, also as a step of
    execute_sequence, and the audit log records each refusal."""
    audit = tmp_path / "audit.jsonl"

    async def grouped(c):
        listed = {t.name for t in (await c.list_tools()).tools}
        assert listed == READ_ONLY_TOOLS | WINDOWS, listed
        await refused_by_name(c, "press_key", {"key": "Escape"})

    run_session(grouped, args=["--tools", "reading,windows"])

    async def denied(c):
        listed = {t.name for t in (await c.list_tools()).tools}
        assert listed == TOOLS - {"click_element", "open_application"}, listed
        await refused_by_name(c, "click_element", {"selector": "name:Save"})
        await refused_by_name(c, "open_application", {"app": "true"})
        done = await c.call("execute_sequence", {"steps": [
            {"tool": "find_elements", "arguments": {"selector": "role:Button && name:Save",
                                                    "app": str(fixture_app.pid)}},
            {"tool": "click_element", "arguments": {"selector": "role:Button && name:Save",
                                                    "app": str(fixture_app.pid)}}]})
        text = "".join(b.text for b in done.content if b.type == "text")
        # Refused before any step ran.
        assert done.is_error and text.startswith(
            "not allowed: step 2: click_element is not offered by this server"), text
        assert text.endswith("nothing ran"), text

    run_session(denied, args=["--deny-tools", "click_element,launch", "--audit-log", str(audit)])
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    refused = [(e["tool"], e["outcome"]) for e in entries if e["outcome"] == "refused"]
    assert refused == [("click_element", "refused"), ("open_application", "refused"),
                       ("execute_sequence", "refused")], entries


def test_an_unknown_tool_or_group_stops_the_server_with_the_groups(desktop):
    from test_mcp_server import AXSIGHT_BIN
    done = subprocess.run([str(AXSIGHT_BIN), "serve", "--tools", "reading,clicking"],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "`clicking` is neither a tool nor a group of tools; the groups are reading, acting" \
        in done.stderr, done.stderr


def test_acting_calls_past_the_rate_limit_are_refused_and_reading_goes_on(fixture_app):
    async def body(c):
        for _ in range(3):
            await c.ok("press_key", {"key": "shift", "app": str(fixture_app.pid)})
        refused = await c.error("press_key", {"key": "shift", "app": str(fixture_app.pid)})
        assert refused.startswith("not allowed: this session made 3 acting calls in the last "
                                  "minute, the most it may (serve --rate-limit); the next may "
                                  "come in "), refused
        assert "axsight-fixture" in await c.ok("get_applications")

    run_session(body, args=["--rate-limit", "3"])


class Raw:
    """Plain HTTP to a `serve --http`: what a client, or a flood, sends."""

    INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
    HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}

    def __init__(self, port):
        self.port = port

    def post(self, body, session=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = dict(self.HEADERS, **({"Mcp-Session-Id": session} if session else {}))
        connection.request("POST", "/mcp", body, headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        return response.status, response.getheader("Mcp-Session-Id"), text

    def begin(self, use=True):
        """A new session's id; with USE, it also lists the tools (in use)."""
        status, session, text = self.post(self.INIT)
        assert status == 200 and session, (status, text)
        self.post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), session)
        if use:
            assert self.tools(session)[0] == 200
        return session

    def tools(self, session):
        return self.post(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), session)


def serving(port, *args):
    from test_mcp_server import AXSIGHT_BIN
    server = subprocess.Popen([str(AXSIGHT_BIN), "serve", "--http", f"127.0.0.1:{port}", *args],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)

    def up():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/healthz")
            return connection.getresponse().status == 200
        except OSError:
            return False
    assert poll(up, timeout=15), "serve --http never answered"
    return server


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1])


@pytest.mark.skipif(TRANSPORT == "http", reason="starts its own HTTP server: once is enough")
def test_http_sessions_are_capped_end_when_idle_and_a_flood_stays_small(desktop):
    """--max-sessions 2 --idle-timeout 2s: a third client is refused while both
    are in use, with why; an idle session ends and a request naming it says so; a
    session that did nothing gives its place to a new client; 5,000 bare
    initialize requests leave the server within 20 MB of where it began; and
    2,000 sessions that did nothing yet cost under 4 KB each (the bounds
    docs/deploy.md states), each woken by its first request."""
    port = free_port()
    server = serving(port, "--max-sessions", "2", "--idle-timeout", "2s")
    raw = Raw(port)
    try:
        first, second = raw.begin(), raw.begin()
        status, _, text = raw.post(Raw.INIT)
        assert status == 503, (status, text)
        assert "holds its most sessions (2) and each is in use" in text, text
        # Idle past the timeout, both end (asking about one would keep it alive:
        # a new client's place tells instead); naming one then says why.
        assert poll(lambda: raw.post(Raw.INIT)[0] == 200, timeout=10, interval=0.2)
        assert raw.tools(first)[0] == 404
        status, _, text = raw.tools(second)
        assert status == 404 and "idle longer than 2 s (serve --idle-timeout)" in text, text
        # A session that did nothing makes room for a new client.
        bare = raw.begin(use=False)
        raw.begin()
        newcomer = raw.begin()
        assert raw.tools(newcomer)[0] == 200
        status, _, text = raw.tools(bare)
        assert status == 404 and "when a new client needed its place" in text, text
    finally:
        server.terminate()
        server.wait(timeout=10)

    server = serving(port)
    try:
        before = rss_kb(server.pid)
        statuses = {}
        for _ in range(5000):
            status, _, _ = raw.post(Raw.INIT)
            statuses[status] = statuses.get(status, 0) + 1
        after = rss_kb(server.pid)
        print(f"5,000 bare initialize: {statuses}; RSS {before} KB -> {after} KB")
        assert statuses == {200: 5000}, statuses
        assert after - before < 20 * 1024, (before, after)
    finally:
        server.terminate()
        server.wait(timeout=10)

    # Held, not given up: a session costs its initialize's parameters until it is
    # used (a live one holds rmcp's channels, about 54 KB).
    server = serving(port, "--max-sessions", "2010")
    try:
        raw.begin()
        before = rss_kb(server.pid)
        held = [raw.begin(use=False) for _ in range(2000)]
        after = rss_kb(server.pid)
        print(f"2,000 sessions held unused: RSS {before} KB -> {after} KB, "
              f"{(after - before) * 1024 // 2000} B each")
        assert after - before < 2000 * 4, (before, after)
        for session in held[:2] + held[-2:]:
            status, _, text = raw.tools(session)
            assert status == 200 and "click_element" in text, (status, text[:300])
        # A body past the bound is refused before it wakes anything, as rmcp
        # refuses it for a live session.
        huge = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "type_text", "arguments": {"text": "x" * (5 << 20)}}})
        for session in (held[2], held[0]):
            status, _, text = raw.post(huge, session)
            assert status == 413, (status, text[:300])
        assert raw.tools(held[2])[0] == 200
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "ERROR" not in server.stderr.read().decode(), "parking a session logged an error"


def confirming_client(mode, elicit):
    """An SDK client of a `serve --confirm` on the suite's transport, in MODE
    (legacy: the server asks with a request of its own; auto: in an input-required
    result), answering elicitations with ELICIT (None: it cannot ask); yields it
    inside `async with`."""
    from mcp import StdioServerParameters
    from mcp.client import Client
    from test_mcp_server import AXSIGHT_BIN, desktop_env
    if TRANSPORT == "http":
        port = free_port()
        server = serving(port, "--confirm")
        return Client(f"http://127.0.0.1:{port}/mcp", mode=mode,
                      elicitation_callback=elicit), server
    params = StdioServerParameters(command=str(AXSIGHT_BIN), args=["serve", "--confirm"],
                                   env=desktop_env())
    return Client(params, mode=mode, elicitation_callback=elicit), None


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_closing_a_window_asks_the_person_first(desktop, mode):
    """With --confirm, close_window asks through the client: a "no" leaves the
    window and is refused, saying so; a client that cannot ask is refused; a "yes"
    closes it (the fixture then quits). In both of MCP's ways of asking."""
    import asyncio
    import anyio
    from mcp import types
    from conftest import launch
    title = f"axsight-confirm-{mode}-{os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    asked = []

    def answering(yes):
        async def elicit(context, params):
            asked.append(params.message)
            return types.ElicitResult(action="accept", content={"confirm": yes})
        return elicit

    async def close(elicit):
        client, server = confirming_client(mode, elicit)
        try:
            with anyio.fail_after(60):
                async with client:
                    result = await client.call_tool("close_window", {"window": title})
                    return result.is_error, "".join(
                        b.text for b in result.content if b.type == "text")
        finally:
            if server:
                server.terminate()
                server.wait(timeout=10)

    try:
        refused, said = asyncio.run(close(answering(False)))
        assert refused and said.startswith("not allowed: the person said no to: An agent asks "
                                           f"to close the window '{title}'"), said
        assert alive(app.proc.pid) and len(asked) == 1, asked
        refused, said = asyncio.run(close(None))
        assert refused and "this client cannot ask one" in said, said
        assert alive(app.proc.pid)
        refused, said = asyncio.run(close(answering(True)))
        assert not refused, said
        assert len(asked) == 2, asked
        assert poll(lambda: not alive(app.proc.pid), timeout=10), "the window was not closed"
    finally:
        kill_all([app.proc.pid])


GTK4_FIXTURE = FIXTURE_APP.parent / "gtk4_fixture_app.py"


def test_a_scope_keeps_other_apps_out_of_sight_and_out_of_reach(fixture_app, tmp_path):
    """--scope axsight-fixture, with the GTK 4 fixture running beside it: the other
    app is absent from listings and searches, its window cannot be read, a click on
    it is refused (and does nothing), so are a capture of the whole screen and a
    recording; the app in scope is read and acted on as ever."""
    from conftest import launch
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    other = launch(["/usr/bin/python3", str(GTK4_FIXTURE)], "axsight gtk4 fixture")
    try:
        from test_mcp_server import AXSIGHT_BIN

        def box(title):
            found = subprocess.run([str(AXSIGHT_BIN), "find", f'role:Window && name:"{title}"'],
                                   capture_output=True, text=True, timeout=30).stdout
            match = re.search(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]", found)
            return tuple(map(int, match.groups())) if match else None
        mx, my, mw, mh = box(fixture_app.title)
        # The other window beside the fixture's, where nothing else lies.
        subprocess.run(["xdotool", "search", "--name", "axsight gtk4 fixture", "windowmove",
                        "--sync", str(mx + mw + 20), "20"], check=True, timeout=30)
        assert poll(lambda: box("axsight gtk4 fixture")[0] >= mx + mw, timeout=10)
        x, y, w, h = box("axsight gtk4 fixture")
        point = (x + w // 2, y + h // 2)

        async def body(c):
            apps = await c.ok("get_applications")
            assert fixture_app.title in apps and "gtk4" not in apps, apps
            assert "(this server shows only axsight-fixture: other apps' windows are not " \
                   "listed, read or acted on; serve --scope)" in apps, apps
            started = await c.error("open_application", {"app": "gtk3-widget-factory"})
            assert "names no app open_application may start (serve --allow-app)" in started, \
                started
            gone = await c.error("get_window_tree", {"window": "axsight gtk4 fixture"})
            assert "gtk4 fixture" in gone, gone
            none = await c.ok("find_elements", {"selector": 'name:"axsight gtk4 fixture"'})
            assert none.startswith("No element matches"), none
            clicked = await c.error("click_element", {"x": point[0], "y": point[1]})
            assert clicked.startswith(f"not allowed: ({point[0]}, {point[1]}) lies on the window "
                                      "'axsight gtk4 fixture' of axsight-gtk4-fixture"), clicked
            assert "serve --scope" in clicked, clicked
            screen = await c.call("capture_screenshot", {})
            assert screen.is_error and "whole screen" in "".join(
                b.text for b in screen.content if b.type == "text"), screen
            shot = await c.call("capture_screenshot", {"window": fixture_app.title})
            assert not shot.is_error, shot
            recording = await c.error("record", {})
            assert "not allowed: a recording watches" in recording, recording
            browsing = await c.error("navigate_browser", {"url": "about:blank"})
            assert browsing.startswith("not allowed: this server shows only axsight-fixture "
                                       "(serve --scope), no browser"), browsing
            counted = await c.ok("click_element", {"selector": "role:Button && name:Count",
                                                   "window": fixture_app.title})
            assert "Count 1" in counted or "Count" in counted, counted

        run_session(body, args=["--scope", "axsight-fixture"])
    finally:
        kill_all([other.proc.pid])
