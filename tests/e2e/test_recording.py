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
import signal
import subprocess
import time

import pytest

from conftest import FIXTURE_APP, PrivateDesktop, poll
from test_mcp_server import AXSIGHT_BIN

TITLE = "Recorded form"
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
]


class Person:
    """Someone at desktop ENV's mouse and keyboard, who looks with `axsight find`
    and waits for what they did to show before going on."""

    def __init__(self, env, state_file):
        self.env = env
        self.state_file = state_file

    def find(self, selector):
        """The centre of the first element SELECTOR finds, or None."""
        out = subprocess.run([str(AXSIGHT_BIN), "find", selector], env=self.env,
                             capture_output=True, text=True, timeout=30).stdout
        box = re.search(r"\[(-?\d+),(-?\d+),(\d+),(\d+)\]", out)
        if not box:
            return None
        x, y, w, h = map(int, box.groups())
        return x + w // 2, y + h // 2

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
        try:
            return json.loads(self.state_file.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def sees(self, check, what):
        """Waits until the form's state passes CHECK."""
        assert poll(lambda: check(self.state()), timeout=10, interval=0.1), \
            f"{what} did not happen: {self.state()}"


def start_fixture(env, state_file, size=None):
    argv = ["/usr/bin/python3", str(FIXTURE_APP), "--title", TITLE,
            "--state-file", str(state_file)]
    if size:
        argv += ["--size", size]
    app = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([str(AXSIGHT_BIN.parents[2] / "scripts" / "wait-for-app"), str(app.pid)],
                   env=env, check=True, timeout=60, capture_output=True)
    return app


def record(tmp_path):
    """Records the person's job on a desktop of its own; returns the plan's text and
    the recorder's log."""
    (tmp_path / "desktop").mkdir()
    private = PrivateDesktop(wm=True, tmp_path=tmp_path / "desktop")
    state = tmp_path / "recorded-state.json"
    app = None
    recorder = None
    try:
        env = dict(private.env, AXSIGHT_LOG=os.environ.get("REC_LOG", "axsight_session=debug,axsight_screen=debug"))
        app = start_fixture(private.env, state)
        log = tmp_path / "recorder.log"
        plan_file = tmp_path / "plan.json"
        recorder = subprocess.Popen([str(AXSIGHT_BIN), "record", "--out", str(plan_file)],
                                    env=env, stdout=subprocess.DEVNULL,
                                    stderr=open(log, "w"))
        assert poll(lambda: "recording (watching" in log.read_text(), timeout=30), log.read_text()
        person = Person(private.env, state)
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
        # The last step is written once the recorder has seen the click.
        assert poll(lambda: "click [Button] Save" in log.read_text(), timeout=10), log.read_text()
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


def replay(tmp_path, plan_file, *args):
    """Replays PLAN_FILE into a larger desktop where the fixture is larger and sits
    elsewhere; returns the replay's result and the fixture's state."""
    private = PrivateDesktop(wm=True, tmp_path=tmp_path, size="1400x900")
    state = tmp_path / "replayed-state.json"
    app = None
    try:
        app = start_fixture(private.env, state, size="1000x700")
        window = subprocess.run(["xdotool", "search", "--name", TITLE], env=private.env,
                                capture_output=True, text=True, check=True).stdout.split()[0]
        subprocess.run(["xdotool", "windowmove", "--sync", window, "40", "60"],
                       env=private.env, check=True, timeout=30)
        done = subprocess.run([str(AXSIGHT_BIN), "replay", str(plan_file), *args],
                              env=private.env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120)
        return done, Person(private.env, state).state()
    finally:
        if app:
            app.terminate()
            app.wait(timeout=10)
        private.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    if not os.path.exists("/usr/bin/xdotool"):
        pytest.skip("xdotool is not installed (scripts/install-deps)")
    tmp_path = tmp_path_factory.mktemp("recording")
    text, log = record(tmp_path)
    plan_file = tmp_path / "plan.json"
    return text, log, plan_file


def test_a_person_s_job_is_recorded_as_steps_an_agent_would_take(recorded):
    text, log, _ = recorded
    plan = json.loads(text)
    print(text)
    assert plan["axsight_plan"] == 1
    assert plan["described"] == EXPECTED_STEPS, plan["described"]
    assert [step.get("tool") for step in plan["steps"]] == [
        "type_into_element", "type_into_element", "set_toggled", "select_option",
        "click_element", "click_element", "wait_for_element", "type_into_element",
        "press_key", "click_element"]
    assert plan["apps"] == ["axsight-fixture"]
    assert plan["fragile"] == []
    assert plan["parameters"] == [{"name": "password_1", "secret": True,
                                   "field": f'[Edit] Password in "{TITLE}"'}]
    # Clicks are aimed by what the element is, never where it was.
    for step in plan["steps"]:
        assert "x" not in step.get("arguments", {}), step
    # The password is nowhere: not in the plan, not in the recorder's debug log.
    assert PASSWORD not in text
    assert PASSWORD not in log and "DEBUG" in log


def test_the_plan_replays_into_another_desktop_and_does_the_job(recorded, tmp_path):
    _, _, plan_file = recorded
    done, state = replay(tmp_path, plan_file, "--param", "password_1=another-pw")
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert "10 done, 0 failed" in done.stdout
    assert state["name"] == "Ada Lovelace"
    assert state["password"] == "another-pw"
    assert state["remember"] is True and state["colour"] == "Blue"
    assert "Hello, Grace" in state["said"] and state["said"][-1] == "Saved", state


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
    done, state = replay(tmp_path, edited, "--param", "password_1=x")
    print(done.stdout, done.stderr)
    assert done.returncode == 1
    assert re.search(r'5\. click_element: FAILED: no element matches `role:Menu && '
                     r'name:"?Fichier"?`', done.stdout), done.stdout
    assert "stopped: 5 steps after it were not run" in done.stdout
    assert "replay stopped" in done.stderr
    # The steps before it did their part; none after it did.
    assert state["colour"] == "Blue" and state["password"] == "x"
    assert "Hello, Grace" not in state["said"] and "Saved" not in state["said"], state
