"""The example answers of docs/tools.md, from the real desktop: every example of
docs/tool-examples.json is called, in its order, in one server session against
the fixture app on a desktop of its own (openbox, so that the window tools work
and nothing else runs there), through the official Python SDK client.

Without AXSIGHT_BLESS=1 each answer must still have the recorded shape: its
first line and the elements it names (role and name) once handles, bounds, pids
and timings are set aside, and an error where one was recorded. With
AXSIGHT_BLESS=1 the answers are recorded into docs/tool-examples.json and
docs/tools.md is made anew from it by `axsight tools-reference`:

    AXSIGHT_BLESS=1 AXSIGHT_BIN=target/debug/axsight scripts/with-desktop -- \\
        .venv/bin/python -m pytest tests/e2e/test_tool_reference.py

The answers do not depend on the transport: over HTTP (AXSIGHT_E2E_TRANSPORT=http)
the test is skipped rather than run a second time.
"""
import base64
import json
import os
import re
import struct
import subprocess

import pytest

from conftest import FIXTURE_APP, REPO, PrivateDesktop, stop
from test_mcp_server import AXSIGHT_BIN, DESKTOP_VARS, TRANSPORT, run_session, text_of
from test_windows import launch_on

EXAMPLES = REPO / "docs" / "tool-examples.json"
TOOLS_MD = REPO / "docs" / "tools.md"
TITLE = "axsight reference"
SMALL = "axsight reference small"
BLESS = os.environ.get("AXSIGHT_BLESS") == "1"
pytestmark = pytest.mark.skipif(
    TRANSPORT != "stdio", reason="the examples are recorded over stdio; their answers do not depend on it")
# Browsers start and pages load within this; the other calls take their default.
SESSION_DEADLINE_S = 240

# What varies from run to run, and what stands for it in a comparison.
VARYING = [
    (re.compile(r"#[umovd]\d+"), "#h"),
    (re.compile(r"\[-?\d+,-?\d+,\d+,\d+\]"), "[bounds]"),
    (re.compile(r"\(-?\d+, -?\d+\)"), "(x, y)"),
    (re.compile(r"\bpid \d+"), "pid N"),
    (re.compile(r"\d+(\.\d+)? ?ms\b"), "N ms"),
    (re.compile(r"\d+ bytes\b"), "N bytes"),
    (re.compile(r"\d+ events\b"), "N events"),
    (re.compile(r"\d+×\d+"), "W×H"),
]
# `#u7 [Button] Save`: an element an answer names, by role and name.
ELEMENT = re.compile(r"#[umovd]\d+ \[(\w+)\] ?([^(\n:]*)")


def answer_of(result):
    """A tool result as the examples file keeps it: its text, and a line for each
    image saying what it was."""
    parts = []
    for block in result.content:
        if block.type == "text":
            parts.append(block.text)
        elif block.type == "image":
            data = base64.b64decode(block.data)
            size = ""
            if data[:8] == b"\x89PNG\r\n\x1a\n":
                width, height = struct.unpack(">II", data[16:24])
                size = f", {width}×{height} px"
            parts.append(f"[image: {block.mime_type}{size}, {len(data)} bytes]")
    return "\n".join(parts)


def normalised(text):
    for pattern, stand_in in VARYING:
        text = pattern.sub(stand_in, text)
    return text


def shape(answer, check="elements"):
    """The first line, and (unless `check` is "first_line": a page in a browser
    whose own elements come and go) the elements named, with what varies set
    aside."""
    first = normalised(answer.split("\n", 1)[0])
    if check == "first_line":
        return first, []
    return first, sorted(normalised(f"[{role}] {name.strip()}")
                         for role, name in ELEMENT.findall(answer))


@pytest.fixture
def reference_desktop(desktop, tmp_path, monkeypatch):
    """A desktop with openbox and the fixture app (and its small second window)
    alone on it; the server runs from the repository, as the examples' relative
    command line expects."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path)
    env = {**os.environ, **private.env}
    try:
        app = launch_on(env, ["/usr/bin/python3", str(FIXTURE_APP), "--title", TITLE,
                              "--second-window", SMALL], TITLE)
        monkeypatch.chdir(REPO)
        yield {k: env[k] for k in DESKTOP_VARS if env.get(k)}
        stop(app)
    finally:
        private.close()


def test_every_example_still_answers_as_recorded(reference_desktop):
    examples = json.loads(EXAMPLES.read_text())
    answers = []

    async def body(c):
        listed = {tool.name for tool in (await c.list_tools()).tools}
        named = [example["tool"] for example in examples["tools"]]
        assert sorted(named) == sorted(listed), "docs/tool-examples.json needs one example per tool"
        for example in examples["tools"]:
            call = dict(example["call"])
            for argument, selector in example.get("resolve", {}).items():
                found = text_of(await c.call("validate_element", {
                    "selector": selector, "app": "axsight-fixture", "window": TITLE}))
                handle = re.match(r"exists: (#u\d+) ", found)
                assert handle, f"{example['tool']}: {selector} is not in the fixture: {found}"
                call[argument] = handle[1]
            result = await c.call(example["tool"], call, timeout=60)
            answers.append((example, call, answer_of(result), bool(result.is_error)))

    run_session(body, env=reference_desktop, deadline=SESSION_DEADLINE_S,
                args=["--allow-browser-script"])

    if BLESS:
        for example, call, answer, is_error in answers:
            example["call"] = call
            example["answer"] = answer
            example["is_error"] = is_error
        EXAMPLES.write_text(json.dumps(examples, indent=2, ensure_ascii=False) + "\n")
        page = subprocess.run([str(AXSIGHT_BIN), "tools-reference", str(EXAMPLES)],
                              capture_output=True, text=True, check=True).stdout
        TOOLS_MD.write_text(page)
        return
    differ = []
    for example, _call, answer, is_error in answers:
        recorded = example.get("answer", "")
        check = example.get("check", "elements")
        if is_error != example.get("is_error", False) or \
                shape(answer, check) != shape(recorded, check):
            differ.append(f"{example['tool']}:\n--- recorded\n{recorded}\n--- now\n{answer}")
    assert not differ, ("answers no longer have their recorded shape (record them anew with "
                        "AXSIGHT_BLESS=1 if the change is meant):\n\n" + "\n\n".join(differ))
