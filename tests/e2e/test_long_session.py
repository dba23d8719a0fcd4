"""A long session: 1,000 calls through the official SDK client, with a dialog
opened and closed again and again, and the server's memory bounded. The handles
of dialogs long closed answer "expired": the session lets go of what belongs to
windows that are gone instead of growing without end.

`AXSIGHT_LONG_CALLS=10000` makes it the soak run (about an hour on 2 cores);
CI runs 1,000."""
import os
import re
import time

from conftest import FIXTURE_APP, launch, stop
from test_mcp_server import parse_tree, run_session

CALLS = int(os.environ.get("AXSIGHT_LONG_CALLS", "1000"))
DIALOG_EVERY = 40
HANDLE = re.compile(r"(#u\d+) \[Button\] OK")


def server_rss_kb():
    """The resident memory of this test's `axsight serve` (its newest)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
        except OSError:
            continue
        parent = int(re.search(r"PPid:\s+(\d+)", status)[1])
        if len(argv) > 1 and argv[1] == b"serve" and parent == os.getpid():
            found.append((int(pid), int(re.search(r"VmRSS:\s+(\d+)", status)[1])))
    assert found, "no axsight serve child found"
    return max(found)[1]


def test_a_thousand_calls_with_dialogs_coming_and_going_stay_bounded(desktop):
    title = f"long session {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    here = {"app": "axsight-fixture", "window": title}
    report = {}
    try:
        async def body(c):
            old_ok = None
            rss = {}
            started = time.monotonic()
            calls = 0
            while calls < CALLS:
                if calls % DIALOG_EVERY == 0:
                    opened = await c.ok("click_element",
                                        {"selector": 'name:"Open dialog later"', **here})
                    found = HANDLE.search(opened)
                    assert found, opened
                    closed = await c.ok("click_element", {"index": found[1]})
                    assert "removed:" in closed, closed
                    old_ok = old_ok or found[1]
                    calls += 2
                    continue
                kind = calls % 3
                if kind == 0:
                    tree = await c.ok("get_window_tree", here)
                    assert "[Button] Save" in tree
                elif kind == 1:
                    await c.ok("find_elements", {"selector": "role:Button", **here})
                else:
                    await c.ok("get_applications")
                calls += 1
                if calls in (100, CALLS - 1):
                    rss[calls] = server_rss_kb()
            report["seconds"] = time.monotonic() - started
            report["rss"] = rss
            # The first dialog's OK button went with its window, long ago.
            expired = await c.error("click_element", {"index": old_ok})
            assert "expired" in expired, expired
            report["expired"] = expired

        run_session(body, deadline=max(600, CALLS * 0.6))
    finally:
        stop(app)
    rss = report["rss"]
    first, last = rss[100], rss[CALLS - 1]
    print(f"{CALLS} calls in {report['seconds']:.1f} s; server RSS {first} kB at call 100, "
          f"{last} kB at call {CALLS - 1}; an old handle: {report['expired']}")
    # Bounded: a long session is as large as what is open, give or take allocator slack.
    assert last - first < 20_000, rss
