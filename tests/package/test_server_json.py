"""server.json, the MCP registry entry: valid against the registry's schema (stored
in tests/package/data, see its SOURCE.md), in step with the crate's version and the
wheel's PyPI name and README, naming only environment variables axsight reads, and
with package arguments that really start the server: each package entry's command
line is built as a client builds it and served over its transport to the SDK's
client.

    AXSIGHT_BIN=target/debug/axsight .venv/bin/python -m pytest tests/package/test_server_json.py
"""
import asyncio
import hashlib
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import tomllib

import jsonschema
import pytest

from conftest import AXSIGHT_BIN, REPO

SERVER_JSON = REPO / "server.json"
SCHEMA = REPO / "tests" / "package" / "data" / "server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"
# The registry's limit (the schema's maxLength), said again so that a failure says it.
DESCRIPTION_MAX = 100


@pytest.fixture(scope="module")
def entry():
    return json.loads(SERVER_JSON.read_text())


def crate_version():
    workspace = tomllib.loads((REPO / "Cargo.toml").read_text())
    return workspace["workspace"]["package"]["version"]


def test_the_stored_schema_is_the_registrys_unchanged():
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256, \
        "tests/package/data/server.schema.json changed: see its SOURCE.md"


def test_server_json_is_valid_against_the_registry_schema(entry):
    schema = json.loads(SCHEMA.read_text())
    assert entry["$schema"] == schema["$id"], "server.json names another schema version"
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
              for e in validator.iter_errors(entry)]
    assert not errors, "\n".join(errors)
    # The validator does fail: a description over the limit is refused.
    assert not validator.is_valid({**entry, "description": "x" * (DESCRIPTION_MAX + 1)})


def test_versions_names_and_description_agree_with_the_packages(entry):
    version = crate_version()
    assert entry["version"] == version, "server.json's version is not the crate's"
    assert [p["version"] for p in entry["packages"]] == [version] * len(entry["packages"])
    assert len(entry["description"]) <= DESCRIPTION_MAX, len(entry["description"])
    pyproject = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())
    assert {p["identifier"] for p in entry["packages"] if p["registryType"] == "pypi"} == \
        {pyproject["project"]["name"]}
    # The registry proves the PyPI package is this server by this line in its README.
    readme = (REPO / "python" / pyproject["project"]["readme"]).read_text()
    assert f"mcp-name: {entry['name']}" in readme
    assert {p["transport"]["type"] for p in entry["packages"]} == {"stdio", "streamable-http"}


def test_the_readmes_registration_runs_what_the_stdio_entry_names(entry):
    """The JSON registration in the PyPI README starts the server as server.json's
    stdio package says a client should: `uvx axsight serve`."""
    stdio = next(p for p in entry["packages"] if p["transport"]["type"] == "stdio")
    expected = [stdio["identifier"], *command_line(stdio, {})]
    readme = (REPO / "python" / "README.md").read_text()
    configs = [json.loads(line) for line in readme.splitlines() if '"mcpServers"' in line]
    assert configs, "python/README.md shows no mcpServers registration"
    for config in configs:
        server = config["mcpServers"]["axsight"]
        assert server["command"] == stdio["runtimeHint"] and server["args"] == expected, server
    vscode = re.search(r"code --add-mcp '(.+)'", readme)
    assert vscode, "python/README.md shows no VS Code registration"
    server = json.loads(vscode[1])
    assert server["command"] == stdio["runtimeHint"] and server["args"] == expected, server
    assert f"claude mcp add axsight -- {stdio['runtimeHint']} {' '.join(expected)}" in readme


def test_only_variables_axsight_reads_are_named(entry):
    assert AXSIGHT_BIN.exists(), f"{AXSIGHT_BIN} is missing: run cargo build -p axsight"
    helped = subprocess.run([str(AXSIGHT_BIN), "serve", "--help"], capture_output=True,
                            text=True, check=True).stdout
    for package in entry["packages"]:
        for variable in package.get("environmentVariables", []):
            assert re.search(rf"\b{variable['name']}\b", helped), \
                f"axsight serve --help says nothing of {variable['name']}"


def command_line(package, values):
    """The package's arguments as a client puts them on the command line: fixed
    values as they are, a value hint filled from `values`, optional ones left out."""
    argv = []
    for argument in package["packageArguments"]:
        value = argument.get("value")
        if value is None and "valueHint" in argument:
            value = values[argument["valueHint"]]
        if argument["type"] == "named":
            if value is None:
                continue
            argv += [argument["name"], value]
        else:
            argv.append(value)
    return argv


def free_loopback_address():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


async def tools_over_stdio(argv):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=str(AXSIGHT_BIN), args=argv, env=dict(os.environ))
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                return init.server_info, await session.list_tools()


async def tools_over_http(url):
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    async with httpx2.AsyncClient(timeout=20) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                init = await session.initialize()
                return init.server_info, await session.list_tools()


def test_each_package_entry_starts_a_server_its_transport_reaches(entry):
    assert AXSIGHT_BIN.exists(), f"{AXSIGHT_BIN} is missing: run cargo build -p axsight"
    stdio, http = (next(p for p in entry["packages"] if p["transport"]["type"] == kind)
                   for kind in ("stdio", "streamable-http"))
    info, listed = asyncio.run(asyncio.wait_for(
        tools_over_stdio(command_line(stdio, {})), timeout=30))
    assert info.name == "axsight" and info.version == crate_version()
    assert len(listed.tools) > 20

    values = {"http_address": free_loopback_address()}
    url = re.sub(r"\{(\w+)\}", lambda m: values[m[1]], http["transport"]["url"])
    with tempfile.TemporaryFile("w+") as errlog:
        server = subprocess.Popen([str(AXSIGHT_BIN), *command_line(http, values)],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=errlog, text=True)
        try:
            deadline = time.monotonic() + 20
            while True:
                errlog.seek(0)
                if f"serving MCP on {url}" in errlog.read():
                    break
                assert server.poll() is None, "the HTTP server exited"
                assert time.monotonic() < deadline, f"the HTTP server never said it serves {url}"
                time.sleep(0.02)
            info, listed = asyncio.run(asyncio.wait_for(tools_over_http(url), timeout=30))
            assert info.name == "axsight" and len(listed.tools) > 20
        finally:
            server.terminate()
            server.wait(timeout=10)
