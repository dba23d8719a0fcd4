"""Where the tree is silent, the tools fall through by themselves: real apps whose
content the accessibility tree does not have, each used for a task end to end
through the official Python SDK client with no image ever asked for, and each
task's end state checked outside axsight (the files the app wrote, or the screen
read by this test's own OCR).

- xcalc (Athena widgets, no accessibility at all): listed by get_applications,
  read by OCR (and the detector), typed into, clicked by #o handle and by point,
  each action witnessed by its pixels, and waited on until OCR reads the sum.
- Thunar's icon view (its files are drawn, not on the bus): the files read inline
  under the view, one clicked by #o handle and renamed.
- Gnumeric's sheet (no cells on the bus): numbers and a formula typed into the
  grid with key events, the computed value read inline, the workbook saved.
- The fixture's canvas (painted text): read inline without include_ocr.
"""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REPO, launch, poll, stop
from test_mcp_server import desktop_env, run_session

# `#o12 "draft.txt" [358,482,58,25] 0.92`
SIGHTING = re.compile(r'^(?P<indent> *)(?P<handle>#o\d+) "(?P<text>(?:[^"\\]|\\.)*)" '
                      r'\[(?P<x>-?\d+),(?P<y>-?\d+),(?P<w>\d+),(?P<h>\d+)\]')


def onnxruntime_library():
    """The ONNX Runtime scripts/install-deps put in .venv, as a user names it
    (the e2e servers get no VIRTUAL_ENV)."""
    found = sorted((REPO / ".venv").glob("lib/python3*/site-packages/onnxruntime/capi/"
                                         "libonnxruntime.so*"))
    return str(found[-1]) if found else None


def server_env():
    env = desktop_env()
    library = onnxruntime_library()
    if library:
        env["AXSIGHT_ONNXRUNTIME"] = library
    return env


def sightings(text):
    """{handle: (text, (x, y, w, h))} of the OCR lines of a printed tree."""
    found = {}
    for line in text.splitlines():
        m = SIGHTING.match(line)
        if m:
            box = tuple(int(m[k]) for k in ("x", "y", "w", "h"))
            found[m["handle"]] = (m["text"], box)
    return found


def sighting_of(text, wanted):
    """The handle of the OCR line that reads WANTED (case and spaces aside)."""
    norm = lambda s: re.sub(r"\s+", "", s).lower()
    found = [h for h, (t, _) in sightings(text).items() if norm(t) == norm(wanted)]
    assert found, f"OCR did not read {wanted!r}:\n{text}"
    return found[0]


def no_images(client):
    """No result of the session carried a picture: the agent never needed one."""
    for dumped in client.outputs:
        assert '"type":"image"' not in dumped, dumped[:300]


def screen_text(box, characters=None):
    """What Tesseract (the CLI, not axsight) reads in BOX of the screen, as one
    line of CHARACTERS (any when None): the test's own eyes on what an app shows.
    Grabbed with GDK, made dark on light and three times larger with Pillow."""
    x, y, w, h = box
    shot = tempfile.NamedTemporaryFile(suffix=".png", delete=False).name
    grab = ("import sys, gi; gi.require_version('Gdk', '3.0'); from gi.repository import Gdk; "
            "from PIL import Image, ImageOps, ImageStat; "
            "r = Gdk.get_default_root_window(); "
            f"Gdk.pixbuf_get_from_window(r, {x}, {y}, {w}, {h}).savev(sys.argv[1], 'png', [], []); "
            "im = Image.open(sys.argv[1]).convert('L'); "
            "im = ImageOps.invert(im) if ImageStat.Stat(im).mean[0] < 128 else im; "
            # Frame edges (columns dark from top to bottom) are no text.
            "px = im.load(); "
            "bars = [c for c in range(im.width) "
            "        if sum(px[c, r] < 128 for r in range(im.height)) > 0.8 * im.height]; "
            "[px.__setitem__((c, r), 255) for c in bars for r in range(im.height)]; "
            "im.resize((im.width * 3, im.height * 3), Image.BICUBIC).save(sys.argv[1])")
    env = {**os.environ, "GDK_BACKEND": "x11"}
    subprocess.run(["/usr/bin/python3", "-c", grab, shot], env=env, check=True, timeout=20)
    try:
        only = ["-c", f"tessedit_char_whitelist={characters}"] if characters else []
        out = subprocess.run(["tesseract", shot, "-", "--psm", "7", *only],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip()
    finally:
        os.unlink(shot)


def start_x_app(argv, cwd=None):
    """Start a program that never joins the accessibility bus; axsight finds its
    window through the display."""
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=cwd)


def test_an_x11_program_without_accessibility_is_listed_read_typed_and_clicked(desktop):
    if not shutil.which("xcalc"):
        pytest.skip("xcalc is not installed (scripts/install-deps installs x11-apps)")
    proc = start_x_app(["xcalc"])
    window = []
    try:
        async def body(c):
            async def listed():
                apps = await c.ok("get_applications", {})
                return apps if f"xcalc (pid {proc.pid}, no accessibility" in apps else None

            apps = None
            for _ in range(100):
                apps = await listed()
                if apps:
                    break
            assert apps, "xcalc was never listed"
            assert "[Window] Calculator" in apps, apps

            activated = await c.ok("activate_window", {"app": "xcalc"})
            assert "no window lies" not in activated, activated
            tree = await c.ok("get_window_tree", {"app": "xcalc"})
            assert tree.startswith(f"app: xcalc (pid {proc.pid})"), tree
            frame = re.search(r"#u\d+ \[Window\] Calculator \(active, \[(\d+),(\d+),(\d+),(\d+)\]",
                              tree)
            assert frame, tree
            fx, fy, fw, fh = map(int, frame.groups())
            # Its buttons' labels, read without any include_* flag.
            read = {t for t, _ in sightings(tree).values()}
            assert len(read) >= 20 and {"sin", "cos"} & read, tree
            assert "read by OCR where the tree is silent" in tree, tree

            # Keys typed where the focus is, witnessed by the pixels.
            typed = await c.ok("type_into_element", {"text": "12"})
            assert "with key events" in typed and "pixels changed" in typed, typed
            assert "no change" not in typed, typed
            # A button clicked by the handle OCR gave it.
            plus = sighting_of(tree, "+")
            added = await c.ok("click_element", {"index": plus})
            assert 'clicked #o' in added and "pixels changed" in added, added
            # The rest as text, the display read back in the answer. (Digits
            # OCR reads surely: Tesseract takes xcalc's 4 for an A.)
            done = await c.ok("press_key", {"text": "11="})
            assert "pixels changed" in done and '"23' in done, done
            # Waiting on what a window without accessibility shows: its OCR'd text.
            shown = await c.ok("wait_for_element", {
                "app": "xcalc", "selector": "role:Window", "condition": "has_value",
                "value": "23", "timeout_ms": 5000})
            assert 'has value "23"' in shown and "read by OCR" in shown, shown
            never = await c.error("wait_for_element", {
                "app": "xcalc", "selector": "role:Window", "condition": "has_value",
                "value": "9876", "timeout_ms": 800})
            assert "where OCR reads" in never and "23" in never, never

            # A point inside the window (on its display) names the window, never
            # "no window lies at".
            centre = await c.ok("click_element", {"x": fx + fw // 2, "y": fy + 15})
            assert "no window lies" not in centre and "Calculator" in centre, centre
            no_images(c)
            window.extend((fx, fy, fw, fh))

        run_session(body, env=server_env())
        fx, fy, fw, _ = window
        # xcalc's display (inside its frame at the window's top) shows the sum:
        # read by the test's own OCR.
        shown = screen_text((fx + 12, fy + 8, fw - 26, 22), characters="0123456789.")
        assert "23" in shown, shown
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def folder(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    (files / "draft.txt").write_text("hi\n")
    (files / "notes.md").write_text("# notes\n")
    (files / "old").mkdir()
    return files


def test_an_icon_view_is_read_inline_and_a_file_in_it_renamed(desktop, folder):
    if not shutil.which("thunar"):
        pytest.skip("thunar is not installed (scripts/install-deps installs it)")
    app = launch(["thunar", str(folder)], f"{folder.name} - Thunar")
    try:
        async def body(c):
            await c.ok("activate_window", {"app": "thunar"})
            tree = await c.ok("get_window_tree", {"app": "thunar"})
            view = next(l for l in tree.splitlines() if "[Group] Icon view" in l)
            depth = len(view) - len(view.lstrip())
            below = tree.split(view, 1)[1]
            # The files are printed under the view, one level deeper.
            draft = sighting_of(below, "draft.txt")
            line = next(l for l in below.splitlines() if l.strip().startswith(draft + " "))
            assert len(line) - len(line.lstrip()) > depth, tree
            sighting_of(below, "notes.md")
            assert "read by OCR where the tree is silent" in tree, tree

            picked = await c.ok("click_element", {"index": draft})
            assert '"draft.txt"' in picked and "plain text document" in picked, picked
            asked = await c.ok("press_key", {"key": "F2"})
            field = re.search(r'(#u\d+) \[Edit\] \([^)]*value: "draft.txt"', asked)
            assert field, asked
            renamed = await c.ok("type_into_element",
                                 {"index": field[1], "text": "final.txt{Enter}"})
            assert "final.txt" in renamed, renamed
            no_images(c)

        run_session(body, env=server_env())
        assert poll(lambda: (folder / "final.txt").exists(), timeout=10), list(folder.iterdir())
        assert not (folder / "draft.txt").exists()
        assert (folder / "final.txt").read_text() == "hi\n"
    finally:
        stop(app)


def test_a_sheet_without_cells_takes_numbers_and_a_formula_as_keys(desktop, tmp_path):
    if not (shutil.which("gnumeric") and shutil.which("ssconvert")):
        pytest.skip("gnumeric is not installed (scripts/install-deps installs it)")
    book = tmp_path / "book.gnumeric"
    empty = tmp_path / "empty.csv"
    empty.write_text("\n")
    subprocess.run(["ssconvert", str(empty), str(book)], check=True, capture_output=True,
                   timeout=60)
    app = launch(["gnumeric", "--no-splash", str(book)], f"{book.name} - Gnumeric")
    try:
        async def body(c):
            await c.ok("activate_window", {"app": "gnumeric"})
            tree = await c.ok("get_window_tree", {"app": "gnumeric"})
            sheet = re.search(r"(#u\d+) \[Group\] \(focused", tree)
            assert sheet, tree
            # The grid takes no text through the tree: the keys go to it.
            typed = await c.ok("type_into_element", {"index": sheet[1], "text": "120{Enter}"})
            assert "with key events" in typed, typed
            formula = await c.ok("type_into_element", {"index": sheet[1],
                                                       "text": "=A1*2{Enter}"})
            assert "with key events" in formula, formula
            now = await c.ok("get_window_tree", {"app": "gnumeric"})
            grid = now.split(sheet[1], 1)[1]
            sighting_of(grid, "120")
            sighting_of(grid, "240")
            await c.ok("press_key", {"key": "ctrl+s"})
            no_images(c)

        run_session(body, env=server_env())
        out = tmp_path / "out.csv"

        def saved():
            subprocess.run(["ssconvert", str(book), str(out)], capture_output=True, timeout=60)
            return out.exists() and out.read_text().splitlines()[:2] == ["120", "240"]

        assert poll(saved, timeout=15), out.read_text() if out.exists() else "not converted"
    finally:
        stop(app)


def test_painted_text_is_read_inline_without_asking(fixture_app, app_args):
    async def body(c):
        await c.ok("activate_window", app_args)
        tree = await c.ok("get_window_tree", app_args)
        canvas = next(l for l in tree.splitlines() if "[Canvas] Canvas" in l)
        text = sighting_of(tree.split(canvas, 1)[1], "Canvas text 42")
        clicked = await c.ok("click_element", {"index": text})
        assert "Canvas clicked at" in clicked, clicked
        quiet = await c.ok("get_window_tree", {**app_args, "fall_through": False})
        assert "#o" not in quiet and "read by OCR" not in quiet, quiet
        no_images(c)

    run_session(body, env=server_env())


def test_an_annotated_screenshot_marks_what_the_tree_is_silent_about(fixture_app, app_args):
    async def body(c):
        await c.ok("activate_window", app_args)
        result = await c.call("capture_screenshot", {**app_args, "annotate": True})
        assert not result.is_error
        caption = "".join(b.text for b in result.content if b.type == "text")
        assert "read where the tree is silent, marked with their #o/#m handles" in caption, caption
        assert any(b.type == "image" for b in result.content), caption

    run_session(body, env=server_env())
