#!/usr/bin/python3
"""Print scripts/bench-act's report from the JSON lines its runs wrote.

    /usr/bin/python3 scripts/bench_act_table.py RESULTS.jsonl

Each line carries "target" and "tool": "axsight" lines (`axsight bench act`: mode
pointer | accessible-action, p50_ms, answer_tokens_p50), "dogtail" lines
(scripts/bench_act_dogtail.py: mode default | zero-delays, via click | action,
p50_ms), and "typical" lines (one axsight click's answer, shown as is). Per target
and way of clicking, the table sets dogtail's p50 beside axsight's as a ratio
(dogtail / axsight: above 1 means axsight is faster). Tokens are bytes / 4.

With --before, "before" lines (the older binary's `bench act`) add a column each
way. "settle" lines (`axsight bench settle`: p50 and how many answers equalled the
slow reference's) and "field-click" lines (the settle time clicks into a text field
gave, after and before) are printed in tables of their own.
"""
import json
import sys

# axsight's mode and dogtail's --via that click the same way.
WAYS = (("pointer", "click", "pointer"), ("accessible-action", "action", "accessible action"))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    with open(sys.argv[1]) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    targets = list(dict.fromkeys(line["target"] for line in lines))

    def find(target, tool, **want):
        for line in lines:
            if (line["target"], line["tool"]) == (target, tool) and \
                    all(line.get(k) == v for k, v in want.items()):
                return line
        return None

    runs = {line["runs"] for line in lines if "runs" in line}
    print(f"One action with its settled diff, p50 of {'/'.join(map(str, sorted(runs)))} runs "
          f"(ratio = dogtail / axsight)\n")
    with_before = any(line["tool"] == "before" for line in lines)
    header = ("target", "way", "axsight", "tokens", "dogtail default", "ratio",
              "dogtail zero-delays", "ratio") + (("before", "before / now") if with_before else ())
    rows = []
    for target in targets:
        for mode, via, way in WAYS:
            ax = find(target, "axsight", mode=mode)
            if ax is None:
                continue
            row = [target, way, f"{ax['p50_ms']:.0f} ms", f"{ax['answer_tokens_p50']:.0f}"]
            for dogtail_mode in ("default", "zero-delays"):
                dt = find(target, "dogtail", mode=dogtail_mode, via=via)
                if dt is None:
                    row += ["-", "-"]
                else:
                    row += [f"{dt['p50_ms']:.0f} ms", f"{dt['p50_ms'] / ax['p50_ms']:.2f}x"]
            if with_before:
                old = find(target, "before", mode=mode)
                row += ["-", "-"] if old is None else \
                    [f"{old['p50_ms']:.0f} ms", f"{old['p50_ms'] / ax['p50_ms']:.2f}x"]
            rows.append(row)
    print_table(header, rows)

    settles = [line for line in lines if line["tool"] == "settle"]
    if settles:
        print("\nEach answer against a slow reference (the same click's diff 1 s later), "
              "bench settle:\n")
        print_table(("target", "answer p50", "equal to the reference"),
                    [[s["target"], f"{s['p50_ms']:.0f} ms",
                      f"{s['agreed_with_reference']} of {s['runs']}"] for s in settles])
    fields = {line["binary"]: line for line in lines if line["tool"] == "field-click"}
    if fields:
        print("\nA click into a text field (only the focus moves): the settle time its "
              "answer gives, p50 (axsight click):\n")
        after, before = fields.get("after"), fields.get("before")
        print_table(("now", "before", "before / now"),
                    [[f"{after['p50_ms']:.0f} ms" if after else "-",
                      f"{before['p50_ms']:.0f} ms" if before else "-",
                      f"{before['p50_ms'] / after['p50_ms']:.2f}x" if after and before
                      else "-"]])

    print("\ntokens: p50 of axsight's answer (first line and diff), bytes / 4. "
          "dogtail: Node.click() for pointer, doActionNamed('click') for the accessible "
          "action; its search for the change retries every searchBackoffDuration "
          "(0.5 s by default).")
    for target in targets:
        typical = find(target, "typical")
        if typical:
            text = typical["text"]
            print(f"\nA typical answer, {target} ({len(text.encode())} bytes, "
                  f"~{len(text.encode()) / 4:.0f} tokens):")
            print("\n".join("    " + line for line in text.splitlines()))
    return 0


def print_table(header, rows):
    """Columns padded to their widest cell; the first two left-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for i, row in enumerate([header, *rows]):
        print("  ".join(str(cell).ljust(w) if j < 2 else str(cell).rjust(w)
                        for j, (cell, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    sys.exit(main())
