#!/usr/bin/python3
"""The dogtail baseline of the action benchmark; runs inside scripts/with-desktop.

    /usr/bin/python3 scripts/bench_act_dogtail.py --title TITLE [--button Count]
                                                  [--runs 15] [--via click|action]
                                                  [--app axsight-fixture]

With tests/fixtures/fixture_app.py already up (window title TITLE), it does the
benchmark's task the way a dogtail script does: press a button that renames itself,
then wait until the new name shows, by searching for the renamed button with
dogtail's retrying search. Each round trip (press + search that finds the change)
is timed; the node found is the one the next round presses, as a script would
keep it. One JSON line per mode:

    {"tool": "dogtail", "mode": "default" | "zero-delays", "app": ..., "button": ...,
     "via": ..., "p50_ms": ..., "runs": N, "samples_ms": [...]}

With --app naming another app (gnome-calculator: --title Calculator --button 1),
BUTTON is a key that types its label into the app's display: the search waits
until a text field holds the label once more than before the press. GTK4 names
such a button by its label twice ("1 1"); either form is found.

"default" keeps dogtail 0.9.11's timing settings; "zero-delays" sets the four
delay settings of ZERO_DELAYS to 0 and lifts searchCutoffCount so that a search
with no backoff still waits (it cannot be 0: then a search never looks).

--via click (the default) is dogtail's Node.click(): a synthesized mouse click at
the centre of the node (rawinput.click -> Registry.generateMouseEvent 'b1c', then
sleep actionDelay). --via action is Node.doActionNamed('click'): the AT-SPI
DoAction, then sleep actionDelay.

Debian's /usr/bin/python3: it has gi, pyatspi and dogtail (python3-dogtail).
"""
import argparse
import contextlib
import json
import re
import statistics
import sys
import time

from dogtail.config import config


def fit_desktop():
    """The two settings this desktop needs, in both modes; no timing among them."""
    # dogtail checks the GSettings key org.gnome.desktop.interface
    # toolkit-accessibility when dogtail.tree is imported and exits if it is off.
    # with-desktop keeps GSettings in memory (key off) and turns accessibility on
    # through the a11y bus instead.
    config.checkForA11y = False
    # dogtail logs each search and action to stdout, where our JSON goes; its log
    # file (logDebugToFile) stays as by default.
    config.logDebugToStdOut = False


fit_desktop()
from dogtail import tree  # noqa: E402  (after the config above)

FIXTURE_APP = "axsight-fixture"
# Fixture buttons that rename themselves on each click: the name before the first
# click, and the name after the N-th ("{}" is N).
BUTTONS = {
    "Count": "Count {}",
    "Rename me": "Renamed {}",
    "Background action": "Background clicked {}",
}
# The dogtail settings zeroed in the zero-delays mode (defaults in dogtail 0.9.11:
# actionDelay 1.0 s after each action or raw click, typingDelay 0.1 s per typed key,
# defaultDelay 0.5 s for doDelay() without an argument, searchBackoffDuration 0.5 s
# between search attempts).
ZERO_DELAYS = ("actionDelay", "typingDelay", "defaultDelay", "searchBackoffDuration")
# With no backoff, 20 attempts (the default searchCutoffCount) can all run before
# the app has answered; this many keep searching as long as the default would
# (20 x 0.5 s) or longer.
ZERO_DELAYS_SEARCH_ATTEMPTS = 10_000


def set_mode(mode):
    """Reset dogtail's settings to its defaults, then apply MODE's changes."""
    config.reset()  # clears every option, fit_desktop()'s too
    fit_desktop()
    if mode == "zero-delays":
        for name in ZERO_DELAYS:
            setattr(config, name, 0)
        config.searchCutoffCount = ZERO_DELAYS_SEARCH_ATTEMPTS


def app_window(app_name, title):
    """APP_NAME's top-level window called TITLE, found as dogtail scripts do."""
    app = tree.root.application(app_name)
    return app.window(title)


def clicks_so_far(name, button):
    """How often the button called NAME has been clicked (it renames itself)."""
    if name == button:
        return 0
    pattern = re.escape(BUTTONS[button]).replace(r"\{\}", r"(\d+)")
    match = re.fullmatch(pattern, name)
    return int(match.group(1)) if match else None


def find_button(window, button):
    """The button BUTTON under its current name, and how often it has been clicked."""
    node = window.findChild(
        lambda n: n.roleName == "push button" and clicks_so_far(n.name, button) is not None,
        debugName=f"push button {button!r} or renamed")
    return node, clicks_so_far(node.name, button)


def press(node, via):
    """Press NODE the way --via says: dogtail's raw click or the AT-SPI action."""
    if via == "click":
        node.click()
    else:
        node.doActionNamed("click")


def round_trip(window, node, button, clicks, via):
    """Press NODE, then find it under its next name; returns (ms, node found)."""
    expected = BUTTONS[button].format(clicks + 1)
    start = time.perf_counter()
    press(node, via)
    found = window.child(name=expected, roleName="push button")
    return (time.perf_counter() - start) * 1000, found


def typed_so_far(window, label):
    """How often LABEL shows in the window's text fields (a calculator's display)."""
    fields = window.findChildren(lambda n: n.roleName == "text")
    return max((n.text or "").count(label) for n in fields) if fields else 0


def find_key(window, label):
    """The push button LABEL ("1", or "1 1" as GTK4 names it), and the display's
    count of LABEL so far."""
    node = window.findChild(
        lambda n: n.roleName == "push button" and set(n.name.split()) == {label},
        debugName=f"push button {label!r}")
    return node, typed_so_far(window, label)


def key_round_trip(window, node, label, typed, via):
    """Press the key NODE, then find the field showing LABEL once more; returns
    (ms, node): the key stays the same node."""
    start = time.perf_counter()
    press(node, via)
    window.findChild(
        lambda n: n.roleName == "text" and (n.text or "").count(label) == typed + 1,
        debugName=f"text holding {label!r} {typed + 1} times")
    return (time.perf_counter() - start) * 1000, node


def measure(app_name, title, button, via, runs, mode):
    """Time RUNS round trips in MODE (after one untimed warm-up); a JSON-ready dict."""
    set_mode(mode)
    window = app_window(app_name, title)
    if app_name == FIXTURE_APP:
        node, clicks = find_button(window, button)
        step = round_trip
    else:
        node, clicks = find_key(window, button)
        step = key_round_trip
    samples = []
    for i in range(runs + 1):
        elapsed, node = step(window, node, button, clicks, via)
        clicks += 1
        if i > 0:  # the first round warms up both sides
            samples.append(round(elapsed, 2))
    return {
        "tool": "dogtail",
        "mode": mode,
        "app": app_name,
        "button": button,
        "via": via,
        "p50_ms": round(statistics.median(samples), 2),
        "runs": runs,
        "samples_ms": samples,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--title", required=True, help="the window's title")
    parser.add_argument("--app", default=FIXTURE_APP,
                        help=f"the app's name (default {FIXTURE_APP}; else a calculator-like "
                             "app whose BUTTON types its label into a text field)")
    parser.add_argument("--button", default="Count",
                        help=f"with the fixture one of {', '.join(sorted(BUTTONS))}")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--via", choices=("click", "action"), default="click",
                        help="Node.click() (raw mouse click, the default) or "
                             "Node.doActionNamed('click') (the AT-SPI action)")
    parser.add_argument("--modes", default="default,zero-delays",
                        help="comma-separated: default, zero-delays")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs wants at least 1")
    if args.app == FIXTURE_APP and args.button not in BUTTONS:
        parser.error(f"--button: the fixture's are {', '.join(sorted(BUTTONS))}")
    for mode in args.modes.split(","):
        if mode not in ("default", "zero-delays"):
            parser.error(f"unknown mode {mode!r}")
        try:
            # dogtail prints "Creating logfile at ..." on stdout: keep stdout for JSON.
            with contextlib.redirect_stdout(sys.stderr):
                result = measure(args.app, args.title, args.button, args.via, args.runs,
                                 mode)
        except tree.SearchError as e:
            sys.exit(f"bench_act_dogtail: {mode}: dogtail found no {e}")
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
