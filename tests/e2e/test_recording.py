"""`axsight record` and `axsight replay`: a scripted person (xdotool: real XTest clicks
and keys, which the X server's RECORD extension reports as a device's) fills the
fixture's form, chooses from its combo box and answers its menu's dialog while
`axsight record` watches; the plan is then replayed into another desktop of another
size, where the window sits elsewhere and is larger, and the fixture's own state
file (not axsight) says whether the job was done. The password typed while
recording is in neither the plan nor the recorder's debug log."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import FIXTURE_APP, PrivateDesktop, poll
from test_firefox import running_shop
from test_mcp_server import AXSIGHT_BIN, DESKTOP_VARS, run_session
from test_scaling import CHROMIUM
from test_toolkits import QT_FIXTURE

TITLE = "Recorded form"
# Where the fixture paints "Canvas text 42" in its canvas, from its top-left.
CANVAS_TEXT = (90, 92)
# The red disc it paints, where OCR reads nothing.
CANVAS_DISC = (140, 35)
QT_TITLE = "Recorded Qt form"
PASSWORD = "s3cret-pw-RECORDED"
EXPECTED_STEPS = [
    f'type "Ada Lovelace" into [Edit] Name in "{TITLE}"',
    f'type $password_1 into [Edit] Password in "{TITLE}"',
    f'check [CheckBox] Remember me in "{TITLE}"',
    f'choose "Blue" in [ComboBox] Colour in "{TITLE}"',
    f'click [Menu] File in "{TITLE}"',
    f'click [MenuItem] Ask name… in "{TITLE}"',
    "wait for [Dialog] Ask name",
    'type "Grace" into [Edit] Your name in "Ask name", then Return',
    'press Return in [Edit] Your name in "Ask name"',
    f'click [Button] Save in "{TITLE}"',
    'find "Canvas text 42" (by OCR)',
    'click "Canvas text 42" (read by OCR there) in a window of axsight-fixture',
    f'find [Canvas] Canvas in "{TITLE}"',
    f'click at ({CANVAS_DISC[0]}, {CANVAS_DISC[1]}) inside [Canvas] Canvas in "{TITLE}": '
    "nothing the tree names is there",
]


class Person:
    """Someone at desktop ENV's mouse and keyboard, who looks with `axsight find`
    and waits for what they did to show before going on."""

    def __init__(self, env, state_file):
        self.env = env
        self.state_file = state_file

    def box(self, selector):
        """The box of the first element SELECTOR finds, or None."""
        out = subprocess.run([str(AXSIGHT_BIN), "find", selector], env=self.env,
                             capture_output=True, text=True, timeout=30).stdout
        box = re.search(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]", out)
        return tuple(map(int, box.groups())) if box else None

    def find(self, selector):
        """The centre of the first element SELECTOR finds, or None."""
        box = self.box(selector)
        return (box[0] + box[2] // 2, box[1] + box[3] // 2) if box else None

    def click_at(self, x, y):
        self.xdotool("mousemove", str(x), str(y), "click", "1")

    def click(self, selector):
        at = poll(lambda: self.find(selector), timeout=10, interval=0.1)
        assert at, f"the person sees no {selector}"
        self.xdotool("mousemove", str(at[0]), str(at[1]), "click", "1")

    def type(self, text):
        self.xdotool("type", "--delay", "40", text)

    def key(self, keys):
        self.xdotool("key", keys)

    def xdotool(self, *args):
        subprocess.run(["xdotool", *args], env=self.env, check=True, timeout=30)

    def state(self):
        """The app's state file, read as JSON (the GTK fixture's) or as
        key=value lines (the Qt fixture's)."""
        try:
            text = self.state_file.read_text()
        except FileNotFoundError:
            return {}
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def shows(self, selector):
        """Waits until the desktop shows what SELECTOR finds."""
        assert poll(lambda: self.find(selector), timeout=10, interval=0.1), \
            f"the person never sees {selector}"

    def sees(self, check, what):
        """Waits until the form's state passes CHECK."""
        assert poll(lambda: check(self.state()), timeout=10, interval=0.1), \
            f"{what} did not happen: {self.state()}"


def wait_for_app(env, app):
    subprocess.run([str(AXSIGHT_BIN.parents[2] / "scripts" / "wait-for-app"), str(app.pid)],
                   env=env, check=True, timeout=60, capture_output=True)
    return app


def start_fixture(env, state_file, size=None):
    argv = ["/usr/bin/python3", str(FIXTURE_APP), "--title", TITLE,
            "--state-file", str(state_file)]
    if size:
        argv += ["--size", size]
    app = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_for_app(env, app)


def start_qt_fixture(env, saved):
    # Qt 6.4 joins the bus only without AT_SPI_BUS_ADDRESS in its environment.
    own = {k: v for k, v in env.items() if k != "AT_SPI_BUS_ADDRESS"}
    app = subprocess.Popen(["/usr/bin/python3", str(QT_FIXTURE), "--title", QT_TITLE,
                            "--save-to", str(saved)],
                           env=own, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_for_app(env, app)


def place(env, title, x, y, size=None):
    """Moves the window TITLE to X, Y (and resizes it to SIZE, "WxH")."""
    def found():
        out = subprocess.run(["xdotool", "search", "--name", title], env=env,
                             capture_output=True, text=True).stdout.split()
        return out[0] if out else None
    # The display may name the window a moment after the app's tree shows it.
    window = poll(found, timeout=10, interval=0.1)
    assert window, f"no window titled {title} on the display"
    subprocess.run(["xdotool", "windowmove", "--sync", window, str(x), str(y)],
                   env=env, check=True, timeout=30)
    if size:
        width, height = size.split("x")
        subprocess.run(["xdotool", "windowsize", "--sync", window, width, height],
                       env=env, check=True, timeout=30)


def record(tmp_path, start, job, stop_key=None):
    """Records JOB (done by a Person with the app START began) on a desktop of its
    own, ended by Ctrl+C, or by the person pressing STOP_KEY; returns the plan's
    text and the recorder's log."""
    (tmp_path / "desktop").mkdir()
    private = PrivateDesktop(wm=True, tmp_path=tmp_path / "desktop")
    state = tmp_path / "recorded-state"
    app = None
    recorder = None
    try:
        env = dict(private.env, AXSIGHT_LOG=os.environ.get(
            "REC_LOG", "axsight_session=debug,axsight_screen=debug"))
        app = start(private.env, state)
        log = tmp_path / "recorder.log"
        plan_file = tmp_path / "plan.json"
        stop = ["--stop-key", stop_key] if stop_key else []
        recorder = subprocess.Popen([str(AXSIGHT_BIN), "record", "--out", str(plan_file), *stop],
                                    env=env, stdout=subprocess.DEVNULL,
                                    stderr=open(log, "w"))
        assert poll(lambda: "recording (watching" in log.read_text(), timeout=30), log.read_text()
        last = job(Person(private.env, state))
        # The last step is written once the recorder has seen it.
        assert poll(lambda: last in log.read_text(), timeout=10), log.read_text()
        if stop_key:
            Person(private.env, state).key(stop_key)
        else:
            recorder.send_signal(signal.SIGINT)
        assert recorder.wait(timeout=30) == 0, log.read_text()
        return plan_file.read_text(), log.read_text()
    finally:
        if recorder and recorder.poll() is None:
            recorder.kill()
        if app:
            app.terminate()
            app.wait(timeout=10)
        private.close()


def fill_the_form(person):
    """The GTK fixture's job; returns the last step's words."""
    person.click("role:Edit && name:Name")
    person.type("Ada Lovelace")
    person.sees(lambda s: s.get("name") == "Ada Lovelace", "typing the name")
    person.click("role:Edit && name:Password")
    person.key("ctrl+a")
    person.type(PASSWORD)
    person.sees(lambda s: s.get("password") == PASSWORD, "typing the password")
    person.click('role:CheckBox && name:"Remember me"')
    person.sees(lambda s: s.get("remember") is True, "checking Remember me")
    person.click("role:ComboBox && name:Colour")
    person.click("role:MenuItem && name:Blue && visible:true")
    person.sees(lambda s: s.get("colour") == "Blue", "choosing Blue")
    person.click("role:Menu && name:File")
    person.click('role:MenuItem && name:"Ask name…" && visible:true')
    assert poll(lambda: person.find('role:Dialog && name:"Ask name"'), timeout=10)
    # The dialog's field has the focus: the person just types.
    person.type("Grace")
    person.key("Return")
    person.sees(lambda s: "Hello, Grace" in s.get("said", []), "answering the dialog")
    person.click("role:Button && name:Save")
    person.sees(lambda s: s.get("said", [])[-1:] == ["Saved"], "saving")
    # The canvas names nothing: the person clicks the text painted on it.
    x, y, _, _ = person.box("role:Canvas")
    person.click_at(x + CANVAS_TEXT[0], y + CANVAS_TEXT[1])
    person.sees(lambda s: s.get("said", [])[-1].startswith("Canvas clicked"), "clicking the canvas")
    # Then a place in it where nothing is written: a point inside the canvas.
    person.click_at(x + CANVAS_DISC[0], y + CANVAS_DISC[1])
    person.sees(lambda s: s.get("said", [])[-1] == "Canvas clicked at %d,%d" % CANVAS_DISC,
                "clicking the disc")
    return "inside [Canvas] Canvas"


def replay(tmp_path, plan_file, *args, start=None, arrange=None):
    """Replays PLAN_FILE into a larger desktop where the app START began (by
    default the GTK fixture, larger) sits elsewhere, as ARRANGE puts it; returns
    the replay's result and where the app keeps its state."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path, size="1400x900")
    state = tmp_path / "replayed-state"
    app = None
    try:
        if start:
            app = start(private.env, state)
            arrange(private.env)
        else:
            app = start_fixture(private.env, state, size="1000x700")
            place(private.env, TITLE, 40, 60)
        done = subprocess.run([str(AXSIGHT_BIN), "replay", str(plan_file), *args],
                              env=private.env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120)
        # The app's own account of what happened, not axsight's.
        saved = poll(state.exists, timeout=5) and state.read_text()
        return done, saved
    finally:
        if app:
            app.terminate()
            app.wait(timeout=10)
        private.close()


def fill_the_qt_form(person):
    """The Qt 6 fixture's job: its combo box's list and its menu's items lie in
    the window's own tree, outside the boxes of what holds them."""
    person.click("role:Edit && name:Name")
    person.type("Ada")
    person.shows('role:Edit && name:Name && value:Ada')
    person.click("role:ComboBox && name:Colour")
    person.click("role:ListItem && name:Blue && visible:true")
    person.shows('role:ComboBox && name:Colour && value:Blue')
    person.click('role:CheckBox && name:"Remember me"')
    person.shows('role:CheckBox && name:"Remember me" && checked:true')
    person.click("role:MenuItem && name:File")
    person.click('role:MenuItem && name:"Ask name…" && visible:true')
    person.shows('role:Dialog && name:"Ask name"')
    person.click('role:Edit && name:"Your name"')
    person.type("Grace")
    person.click("role:Button && name:OK")
    person.shows('name:"Hello, Grace"')
    person.click("role:Button && name:Save")
    person.sees(lambda s: s.get("greeting") == "Hello, Grace", "saving")
    return "click [Button] Save"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    tmp_path = tmp_path_factory.mktemp("recording")
    text, log = record(tmp_path, start_fixture, fill_the_form)
    plan_file = tmp_path / "plan.json"
    return text, log, plan_file


def test_a_person_s_job_is_recorded_as_steps_an_agent_would_take(recorded):
    text, log, _ = recorded
    plan = json.loads(text)
    print(text)
    assert plan["axsight_plan"] == 1
    # The recorder's log (never a password: checked below) says what it saw.
    assert plan["described"] == EXPECTED_STEPS, (plan["described"], log[-8000:])
    assert [step.get("tool") for step in plan["steps"]] == [
        "type_into_element", "type_into_element", "set_toggled", "select_option",
        "click_element", "click_element", "wait_for_element", "type_into_element",
        "press_key", "click_element", "find_element", "click_element", None, "click_element"]
    assert plan["apps"] == ["axsight-fixture"]
    assert plan["fragile"] == ['click "Canvas text 42" (read by OCR there) in a window of '
                               "axsight-fixture: found by the text OCR read there, where the "
                               "tree names nothing",
                               EXPECTED_STEPS[-1] + ": a point in a box, which finds another "
                               "thing if what is drawn there moved"]
    assert plan["steps"][-2]["find"] == "role:Canvas && name:\"Canvas\"", plan["steps"][-2]
    assert plan["steps"][-1]["arguments"]["index"] == "$%s@%d,%d" % (
        plan["steps"][-2]["as"], *CANVAS_DISC)
    assert plan["parameters"] == [{"name": "password_1", "secret": True,
                                   "field": f'[Edit] Password in "{TITLE}"'}]
    # Clicks are aimed by what the element is or says, never where it was.
    for step in plan["steps"]:
        assert "x" not in step.get("arguments", {}), step
    # The password is nowhere: not in the plan, not in the recorder's debug log.
    assert PASSWORD not in text
    assert PASSWORD not in log and "DEBUG" in log


def test_the_plan_replays_into_another_desktop_and_does_the_job(recorded, tmp_path):
    _, _, plan_file = recorded
    done, saved = replay(tmp_path, plan_file, "--param", "password_1=another-pw")
    print(done.stdout, done.stderr)
    state = json.loads(saved)
    assert done.returncode == 0, done.stderr
    assert "14 done, 0 failed" in done.stdout
    assert state["name"] == "Ada Lovelace"
    assert state["password"] == "another-pw"
    assert state["remember"] is True and state["colour"] == "Blue"
    assert "Hello, Grace" in state["said"] and "Saved" in state["said"], state
    # The text OCR found, then the disc, at its place in the canvas, wherever the
    # window sits now.
    assert state["said"][-2].startswith("Canvas clicked at"), state
    assert state["said"][-1] == "Canvas clicked at %d,%d" % CANVAS_DISC, state


def test_a_replay_asks_for_its_secret_and_stops_at_a_step_it_cannot_find(recorded, tmp_path):
    _, _, plan_file = recorded
    # No terminal to ask on, and no --param: nothing runs, and it says what to give.
    missing = subprocess.run([str(AXSIGHT_BIN), "replay", str(plan_file)],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=60)
    assert missing.returncode != 0
    assert "--param password_1=" in missing.stderr, missing.stderr
    # The File menu renamed in the plan: the replay stops there, saying why, and
    # runs nothing after it.
    plan = json.loads(plan_file.read_text())
    assert plan["steps"][4]["arguments"]["selector"] == 'role:Menu && name:"File"'
    plan["steps"][4]["arguments"]["selector"] = 'role:Menu && name:"Fichier"'
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(plan))
    done, saved = replay(tmp_path, edited, "--param", "password_1=x")
    print(done.stdout, done.stderr)
    state = json.loads(saved)
    assert done.returncode == 1
    assert re.search(r'5\. click_element: FAILED: no element matches `role:Menu && '
                     r'name:"?Fichier"?`', done.stdout), done.stdout
    assert "stopped: 9 steps after it were not run" in done.stdout
    assert "replay stopped" in done.stderr
    # The steps before it did their part; none after it did.
    assert state["colour"] == "Blue" and state["password"] == "x"
    assert "Hello, Grace" not in state["said"] and "Saved" not in state["said"], state


def test_a_qt_job_is_recorded_and_replayed_into_a_resized_window(tmp_path):
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    text, _ = record(tmp_path, start_qt_fixture, fill_the_qt_form)
    plan = json.loads(text)
    print(text)
    assert plan["described"] == [
        f'type "Ada" into [Edit] Name in "{QT_TITLE}"',
        f'choose "Blue" in [ComboBox] Colour in "{QT_TITLE}"',
        f'check [CheckBox] Remember me in "{QT_TITLE}"',
        f'click [MenuItem] File in "{QT_TITLE}"',
        f'click [MenuItem] Ask name… in "{QT_TITLE}"',
        "wait for [Dialog] Ask name",
        'type "Grace" into [Edit] Your name in "Ask name"',
        'click [Button] OK in "Ask name"',
        f'click [Button] Save in "{QT_TITLE}"',
    ], plan["described"]
    assert plan["fragile"] == []
    (tmp_path / "replay").mkdir()
    done, saved = replay(
        tmp_path / "replay", tmp_path / "plan.json", start=start_qt_fixture,
        arrange=lambda env: place(env, QT_TITLE, 500, 300, size="900x640"))
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert "name=Ada\ncolour=Blue\n" in saved and "remember=True" in saved, saved
    assert "greeting=Hello, Grace" in saved, saved


def test_an_agent_records_a_person_through_the_tool_and_replays_the_plan(tmp_path):
    """The `record` tool over MCP (either transport): started, the person works,
    stopped with the plan; the agent then runs the plan's steps with
    execute_sequence in the app started anew."""
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    private = PrivateDesktop(wm=True, tmp_path=tmp_path)
    state = tmp_path / "state"
    apps = [start_fixture(private.env, state)]
    secret = "pw-TOLD-BY-MCP"
    try:
        async def body(c):
            assert "no recording is under way" in await c.error("record", {"stop": True})
            started = await c.ok("record", {})
            assert started.startswith("recording (watching the X server's RECORD extension)")
            assert "already under way" in await c.error("record", {})
            person = Person(private.env, state)
            person.click('role:CheckBox && name:"Remember me"')
            person.sees(lambda s: s.get("remember") is True, "checking Remember me")
            person.click("role:ComboBox && name:Colour")
            person.click("role:MenuItem && name:Green && visible:true")
            person.sees(lambda s: s.get("colour") == "Green", "choosing Green")
            person.click("role:Edit && name:Password")
            person.key("ctrl+a")
            person.type(secret)
            person.sees(lambda s: s.get("password") == secret, "typing the password")
            stopped = await c.ok("record", {"stop": True})
            print(stopped)
            assert stopped.startswith("recorded 3 steps; parameters: $password_1 (a secret, "
                                      f'typed into [Edit] Password in "{TITLE}")'), stopped
            assert f'2. choose "Green" in [ComboBox] Colour in "{TITLE}"' in stopped
            assert secret not in stopped
            plan = json.loads(stopped.splitlines()[-1])
            # The app anew, then the plan by the agent, the secret filled in.
            apps[0].terminate()
            apps[0].wait(timeout=10)
            state.unlink()
            apps[0] = start_fixture(private.env, state)
            steps = json.loads(json.dumps(plan["steps"]).replace('"$password_1"', '"again-pw"'))
            done = await c.ok("execute_sequence", {"steps": steps})
            assert "3 done, 0 failed" in done, done
            saved = json.loads(state.read_text())
            assert saved["remember"] is True and saved["colour"] == "Green", saved
            assert saved["password"] == "again-pw"

        run_session(body, env={k: private.env[k] for k in DESKTOP_VARS if k in private.env})
    finally:
        apps[0].terminate()
        apps[0].wait(timeout=10)
        private.close()


def test_on_wayland_a_recording_shows_what_the_tree_shows_and_says_what_it_cannot(tmp_path):
    """sway shows no program another's input: the recording falls back to what
    the accessibility tree shows changed (a field's text, a check box, a combo
    box's choice, a button that took the focus as something changed), says so,
    and its plan does the job again."""
    if not shutil.which("sway"):
        pytest.skip("sway is not installed (scripts/install-deps)")
    from test_wayland_tools import session
    private = PrivateDesktop(wm=False, tmp_path=tmp_path, wayland="sway")
    private.env["AXSIGHT_BIN"] = str(AXSIGHT_BIN)
    state = tmp_path / "state"
    apps = [start_fixture(private.env, state)]
    try:
        async def body(c):
            started = await c.ok("record", {})
            assert "accessibility events alone" in started and "Wayland" in started, started
            # The person's work, done here through axsight's own input on sway.
            form = {"app": "axsight-fixture", "window": TITLE}
            await c.ok("type_into_element", {**form, "selector": "role:Edit && name:Name",
                                             "text": "Ada"})
            await c.ok("set_toggled", {**form, "selector": 'role:CheckBox && name:"Remember me"',
                                       "state": True})
            # The fixture names its combo box, so its choice shows nowhere in the
            # tree: a radio button's does.
            await c.ok("click_element", {**form, "selector": "role:RadioButton && name:Large"})
            await c.ok("click_element", {**form, "selector": "role:Button && name:Count"})
            assert poll(lambda: "Size: Large" in json.loads(state.read_text())["said"],
                        timeout=10)
            stopped = await c.ok("record", {"stop": True})
            print(stopped)
            assert f'type "Ada" into [Edit] Name in "{TITLE}"' in stopped
            assert f'check [CheckBox] Remember me in "{TITLE}"' in stopped
            assert f'click [RadioButton] Large in "{TITLE}"' in stopped
            assert f'click [Button] Count in "{TITLE}"' in stopped, stopped
            assert "may miss on replay: click [Button] Count" in stopped, stopped
            plan = json.loads(stopped.splitlines()[-1])
            assert plan["watched"].startswith("accessibility events alone"), plan["watched"]
            # The plan does the job again in the app started anew.
            apps[0].terminate()
            apps[0].wait(timeout=10)
            state.unlink()
            apps[0] = start_fixture(private.env, state)
            done = await c.ok("execute_sequence", {"steps": plan["steps"]})
            assert "0 failed" in done, done
            saved = json.loads(state.read_text())
            assert saved["name"] == "Ada" and saved["remember"] is True, saved
            assert "Size: Large" in saved["said"], saved
            assert 'name "Count" -> "Count 1"' in done, done

        session(body, private.env)
    finally:
        apps[0].terminate()
        apps[0].wait(timeout=10)
        private.close()


def start_featherpad(home):
    """How to start FeatherPad (Qt 5) with HOME its own: no settings, no last session."""
    def start(env, _state):
        home.mkdir(exist_ok=True)
        app = subprocess.Popen(["featherpad"], env=dict(env, HOME=str(home)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return wait_for_app(env, app)
    return start


def test_a_text_editors_save_as_is_recorded_and_replayed(tmp_path):
    """FeatherPad: text typed into its editor, ctrl+s, and a path typed over the
    name its Save As dialog offers selected. Replayed into another desktop, the
    file is written again, with the text, checked on disk."""
    if not (os.path.exists("/usr/bin/xdotool") and shutil.which("featherpad")):
        pytest.skip("xdotool or featherpad is not installed (scripts/install-deps)")
    saved = tmp_path / "notes.txt"

    def write_and_save(person):
        person.click("role:Edit && state:multiline")
        person.type("hello from a person")
        person.shows('role:Edit && state:multiline && value:"hello from a person"')
        person.key("ctrl+s")
        person.shows('role:Dialog && name:"Save as..."')
        person.type(str(saved))
        person.key("Return")
        assert poll(lambda: saved.exists() and saved.read_text().startswith("hello"), timeout=10)
        return "then Return"

    text, _ = record(tmp_path, start_featherpad(tmp_path / "home"), write_and_save)
    plan = json.loads(text)
    print(text)
    assert plan["described"] == [
        'type "hello from a person" into [Edit] in "Untitled"',
        "press ctrl+s",
        "wait for [Dialog] Save as...",
        f'type "{saved}" into [Edit] File name: in "Save as...", then Return',
        'press Return in [Edit] File name: in "Save as..."',
    ], plan["described"]
    assert plan["fragile"] == []
    saved.unlink()
    (tmp_path / "replay").mkdir()
    done, _ = replay(
        tmp_path / "replay", tmp_path / "plan.json",
        start=start_featherpad(tmp_path / "home-2"),
        arrange=lambda env: place(env, "Untitled", 300, 200, size="800x600"))
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert saved.read_text().rstrip("\n") == "hello from a person"


@pytest.fixture(scope="module")
def shop():
    """The web fixtures on loopback, and /order, which keeps each form POSTed to it:
    what the browser sent, read outside axsight."""
    yield from running_shop()


def start_chromium(url, profile, size):
    """How to start Chromium on URL with a profile of its own and its window SIZE."""
    def start(env, _state):
        app = subprocess.Popen([CHROMIUM, "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--password-store=basic", "--force-renderer-accessibility",
                                f"--user-data-dir={profile}", f"--window-size={size}", url],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        app = wait_for_app(env, app)
        # The page's fields, not only the browser's frame, are in the tree.
        person = Person(env, None)
        assert poll(lambda: person.find("role:Edit && name:Name"), timeout=30, interval=0.2), \
            "Chromium's page never showed its form"
        return app
    return start


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_a_web_form_in_chromium_is_recorded_and_replayed(tmp_path, shop):
    """A person fills the web fixture's order form in Chromium (a name, a password,
    a check box) and places the order; replayed into another desktop where the
    browser's window is larger and elsewhere, the shop's server receives the same
    order, with the password given at replay."""
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    base, orders = shop
    password = "web-PW-recorded"

    def place_an_order(person):
        person.click("role:Edit && name:Name")
        person.type("Ada")
        person.shows('role:Edit && name:Name && value:Ada')
        person.click("role:Edit && name:Password")
        person.type(password)
        person.shows('name:"Password edited"')
        person.click('role:CheckBox && name:"Gift wrap"')
        person.shows('role:CheckBox && name:"Gift wrap" && checked:true')
        person.click('role:Button && name:"Place order"')
        assert poll(lambda: orders, timeout=15), "the order never reached the shop"
        return 'click [Button] Place order'

    # The person ends the recording with a key, from the browser.
    text, log = record(tmp_path, start_chromium(f"{base}/order.html", tmp_path / "profile",
                                                "900,700"), place_an_order, stop_key="ctrl+alt+End")
    assert "ctrl+alt+End (or Ctrl+C here) ends it" in log, log
    plan = json.loads(text)
    print(text)
    assert orders == [{"name": "Ada", "password": password, "gift": "yes"}], orders
    assert [step.get("tool") for step in plan["steps"]] == [
        "type_into_element", "type_into_element", "set_toggled", "click_element"], plan
    assert plan["described"][0].startswith('type "Ada" into [Edit] Name'), plan["described"]
    assert plan["described"][1].startswith("type $password_1 into [Edit] Password")
    assert plan["described"][2].startswith("check [CheckBox] Gift wrap")
    assert plan["fragile"] == [], plan["fragile"]
    assert password not in text and password not in log
    orders.clear()
    (tmp_path / "replay").mkdir()
    done, _ = replay(
        tmp_path / "replay", tmp_path / "plan.json", "--param", "password_1=replayed-pw",
        start=start_chromium(f"{base}/order.html", tmp_path / "profile-2", "1200,800"),
        arrange=lambda env: place(env, "Order", 150, 90))
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert poll(lambda: orders, timeout=15), done.stdout
    assert orders == [{"name": "Ada", "password": "replayed-pw", "gift": "yes"}], orders
