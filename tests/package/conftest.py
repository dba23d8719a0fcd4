"""Shared by the packaging tests (tests/package): where the repository and the built
binary are, and the end-to-end suite's desktop fixtures and helpers
(tests/e2e/conftest.py: `desktop`, `fixture_app`, `launch`, `stop`, `poll`), loaded
under a module name of their own so that they are not copied here.

Run under scripts/with-desktop (scripts/test's package step does), with the repo's
.venv:

    AXSIGHT_BIN=target/debug/axsight scripts/with-desktop -- .venv/bin/python -m pytest tests/package
"""
import asyncio
import importlib.util
import os
import re
import subprocess
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
# The binary the packages are made from: the build's, as for the e2e tests.
AXSIGHT_BIN = Path(os.environ.get("AXSIGHT_BIN")
                   or Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "debug" / "axsight")

_spec = importlib.util.spec_from_file_location("e2e_conftest", REPO / "tests" / "e2e" / "conftest.py")
e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e)

# Fixtures, found by pytest here.
desktop = e2e.desktop
fixture_app = e2e.fixture_app

# What a server needs of the desktop's environment.
DESKTOP_VARS = ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR")


def doctor_finds_the_desktop(binary):
    """An installed binary's `doctor` reaches the accessibility bus and lists an app."""
    out = subprocess.run([str(binary), "doctor"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"{out.stdout}\n{out.stderr}"
    assert re.search(r"^ok +accessibility bus: ", out.stdout, re.M), out.stdout
    match = re.search(r"^ok +applications: (\d+) on the bus", out.stdout, re.M)
    assert match and int(match.group(1)) >= 1, out.stdout


def serves_the_fixture_over_mcp(binary, fixture_app):
    """An installed binary's `serve` answers the official SDK's client over stdio:
    initialize, tools/list, and the fixture's tree (with its secret kept out)."""
    params = StdioServerParameters(
        command=str(binary), args=["serve"],
        env={name: os.environ[name] for name in DESKTOP_VARS if os.environ.get(name)})
    answers = {}

    async def session():
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as client:
                    init = await client.initialize()
                    answers["server"] = init.server_info.name
                    answers["tools"] = {tool.name for tool in (await client.list_tools()).tools}
                    result = await client.call_tool(
                        "get_window_tree", {"app": "axsight-fixture", "window": fixture_app.title},
                        read_timeout_seconds=30)
                    answers["error"] = result.is_error
                    answers["tree"] = "".join(b.text for b in result.content if b.type == "text")

    asyncio.run(session())
    assert answers["server"] == "axsight"
    assert {"get_window_tree", "click_element", "get_applications"} <= answers["tools"]
    tree = answers["tree"]
    assert not answers["error"], tree
    assert tree.startswith("app: axsight-fixture (pid "), tree
    assert "[CheckBox] Remember me" in tree, tree
    assert e2e.SECRET not in tree
