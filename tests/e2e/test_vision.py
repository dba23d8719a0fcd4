"""The vision-model source (#v) end to end: `get_window_tree` with include_vision asks
a model what it sees in the fixture's window, and a click by the #v handle it
prints presses the button the model named.

Three ways to a model, each with the official Python SDK client:
- the client's own model through sampling, on the initialize-era protocol (the
  server sends sampling/createMessage);
- the client's own model on the 2026-07-28 protocol, where the server answers with
  an input-required result and the client calls again with the model's answer;
- an OpenAI-compatible chat-completions endpoint the server is started with: here a
  small HTTP server on loopback that checks the request and answers a fixed reply.

The "model" answers with the box of an icon-only button, in the picture's pixels,
computed from the accessibility tree: the test checks the whole way from the
server's question to the click.
"""
import asyncio
import base64
import json
import os
import re
import struct
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import anyio
import pytest
from mcp import StdioServerParameters, types
from mcp.client import Client

from conftest import FIXTURE_APP, launch, stop
from test_mcp_server import AXSIGHT_BIN, desktop_env, text_of

SESSION_DEADLINE_S = 90
# `#u43 [Button] Delete (desc: "Delete (icon)", [714,556,36,34])`
BOUNDS = re.compile(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]\)?$")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def fixture_window(desktop):
    title = f"axsight-vision-{os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    yield title
    stop(app)


def bounds_of(tree, needle):
    """The handle and [x, y, w, h] of the first tree line containing `needle`."""
    line = next((l for l in tree.splitlines() if needle in l), None)
    assert line, f"no line with {needle!r} in:\n{tree}"
    return line.split()[0], [int(v) for v in BOUNDS.search(line).groups()]


def png_size(data):
    """Width and height from a PNG's IHDR chunk."""
    assert data.startswith(PNG_SIGNATURE), data[:16]
    return struct.unpack(">II", data[16:24])


def vision_line(tree, label):
    section = tree.split("- vision\n", 1)
    assert len(section) == 2, f"no vision section:\n{tree}"
    line = next((l for l in section[1].splitlines() if f'"{label}"' in l), None)
    assert line, f"the vision section names no {label!r}:\n{section[1]}"
    return line.strip()


class FakeModel:
    """A 'vision model' that names one button, at the box the tree gives it."""

    def __init__(self):
        self.asked = []
        self.box = None  # [x1, y1, x2, y2] in the picture's pixels
        self.label = "Delete"
        self.role = "button"

    def reply(self, width, height):
        # Fenced JSON with an unusable item beside the good one, as models write.
        item = {"role": self.role, "label": self.label, "box": self.box}
        return ("Here is what I see:\n```json\n"
                + json.dumps({"elements": [item, {"role": "icon", "label": "no box"}]})
                + "\n```")

    async def sample(self, context, params):
        blocks = params.messages[0].content
        blocks = blocks if isinstance(blocks, list) else [blocks]
        images = [b for b in blocks if b.type == "image"]
        texts = [b.text for b in blocks if b.type == "text"]
        assert len(images) == 1 and images[0].mime_type == "image/png", blocks
        width, height = png_size(base64.b64decode(images[0].data))
        assert any(f"{width}x{height}" in t and "JSON" in t for t in texts), texts
        self.asked.append((width, height))
        return types.CreateMessageResult(
            role="assistant", model="fake-vision",
            content=types.TextContent(type="text", text=self.reply(width, height)))


def run_client(body, mode, sampling=None, args=(), env=None):
    params = StdioServerParameters(command=str(AXSIGHT_BIN), args=["serve", *args],
                                   env={**desktop_env(), **(env or {})})

    async def main():
        with anyio.fail_after(SESSION_DEADLINE_S):
            async with Client(params, mode=mode, sampling_callback=sampling) as client:
                await body(client)

    asyncio.run(main())


async def ok(client, name, args):
    result = await client.call_tool(name, args, read_timeout_seconds=60)
    assert not result.is_error, f"{name}({args}) failed: {text_of(result)}"
    return text_of(result)


async def see_and_click_delete(client, model, title):
    """Reads the tree, points the model at the Delete icon, asks it, clicks #v."""
    tree = await ok(client, "get_window_tree", {"window": title})
    _, (wx, wy, _, _) = bounds_of(tree, f"[Window] {title}")
    delete, (x, y, w, h) = bounds_of(tree, 'desc: "Delete (icon)"')
    model.box = [x - wx, y - wy, x - wx + w, y - wy + h]

    seen = await ok(client, "get_window_tree", {"window": title, "include_vision": True})
    line = vision_line(seen, "Delete")
    # The model's box, back on screen, and the tree element it coincides with.
    assert line.endswith(f"= {delete}"), line
    assert f"[{x},{y},{w},{h}]" in line, line
    handle = line.split()[0]
    assert handle.startswith("#v"), line
    assert "no box" not in seen, seen

    clicked = await ok(client, "click_element", {"index": handle})
    assert clicked.startswith(f"clicked {handle}"), clicked
    assert "Icon Delete clicked" in clicked, clicked
    return handle


def test_the_clients_model_through_sampling(fixture_window):
    model = FakeModel()

    async def body(client):
        assert client.protocol_version < "2026-07-28", client.protocol_version
        handle = await see_and_click_delete(client, model, fixture_window)
        # The Windows-era name of the flag asks again: the old numbers retire.
        again = await ok(client, "get_window_tree",
                         {"window": fixture_window, "include_gemini_vision": True})
        assert handle not in again.split("- vision\n", 1)[1], again
        stale = await client.call_tool("click_element", {"index": handle})
        assert stale.is_error and "stale" in text_of(stale), text_of(stale)

    run_client(body, mode="legacy", sampling=model.sample)
    assert len(model.asked) == 2, model.asked


def test_the_clients_model_through_an_input_required_result(fixture_window):
    model = FakeModel()

    async def body(client):
        assert client.protocol_version >= "2026-07-28", client.protocol_version
        await see_and_click_delete(client, model, fixture_window)

    run_client(body, mode="auto", sampling=model.sample)
    assert len(model.asked) == 1, model.asked


def test_find_element_asks_the_model_when_tree_and_ocr_have_nothing(fixture_window):
    model = FakeModel()

    async def body(client):
        tree = await ok(client, "get_window_tree", {"window": fixture_window})
        _, (wx, wy, _, _) = bounds_of(tree, f"[Window] {fixture_window}")
        _, (cx, cy, _, _) = bounds_of(tree, "[Canvas] Canvas")
        # The fixture paints a red circle of radius 25 at (140, 35) in its canvas.
        model.role, model.label = "icon", "red circle"
        model.box = [cx - wx + 115, cy - wy + 10, cx - wx + 165, cy - wy + 60]

        # The tree answers alone when it can: no screenshot, no model.
        found = await ok(client, "find_element", {"description": "the Count button",
                                                  "window": fixture_window})
        assert found.startswith("found in the tree"), found
        assert not model.asked

        found = await ok(client, "find_element", {"description": "the circle",
                                                  "window": fixture_window})
        assert found.startswith("found by the vision model"), found
        handle = re.search(r"#v\d+", found)[0]
        clicked = await ok(client, "click_element", {"index": handle})
        at = re.search(r"Canvas clicked at (\d+),(\d+)", clicked)
        assert at and abs(int(at[1]) - 140) <= 3 and abs(int(at[2]) - 35) <= 3, clicked

    run_client(body, mode="legacy", sampling=model.sample)
    assert len(model.asked) == 1, model.asked


class ChatCompletions(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint on loopback: checks, records, answers."""
    answer = None
    seen = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers.get("Authorization"), body))
        reply = json.dumps({"choices": [{"message": {"role": "assistant",
                                                     "content": type(self).answer}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args):
        pass


def test_a_configured_openai_compatible_endpoint(fixture_window):
    server = HTTPServer(("127.0.0.1", 0), ChatCompletions)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    ChatCompletions.seen = []
    args = ["--vision-url", f"http://127.0.0.1:{port}/v1", "--vision-model", "fake-vlm",
            "--vision-key-env", "AXSIGHT_TEST_VISION_KEY"]
    env = {"AXSIGHT_TEST_VISION_KEY": "test-key-123"}

    async def body(client):
        tree = await ok(client, "get_window_tree", {"window": fixture_window})
        _, (wx, wy, ww, wh) = bounds_of(tree, f"[Window] {fixture_window}")
        refresh, (x, y, w, h) = bounds_of(tree, 'desc: "Refresh (icon)"')
        # Gemini's way: [ymin, xmin, ymax, xmax], normalised to 0-1000.
        box = [round((y - wy) * 1000 / wh), round((x - wx) * 1000 / ww),
               round((y - wy + h) * 1000 / wh), round((x - wx + w) * 1000 / ww)]
        ChatCompletions.answer = json.dumps([{"type": "button", "name": "Refresh",
                                              "box_2d": box}])
        seen = await ok(client, "get_window_tree", {"window": fixture_window,
                                                    "include_vision": True})
        line = vision_line(seen, "Refresh")
        assert line.endswith(f"= {refresh}"), line
        clicked = await ok(client, "click_element", {"index": line.split()[0]})
        assert "Icon Refresh clicked" in clicked, clicked

    try:
        # No sampling offered: the configured endpoint is asked.
        run_client(body, mode="legacy", args=args, env=env)
    finally:
        server.shutdown()
    assert len(ChatCompletions.seen) == 1, ChatCompletions.seen
    path, auth, request = ChatCompletions.seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer test-key-123", (path, auth)
    assert request["model"] == "fake-vlm", request
    parts = request["messages"][-1]["content"]
    url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
    assert url.startswith("data:image/png;base64,"), url[:40]
    width, height = png_size(base64.b64decode(url.split(",", 1)[1]))
    prompt = next(p["text"] for p in parts if p["type"] == "text")
    assert f"{width}x{height}" in prompt, prompt


def test_without_a_model_the_answer_says_what_to_do_instead(fixture_window):
    async def body(client):
        result = await client.call_tool("get_window_tree", {"window": fixture_window,
                                                            "include_vision": True})
        message = text_of(result)
        assert result.is_error, message
        assert "--vision-url" in message and "capture_screenshot" in message, message
        assert "annotate" in message, message

    run_client(body, mode="legacy")
