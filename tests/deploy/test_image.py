"""The desktop image (scripts/build-image), run with podman as the StatefulSet
runs it: a read-only root, no capabilities, no new privileges, the token from a
file. Checks the health endpoints, that /mcp wants the token, one MCP call over
HTTP with it, that a short token stops the container, that SIGTERM stops it
cleanly within seconds, and that a dead X server stops it with a failure (for
the orchestrator to start a new one).

Runs only when AXSIGHT_IMAGE names a built image (scripts/build-image makes
localhost/axsight:latest); AXSIGHT_PODMAN_RUN_FLAGS adds flags to `podman run`,
such as those a sandbox needs (see docs/deploy.md)."""
import asyncio
import os
import shlex
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

IMAGE = os.environ.get("AXSIGHT_IMAGE")
RUN_FLAGS = shlex.split(os.environ.get("AXSIGHT_PODMAN_RUN_FLAGS", ""))
READY_TIMEOUT_S = 60
STOP_TIMEOUT_S = 10

pytestmark = pytest.mark.skipif(
    not IMAGE or not shutil.which("podman"),
    reason="set AXSIGHT_IMAGE to a built image (scripts/build-image) and install podman")


def podman(*args, check=True, timeout=60):
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=check,
                          timeout=timeout)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_of(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None  # not listening (yet)


class Container:
    def __init__(self, token_file, env=()):
        self.port = free_port()
        self.name = f"axsight-test-{os.getpid()}-{self.port}"
        self.base = f"http://127.0.0.1:{self.port}"
        args = ["run", "-d", "--name", self.name, *RUN_FLAGS,
                "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "-p", f"127.0.0.1:{self.port}:8765",
                "-v", f"{token_file}:/run/secrets/axsight/token:ro"]
        for pair in env:
            args += ["-e", pair]
        podman(*args, IMAGE)

    def logs(self):
        return podman("logs", self.name, check=False).stderr

    def state(self):
        out = podman("inspect", self.name, "--format", "{{.State.Status}} {{.State.ExitCode}}")
        status, code = out.stdout.split()
        return status, int(code)

    def wait_exited(self, timeout):
        deadline = time.monotonic() + timeout
        while self.state()[0] == "running":
            if time.monotonic() > deadline:
                return None
            time.sleep(0.1)
        return self.state()[1]

    def remove(self):
        podman("rm", "-f", "-t", "0", self.name, check=False)


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token"
    path.write_text(os.urandom(32).hex() + "\n")
    path.chmod(0o644)  # the container's user is not ours
    return path


@pytest.fixture
def desktop(token_file):
    container = Container(token_file, env=["AXSIGHT_APPS=gtk3-widget-factory"])
    yield container
    container.remove()


def wait_ready(container):
    deadline = time.monotonic() + READY_TIMEOUT_S
    while status_of(container.base + "/readyz") != 200:
        if container.state()[0] != "running" or time.monotonic() > deadline:
            pytest.fail(f"the desktop did not get ready:\n{container.logs()}")
        time.sleep(0.2)


def get_applications(url, token):
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return await session.call_tool("get_applications", {})

    return asyncio.run(asyncio.wait_for(main(), 60))


def test_the_image_serves_its_desktop_and_stops_on_sigterm(desktop, token_file):
    wait_ready(desktop)
    assert status_of(desktop.base + "/healthz") == 200
    assert status_of(desktop.base + "/mcp") == 401
    assert status_of(desktop.base + "/mcp", {"Authorization": "Bearer wrong"}) == 401
    token = token_file.read_text().strip()
    result = get_applications(desktop.base + "/mcp", token)
    assert not result.is_error, result
    listing = result.content[0].text
    assert "gtk3-widget-factory" in listing and "[Window]" in listing, listing
    # An orchestrator's stop: SIGTERM, then a grace period.
    t0 = time.monotonic()
    podman("kill", "--signal", "TERM", desktop.name)
    code = desktop.wait_exited(STOP_TIMEOUT_S)
    assert code == 0, (code, desktop.logs())
    assert time.monotonic() - t0 < STOP_TIMEOUT_S
    assert "torn down" in desktop.logs()


def test_a_dead_x_server_stops_the_container(desktop):
    wait_ready(desktop)
    kill_xvfb = ('for d in /proc/[0-9]*; do [ "$(cat $d/comm 2>/dev/null)" = Xvfb ] '
                 '&& kill ${d#/proc/}; done')
    podman("exec", desktop.name, "sh", "-c", kill_xvfb, check=False)
    code = desktop.wait_exited(STOP_TIMEOUT_S)
    assert code not in (None, 0), (code, desktop.logs())
    assert "the desktop is gone" in desktop.logs()


def test_a_short_token_stops_the_container(tmp_path):
    short = tmp_path / "short"
    short.write_text("REPLACE-ME\n")  # the Secret's placeholder
    short.chmod(0o644)
    container = Container(short)
    try:
        code = container.wait_exited(30)
        assert code not in (None, 0), code
        assert "use at least 32" in container.logs(), container.logs()
    finally:
        container.remove()
