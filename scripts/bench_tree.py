#!/usr/bin/python3
"""The measuring half of scripts/bench-tree; runs inside scripts/with-desktop.

    bench_tree.py report --bin AXSIGHT [--before OLD] --runs N --app NAME...  # everything
        (with --before, OLD's cold and warm reads are timed in the same run, turn by
        turn with AXSIGHT's, and the report prints before, after and their ratio)
    bench_tree.py pyatspi-walk --app NAME --runs N  # in-process walk median, as JSON
    bench_tree.py pyatspi-once --app NAME           # one walk: timed from outside (cold)

The pyatspi baseline reads role, name, states and extents (screen coordinates) of
every object under the application's window, recursively: the walk that
LINUX-A11Y-NOTES.md calls the baseline to beat. Debian's /usr/bin/python3: it has
gi and pyatspi.
"""
import argparse
import json
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

# KB as the demo client counts them.
KB = 1024
# Goals from the issue.
GOAL_COLD_MS = 30
GOAL_SPEEDUP = 10
GOAL_WARM_MS = 2
# Issue 13 lowered the widget factory's tree goal from 6 KB to 5 KB.
GOAL_TREE_BYTES = 5 * KB
GOAL_TOOLS_BYTES = 16 * KB
# Issue 13's goals: cold median, cold speed-up over a fresh pyatspi walk (cold vs
# cold), warm read of an unchanged window.
GOAL13_COLD_MS = 25
GOAL13_COLD_SPEEDUP = 8
GOAL13_WARM_MS = 0.5
WIDGET_FACTORY = "gtk3-widget-factory"
MCP_TIMEOUT_S = 20


# ---- pyatspi side (imported only in the child processes that walk) ----

def pyatspi_window(name):
    """(pyatspi module, the window of the application whose name contains NAME)."""
    import gi
    gi.require_version("Atspi", "2.0")
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)
    for app in desktop:
        if app is not None and name.lower() in (app.name or "").lower():
            windows = [w for w in app if w is not None]
            # The one on screen, as axsight picks; there is one in both test apps.
            showing = [w for w in windows if w.getState().contains(pyatspi.STATE_SHOWING)]
            if showing or windows:
                return pyatspi, (showing or windows)[0]
    raise SystemExit(f"bench_tree: no application matching {name!r} with a window")


def cache_mode(pyatspi):
    """Says how fresh the walk's reads are, and refuses a pyatspi that caches."""
    # pyatspi 2.x keeps setCacheLevel()/getCacheLevel() as stubs that do nothing;
    # caching is libatspi's, and libatspi caches properties only once a main loop
    # runs or set_cache_mask() is called. This process does neither (checked
    # with timings: walks keep their cost; after set_cache_mask(DEFAULT) they drop
    # 4-5x), so each role, name, state, child and extents read is a D-Bus call;
    # only each object's interface list is kept (it never changes).
    if pyatspi.getCacheLevel() is not None:
        raise SystemExit("bench_tree: this pyatspi has a real cache level; "
                         "set it to none before trusting the baseline")
    return ("no caching: pyatspi.setCacheLevel() is a no-op stub here, and libatspi "
            "caches properties only once a main loop runs or set_cache_mask() is "
            "called, which this walk does not do: every role, name, state, child and "
            "extents read is a D-Bus call (only interface lists are kept)")


def walk(pyatspi, acc):
    """Reads role, name, states and extents of ACC and everything below; returns the count."""
    try:
        extents = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    except NotImplementedError:  # no Component interface: no extents
        extents = None
    node = (acc.getRole(), acc.name, acc.getState(), extents)  # what a dump would print
    del node
    count = 1
    for i in range(acc.childCount):
        child = acc.getChildAtIndex(i)
        if child is not None:
            count += walk(pyatspi, child)
    return count


def cmd_pyatspi_walk(args):
    pyatspi, window = pyatspi_window(args.app)
    mode = cache_mode(pyatspi)
    times, nodes = [], 0
    for _ in range(args.runs):
        start = time.perf_counter()
        nodes = walk(pyatspi, window)
        times.append((time.perf_counter() - start) * 1000)
    print(json.dumps({"median_ms": statistics.median(times), "nodes": nodes, "mode": mode}))


def cmd_pyatspi_once(args):
    pyatspi, window = pyatspi_window(args.app)
    cache_mode(pyatspi)
    walk(pyatspi, window)


# ---- the report ----

def run(cmd, what):
    """Runs CMD, returns its stdout; exits with its stderr when it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"bench_tree: {what} failed (exit {proc.returncode}): {' '.join(cmd)}")
    return proc.stdout


def time_cold(commands, runs):
    """{name: median ms} of whole-process runs, output to /dev/null. The commands
    take turns run by run, so that a change in the machine's load hits them alike;
    one untimed run of each first, so that the files are in the page cache."""
    times = {name: [] for name in commands}
    for rnd in range(runs + 1):
        for name, cmd in commands.items():
            start = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = (time.perf_counter() - start) * 1000
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr.decode(errors="replace"))
                raise SystemExit(f"bench_tree: {name} failed (exit {proc.returncode}): "
                                 f"{' '.join(cmd)}")
            if rnd:
                times[name].append(elapsed)
    return {name: statistics.median(t) for name, t in times.items()}


BENCH_LINE = re.compile(
    r"^(?P<app>.+): walk (?P<walk>[\d.]+) ms, warm (?P<warm>[\d.]+) ms \(median of \d+\); "
    r"(?P<read>\d+) elements read, (?P<printed>\d+) printed, (?P<bytes>\d+) bytes of text "
    r"\((?P<per>[\d.]+) bytes/element\)$")


SESSION_LINE = re.compile(r"^(?P<app>.+): session warm (?P<session>[\d.]+) ms")


def axsight_bench(binary, apps, runs):
    cmd = [binary, "bench", "tree", "--runs", str(runs)]
    for app in apps:
        cmd += ["--app", app]
    found = {}
    out = run(cmd, "axsight bench tree")
    for line in out.splitlines():
        m = BENCH_LINE.match(line)
        if m:
            found[m["app"]] = m.groupdict()
    for line in out.splitlines():
        m = SESSION_LINE.match(line)
        if m and m["app"] in found:
            found[m["app"]] = {**found[m["app"]], "session": m["session"]}
    missing = [app for app in apps if app not in found]
    if missing:
        raise SystemExit(f"bench_tree: no figures for {missing} in:\n{out}")
    return found


class Server:
    """`axsight serve` spoken to in raw JSON-RPC lines over stdio."""

    def __init__(self, binary):
        self.errlog = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errlog)
        self.buf = b""

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def answer(self, want_id, deadline):
        """The raw line (bytes) of the response with id WANT_ID; skips notifications."""
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if line.strip() and json.loads(line).get("id") == want_id:
                    return line
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.fail(f"no answer to request {want_id} within {MCP_TIMEOUT_S} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                self.fail(f"the server closed stdout before answering request {want_id}")
            self.buf += chunk

    def fail(self, why):
        self.proc.kill()
        self.proc.wait()
        self.errlog.seek(0)
        sys.stderr.write(self.errlog.read().decode(errors="replace"))
        raise SystemExit(f"bench_tree: axsight serve: {why}")

    def close(self):
        self.proc.stdin.close()  # end of input: the server exits
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def tools_list(binary):
    """(bytes of the whole tools/list answer, tool count, protocol version)."""
    server = Server(binary)
    deadline = time.monotonic() + MCP_TIMEOUT_S
    server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2026-07-28", "capabilities": {},
        "clientInfo": {"name": "bench-tree", "version": "1"}}})
    init = json.loads(server.answer(1, deadline))
    if "result" not in init:
        server.fail(f"initialize failed: {init}")
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    size, tools, cursor, next_id = 0, 0, None, 2
    while True:  # follows pages, though one page is expected
        server.send({"jsonrpc": "2.0", "id": next_id, "method": "tools/list",
                     "params": {"cursor": cursor} if cursor else {}})
        line = server.answer(next_id, deadline)
        reply = json.loads(line)
        if "result" not in reply:
            server.fail(f"tools/list failed: {reply}")
        size += len(line)
        tools += len(reply["result"]["tools"])
        cursor = reply["result"].get("nextCursor")
        next_id += 1
        if not cursor:
            break
    server.close()
    return size, tools, init["result"].get("protocolVersion", "?")


def package_version(pkg):
    proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                          capture_output=True, text=True)
    return proc.stdout or "?"


def kb(n):
    return f"{n:,} bytes ({n / KB:.1f} KB)"


def ms(value):
    return f"{value:.1f} ms"


def ratio(value, digits=1):
    return f"{value:.{digits}f}x"


def cmd_report(args):
    binary, apps, runs, before = args.bin, args.app, args.runs, args.before
    here = os.path.abspath(__file__)
    load_start = os.getloadavg()[0]
    version = run([binary, "--version"], "axsight --version").strip()

    def say(what):
        print(f"bench-tree: {what}", file=sys.stderr, flush=True)

    cold, walks = {}, {}
    for app in apps:
        say(f"cold runs of {app}")
        commands = {
            "axsight": [binary, "tree", "--app", app],
            "pyatspi": [sys.executable, here, "pyatspi-once", "--app", app],
        }
        if before:
            commands["before"] = [before, "tree", "--app", app]
        cold[app] = time_cold(commands, runs)
        say(f"pyatspi walks of {app}")
        walks[app] = json.loads(run([sys.executable, here, "pyatspi-walk", "--app", app,
                                     "--runs", str(runs)], "pyatspi walk"))
    say("axsight bench tree")
    bench = axsight_bench(binary, apps, runs)
    old_bench = axsight_bench(before, apps, runs) if before else None
    say("tools/list")
    tools_bytes, tools_count, protocol = tools_list(binary)
    load_end = os.getloadavg()[0]

    # ---- table: one column per app ----
    width = 52
    col = max(20, *(len(a) + 2 for a in apps))

    def row(label, values, col=col):
        print(f"{label:<{width}}" + "".join(f"{v:>{col}}" for v in values))

    print(f"axsight tree reads vs a pyatspi walk: {version} ({binary}), display "
          f"{os.environ.get('DISPLAY', '?')}")
    print(f"{runs} runs per figure, medians; load average {load_start:.2f} at start, "
          f"{load_end:.2f} at end ({os.cpu_count()} cores)")
    # The benchmark itself keeps about one core busy; more means other work competed.
    if max(load_start, load_end) > os.cpu_count():
        print("  (other work competed for the CPU: times are inflated; "
              "rerun on an idle machine before judging the time goals)")
    baseline = (f"pyatspi baseline (python3-pyatspi {package_version('python3-pyatspi')}, "
                f"libatspi {package_version('libatspi2.0-0')}): role, name, states and "
                "extents (screen coordinates) of every object under the app's window, "
                f"recursively. Cache mode: {walks[apps[0]]['mode']}.")
    print(textwrap.fill(baseline, width=100, subsequent_indent="  "))
    print()
    row("", apps)
    print("cold: a fresh process per run (one untimed run first)")
    row("  axsight tree --app NAME >/dev/null", [ms(cold[a]["axsight"]) for a in apps])
    row("  pyatspi: python start, import, walk", [ms(cold[a]["pyatspi"]) for a in apps])
    row("  pyatspi / axsight", [ratio(cold[a]["pyatspi"] / cold[a]["axsight"]) for a in apps])
    print("walk: a full re-read inside a running process")
    row("  axsight (bench tree: walk)", [ms(float(bench[a]["walk"])) for a in apps])
    row("  pyatspi", [ms(walks[a]["median_ms"]) for a in apps])
    row("  pyatspi / axsight",
        [ratio(walks[a]["median_ms"] / float(bench[a]["walk"])) for a in apps])
    row("warm: axsight watching events, window unchanged",
        [f"{float(bench[a]['warm']):.2f} ms" for a in apps])
    row("warm through the session (get_window_tree's work)",
        [f"{float(bench[a]['session']):.2f} ms" if bench[a].get("session") else "-"
         for a in apps])
    row("elements: axsight read / printed (pyatspi objects)",
        [f"{bench[a]['read']} / {bench[a]['printed']} ({walks[a]['nodes']})" for a in apps])
    row("compact tree text", [f"{int(bench[a]['bytes']):,} bytes" for a in apps])
    row("  bytes per printed element", [bench[a]["per"] for a in apps])
    if before:
        print(f"before ({before}) and after, in the same run: before / after")
        row("  cold axsight tree",
            [f"{ms(cold[a]['before'])} / {ms(cold[a]['axsight'])} = "
             f"{ratio(cold[a]['before'] / cold[a]['axsight'], 2)}" for a in apps], col=34)
        row("  walk (bench tree)",
            [f"{ms(float(old_bench[a]['walk']))} / {ms(float(bench[a]['walk']))} = "
             f"{ratio(float(old_bench[a]['walk']) / float(bench[a]['walk']), 2)}" for a in apps], col=34)
        row("  warm through the session",
            [f"{float(old_bench[a]['session']):.2f} / {float(bench[a]['session']):.2f} ms = "
             f"{ratio(float(old_bench[a]['session']) / float(bench[a]['session']), 2)}"
             if old_bench[a].get("session") and bench[a].get("session") else "-"
             for a in apps], col=34)
        row("  warm (bench tree)",
            [f"{float(old_bench[a]['warm']):.2f} / {float(bench[a]['warm']):.2f} ms = "
             f"{ratio(float(old_bench[a]['warm']) / float(bench[a]['warm']), 2)}" for a in apps], col=34)
    print()
    print(f"MCP tools/list answer: {kb(tools_bytes)}, {tools_count} tools "
          f"(protocol {protocol}, the whole JSON-RPC response line)")

    # ---- goals ----
    wf = WIDGET_FACTORY if WIDGET_FACTORY in apps else apps[0]
    wf_cold = cold[wf]["axsight"]
    speedup = walks[wf]["median_ms"] / wf_cold
    tree_bytes = int(bench[wf]["bytes"])
    warm = {a: float(bench[a]["warm"]) for a in apps}
    goals = [
        # Two decimals here: 9.97x must not read as 10.0x beside "NOT MET".
        (f"cold {wf} <= {GOAL_COLD_MS} ms", f"{wf_cold:.2f} ms", wf_cold <= GOAL_COLD_MS),
        (f"cold {wf} >= {GOAL_SPEEDUP}x faster than pyatspi",
         f"{ratio(speedup, 2)} vs pyatspi's in-process walk (cold vs cold: "
         f"{ratio(cold[wf]['pyatspi'] / wf_cold, 2)})", speedup >= GOAL_SPEEDUP),
        (f"warm < {GOAL_WARM_MS} ms",
         ", ".join(f"{warm[a]:.2f} ms" for a in apps), max(warm.values()) < GOAL_WARM_MS),
        (f"{wf} compact tree <= {GOAL_TREE_BYTES // KB} KB", kb(tree_bytes),
         tree_bytes <= GOAL_TREE_BYTES),
        (f"tools/list <= {GOAL_TOOLS_BYTES // KB} KB", kb(tools_bytes),
         tools_bytes <= GOAL_TOOLS_BYTES),
        (f"issue 13: cold {wf} <= {GOAL13_COLD_MS} ms median", f"{wf_cold:.2f} ms",
         wf_cold <= GOAL13_COLD_MS),
        (f"issue 13: cold {wf} >= {GOAL13_COLD_SPEEDUP}x a fresh pyatspi walk",
         f"{ratio(cold[wf]['pyatspi'] / wf_cold, 2)} (cold vs cold)",
         cold[wf]["pyatspi"] / wf_cold >= GOAL13_COLD_SPEEDUP),
        (f"issue 13: warm <= {GOAL13_WARM_MS} ms (engine)",
         ", ".join(f"{warm[a]:.2f} ms" for a in apps), max(warm.values()) <= GOAL13_WARM_MS),
        (f"issue 13: warm <= {GOAL13_WARM_MS} ms (through the session)",
         ", ".join(f"{float(bench[a]['session']):.2f} ms" for a in apps),
         max(float(bench[a]["session"]) for a in apps) <= GOAL13_WARM_MS),
    ]
    if args.json:
        figures = {
            "apps": apps, "widget_factory": wf, "runs": runs, "cold_ms": cold,
            "pyatspi_walk_ms": {a: walks[a]["median_ms"] for a in apps},
            "bench": bench, "before_bench": old_bench, "tools_list_bytes": tools_bytes,
            "tools": tools_count, "load": [load_start, load_end],
        }
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    print()
    goal_width = max(width, *(len(goal) + 2 for goal, _, _ in goals))
    print(f"{'goal (KB = 1024 bytes)':<{goal_width}}{'met?':<9}measured")
    for goal, figure, met in goals:
        print(f"{goal:<{goal_width}}{'met' if met else 'NOT MET':<9}{figure}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="measure everything and print the table")
    report.add_argument("--bin", required=True, help="the axsight binary")
    report.add_argument("--runs", type=int, default=15)
    report.add_argument("--app", action="append", required=True)
    report.add_argument("--before", help="an older axsight binary to time beside --bin")
    report.add_argument("--json", help="also write the figures to this file, as one JSON "
                        "object (scripts/bench-waits reads it)")
    walk_p = sub.add_parser("pyatspi-walk", help="median of in-process pyatspi walks, as JSON")
    walk_p.add_argument("--app", required=True)
    walk_p.add_argument("--runs", type=int, default=15)
    once = sub.add_parser("pyatspi-once", help="one pyatspi walk (timed from outside)")
    once.add_argument("--app", required=True)
    args = parser.parse_args()
    {"report": cmd_report, "pyatspi-walk": cmd_pyatspi_walk,
     "pyatspi-once": cmd_pyatspi_once}[args.command](args)


if __name__ == "__main__":
    main()
