"""What a served desktop lets a client do, tried as a client would, over the
transport the suite runs on (stdio, or HTTP with AXSIGHT_E2E_TRANSPORT=http):
open_application starts programs from an argv and never runs a caller's text
through a shell; `--allow-shell` is the explicit way back; `--allow-app` and
`--apps` name what may start, and the audit log records what was refused.
"""
import json
import os
import shlex
import signal

from conftest import FIXTURE_APP, poll
from test_acting import PID, alive
from test_mcp_server import run_session


def kill_all(pids):
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_shell_line_in_open_application_runs_nothing(desktop, tmp_path):
    """`$(…)`, `;` and backquotes in the app's text are refused, saying why, and
    the file each would have created stays absent. Served with --allow-shell, the
    same line runs: the refusal is the policy's, not an accident of quoting."""
    made = [tmp_path / f"made-{n}" for n in range(3)]
    lines = [f"true $(touch {made[0]})", f"true; touch {made[1]}", f"true `touch {made[2]}`"]

    async def refused(c):
        for line in lines:
            message = await c.error("open_application", {"app": line, "timeout_ms": 1000})
            assert "not a shell line" in message and "quote it" in message, message
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
    import subprocess
    from test_mcp_server import AXSIGHT_BIN
    done = subprocess.run([str(AXSIGHT_BIN), "serve", "--allow-app", "gedit", "--allow-shell"],
                          capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "--allow-shell and an app allow-list cannot go together" in done.stderr, done.stderr
