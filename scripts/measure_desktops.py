#!/usr/bin/env python3
"""How much memory and CPU one desktop takes, with N desktops side by side: the
sizing of docs/deploy.md and of deploy/kubernetes' resource requests.

    .venv/bin/python scripts/measure_desktops.py --bin "$CARGO_TARGET_DIR/release/axsight" \\
        [--counts 1,2,4,8] [--idle-seconds 10] [--busy-seconds 20] [--reads-per-action 4]

For each N it starts N desktops (scripts/with-desktop --wm: Xvfb, openbox, a
session bus, the AT-SPI bus, the GTK fixture tests/fixtures/fixture_app.py, and
`axsight serve --http 127.0.0.1:0`, as the image runs them), then measures:

- idle: each desktop read once by a client, then left alone for --idle-seconds;
- busy: one client process per desktop, over HTTP, for --busy-seconds, each
  looping --reads-per-action `get_window_tree` reads and one `click_element`
  (0: reads only, as fast as they come: the most a client can load a desktop).

A desktop's processes are those whose environment holds its XDG_RUNTIME_DIR
(with-desktop's private dir), which catches the AT-SPI registry too: D-Bus
activation starts it outside with-desktop's process tree. Memory is PSS (shared
pages split among their users) and RSS, summed over those processes; CPU is
their utime + stime over the phase, in % of one core. Needs root (or the same
user as the desktops) to read /proc/PID/environ and smaps_rollup. Prints one
Markdown table, and writes the figures as JSON with --json FILE.
"""
import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "fixture_app.py"
APP = {"app": "axsight-fixture"}
ACTION = {"selector": 'role:CheckBox && name:"Remember me"', **APP}
TICKS = os.sysconf("SC_CLK_TCK")
LISTENING = re.compile(r"serving MCP on (http://\S+/mcp)")
DESKTOP_DIR = re.compile(r"dir (/tmp/axd\.\w+)\)")
START_TIMEOUT_S = 60


# ---- the client (a process of its own per desktop, so that N clients are not
# ---- serialised in one Python interpreter)

async def client_loop(url, start_at, end_at, reads_per_action):
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    reads, actions, errors, read_ms, action_ms = 0, 0, 0, [], []
    async with httpx2.AsyncClient(timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                await session.call_tool("get_window_tree", APP)  # warm
                await asyncio.sleep(max(0.0, start_at - time.time()))
                while time.time() < end_at:
                    for _ in range(reads_per_action or 1):
                        t0 = time.monotonic()
                        result = await session.call_tool("get_window_tree", APP)
                        read_ms.append((time.monotonic() - t0) * 1000)
                        reads += 1
                        errors += bool(result.is_error)
                    if not reads_per_action:
                        continue
                    t0 = time.monotonic()
                    result = await session.call_tool("click_element", ACTION)
                    action_ms.append((time.monotonic() - t0) * 1000)
                    actions += 1
                    errors += bool(result.is_error)
    return {"reads": reads, "actions": actions, "errors": errors,
            "median_read_ms": statistics.median(read_ms) if read_ms else None,
            "median_action_ms": statistics.median(action_ms) if action_ms else None}


def run_client(args):
    figures = asyncio.run(client_loop(args.client, args.start_at, args.end_at,
                                      args.reads_per_action))
    print(json.dumps(figures), flush=True)


# ---- /proc

def read(path):
    try:
        return Path(path).read_bytes()
    except OSError:  # the process is gone, or not ours to read
        return b""


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def desktop_pids(runtime_dir):
    """Processes whose environment names RUNTIME_DIR as XDG_RUNTIME_DIR."""
    needle = b"XDG_RUNTIME_DIR=" + runtime_dir.encode()
    return [pid for pid in pids() if needle in read(f"/proc/{pid}/environ").split(b"\0")]


def cpu_ticks(pid):
    stat = read(f"/proc/{pid}/stat").decode(errors="replace")
    if ")" not in stat:
        return 0
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def memory_kib(pid):
    """(PSS, RSS) of PID in KiB, from smaps_rollup."""
    pss = rss = 0
    for line in read(f"/proc/{pid}/smaps_rollup").decode(errors="replace").splitlines():
        if line.startswith("Pss:"):
            pss = int(line.split()[1])
        elif line.startswith("Rss:"):
            rss = int(line.split()[1])
    return pss, rss


def process_name(pid):
    return read(f"/proc/{pid}/comm").decode(errors="replace").strip()


def machine_busy_ticks():
    """(busy, total) CPU ticks of the whole machine, from /proc/stat."""
    fields = [int(v) for v in read("/proc/stat").split(b"\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


# ---- desktops

class Desktop:
    def __init__(self, binary):
        self.log = tempfile.TemporaryFile("w+")
        app = f"/usr/bin/python3 {FIXTURE}"
        self.proc = subprocess.Popen(
            [str(REPO / "scripts" / "with-desktop"), "--wm", "--app", app, "--",
             binary, "serve", "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log, text=True)
        self.url = self.runtime_dir = None

    def started(self):
        """Whether the server says where it serves; fails if the desktop died."""
        if self.url:
            return True
        if self.proc.poll() is not None:
            sys.exit(f"a desktop exited ({self.proc.returncode}):\n{self.stderr()}")
        text = self.stderr()
        url, runtime_dir = LISTENING.search(text), DESKTOP_DIR.search(text)
        if url and runtime_dir:
            self.url, self.runtime_dir = url[1], runtime_dir[1]
        return bool(self.url)

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def pids(self):
        return desktop_pids(self.runtime_dir)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_desktops(binary, count):
    t0 = time.monotonic()
    desktops = [Desktop(binary) for _ in range(count)]
    deadline = t0 + START_TIMEOUT_S
    while not all(d.started() for d in desktops):
        if time.monotonic() > deadline:
            for d in desktops:
                d.stop()
            sys.exit(f"{count} desktops did not all start within {START_TIMEOUT_S} s")
        time.sleep(0.05)
    return desktops, time.monotonic() - t0


def snapshot(desktops):
    """Per desktop: {pid: (name, cpu ticks, pss KiB, rss KiB)}."""
    out = []
    for desktop in desktops:
        procs = {}
        for pid in desktop.pids():
            pss, rss = memory_kib(pid)
            procs[pid] = (process_name(pid), cpu_ticks(pid), pss, rss)
        out.append(procs)
    return out


def phase(desktops, seconds):
    """Watch the desktops for SECONDS, sampling memory each second. Returns
    per-desktop figures and the machine's."""
    before = snapshot(desktops)
    machine0 = machine_busy_ticks()
    t0 = time.monotonic()
    peak = [0] * len(desktops)
    samples = []
    while time.monotonic() - t0 < seconds:
        time.sleep(1)
        samples = snapshot(desktops)
        for i, procs in enumerate(samples):
            peak[i] = max(peak[i], sum(p[2] for p in procs.values()))
    wall = time.monotonic() - t0
    after = samples or snapshot(desktops)
    machine1 = machine_busy_ticks()
    figures = []
    for b, a, top in zip(before, after, peak):
        ticks = sum(a[pid][1] - b.get(pid, (None, 0))[1] for pid in a)
        by_name = {}
        for name, _, pss, _ in a.values():
            by_name[name] = by_name.get(name, 0) + pss
        figures.append({
            "cpu_pct": 100.0 * ticks / TICKS / wall,
            "pss_mib": sum(p[2] for p in a.values()) / 1024,
            "rss_mib": sum(p[3] for p in a.values()) / 1024,
            "peak_pss_mib": top / 1024,
            "pss_mib_by_process": {k: round(v / 1024, 1) for k, v in sorted(by_name.items())},
        })
    busy = machine1[0] - machine0[0]
    total = machine1[1] - machine0[1]
    return figures, {"machine_cpu_pct": 100.0 * busy / max(total, 1) * os.cpu_count(),
                     "wall_s": wall}


def warm(desktops):
    """One read through each server, so the idle figures are of a served desktop."""
    async def one(url):
        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client
        async with httpx2.AsyncClient(timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    result = await session.call_tool("get_window_tree", APP)
                    assert not result.is_error, result

    async def all_of():
        await asyncio.gather(*(one(d.url) for d in desktops))

    asyncio.run(all_of())


def mean(values):
    return sum(values) / len(values)


def measure(binary, count, idle_s, busy_s, reads_per_action):
    load = os.getloadavg()[0]
    desktops, start_s = start_desktops(binary, count)
    try:
        warm(desktops)
        idle, idle_machine = phase(desktops, idle_s)
        start_at = time.time() + 3  # the clients connect and warm up first
        end_at = start_at + busy_s
        clients = [subprocess.Popen(
            [sys.executable, __file__, "--client", d.url, "--start-at", str(start_at),
             "--end-at", str(end_at), "--reads-per-action", str(reads_per_action)],
            stdout=subprocess.PIPE, text=True)
            for d in desktops]
        time.sleep(max(0.0, start_at - time.time()))
        client_ticks0 = sum(cpu_ticks(c.pid) for c in clients)
        busy, busy_machine = phase(desktops, busy_s)
        client_ticks1 = sum(cpu_ticks(c.pid) for c in clients)
        results = []
        for client in clients:
            out, _ = client.communicate(timeout=120)
            if client.returncode != 0:
                sys.exit(f"a client failed ({client.returncode})")
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for desktop in desktops:
            desktop.stop()
    medians = [r["median_read_ms"] for r in results if r["median_read_ms"] is not None]
    action_medians = [r["median_action_ms"] for r in results
                      if r["median_action_ms"] is not None]
    return {
        "desktops": count,
        "load_before": load,
        "start_s": start_s,
        "idle": {"pss_mib": mean([f["pss_mib"] for f in idle]),
                 "rss_mib": mean([f["rss_mib"] for f in idle]),
                 "cpu_pct": mean([f["cpu_pct"] for f in idle]),
                 "by_process": idle[0]["pss_mib_by_process"], **idle_machine},
        "busy": {"pss_mib": mean([f["pss_mib"] for f in busy]),
                 "peak_pss_mib": max(f["peak_pss_mib"] for f in busy),
                 "rss_mib": mean([f["rss_mib"] for f in busy]),
                 "cpu_pct": mean([f["cpu_pct"] for f in busy]),
                 "by_process": busy[0]["pss_mib_by_process"],
                 "client_cpu_pct": 100.0 * (client_ticks1 - client_ticks0) / TICKS
                 / busy_machine["wall_s"] / count,
                 **busy_machine},
        "reads_per_s_per_client": mean([r["reads"] for r in results]) / busy_s,
        "actions_per_s_per_client": mean([r["actions"] for r in results]) / busy_s,
        "median_read_ms": statistics.median(medians) if medians else None,
        "median_action_ms": statistics.median(action_medians) if action_medians else None,
        "errors": sum(r["errors"] for r in results),
    }


def table(rows):
    lines = [
        "| desktops | start (s) | idle PSS/desktop (MiB) | idle RSS/desktop (MiB) "
        "| idle CPU/desktop (% core) | busy PSS/desktop (MiB), peak "
        "| busy CPU/desktop (% core) | client CPU (% core) | machine CPU (% core) "
        "| reads/s per client | actions/s per client | median read (ms) | median action (ms) "
        "| errors "
        "| load before |",
        "|" + "---|" * 15,
    ]
    for r in rows:
        i, b = r["idle"], r["busy"]
        action_ms = "-" if r["median_action_ms"] is None else f"{r['median_action_ms']:.0f}"
        lines.append(
            f"| {r['desktops']} | {r['start_s']:.1f} | {i['pss_mib']:.0f} | {i['rss_mib']:.0f} "
            f"| {i['cpu_pct']:.1f} | {b['pss_mib']:.0f}, {b['peak_pss_mib']:.0f} "
            f"| {b['cpu_pct']:.0f} | {b['client_cpu_pct']:.0f} | {b['machine_cpu_pct']:.0f} "
            f"| {r['reads_per_s_per_client']:.1f} | {r['actions_per_s_per_client']:.1f} "
            f"| {r['median_read_ms']:.1f} | {action_ms} | {r['errors']} "
            f"| {r['load_before']:.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(REPO / "target" / "release" / "axsight"))
    parser.add_argument("--counts", default="1,2,4,8")
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--busy-seconds", type=float, default=20)
    parser.add_argument("--reads-per-action", type=int, default=4)
    parser.add_argument("--json", help="write the figures here too")
    # The client mode, run by the measurement itself.
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--end-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        return run_client(args)
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"no axsight binary at {args.bin} (cargo build --release -p axsight)")
    rows = []
    for count in (int(n) for n in args.counts.split(",")):
        row = measure(args.bin, count, args.idle_seconds, args.busy_seconds,
                      args.reads_per_action)
        rows.append(row)
        print(f"measure: {count} desktops: {json.dumps(row)}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
