#!/usr/bin/env python3
"""Reads per second over each MCP transport, with 1, 5 and 20 clients at once.

Run inside a desktop with the GTK fixture (the repository's venv has the SDK):

    scripts/with-desktop --app "/usr/bin/python3 tests/fixtures/fixture_app.py" -- \\
        .venv/bin/python scripts/bench_transports.py --bin target/release/axsight

Each client reads the fixture's window (`get_window_tree`) in a loop for
--seconds. Over stdio every client has a server process of its own; over HTTP
one server serves every client, each in its own session. Prints one Markdown
table: transport, clients, reads per second in all, median read in ms.
"""
import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

DESKTOP_VARS = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR")
ARGS = {"app": "axsight-fixture"}


async def read_for(session, seconds, times):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.monotonic()
        result = await session.call_tool("get_window_tree", ARGS)
        assert not result.is_error, result
        times.append(time.monotonic() - t0)


async def stdio_client_run(binary, seconds, times):
    env = {k: os.environ[k] for k in DESKTOP_VARS if os.environ.get(k)}
    params = StdioServerParameters(command=binary, args=["serve"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("get_window_tree", ARGS)  # warm
            await read_for(session, seconds, times)


async def http_client_run(url, seconds, times):
    async with httpx2.AsyncClient(timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                await session.call_tool("get_window_tree", ARGS)
                await read_for(session, seconds, times)


def start_http(binary):
    env = {k: os.environ[k] for k in DESKTOP_VARS if os.environ.get(k)}
    env["PATH"] = os.environ["PATH"]
    log = tempfile.TemporaryFile("w+")
    # More clients than the default session cap, each in use.
    server = subprocess.Popen([binary, "serve", "--http", "127.0.0.1:0", "--max-sessions", "64"],
                              stderr=log,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
                              text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        log.seek(0)
        found = re.search(r"serving MCP on (http://\S+/mcp)", log.read())
        if found:
            return server, found[1]
        time.sleep(0.05)
    server.kill()
    sys.exit("the HTTP server named no address")


async def run(transport, clients, binary, seconds, url):
    times = []
    if transport == "stdio":
        runs = [stdio_client_run(binary, seconds, times) for _ in range(clients)]
    else:
        runs = [http_client_run(url, seconds, times) for _ in range(clients)]
    await asyncio.gather(*runs)
    return len(times) / seconds, statistics.median(times) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/axsight")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", default="1,5,20")
    args = parser.parse_args()
    counts = [int(n) for n in args.clients.split(",")]
    print("| transport | clients | reads/s in all | median read (ms) |")
    print("|---|---|---|---|")
    for transport in ("stdio", "http"):
        server, url = start_http(args.bin) if transport == "http" else (None, None)
        try:
            for clients in counts:
                rate, median = asyncio.run(run(transport, clients, args.bin, args.seconds, url))
                print(f"| {transport} | {clients} | {rate:.0f} | {median:.1f} |", flush=True)
        finally:
            if server:
                server.terminate()
                server.wait(timeout=10)


if __name__ == "__main__":
    main()
