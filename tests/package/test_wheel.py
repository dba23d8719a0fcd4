"""The Python wheel end to end: scripts/build-wheel builds it from the debug build,
pip installs it into a fresh venv (no index), and the MCP end-to-end tests
(tests/e2e/test_mcp_server.py: initialize, tools/list, tree reads, clicks and
typing on the fixture app) pass through the `axsight` that venv got; `uvx --from
WHEEL axsight serve` serves MCP as a client registered with uvx starts it.

Run under scripts/with-desktop (scripts/test's package step does):

    scripts/with-desktop -- .venv/bin/python -m pytest tests/package/test_wheel.py
"""
import asyncio
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

# Libraries a manylinux wheel may link without shipping them (PEP 600's policies
# for x86_64 list these and a few graphics ones axsight does not use).
MANYLINUX_LIBRARIES = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
                       "libpthread.so.0", "libdl.so.2", "librt.so.1"}
UVX = REPO / ".venv" / "bin" / "uvx"


def crate_version():
    workspace = tomllib.loads((REPO / "Cargo.toml").read_text())
    return workspace["workspace"]["package"]["version"]


def run(argv, **kwargs):
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{argv} failed ({done.returncode}):\n{done.stdout[-4000:]}" \
                                 f"\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheels")
    built = run([REPO / "scripts" / "build-wheel", "--out", out])
    return Path(built.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv of the system's Python with only the wheel installed."""
    root = tmp_path_factory.mktemp("venv") / "venv"
    run(["/usr/bin/python3", "-m", "venv", root])
    run([root / "bin" / "python", "-m", "pip", "install", "-q", "--no-index",
         "--disable-pip-version-check", wheel])
    return root


def test_the_wheel_is_a_manylinux_wheel_of_the_crate(wheel, tmp_path):
    version = crate_version()
    tag = re.fullmatch(rf"axsight-{re.escape(version)}-py3-none-(\S+)\.whl", wheel.name)
    assert tag, wheel.name
    glibc = re.search(r"manylinux_(\d+)_(\d+)_x86_64", tag[1])
    assert glibc, f"not a manylinux x86_64 wheel: {tag[1]}"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"axsight-{version}.dist-info/METADATA").decode()
        names = archive.namelist()
        binary = tmp_path / "axsight"
        binary.write_bytes(archive.read(f"axsight-{version}.data/scripts/axsight"))
    for line in ("Name: axsight", f"Version: {version}", "License-Expression: MIT OR Apache-2.0",
                 "Project-URL: Repository, https://github.com/axsight/axsight",
                 "mcp-name: io.github.axsight/axsight"):
        assert line in metadata, f"{line!r} is not in the wheel's METADATA"
    for licence in ("LICENSE-MIT", "LICENSE-APACHE"):
        assert f"axsight-{version}.dist-info/licenses/{licence}" in names, names
    # The tag holds: no glibc symbol newer than it names, no library it lacks.
    symbols = run(["objdump", "-T", binary]).stdout
    newest = max(tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+)", symbols))
    assert newest <= (int(glibc[1]), int(glibc[2])), (newest, tag[1])
    needed = set(re.findall(r"\(NEEDED\).*\[(.+)\]", run(["readelf", "-d", binary]).stdout))
    assert needed <= MANYLINUX_LIBRARIES, needed - MANYLINUX_LIBRARIES


def test_pip_puts_a_working_axsight_in_a_fresh_venv(venv):
    version = run([venv / "bin" / "axsight", "--version"]).stdout
    assert version.startswith(f"axsight {crate_version()}"), version
    shown = run([venv / "bin" / "python", "-m", "pip", "show", "axsight"]).stdout
    assert f"Version: {crate_version()}" in shown, shown


def test_the_mcp_end_to_end_tests_pass_through_the_installed_binary(venv, desktop):
    # Over stdio, as a client that runs the installed command does.
    env = {k: v for k, v in os.environ.items() if k != "AXSIGHT_E2E_TRANSPORT"}
    env["AXSIGHT_BIN"] = str(venv / "bin" / "axsight")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/e2e/test_mcp_server.py"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, f"{summary}\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed[1]) >= 15 and "skipped" not in summary, summary


def test_uvx_runs_the_wheel_and_serves_mcp(wheel, tmp_path):
    assert UVX.exists(), f"{UVX} is missing: run scripts/install-deps"
    # uv's own cache and the system's Python; --offline: the wheel is all it needs.
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    uvx = [UVX, "--offline", "--python", "/usr/bin/python3", "--from", wheel, "axsight"]
    version = run([*uvx, "--version"], env=env).stdout
    assert version.startswith(f"axsight {crate_version()}"), version

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def tools():
        params = StdioServerParameters(command=str(UVX), args=[str(a) for a in uvx[1:]] + ["serve"],
                                       env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                return init.server_info.name, (await session.list_tools()).tools

    name, listed = asyncio.run(asyncio.wait_for(tools(), timeout=60))
    assert name == "axsight" and len(listed) > 20
