"""A terminal on the bus (xfce4-terminal, whose VTE widget shows its screen
through AT-SPI's Text interface): the tree prints its screen's rows, typing into
it is checked against what the screen shows (never a false MISMATCH), nothing
is "cleared" with editing keys sent to the shell, and an action's answer lists
the rows that came since — or says the screen was replaced. GNOME Terminal is
VTE too and reads the same; Konsole's Text is not its screen, so it is left
unread and read by OCR, and typing into it says so."""
import asyncio
import os
import shlex
import shutil
import signal
import time

import pytest

from test_mcp_server import run_session, text_of
from test_scaling import PID


def needs(program):
    return pytest.mark.skipif(not shutil.which(program),
                              reason=f"{program} is not installed (scripts/install-deps)")



def terminal_command(home, title):
    # Its own server (no single-instance hand-over), a plain shell with a plain
    # prompt, its settings in a home of its own.
    shell = "env PS1='$ ' bash --norc --noprofile"
    return (f"env HOME={shlex.quote(str(home))} xfce4-terminal --disable-server "
            f"--title={shlex.quote(title)} --working-directory={shlex.quote(str(home))} "
            f"-x {shell}")


def rows_of(text):
    """The rows a tree prints under the terminal's element."""
    return [line.strip()[2:] for line in text.splitlines() if line.strip().startswith("| ")]


@needs("xfce4-terminal")
def test_a_terminals_screen_is_read_typed_into_and_answered_with_its_new_rows(tmp_path):
    title = f"axsight terminal {os.getpid()}"
    app = {"app": "xfce4-terminal", "window": title}
    target = {**app, "selector": "role:Terminal"}

    async def body(c):
        opened = text_of(await c.call("open_application", {
            "app": terminal_command(tmp_path, title), "timeout_ms": 30_000}, timeout=60))
        pid = int(PID.search(opened.splitlines()[0])[1])
        try:
            # The shell prints its prompt a moment after the window shows.
            deadline = time.monotonic() + 20
            while rows_of(tree := await c.ok("get_window_tree", app))[-1:] != ["$ █"]:
                assert time.monotonic() < deadline, tree
                await asyncio.sleep(0.2)
            assert "[Terminal] Terminal" in tree, tree

            # Typed by keys, checked against the screen, the output in the answer.
            typed = await c.ok("type_into_element", {
                **target, "text_to_type": "echo axsight-$((6*7)){Enter}"})
            assert "cleared nothing: a terminal has no field to empty" in typed, typed
            # Read before Return, which runs the line: said so.
            assert 'check: before Return, the terminal showed it, on the row ' \
                '"$ echo axsight-$((6*7))"' in typed, typed
            assert "MISMATCH" not in typed, typed
            # The first command on a screen of one row: its output is below it,
            # nothing was cleared.
            assert "the cursor's row and 2 new rows" in typed, typed
            assert "shows none of its rows" not in typed, typed
            # The cursor is marked where it is: after the new prompt.
            assert "    + axsight-42\n" in typed and "    + $ █\n" in typed, typed
            assert rows_of(await c.ok("get_window_tree", app))[-2:] == ["axsight-42", "$ █"]

            # A command whose output is several rows, typed after what is there.
            more = await c.ok("type_into_element", {
                **target, "text_to_type": "seq 3{Enter}", "clear_before_typing": False})
            assert "the cursor's row and 4 new rows" in more, more
            for row in ("+ $ seq 3", "+ 1", "+ 2", "+ 3"):
                assert f"    {row}\n" in more, more

            # A cleared screen is said to be replaced, with what it shows now.
            cleared = await c.ok("type_into_element", {
                **target, "text_to_type": "clear; echo fresh{Enter}"})
            assert "its screen shows none of its rows before" in cleared, cleared
            assert "    + fresh\n" in cleared and "axsight-42" not in cleared.split("before (")[1]
            assert rows_of(await c.ok("get_window_tree", app)) == ["fresh", "$ █"]

            # The screen scrolls: its top rows go, and what came is still told
            # as new rows below what was there, not as a cleared screen.
            await c.ok("type_into_element", {**target, "text_to_type": "seq 15{Enter}"})
            scrolled = await c.ok("type_into_element", {
                **target, "text_to_type": "seq 101 110{Enter}"})
            assert "the cursor's row and 11 new rows" in scrolled, scrolled
            assert "    + 110\n" in scrolled and "shows none" not in scrolled, scrolled
            # Output longer than the screen scrolls past every row before: said so.
            past = await c.ok("type_into_element", {**target, "text_to_type": "seq 60{Enter}"})
            assert "shows none of its rows before (cleared, scrolled past them" in past, past

            # Quotes and backslashes are shown as typed, not escaped: a `\"`
            # would read as typed backslashes.
            quoted = await c.ok("type_into_element", {
                **target, "text_to_type": 'echo "a\\b"{Enter}'})
            assert 'typed «echo "a\\b"» into' in quoted, quoted
            assert 'on the row «$ echo "a\\b"»' in quoted, quoted
            assert "    + a\\b\n" in quoted, quoted
        finally:
            os.kill(pid, signal.SIGTERM)

    run_session(body)


async def prompt_shown(c, app):
    # The shell prints its prompt a moment after the window shows.
    deadline = time.monotonic() + 20
    while rows_of(tree := await c.ok("get_window_tree", app))[-1:] != ["$ █"]:
        assert time.monotonic() < deadline, tree
        await asyncio.sleep(0.2)
    return tree


@needs("gnome-terminal")
def test_gnome_terminal_reads_as_vte_does(tmp_path):
    # Its window belongs to gnome-terminal-server, which D-Bus starts: not the
    # process open_application ran.
    title = f"axsight gnome terminal {os.getpid()}"
    app = {"app": "gnome-terminal-server", "window": title}
    command = (f"env HOME={shlex.quote(str(tmp_path))} gnome-terminal --title={shlex.quote(title)} "
               f"--working-directory={shlex.quote(str(tmp_path))} -- env PS1='$ ' bash --norc --noprofile")

    async def body(c):
        opened = await c.ok("open_application", {"app": command, "timeout_ms": 30_000})
        assert title in opened, opened
        try:
            assert "[Terminal] Terminal" in await prompt_shown(c, app)
            typed = await c.ok("type_into_element", {**app, "selector": "role:Terminal",
                                                     "text_to_type": "echo axsight-$((6*7)){Enter}"})
            assert "MISMATCH" not in typed, typed
            assert "the cursor's row and 2 new rows" in typed, typed
            assert "    + axsight-42\n" in typed, typed
        finally:
            await c.call("close_window", app)

    run_session(body)


@needs("konsole")
def test_konsole_is_read_by_ocr_never_by_its_misleading_text(tmp_path):
    # Konsole's Text counts grid cells and, once scrolled, gives the top of its
    # history: printed as rows, it showed the wrong ones and a false MISMATCH.
    title = "axsight-konsole"
    app = {"app": "konsole"}
    command = (f"env -u AT_SPI_BUS_ADDRESS HOME={shlex.quote(str(tmp_path))} "
               f"konsole --nofork --separate --workdir {shlex.quote(str(tmp_path))} "
               f"-p tabtitle={title} -e env PS1='$ ' bash --norc --noprofile")

    async def body(c):
        opened = text_of(await c.call("open_application", {"app": command, "timeout_ms": 30_000},
                                      timeout=60))
        pid = int(PID.search(opened.splitlines()[0])[1])
        try:
            typed = await c.ok("type_into_element", {**app, "selector": "role:Terminal",
                                                     "text_to_type": "seq 40; echo axsight-$((6*7)){Enter}"})
            assert "MISMATCH" not in typed, typed
            assert "check: not read back: this terminal does not give its screen on the bus" \
                in typed, typed
            tree = await c.ok("get_window_tree", app)
            assert "[Terminal]" in tree and not rows_of(tree), tree
            # Its screen is read where the tree is silent: by OCR.
            terminal = next(line for line in tree.splitlines() if "[Terminal]" in line)
            handle = terminal.split()[0]
            assert f"read by OCR where the tree is silent: {handle}" in tree, tree
            assert '"axsight-42"' in tree, tree
        finally:
            os.kill(pid, signal.SIGTERM)

    run_session(body)
