"""LibreOffice Writer and Calc (Debian's 7.4, through its GTK3 plug-in): one real
task each through the official Python SDK client, checked outside axsight (the
file LibreOffice wrote), and a sheet's read that stays bounded.

- Calc opens a CSV file: its Text Import dialog is answered, numbers and a formula
  are typed into cells and read back, File > Save is chosen from the menu, and the
  Keep Current Format question is answered; the file then holds the values.
- Writer opens a text file: a paragraph is typed and read back, ctrl+s saves, the
  same question is answered; the file then holds the paragraph.
- A sheet's table claims 2^31 cells: its read takes the cells on screen only,
  stays small and quick, and says what it left out.

Each app starts once per module, on a fresh profile (tests/fixtures/libreoffice);
every test checks that LibreOffice still runs after being read.
"""
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, launch, poll
from test_acting import alive, section
from test_mcp_server import handle_of, parse_tree, run_session

pytestmark = pytest.mark.skipif(not shutil.which("soffice"),
                                reason="LibreOffice is not installed")

PROFILE_SETTINGS = REPO / "tests" / "fixtures" / "libreoffice" / "registrymodifications.xcu"
# LibreOffice's answers take a while (a Calc read is a fresh walk each time).
DEADLINE_S = 180
# A sheet read far slower than this hangs on something: the real figure (a few
# hundred ms) goes into docs/toolkits.md.
SHEET_READ_LIMIT_S = 10
SHEET_ANSWER_LIMIT = 20_000


def office_pid(launcher):
    """The pid of soffice.bin, which the `soffice` launcher (oosplash) starts."""
    def child():
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)
            except OSError:
                continue
            if "(soffice.bin" in fields[0] and int(fields[1].split()[1]) == launcher:
                return int(stat.parent.name)
        return None
    return poll(child, timeout=10)


def start_office(tmp_path, document):
    """soffice on DOCUMENT with a fresh profile and the GTK3 plug-in (the only one
    of 7.4 with an accessibility bridge)."""
    profile = tmp_path / "profile"
    (profile / "user").mkdir(parents=True)
    shutil.copy(PROFILE_SETTINGS, profile / "user" / "registrymodifications.xcu")
    argv = ["soffice", f"-env:UserInstallation=file://{profile}", "--norestore",
            "--nologo", "--nolockcheck", str(document)]
    # DOCUMENT may be a module's switch instead (`--impress`: a new document).
    # LibreOffice logs GLib warnings by the hundred (e.g. one per action each
    # time a client asks a localised action name): a pipe would fill and block it.
    app = launch(argv, getattr(document, "name", document), add_env={"SAL_USE_VCLPLUGIN": "gtk3"},
                 log=tmp_path / "soffice.log")
    app.office = office_pid(app.pid)
    assert app.office, "no soffice.bin below the launcher"
    return app


def stop_office(app):
    os.kill(app.office, signal.SIGTERM)
    try:
        app.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.kill(app.office, signal.SIGKILL)
        app.proc.kill()
        app.proc.wait()


@pytest.fixture(scope="module")
def calc(desktop, tmp_path_factory):
    folder = tmp_path_factory.mktemp("calc")
    sheet = folder / "sheet.csv"
    sheet.write_text("x\n")
    app = start_office(folder, sheet)
    app.document = sheet
    yield app
    assert alive(app.office), "LibreOffice Calc died while axsight read it"
    stop_office(app)


@pytest.fixture(scope="module")
def writer(desktop, tmp_path_factory):
    folder = tmp_path_factory.mktemp("writer")
    note = folder / "note.txt"
    note.write_text("")
    app = start_office(folder, note)
    app.document = note
    yield app
    assert alive(app.office), "LibreOffice Writer died while axsight read it"
    stop_office(app)


def app_of(office):
    return {"app": str(office.office)}


async def sheet_ready(c, calc):
    """Answers the CSV's Text Import dialog if it is still open; waits for the
    sheet's cursor cell."""
    app = app_of(calc)
    if "Text Import" in await c.ok("get_applications", {}):
        answered = await c.ok("click_element", {"selector": "role:Button && name:OK", **app})
        assert "[Dialog] Text Import - [sheet.csv]" in answered, answered
    await c.ok("wait_for_element", {"selector": "role:Cell && name:A1", **app,
                                    "timeout_ms": 20000})


def cell_value(tree_text, name):
    """The quoted value on the line of the cell NAME, or None when it is not listed."""
    for line in tree_text.splitlines():
        if f"[Cell] {name} (" in line:
            return line.split('value: "', 1)[1].split('"', 1)[0] if 'value: "' in line else ""
    return None


def test_calc_types_cells_and_saves_a_csv_through_the_menu(calc):
    app = app_of(calc)

    async def body(c):
        listed = await c.ok("get_applications", {})
        # The GTK3 plug-in reports GTK as its toolkit.
        assert "soffice" in listed and "gtk 3" in listed, listed
        await sheet_ready(c, calc)
        tree = await c.ok("get_window_tree", app)
        a1 = handle_of(parse_tree(tree), "Cell", "A1")
        assert cell_value(tree, "A1") == "x", tree

        typed = await c.ok("type_into_element", {"index": a1, "text_to_type": "2{Enter}"})
        # The cell takes its text on Enter, and keeps its handle.
        assert 'check: once Return was pressed, the field holds "2"' in typed, typed
        assert f'{a1} [Cell] A1: value "x" -> "2"' in typed, typed
        a2 = handle_of(section(typed, "added"), "Cell", "A2")
        typed = await c.ok("type_into_element", {"index": a2, "text_to_type": "3{Enter}"})
        assert 'the field holds "3"' in typed, typed
        typed = await c.ok("type_into_element", {"selector": "role:Cell && name:A3", **app,
                                                 "text_to_type": "=A1*A2{Enter}"})
        assert 'the field holds the formula "=A1*A2", showing "6"' in typed, typed
        tree = await c.ok("get_window_tree", app)
        assert [cell_value(tree, n) for n in ("A1", "A2", "A3")] == ["2", "3", "6"], tree

        menu = await c.ok("click_element", {"selector": "role:Menu && name:File", **app})
        save = handle_of(section(menu, "added"), "MenuItem", "Save")
        asked = await c.ok("click_element", {"index": save})
        question = section(asked, "added")
        keep = handle_of(question, "Button", "Use Text CSV Format")
        assert ("Alert", "Question") in question.values(), asked
        kept = await c.ok("click_element", {"index": keep})
        assert ("Alert", "Question") in section(kept, "removed").values(), kept

    run_session(body, deadline=DEADLINE_S)
    written = poll(lambda: calc.document.read_text() if calc.document.read_text() != "x\n"
                   else None, timeout=10)
    assert written == "2\n3\n6\n", repr(written)
    assert alive(calc.office)


def test_calc_sheet_read_is_bounded_and_says_what_it_left_out(calc):
    app = app_of(calc)

    async def body(c):
        await sheet_ready(c, calc)
        started = time.monotonic()
        tree = await c.ok("get_window_tree", app)
        took = time.monotonic() - started
        print(f"sheet read: {took * 1000:.0f} ms, {len(tree)} bytes")
        assert took < SHEET_READ_LIMIT_S, f"{took:.1f} s"
        assert len(tree) < SHEET_ANSWER_LIMIT, len(tree)
        # A CSV file's one sheet is named after the file.
        assert "[Table] Sheet sheet (" in tree and "[Cell] A1 (" in tree, tree
        gap = next(l for l in tree.splitlines() if l.startswith('[partial: table "Sheet sheet"'))
        assert "has 1048576 rows and 16384 columns" in gap, gap
        assert "cells on screen were read (A1 to " in gap and "empty and not listed" in gap, gap
        # Found by selector too, and as bounded.
        found = await c.ok("find_elements", {"selector": "role:Cell", **app})
        assert "[Cell] A1" in found and len(found.splitlines()) < 100, found

    run_session(body, deadline=DEADLINE_S)
    assert alive(calc.office), "Calc died while its sheet was read"


def test_writer_types_a_paragraph_and_saves_the_text_file(writer):
    app = app_of(writer)

    async def body(c):
        tree = await c.ok("get_window_tree", app)
        assert "[Window] note.txt - LibreOffice Writer" in tree, tree
        paragraph = next(h for h, element in parse_tree(tree).items()
                         if element[0] == "Paragraph")
        typed = await c.ok("type_into_element", {"index": paragraph,
                                                 "text_to_type": "Hello from axsight 42"})
        assert 'check: the field holds "Hello from axsight 42"' in typed, typed
        assert f'{paragraph} [Paragraph]: value "" -> "Hello from axsight 42"' in typed, typed

        # Keys go where the focus is: into the document, whatever window was last.
        asked = await c.ok("press_key", {"key": "ctrl+s", "index": paragraph})
        question = section(asked, "added")
        assert ("Alert", "Question") in question.values(), asked
        kept = await c.ok("click_element", {"index": handle_of(question, "Button",
                                                               "Use Text Format")})
        assert ("Alert", "Question") in section(kept, "removed").values(), kept

    run_session(body, deadline=DEADLINE_S)
    # LibreOffice starts a text file it saves with a byte order mark.
    written = poll(lambda: writer.document.read_text(encoding="utf-8-sig"), timeout=10)
    assert written == "Hello from axsight 42\n", repr(written)
    assert alive(writer.office)


def test_open_application_starts_writer_on_a_new_profile(desktop, tmp_path):
    """On a profile it has never seen (a fresh HOME), soffice starts, and starts
    again once the profile is made; a window of the first may show and close
    before it is read: open_application then waits for the one that stays."""
    env = {name: os.environ[name] for name in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
                                               "AT_SPI_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    env |= {"HOME": str(tmp_path), "SAL_USE_VCLPLUGIN": "gtk3"}
    opened = {}

    async def body(c):
        answer = await c.ok("open_application", {"app_name": "soffice --norestore --writer",
                                                 "timeout_ms": 60000})
        assert answer.startswith("opened soffice"), answer
        assert "window 'Untitled 1 - LibreOffice Writer'" in answer, answer
        opened["pid"] = int(answer.split("pid ", 1)[1].split(")", 1)[0])

    try:
        run_session(body, env=env, deadline=DEADLINE_S)
        assert alive(opened["pid"])
    finally:
        if opened:
            os.kill(opened["pid"], signal.SIGTERM)
            poll(lambda: not alive(opened["pid"]), timeout=20)



@pytest.mark.skipif(not shutil.which("loimpress"),
                    reason="LibreOffice Impress is not installed (scripts/install-deps)")
def test_impress_placeholders_are_hints_not_values(desktop, tmp_path):
    # A new presentation's title slide: Impress shows each empty shape's "Click
    # to add Title" / "Click to add Text" as its paragraph's text, and nothing
    # else marks it. It must not read as a filled title.
    app = start_office(tmp_path, "--impress")
    try:
        async def body(c):
            office = app_of(app)
            template = await c.ok("wait_for_element", {"selector": "role:Paragraph || name:\"Select a Template\"",
                                                       **office, "timeout_ms": 30000})
            if "Select a Template" in template:
                await c.ok("click_element", {"selector": "role:Button && name:Close",
                                             "window": "Select a Template", **office})
                await c.ok("wait_for_element", {"selector": "role:Paragraph", **office,
                                                "timeout_ms": 20000})
            tree = await c.ok("get_window_tree", office)
            paragraphs = [line for line in tree.splitlines() if "[Paragraph]" in line]
            title = [line for line in paragraphs if 'hint: "Click to add Title"' in line]
            assert title, tree
            assert not any('value: "Click to add' in line for line in paragraphs), tree
            # Typed into, the title holds its text and no hint. Aimed at the title's
            # shape, the text goes into the shape's paragraph: the editing keys
            # that empty a field would have deleted the shape itself.
            shape = next(line.split()[0] for line in tree.splitlines()
                         if "[Group] PresentationTitle" in line)
            typed = await c.ok("type_into_element", {"index": shape, **office,
                                                     "text": "Quarterly figures"})
            assert re.search(rf"into {re.escape(title[0].split()[0])} \[Paragraph\][^\n]* "
                             rf"\(inside {shape} \[Group\] PresentationTitle\)", typed), typed
            assert 'the field holds "Quarterly figures"' in typed, typed
            assert "removed:" not in typed, typed
            after = await c.ok("get_window_tree", office)
            titled = [line for line in after.splitlines() if "Quarterly figures" in line]
            assert titled and "hint" not in titled[0], after

        run_session(body, deadline=DEADLINE_S)
    finally:
        stop_office(app)


REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:automatic-styles>
  <style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
 </office:automatic-styles>
 <office:body><office:text>
  <text:p><text:span text:style-name="T1">Revenue</text:span> grew by ten percent</text:p>
 </office:text></office:body>
</office:document>
"""


def test_writer_says_which_words_are_bold_and_where_the_caret_is(desktop, tmp_path):
    # Which word is bold was found only by a screenshot: the tree shows no text
    # attributes, and the toolbar's Bold changes a while after the caret moves.
    report = tmp_path / "report.fodt"
    report.write_text(REPORT)
    app = start_office(tmp_path, report)
    try:
        async def body(c):
            office = app_of(app)
            paragraph = {"selector": 'role:Paragraph && text:"Revenue grew"', **office}
            await c.ok("wait_for_element", {**paragraph, "timeout_ms": 20000})
            shown = await c.ok("validate_element", paragraph)
            lines = shown.splitlines()
            assert lines[1].startswith("text: 27 characters; throughout: paragraph style "), shown
            assert '  0–7 "Revenue": bold' in lines, shown
            assert '  7–27 " grew by ten percent"' in lines, shown
            # The caret and the formatting there, in an action's answer.
            start = await c.ok("press_key", {**paragraph, "key": "ctrl+Home"})
            assert re.search(r"caret in #u\d+ \[Paragraph\] at 0 of 27, where the text is bold",
                             start), start
            end = await c.ok("press_key", {**paragraph, "key": "End"})
            assert "[Paragraph] at 27 of 27, where the text has no formatting of its own" in end, end
            selected = await c.ok("press_key", {**paragraph, "key": "shift+Home"})
            assert 'selected 0–27 "Revenue grew by ten percent", its formatting mixed' \
                in selected, selected
            # A word made bold: the answer says the selection is bold now (its
            # caret's character after it is not).
            await c.ok("press_key", {**paragraph, "key": "ctrl+Home"})
            await c.ok("press_key", {**paragraph, "key": "ctrl+Right"})
            word = await c.ok("press_key", {**paragraph, "key": "shift+ctrl+Right"})
            assert 'selected 8–13 "grew ", with no formatting of its own' in word, word
            bold = await c.ok("press_key", {**paragraph, "key": "ctrl+b"})
            assert 'selected 8–13 "grew ", bold' in bold, bold
            runs = (await c.ok("validate_element", paragraph)).splitlines()
            assert '  8–13 "grew ": bold' in runs, runs
            # Out of the bold word: the toolbar's Bold unchecks a while later, so
            # the answer says the diff may not show it and reads the text itself.
            out = await c.ok("press_key", {**paragraph, "key": "End"})
            assert "at 27 of 27, where the text has no formatting of its own (LibreOffice's " \
                   "toolbars follow the caret up to a second later: a diff may not show " \
                   "their Bold yet)" in out, out

        run_session(body, deadline=DEADLINE_S)
    finally:
        stop_office(app)


def test_kept_reads_of_writer_and_calc_are_never_stale(writer, calc):
    # LibreOffice announces no new paragraph (Return sends only the old one's
    # focus loss) and no recomputed formula cell: a read kept from events alone
    # would show neither. Keys go in without a diff (nothing read after them);
    # the next read must show what they did.
    quiet = {"ui_diff_before_after": False}

    async def body(c):
        app = app_of(writer)
        before = await c.ok("get_window_tree", app)
        paragraphs = [l for l in before.splitlines() if "[Paragraph]" in l]
        await c.ok("get_window_tree", app)  # kept from here on
        last = {"selector": "role:Paragraph", **app}
        await c.ok("press_key", {**last, "key": "ctrl+End", **quiet})
        await c.ok("press_key", {**last, "key": "Return", **quiet})
        await c.ok("press_key", {"selector": "role:Paragraph && focused:true", **app,
                                 "text": "Second line", **quiet})
        after = await c.ok("get_window_tree", app)
        now = [l for l in after.splitlines() if "[Paragraph]" in l]
        assert len(now) == len(paragraphs) + 1, after
        assert any('value: "Second line"' in l for l in now), after

        app = app_of(calc)
        await sheet_ready(c, calc)
        await c.ok("get_window_tree", app)
        await c.ok("get_window_tree", app)  # kept from here on
        a1 = {"selector": "role:Cell && name:A1", **app}
        await c.ok("press_key", {**a1, "key": "ctrl+Home", **quiet})
        await c.ok("press_key", {**a1, "text": "7", "key": "Return", **quiet})
        # No answer was waited for: wait for the app, then read.
        await c.ok("wait_for_element", {"selector": "role:Cell && name:A3", **app,
                                        "value": "21", "timeout_ms": 5000})
        tree = await c.ok("get_window_tree", app)
        # A3 is =A1*A2: recomputed with no event of its own.
        assert [cell_value(tree, n) for n in ("A1", "A2", "A3")] == ["7", "3", "21"], tree
        # An undo puts cells back with no event on the sheet at all.
        await c.ok("press_key", {**a1, "key": "ctrl+Home shift+Down Delete", **quiet})
        await c.ok("wait_for_element", {"selector": "role:Cell && name:A3", **app,
                                        "value": "0", "timeout_ms": 5000})
        await c.ok("press_key", {**a1, "key": "ctrl+z", **quiet})
        # A3, recomputed from the cells put back, is read again though no
        # event came since the last read (the wait reads kept reads).
        await c.ok("wait_for_element", {"selector": "role:Cell && name:A3", **app,
                                        "value": "21", "timeout_ms": 5000})
        tree = await c.ok("get_window_tree", app)
        assert cell_value(tree, "A3") == "21", tree

    run_session(body, deadline=DEADLINE_S)
