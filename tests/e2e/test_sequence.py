"""execute_sequence end to end: the fixture's form filled and saved in one call,
checked outside axsight (pyatspi reads the fields), and compared with the same
form filled one call at a time: calls and bytes of answers, printed."""
import json
import os

import pytest

from conftest import FIXTURE_APP, atspi_application, launch, stop
from test_mcp_server import run_session


def form_steps(window):
    where = {"app": "axsight-fixture", "window": window}
    return [
        {"find": "role:Edit && name:Name", **where, "as": "name"},
        {"tool": "type_into_element", "arguments": {"index": "$name", "text_to_type": "Ada"}},
        {"tool": "set_toggled", "arguments": {"selector": 'role:CheckBox && name:"Remember me"',
                                              **where, "state": True}},
        {"tool": "select_option", "arguments": {"selector": "role:ComboBox && name:Colour",
                                                **where, "option": "Green"}},
        {"tool": "click_element", "arguments": {"selector": "role:Button && name:Save", **where},
         "as": "save"},
    ]


@pytest.fixture
def form_app(desktop):
    title = f"sequence fixture {os.getpid()}"
    app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
    yield app
    stop(app)


def form_state(pid):
    """What a separate pyatspi process reads of the form: the name field's text,
    whether Remember me is checked, and the labels' texts (the status among them)."""
    pyatspi = pytest.importorskip("pyatspi")
    app = atspi_application(pid)

    def find(role, name):
        return next(a for a in pyatspi.findAllDescendants(
            app, lambda x: x.getRoleName() == role and x.name == name))

    name = find("text", "Name").queryText().getText(0, -1)
    remember = find("check box", "Remember me").getState().contains(pyatspi.STATE_CHECKED)
    labels = [a.name for a in pyatspi.findAllDescendants(app, lambda x: x.getRoleName() == "label")]
    return name, remember, labels


def test_a_sequence_fills_the_form_and_saves_it_in_one_call(form_app):
    answers = {}

    async def body(c):
        steps = form_steps(form_app.title) + [
            {"tool": "click_element", "arguments": {"index": "#u99999"}, "optional": True},
        ]
        answer = await c.ok("execute_sequence", {"steps": steps})
        answers["sequence"] = answer
        lines = answer.splitlines()
        assert lines[0].startswith("sequence of 6 steps: 5 done, 1 failed, in "), answer
        assert lines[1].startswith("1. find: found #u") and "[Edit] Name" in lines[1], answer
        assert lines[2].startswith('2. type_into_element: typed "Ada" into #u'), answer
        assert any(l.strip() == 'check: the field holds "Ada"' for l in lines), answer
        assert any(l.startswith("6. click_element: FAILED (optional): #u99999 was never given out")
                   for l in lines), answer
        # One diff for the whole sequence, after the step lines.
        changed = answer[answer.index("changed:"):]
        assert 'Name: value "" -> "Ada"' in changed, answer
        assert "Remember me: checked no -> yes" in changed, answer
        assert "Saved" in changed, answer
        assert "4. select_option: selected 'Green' in #u" in answer, answer
        assert "after the last step; settled in" in answer, answer
        # A failed step that is not optional stops the rest and fails the call.
        stopped = await c.error("execute_sequence", {"steps": [
            {"tool": "click_element", "arguments": {"index": "#u99999"}},
            {"tool": "press_key", "arguments": {"key": "Tab"}},
        ]})
        assert "1. click_element: FAILED: #u99999" in stopped, stopped
        assert "stopped: 1 steps after it were not run" in stopped, stopped
        bad = await c.error("execute_sequence", {"steps": [
            {"tool": "click_element", "arguments": {"index": "$nothing"}}]})
        assert "step 1: $nothing is not named by an earlier step's `as`" in bad, bad

    run_session(body)
    name, remember, labels = form_state(form_app.pid)
    assert name == "Ada" and remember, (name, remember)
    assert "Saved" in labels, labels


def test_the_same_form_one_call_at_a_time_costs_more(desktop):
    """Prints calls and bytes for the form with and without execute_sequence."""
    costs = {}
    for way in ("one call at a time", "execute_sequence"):
        title = f"cost fixture {os.getpid()} {len(costs)}"
        app = launch(["/usr/bin/python3", str(FIXTURE_APP), "--title", title], title)
        try:
            async def body(c):
                calls, sent, received = 0, 0, 0
                async def call(tool, args):
                    nonlocal calls, sent, received
                    calls += 1
                    sent += len(json.dumps({"name": tool, "arguments": args}).encode())
                    answer = await c.ok(tool, args)
                    received += len(answer.encode())
                    return answer
                steps = form_steps(title)
                if way == "execute_sequence":
                    await call("execute_sequence", {"steps": steps})
                else:
                    found = await call("find_elements", {"selector": steps[0]["find"],
                                                         "app": "axsight-fixture",
                                                         "window": title})
                    handle = next(w for w in found.split() if w.startswith("#u"))
                    for step in steps[1:]:
                        args = {k: (handle if v == "$name" else v)
                                for k, v in step["arguments"].items()}
                        await call(step["tool"], args)
                costs[way] = (calls, sent, received)

            run_session(body)
            name, remember, labels = form_state(app.pid)
            assert name == "Ada" and remember and "Saved" in labels
        finally:
            stop(app)
    for way, (calls, sent, received) in costs.items():
        print(f"form, {way}: {calls} calls, {sent} bytes sent, {received} bytes received")
    assert costs["execute_sequence"][0] == 1 and costs["one call at a time"][0] == 5
    assert costs["execute_sequence"][2] < costs["one call at a time"][2]
