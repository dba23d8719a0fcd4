#!/usr/bin/python3
"""Print scripts/bench-waits' summary: one row per place an agent waits, from the
JSON its parts wrote into DIR.

    /usr/bin/python3 scripts/bench_waits_table.py DIR

DIR/tree.json (scripts/bench-tree --json), DIR/act.jsonl (scripts/bench-act --json),
DIR/browser.jsonl (scripts/bench-browser's lines) and DIR/ocr.json (bench_ocr.py
--candidates --json); a part that is missing prints "-". Each row sets the figure
now beside the baseline measured in the same run and, where an older binary was
given, the figure before; "vs baseline" is baseline / now (above 1: faster than the
baseline), except for clicks, whose baseline (dogtail pressing and polling the tree
until the change shows, with no delays: when the app itself shows it) is subtracted;
"met" holds the figure now to the goal.
"""
import json
import sys
from pathlib import Path

KB = 1024


def load_json(path):
    return json.loads(path.read_text()) if path.exists() else None


def load_lines(path):
    if not path.exists():
        return []
    lines = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


def find(lines, **want):
    return next((line for line in lines
                 if all(line.get(k) == v for k, v in want.items())), None)


def ms(value):
    return "-" if value is None else f"{value:,.1f} ms" if value < 10 else f"{value:,.0f} ms"


def times(value):
    return "-" if value is None else f"{value:.1f}x"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[3].strip())
    out = Path(sys.argv[1])
    tree = load_json(out / "tree.json")
    act = load_lines(out / "act.jsonl")
    browser = load_lines(out / "browser.jsonl")
    ocr = load_json(out / "ocr.json")
    rows = []  # where, baseline, before, now, vs baseline, goal, met

    if ocr:
        used, cli = ocr["candidates"].get("lines2"), ocr["candidates"].get("cli")
        text = used["text"][0] / used["text"][1] if used else None
        rows.append((
            "OCR of one window (widget factory pages, wall)",
            f"Tesseract CLI {ms(cli['factory_wall_ms'])}" if cli else "-",
            "-",
            f"{ms(used['factory_wall_ms'])}; text recall {100 * text:.1f} %" if used else "-",
            times(cli["factory_wall_ms"] / used["factory_wall_ms"]) if cli and used else "-",
            "<= 300 ms at >= 95 % recall",
            used is not None and used["factory_wall_ms"] <= 300 and text >= 0.95,
        ))
        if used:
            rows.append((
                "  OCR, all six windows (CPU per window)",
                f"CLI {ms(cli['cpu_ms'])} CPU, {ms(cli['wall_ms'])} wall" if cli else "-",
                "-", f"{ms(used['cpu_ms'])} CPU, {ms(used['wall_ms'])} wall",
                times(cli["wall_ms"] / used["wall_ms"]) if cli else "-", "", None))

    for target, label in (('calculator "1"', 'click, calculator "1" (pointer)'),
                          ('fixture "Count"', 'click, fixture "Count" (pointer)')):
        now = find(act, target=target, tool="axsight", mode="pointer")
        old = find(act, target=target, tool="before", mode="pointer")
        polled = find(act, target=target, tool="dogtail", mode="zero-delays", via="click")
        settle = find(act, target=target, tool="settle")
        if not now:
            continue
        calculator = target.startswith("calculator")
        agreed = (f"; {settle['agreed_with_reference']}/{settle['runs']} equal to the "
                  "slow reference" if settle else "")
        rows.append((
            label,
            f"dogtail press+poll {ms(polled['p50_ms'])}" if polled else "-",
            ms(old["p50_ms"]) if old else "-",
            ms(now["p50_ms"]) + agreed,
            # Not a ratio: dogtail only polls for the change, it answers no diff.
            f"+{now['p50_ms'] - polled['p50_ms']:.0f} ms after it" if polled else "-",
            # dogtail with no delays presses and polls the tree until the change
            # shows: the app's own change, give or take one poll (a few ms).
            # Issue 13 set the 80 ms on the calculator; elsewhere it is shown only.
            "<= 80 ms after the app's change, all equal" if calculator else "all equal",
            (not calculator or (polled is not None and now["p50_ms"] - polled["p50_ms"] <= 80))
            and (settle is None or settle["agreed_with_reference"] == settle["runs"]),
        ))

    after = find(act, tool="field-click", binary="after")
    before = find(act, tool="field-click", binary="before")
    settle = find(act, target="fixture fields", tool="settle")
    if after:
        rows.append((
            "focus-only: click into a text field (settle)",
            "expect window 1,000 ms",
            ms(before["p50_ms"]) if before else "-",
            ms(after["p50_ms"]) + (f"; {settle['agreed_with_reference']}/{settle['runs']} "
                                   "equal" if settle else ""),
            times(1000 / after["p50_ms"]),
            "as soon as the focus moved (<= 100 ms), all equal",
            after["p50_ms"] <= 100 and (settle is None or
                                         settle["agreed_with_reference"] == settle["runs"]),
        ))
    clicks = find(act, tool="clicks")
    if clicks:
        rows.append((
            "ten different calculator buttons back to back",
            f"ten on one button (spaced) {ms(clicks['one_button_p50_ms'])}",
            "-", ms(clicks["different_buttons_p50_ms"]),
            times(clicks["ratio_one_button_to_different"]),
            "no spacing between different buttons",
            clicks["per_click_different_ms"] < 450,
        ))

    if tree:
        wf = tree["widget_factory"]
        cold = tree["cold_ms"][wf]
        fast = cold["pyatspi"] / cold["axsight"]
        rows.append((
            f"cold `axsight tree`, {wf} (median)",
            f"fresh pyatspi walk {ms(cold['pyatspi'])}",
            ms(cold.get("before")),
            ms(cold["axsight"]),
            times(fast),
            "<= 25 ms and >= 8x", cold["axsight"] <= 25 and fast >= 8,
        ))
        for app in tree["apps"]:
            bench = tree["bench"][app]
            old = (tree.get("before_bench") or {}).get(app) or {}
            rows.append((
                f"warm read, unchanged window: {app} (engine / session)",
                f"pyatspi walk {ms(tree['pyatspi_walk_ms'][app])}",
                (f"{float(old['warm']):.2f} / "
                 + (f"{float(old['session']):.2f} ms" if old.get("session") else "- ms"))
                if old.get("warm") else "-",
                f"{float(bench['warm']):.2f} / {float(bench['session']):.2f} ms",
                times(tree["pyatspi_walk_ms"][app] / float(bench["session"])),
                "<= 0.5 ms", float(bench["session"]) <= 0.5,
            ))
        size = int(tree["bench"][wf]["bytes"])
        rows.append((f"compact tree, {wf}", "-", "-", f"{size:,} bytes", "-",
                     "<= 5 KB (5,120 bytes)", size <= 5 * KB))
        rows.append(("tools/list", "-", "-",
                     f"{tree['tools_list_bytes']:,} bytes, {tree['tools']} tools", "-",
                     "<= 16 KB", tree["tools_list_bytes"] <= 16 * KB))

    vouched = find(browser, what="get_window_tree, unchanged page: vouched by DevTools vs "
                   "read whole")
    if vouched:
        rows.append((
            "Chromium window read, page unchanged",
            f"read whole {ms(vouched['whole_p50_ms'])}", "-",
            ms(vouched["vouched_p50_ms"]),
            times(vouched["whole_over_vouched"]),
            "<= 5 ms, never stale (tests: ticker, zoom, tab swap)",
            vouched["vouched_p50_ms"] <= 5,
        ))

    header = ("where", "baseline, same run", "before", "now", "vs baseline", "goal", "met?")
    cells = [[str(c) if i < 6 else ("" if c is None else "met" if c else "NOT MET")
              for i, c in enumerate(row)] for row in rows]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in cells:
        print("| " + " | ".join(row) + " |")
    if tree:
        load = tree["load"]
        print(f"\nload average during the tree part: {load[0]:.1f} to {load[1]:.1f} "
              "(2 cores; above 2, other work competed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
