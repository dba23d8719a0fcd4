"""Faults on a real desktop, through the official SDK client or raw JSON-RPC: an
app hung (SIGSTOP) during a read and during an action, an app killed while an
action waits for the UI, and a client that goes away mid-call. Each must end in
a clear answer within a deadline, the server must keep serving the rest of the
desktop, and the app must work again once it runs again."""
import json
import os
import signal
import subprocess
import time

import anyio
import pytest

from conftest import FIXTURE_APP, launch, stop
from test_mcp_server import AXSIGHT_BIN, DESKTOP_VARS, run_session, text_of

# The longest a call on a stuck app may take before it must answer.
STUCK_DEADLINE_S = 12


def test_a_hung_app_is_reported_and_works_again_once_it_runs(fixture_app):
    title = f"frozen {os.getpid()}"
    frozen = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    here = {"app": str(frozen.pid), "window": title}
    try:
        async def body(c):
            tree = await c.ok("get_window_tree", here)
            assert f"[Window] {title}" in tree, tree
            frozen.proc.send_signal(signal.SIGSTOP)

            # A wait keeps its timeout though the app does not answer its read.
            t0 = time.monotonic()
            waited = await c.error("wait_for_element", {"selector": "role:Button && name:Nope",
                                                        **here, "timeout_ms": 200})
            took = time.monotonic() - t0
            print(f"wait of 200 ms on a stopped app: answered after {took:.2f} s: {waited}")
            assert took < 1.2, waited
            assert "the last read had not finished at the deadline" in waited, waited

            t0 = time.monotonic()
            read = await c.error("get_window_tree", here)
            print(f"read of a stopped app: refused after {time.monotonic() - t0:.2f} s: {read}")
            assert time.monotonic() - t0 < STUCK_DEADLINE_S, read
            assert "not answering" in read or "did not answer" in read, read

            t0 = time.monotonic()
            clicked = await c.call("click_element", {"selector": "role:Button && name:Count",
                                                     **here})
            print(f"click in a stopped app: answered after {time.monotonic() - t0:.2f} s")
            assert time.monotonic() - t0 < STUCK_DEADLINE_S
            # Refused, or done with a word on why nothing could be read after.
            text = text_of(clicked)
            assert clicked.is_error or "answer" in text, text

            # The rest of the desktop is served meanwhile.
            t0 = time.monotonic()
            others = await c.ok("get_window_tree", {"app": str(fixture_app.pid)})
            assert "[Button] Save" in others
            assert time.monotonic() - t0 < STUCK_DEADLINE_S

            frozen.proc.send_signal(signal.SIGCONT)
            again = await c.ok("get_window_tree", here)
            assert f"[Window] {title}" in again, again
            counted = await c.ok("click_element", {"selector": "role:Button && name:Count",
                                                   **here})
            assert "Count" in counted, counted

        run_session(body, deadline=90)
    finally:
        frozen.proc.send_signal(signal.SIGCONT)
        stop(frozen)


def test_an_app_killed_while_an_action_waits_gives_a_clear_answer(fixture_app):
    title = f"doomed later {os.getpid()}"
    doomed = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    here = {"app": str(doomed.pid), "window": title}
    try:
        async def body(c):
            await c.ok("get_window_tree", here)
            result = {}

            async def click():
                # The dialog comes 500 ms after the click: the answer waits for it.
                result["answer"] = await c.call(
                    "click_element", {"selector": 'name:"Open dialog later"', **here})

            async with anyio.create_task_group() as group:
                group.start_soon(click)
                # Fault injection, not a wait for the UI: the kill lands while the
                # action waits for the dialog, whichever moment that is.
                await anyio.sleep(0.25)
                doomed.proc.send_signal(signal.SIGKILL)
            answer = result["answer"]
            text = text_of(answer)
            print(f"killed during the click: is_error={answer.is_error}: {text}")
            # Either the click's answer (it happened) with what could be seen, or
            # an error that says the app is gone: never a hang, never silence.
            assert text.strip(), answer
            if answer.is_error:
                assert "gone" in text or "exited" in text or "closed" in text \
                    or str(doomed.pid) in text, text
            else:
                # The click happened; its diff says the window went with the app.
                removed = text[text.index("removed:"):] if "removed:" in text else ""
                assert f"[Window] {title}" in removed, text
            apps = await c.ok("get_applications")
            assert f"pid {fixture_app.pid}" in apps, apps

        run_session(body, deadline=60)
    finally:
        stop(doomed)


def test_a_client_gone_mid_call_ends_the_server(fixture_app):
    """Raw JSON-RPC: a call that waits (wait_for_element, 20 s), then the client's
    end of the pipe closes. The server ends by itself, soon, and says so."""
    env = {k: os.environ[k] for k in DESKTOP_VARS if os.environ.get(k)}
    server = subprocess.Popen([str(AXSIGHT_BIN), "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "faults", "version": "1"}}})
    assert json.loads(server.stdout.readline())["id"] == 1
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "wait_for_element",
        "arguments": {"selector": 'name:"No such thing anywhere"', "timeout_ms": 20000}}})
    server.stdin.close()
    t0 = time.monotonic()
    try:
        status = server.wait(timeout=15)
        print(f"server ended {time.monotonic() - t0:.2f} s after its client went away")
    except subprocess.TimeoutExpired:
        server.kill()
        pytest.fail("the server kept running after its client went away")
    assert status == 0, server.stderr.read().decode(errors="replace")


def processes_with(name, runtime_dir):
    """Pids of processes called `name` whose environment has XDG_RUNTIME_DIR=runtime_dir."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if comm.startswith(name[:15]) and f"XDG_RUNTIME_DIR={runtime_dir}".encode() in environ:
            found.append(int(pid))
    return found


async def kill_and_wait(pids, sig, timeout=10):
    """Sends `sig` to `pids` and waits, up to `timeout` seconds, until they are gone."""
    for pid in pids:
        os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while any(os.path.exists(f"/proc/{p}/exe") for p in pids) and time.monotonic() < deadline:
        await anyio.sleep(0.05)


def bus_problem(text):
    """Whether an answer says the accessibility bus cannot be reached."""
    return any(words in text for words in ("cannot find the accessibility bus",
                                           "accessibility bus stopped answering",
                                           "cannot connect to the D-Bus bus"))


def test_the_accessibility_bus_killed_comes_back_and_is_read_anew(desktop, tmp_path):
    """The AT-SPI bus of a desktop of its own is killed (its launcher, and with it
    its bus daemon). The session bus starts a new one when asked (org.a11y.Bus is
    D-Bus activatable, as on every desktop), and the server, without a restart,
    reads the new bus: an app started after the kill is listed."""
    from conftest import PrivateDesktop
    private = PrivateDesktop(wm=False, tmp_path=tmp_path)
    runtime = private.env["XDG_RUNTIME_DIR"]
    # The server finds the bus itself: no AT_SPI_BUS_ADDRESS of the old bus.
    env = {k: private.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    started = []
    try:
        async def body(c):
            before = await c.call("get_applications")
            assert not bus_problem(text_of(before)), text_of(before)
            launchers = processes_with("at-spi-bus-launcher", runtime)
            assert launchers, "no AT-SPI bus launcher for the private desktop"
            await kill_and_wait(launchers, signal.SIGTERM)
            t0 = time.monotonic()
            title = f"after the bus {os.getpid()}"
            started.append(subprocess.Popen(
                ["/usr/bin/python3", str(FIXTURE_APP), "--title", title],
                env={**{k: v for k, v in os.environ.items() if k != "AT_SPI_BUS_ADDRESS"},
                     **env},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            answers = []
            while True:
                listed = await c.call("get_applications")
                answers.append(text_of(listed))
                if title in text_of(listed):
                    break
                assert time.monotonic() - t0 < 30, answers[-3:]
                await anyio.sleep(0.2)
            print(f"the app on the new bus listed {time.monotonic() - t0:.1f} s after the "
                  f"kill; answers on the way: {sorted(set(a[:80] for a in answers))}")

        run_session(body, env=env, deadline=60)
    finally:
        for app in started:
            app.terminate()
            app.wait(timeout=5)
        private.close()


def test_the_x_server_gone_is_a_clear_error_and_a_new_one_is_used(desktop, tmp_path):
    """The X server of a desktop of its own is killed: a call that needs it says
    the display stopped answering and the server lives on; once an X server runs
    on that display again, the same server (not restarted) captures from it."""
    from conftest import PrivateDesktop
    private = PrivateDesktop(wm=False, tmp_path=tmp_path)
    runtime = private.env["XDG_RUNTIME_DIR"]
    display = private.env["DISPLAY"]
    env = {k: private.env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    restarted = []
    try:
        async def body(c):
            shot = await c.call("capture_screenshot", {})
            assert not shot.is_error, text_of(shot)
            servers = processes_with("Xvfb", runtime)
            assert servers, "no Xvfb for the private desktop"
            await kill_and_wait(servers, signal.SIGKILL)
            gone = await c.call("capture_screenshot", {})
            print(f"with the X server gone: {text_of(gone)}")
            assert gone.is_error, text_of(gone)
            # Asked again while no X server runs: the server connects afresh
            # and finds none, and must try again on the next call rather than
            # keep a connection without a display.
            still = await c.call("capture_screenshot", {})
            assert still.is_error, text_of(still)
            restarted.append(subprocess.Popen(
                ["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            deadline = time.monotonic() + 20
            while True:
                again = await c.call("capture_screenshot", {})
                if not again.is_error:
                    break
                assert time.monotonic() < deadline, text_of(again)
                await anyio.sleep(0.2)
            print(f"a new X server captured {time.monotonic() - deadline + 20:.1f} s after it started")

        run_session(body, env=env, deadline=60)
    finally:
        for server in restarted:
            server.terminate()
            server.wait(timeout=5)
        private.close()
