"""`axsight serve --http`: streamable HTTP through the official SDK's client.
The same calls as over stdio, a session per client with its own handles, the
health endpoints, a bearer token (required off loopback, compared whole), and
DNS-rebinding protection through Origin."""
import asyncio
import os
import re
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import poll
from test_mcp_server import AXSIGHT_BIN, DESKTOP_VARS, parse_tree

LISTENING = re.compile(r"serving MCP on (http://\S+/mcp)")
DEADLINE_S = 60


class HttpServer:
    """`axsight serve --http ADDR [args]`, and the URL it says it serves."""

    def __init__(self, addr="127.0.0.1:0", args=(), env=None):
        if env is None:
            env = {k: os.environ[k] for k in DESKTOP_VARS if os.environ.get(k)}
        env = {**env, "PATH": os.environ["PATH"]}
        self.log = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen([str(AXSIGHT_BIN), "serve", "--http", addr, *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.log, env=env, text=True)

        def url():
            self.log.seek(0)
            found = LISTENING.search(self.log.read())
            return found[1] if found else None

        self.url = poll(url, timeout=20)
        assert self.url, self.stderr()
        self.base = self.url.removesuffix("/mcp")

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


@pytest.fixture
def server(desktop):
    served = HttpServer()
    yield served
    served.close()


def session_over_http(url, body, headers=None):
    async def main():
        async with httpx2.AsyncClient(headers=headers or {}, timeout=30) as client:
            async with streamable_http_client(url, http_client=client) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await body(session)

    return asyncio.run(asyncio.wait_for(main(), DEADLINE_S))


def text(result):
    return "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")


def status_of(url, headers=None, data=None):
    request = urllib.request.Request(url, headers=headers or {}, data=data,
                                     method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
              b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')
POST_HEADERS = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}


def test_the_tools_over_http_with_a_session_per_client(server, fixture_app):
    assert status_of(f"{server.base}/healthz") == (200, "ok\n")
    assert status_of(f"{server.base}/readyz")[0] == 200
    assert status_of(f"{server.base}/nothing")[0] == 404
    here = {"app": str(fixture_app.pid)}

    async def first(session):
        tools = await session.list_tools()
        assert len(tools.tools) == 28
        tree = text(await session.call_tool("get_window_tree", here))
        assert "[Button] Save" in tree, tree
        count = next(h for h, (r, n) in parse_tree(tree).items() if (r, n[:5]) == ("Button", "Count"))
        clicked = text(await session.call_tool("click_element", {"index": count}))
        assert clicked.startswith(f"clicked {count} [Button] Count"), clicked
        return count

    handle = session_over_http(server.url, first)

    async def second(session):
        # Another client's session: the first one's handles are not its own.
        result = await session.call_tool("click_element", {"index": handle})
        assert result.is_error and "never given out" in text(result), text(result)

    session_over_http(server.url, second)


def test_a_token_is_required_and_compared_whole(desktop, tmp_path, fixture_app):
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token-for-the-test\n")
    served = HttpServer(args=["--token-file", str(token_file)])
    try:
        assert status_of(served.url, POST_HEADERS, INITIALIZE)[0] == 401
        wrong = {**POST_HEADERS, "Authorization": "Bearer s3cret-token-for-the-tesT"}
        assert status_of(served.url, wrong, INITIALIZE)[0] == 401
        # The health endpoints stay open for an orchestrator's probes.
        assert status_of(f"{served.base}/healthz")[0] == 200

        async def body(session):
            listed = text(await session.call_tool("get_applications", {}))
            assert f"pid {fixture_app.pid}" in listed, listed

        session_over_http(served.url, body,
                          headers={"Authorization": "Bearer s3cret-token-for-the-test"})
    finally:
        served.close()


def test_off_loopback_a_token_is_made_and_origins_are_checked(desktop):
    served = HttpServer(addr="0.0.0.0:0")
    try:
        made = re.search(r"Authorization: Bearer ([0-9a-f]{64})", served.stderr())
        assert made, served.stderr()
        url = served.url.replace("0.0.0.0", "127.0.0.1")
        assert status_of(url, POST_HEADERS, INITIALIZE)[0] == 401
        good = {**POST_HEADERS, "Authorization": f"Bearer {made[1]}"}
        assert status_of(url, good, INITIALIZE)[0] == 200
        # A page of another origin must not drive the desktop (DNS rebinding).
        evil = {**good, "Origin": "http://evil.example"}
        assert status_of(url, evil, INITIALIZE)[0] == 403
    finally:
        served.close()


@pytest.mark.parametrize("token", ["", "  \n", "short-token"])
def test_a_token_file_that_guards_nothing_is_refused(desktop, tmp_path, token):
    token_file = tmp_path / "token"
    token_file.write_text(token)
    refused = subprocess.run([str(AXSIGHT_BIN), "serve", "--http", "0.0.0.0:0",
                              "--token-file", str(token_file)],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=20)
    assert refused.returncode != 0, refused.stderr
    assert "it needs at least 16" in refused.stderr, refused.stderr


def test_readiness_follows_the_desktop(desktop, tmp_path):
    """/readyz asks the desktop each time: with the X server of a desktop of its
    own killed it says why it is not ready, and it is ready again once an X
    server runs on that display; /healthz stays up throughout."""
    from conftest import PrivateDesktop
    from test_faults import processes_with
    private = PrivateDesktop(wm=False, tmp_path=tmp_path)
    runtime = private.env["XDG_RUNTIME_DIR"]
    display = private.env["DISPLAY"]
    env = {k: private.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    served = HttpServer(env=env)
    restarted = []
    try:
        assert status_of(f"{served.base}/readyz") == (200, "ready\n")
        servers = processes_with("Xvfb", runtime)
        assert servers, "no Xvfb for the private desktop"
        for pid in servers:
            os.kill(pid, signal.SIGKILL)
        gone = poll(lambda: (lambda s: s if s[0] == 503 else None)(
            status_of(f"{served.base}/readyz")), timeout=10)
        # The registry may go with the display (it is an X client too).
        assert gone and ("display" in gone[1] or "accessibility bus" in gone[1]), gone
        assert status_of(f"{served.base}/healthz")[0] == 200
        restarted.append(subprocess.Popen(
            ["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        back = poll(lambda: status_of(f"{served.base}/readyz")[0] == 200 or None, timeout=20)
        assert back, status_of(f"{served.base}/readyz")
    finally:
        served.close()
        for server in restarted:
            server.terminate()
            server.wait(timeout=5)
        private.close()
