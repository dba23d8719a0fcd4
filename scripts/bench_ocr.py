#!/usr/bin/python3
"""Measure OCR recall against the accessibility tree, per window and per setting.

    scripts/bench_ocr.py [--out DIR] [--no-capture] [--quick] [--missed] [--lines DIR]
    scripts/bench_ocr.py --candidates [--out DIR] [--no-capture] [--rounds N] [--nice]
                         [--only KEY,KEY] [--json FILE]

Needs tesseract-ocr, tesseract-ocr-eng and python3-pil (Debian), and Debian's
python3 (/usr/bin/python3). A full run takes about 10 minutes on two cores.

First it captures windows, each app in its own headless desktop (scripts/with-desktop;
windows of one desktop overlap at 0,0 without a window manager, and a covered
window's pixels are whatever covers it): the fixture app, gtk3-widget-factory's
pages 1, 2 and 3, and the fixture and page 1 again in Adwaita's dark theme. Each
window gives DIR/NAME.png (`axsight shot`) and DIR/NAME.json (`axsight tree --json`).

Then it runs tesseract on every capture with each setting (page segmentation mode,
upscale factor and filter, greyscale, inverting dark pictures, thread limit),
preprocessing the way axsight-vision's ocr.rs does (with Pillow: its bicubic is
ocr.rs's Catmull-Rom), groups the words into lines as ocr.rs does, and prints
recall and time per window and per setting. Time is Tesseract's alone.

Recall. The ground truth is every element the tree prints (drawn: `showing`) with a
non-empty name, other than the window itself. It is found when an OCR line whose
box overlaps the element's box reads the name: after lower-casing, dropping accents
and keeping only letters, digits and single spaces, either the name is inside the
line's text as whole words, or (names of more than 3 words) at least 80 % of the
name's words are among the words of the lines overlapping the box (a paragraph
spans several lines). Two numbers:
  all   -- every named element, as above;
  text  -- only those whose name is drawn as text inside their box: not icons
           (role Image, `*-symbolic`), not containers (Table, ScrollPane, Canvas,
           List, Tree, ToolBar, MenuBar, Panel, Filler, Dialog), not fields whose
           text is their value and whose name is a label beside them or nowhere
           (Edit, SpinButton, Slider, a ComboBox named like a Text label of the
           window: the label is counted instead), and not the icon-only buttons
           listed in ICON_ONLY (picked by eye on the captures).
Disabled (greyed-out) elements are counted in both; their recall is also shown
apart.

--candidates compares the ways of reading a window on the same captures with
the same measure, as one table (docs/ocr.md): the tesseract CLI as axsight ran
it before (psm 11, 2x, a PNG on stdin), and axsight-vision's read_text through
its example ocr_lines (release build): Tesseract in process on the whole window,
PP-OCR's text detector with Tesseract reading each line (one or two readers),
and PP-OCR's detector and recogniser both (scripts/bench_ocr_ppocr.py). Needs
scripts/get-ocr-model --recogniser and the .venv (onnxruntime). Times are the
median of 3 runs per window, after a warm-up run, as wall and as CPU time (all
threads); each candidate runs --rounds times (2), in alternating order, and its
best round is kept. The load average is printed: on a shared machine wall time is
the one that moves; --nice runs the candidates ahead of other work.

--only keeps the candidates named (cli, page, ppocr, lines1, lines2: the rows in
that order); --json also writes the table's figures to FILE (scripts/bench-waits).

--lines DIR scores lines made elsewhere instead (DIR/NAME.lines.tsv with
`x y width height confidence text` per line, screen pixels), e.g. by ocr.rs itself.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from itertools import product
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
AXSIGHT = Path(os.environ.get("AXSIGHT_BIN", REPO / "target" / "debug" / "axsight"))
FIXTURE = "/usr/bin/python3 tests/fixtures/fixture_app.py --title OCR"

# name, app command, theme, selector or target to act on, and how to point axsight
# at the window.
SCENES = [
    ("fixture", FIXTURE, None, [], ["--window", "OCR"]),
    ("factory1", "gtk3-widget-factory", None, [], ["--app", "gtk3-widget-factory"]),
    ("factory2", "gtk3-widget-factory", None, ['role:RadioButton && name:"Page 2"'],
     ["--app", "gtk3-widget-factory"]),
    ("factory3", "gtk3-widget-factory", None, ['role:RadioButton && name:"Page 3"'],
     ["--app", "gtk3-widget-factory"]),
    ("fixture-dark", FIXTURE, "Adwaita:dark", [], ["--window", "OCR"]),
    ("factory1-dark", "gtk3-widget-factory", "Adwaita:dark", [],
     ["--app", "gtk3-widget-factory"]),
]

# Roles whose name is not drawn inside their box: containers, icons, and fields
# whose name comes from a label beside them or from nowhere (their text is the value).
UNDRAWN_ROLES = {"Table", "ScrollPane", "Canvas", "List", "Tree", "ToolBar", "MenuBar",
                 "Panel", "Filler", "Window", "Image", "Dialog", "Edit", "SpinButton",
                 "Slider"}
# Icon-only buttons, by eye on the captures: gtk3-widget-factory's headerbar and
# page 2's toolbar and list buttons; the fixture's three beside its status line.
ICON_ONLY = {"factory": {"minimize", "maximize", "close", "menu", "new", "save", "search",
                         "insert", "remove item", "add item", "refresh"},
             "fixture": {"save", "delete", "refresh"}}


def capture(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    by_desktop = {}
    for scene in SCENES:
        by_desktop.setdefault((scene[1], scene[2]), []).append(scene)
    for (app, theme), scenes in by_desktop.items():
        steps = []
        for name, _, _, clicks, target in scenes:
            args = " ".join(f"'{a}'" for a in target)
            for click in clicks:
                steps.append(f'"$ax" click {args} \'{click}\' >/dev/null; sleep 0.7')
            steps.append(f'"$ax" tree {args} --json --max-chars 10000000 > "$out/{name}.json"')
            steps.append(f'"$ax" shot {args} "$out/{name}.png" >/dev/null')
        env = dict(os.environ, ax=str(AXSIGHT), out=str(out))
        if theme:
            env["GTK_THEME"] = theme
        script = "set -e; sleep 1; " + "; ".join(steps)
        subprocess.run([str(REPO / "scripts" / "with-desktop"), "-q", "--app", app, "--",
                        "bash", "-c", script], check=True, cwd=REPO, env=env)


def norm(text: str) -> str:
    """Lower case, accents dropped, only letters and digits, single spaces."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text).split())


def walk(node, window):
    yield node
    for child in node.get("children", []):
        yield from walk(child, window)


def overlaps(a, b) -> bool:
    return (a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
            and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])


def ground_truth(tree_json: Path):
    data = json.loads(tree_json.read_text())
    root = data["tree"]
    nodes = list(walk(root, root))
    window = root["bounds"]
    wbox = (window["x"], window["y"], window["width"], window["height"])
    label_names = {norm(n.get("name", "")) for n in nodes if n.get("role") == "Text"}
    truth = []
    for node in nodes[1:]:
        name = norm(node.get("name", ""))
        b = node.get("bounds")
        if not name or not b or node.get("role") == "Window":
            continue
        box = (b["x"], b["y"], b["width"], b["height"])
        if not overlaps(box, wbox):
            continue
        role = node.get("role")
        drawn = True
        icons = ICON_ONLY.get(tree_json.stem.split("-")[0].rstrip("0123456789"), set())
        if role in UNDRAWN_ROLES or node.get("name", "").endswith("-symbolic"):
            drawn = False
        elif role == "ComboBox" and name in label_names:
            drawn = False
        elif role in ("Button", "ToggleButton") and name in icons:
            drawn = False
        truth.append({
            "name": name, "role": role, "box": box, "text": drawn,
            "disabled": "enabled" not in node.get("states", []),
        })
    return truth, wbox


def found(element, lines) -> bool:
    near = [line for line in lines if overlaps(element["box"], line["box"])]
    name = element["name"]
    for line in near:
        if f" {name} " in f" {line['norm']} ":
            return True
    words = name.split()
    if len(words) > 3:
        have = set(" ".join(line["norm"] for line in near).split())
        return sum(w in have for w in words) >= 0.8 * len(words)
    return False


# --- OCR as ocr.rs does it -------------------------------------------------------

def preprocess(png: Path, scale: float, filt: str, grey: bool, invert: str, tmp: Path):
    from PIL import Image, ImageOps
    image = Image.open(png).convert("RGB")
    if grey:
        image = image.convert("L")
    if invert != "never":
        lum = ImageOps.grayscale(image)
        mean = sum(i * c for i, c in enumerate(lum.histogram())) / (lum.width * lum.height)
        if invert == "always" or mean < 128:
            image = ImageOps.invert(image)
    if scale != 1:
        filters = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR,
                   "bicubic": Image.BICUBIC, "lanczos": Image.LANCZOS}
        image = image.resize((round(image.width * scale), round(image.height * scale)),
                             filters[filt])
    path = tmp / f"{png.stem}-{scale}-{filt}-{grey}-{invert}.png"
    image.save(path, compress_level=1)
    return path


# Prefix of the candidates' commands (--nice).
PREFIX = []


def tesseract(image: Path, psm: int, threads: int, extra=()):
    env = dict(os.environ, OMP_THREAD_LIMIT=str(threads))
    start = time.monotonic()
    with open(image, "rb") as stdin:
        out = subprocess.run([*PREFIX, "tesseract", "stdin", "stdout", "--psm", str(psm), "-l", "eng",
                              *extra, "tsv"], stdin=stdin, capture_output=True, env=env, check=True)
    return out.stdout.decode("utf-8", "replace"), time.monotonic() - start


def group(tsv: str, scale: float, origin, min_conf: float):
    """Words (level 5, conf >= 0) grouped by (block, paragraph, line), as ocr.rs."""
    lines = {}
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5":
            continue
        try:
            block, par, line = int(cols[2]), int(cols[3]), int(cols[4])
            left, top, width, height = (int(c) for c in cols[6:10])
            conf = float(cols[10])
        except ValueError:
            continue
        text = cols[11].strip()
        if conf < 0 or not text:
            continue
        lines.setdefault((block, par, line), []).append((left, top, width, height, conf, text))
    out = []
    for words in lines.values():
        x0 = min(w[0] for w in words)
        y0 = min(w[1] for w in words)
        x1 = max(w[0] + w[2] for w in words)
        y1 = max(w[1] + w[3] for w in words)
        conf = statistics.mean(w[4] for w in words) / 100
        text = " ".join(w[5] for w in words)
        if conf < min_conf:
            continue
        x = origin[0] + math.floor(x0 / scale)
        y = origin[1] + math.floor(y0 / scale)
        box = (x, y, origin[0] + math.ceil(x1 / scale) - x, origin[1] + math.ceil(y1 / scale) - y)
        out.append({"box": box, "text": text, "conf": conf, "norm": norm(text)})
    return out


def score(truth, lines):
    counts = {"all": [0, 0], "text": [0, 0], "disabled": [0, 0]}
    missed = []
    for element in truth:
        hit = found(element, lines)
        kinds = ["all"] + (["text"] if element["text"] else []) + \
            (["disabled"] if element["disabled"] and element["text"] else [])
        for kind in kinds:
            counts[kind][0] += hit
            counts[kind][1] += 1
        if not hit and element["text"]:
            missed.append(f'{element["role"]} {element["name"]!r}')
    return counts, missed


def score_dir(truths, names, lines_dir: Path):
    """Recall over every window of lines_dir's NAME.lines.tsv files."""
    total = {"all": [0, 0], "text": [0, 0], "disabled": [0, 0]}
    per = {}
    for n in names:
        lines = []
        for row in (lines_dir / f"{n}.lines.tsv").read_text().splitlines():
            x, y, w, h, conf, text = row.split("\t", 5)
            lines.append({"box": (int(x), int(y), int(w), int(h)), "conf": float(conf),
                          "text": text, "norm": norm(text)})
        counts, missed = score(truths[n][0], lines)
        per[n] = (counts, missed)
        for kind in total:
            total[kind][0] += counts[kind][0]
            total[kind][1] += counts[kind][1]
    return total, per


def cli_candidate(args, names, truths, out: Path):
    """The tesseract CLI as ocr.rs ran it before: wall and CPU (children) per window."""
    import resource
    out.mkdir(parents=True, exist_ok=True)
    walls, cpus, factory = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            image = preprocess(args.out / f"{n}.png", 2.0, "bicubic", True, "dark", Path(tmp))
            tesseract(image, 11, 1)
            runs = []
            for _ in range(3):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                tsv, took = tesseract(image, 11, 1)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                runs.append((took, (after.ru_utime + after.ru_stime)
                             - (before.ru_utime + before.ru_stime)))
            walls.append(statistics.median(r[0] for r in runs) * 1000)
            cpus.append(statistics.median(r[1] for r in runs) * 1000)
            if n.startswith("factory"):
                factory.append(walls[-1])
            lines = group(tsv, 2.0, truths[n][1][:2], 0.3)
            with open(out / f"{n}.lines.tsv", "w") as f:
                for line in lines:
                    x, y, w, h = line["box"]
                    f.write(f"{x}\t{y}\t{w}\t{h}\t{line['conf']:.3f}\t{line['text']}\n")
    return statistics.mean(walls), statistics.mean(cpus), statistics.mean(factory)


def candidates(args, names, truths):
    example = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / \
        "examples" / "ocr_lines"
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "axsight-vision", "--example",
                    "ocr_lines"], check=True, cwd=REPO)
    venv_python = REPO / ".venv" / "bin" / "python"
    runtime = next(iter(sorted((REPO / ".venv" / "lib").glob(
        "python3*/site-packages/onnxruntime/capi/libonnxruntime.so*"))), None)
    env = dict(os.environ)
    if runtime and not env.get("AXSIGHT_ONNXRUNTIME"):
        env["AXSIGHT_ONNXRUNTIME"] = str(runtime)
    mean_re = re.compile(r"mean ([0-9.]+) ms wall, ([0-9.]+) ms CPU")

    def run(command, out):
        done = subprocess.run([*PREFIX, *command], check=True, cwd=REPO, env=env, capture_output=True,
                              text=True)
        wall, cpu = mean_re.search(done.stdout).groups()
        factory = [float(m) for m in re.findall(r"^factory\S*.*?([0-9.]+) ms wall", done.stdout,
                                                re.M)]
        return float(wall), float(cpu), statistics.mean(factory)

    rows = [
        ("tesseract CLI, psm 11, 2x, PNG on stdin (before)", "cli",
         lambda out: cli_candidate(args, names, truths, out)),
        ("Tesseract in process, whole window, psm 11, 2x, LSTM only", "page",
         lambda out: run([str(example), str(args.out), str(out), "--page", "--threads", "1"],
                         out)),
        ("PP-OCRv4 detector + recogniser (ONNX Runtime, 2 threads)", "ppocr",
         lambda out: run([str(venv_python), str(REPO / "scripts" / "bench_ocr_ppocr.py"),
                          "--captures", str(args.out), "--out", str(out)], out)),
        ("PP-OCRv4 detector + Tesseract per line, 1 reader", "lines1",
         lambda out: run([str(example), str(args.out), str(out), "--threads", "1"], out)),
        ("PP-OCRv4 detector + Tesseract per line, 2 readers (used)", "lines2",
         lambda out: run([str(example), str(args.out), str(out), "--threads", "2"], out)),
    ]
    if args.only:
        keep = args.only.split(",")
        unknown = set(keep) - {key for _, key, _ in rows}
        if unknown:
            sys.exit(f"bench_ocr.py: --only: no candidate {', '.join(sorted(unknown))}")
        rows = [row for row in rows if row[1] in keep]
    if args.nice:
        PREFIX[:] = ["nice", "-n", "-20"]
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}, "
          f"{os.cpu_count()} cores; {args.rounds} rounds, alternating order, best kept"
          + ("; under nice -n -20" if args.nice else ""), flush=True)
    best = {}
    for round_ in range(args.rounds):
        for label, key, make in (rows if round_ % 2 == 0 else rows[::-1]):
            out = args.out / f"candidate-{key}"
            times = make(out)
            if key not in best or times[0] < best[key][0]:
                best[key] = times
    print("| candidate | text | all | wall ms / window | widget factory's, wall | "
          "CPU ms / window |")
    print("|---|---|---|---|---|---|")
    figures = {}
    for label, key, _ in rows:
        wall, cpu, factory = best[key]
        total, _ = score_dir(truths, names, args.out / f"candidate-{key}")
        print(f"| {label} | {pct(total['text']).strip()} | {pct(total['all']).strip()} | "
              f"{wall:.0f} | {factory:.0f} | {cpu:.0f} |", flush=True)
        figures[key] = {"label": label, "text": total["text"], "all": total["all"],
                        "wall_ms": wall, "factory_wall_ms": factory, "cpu_ms": cpu}
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"windows": names, "candidates": figures}, f, indent=1)


def pct(pair):
    return f"{100 * pair[0] / pair[1]:5.1f}%" if pair[1] else "   - "


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/axsight-bench-ocr"))
    parser.add_argument("--no-capture", action="store_true", help="reuse DIR's captures")
    parser.add_argument("--quick", action="store_true", help="only the chosen defaults")
    parser.add_argument("--lines", type=Path, help="score DIR/NAME.lines.tsv instead")
    parser.add_argument("--missed", action="store_true", help="list what each setting missed")
    parser.add_argument("--candidates", action="store_true",
                        help="compare the OCR candidates in one table")
    parser.add_argument("--rounds", type=int, default=2,
                        help="--candidates: runs of each, the best kept")
    parser.add_argument("--only", help="--candidates: only these (comma-separated keys)")
    parser.add_argument("--json", type=Path, help="--candidates: also write the figures here")
    parser.add_argument("--nice", action="store_true",
                        help="--candidates: run them under nice -n -20 (root), ahead of "
                        "other work on a shared machine")
    args = parser.parse_args()
    if not args.no_capture and not args.lines:
        subprocess.run(["cargo", "build", "-q", "-p", "axsight"], check=True, cwd=REPO)
        capture(args.out)
    names = [s[0] for s in SCENES if (args.out / f"{s[0]}.png").exists()]
    truths = {n: ground_truth(args.out / f"{n}.json") for n in names}

    if args.candidates:
        candidates(args, names, truths)
        return
    if args.lines:
        total, per = score_dir(truths, names, args.lines)
        for n in names:
            counts, missed = per[n]
            print(f"{n:14} all {pct(counts['all'])} text {pct(counts['text'])} "
                  f"disabled {pct(counts['disabled'])}  missed: {', '.join(missed)}")
        print(f"{'total':14} all {pct(total['all'])} text {pct(total['text'])} "
              f"disabled {pct(total['disabled'])}  ({total['all'][1]} named elements, "
              f"{total['text'][1]} drawn as text)")
        return

    # setting: (psm, scale, filter, grey, invert, threads, min_conf)
    default = (11, 2.0, "bicubic", True, "dark", 1, 0.3)
    if args.quick:
        settings = [default]
    else:
        settings = [(psm, 1.0, "nearest", False, "never", 1, 0.0) for psm in (3, 6, 11, 12)]
        settings += [(psm, s, f, False, "never", 1, 0.0) for psm, s, f in
                     product((3, 11), (2.0, 3.0), ("nearest", "bicubic", "lanczos"))]
        settings += [(psm, 2.0, "bicubic", g, inv, 1, 0.0) for psm, g, inv in
                     product((3, 6, 11, 12), (False, True), ("never", "dark"))]
        settings += [(11, 1.5, "bicubic", True, "dark", 1, 0.0)]
        settings += [(11, 2.0, "bicubic", True, "dark", t, 0.0) for t in (2, 4)]
        settings += [(11, 2.0, "bicubic", True, "dark", 1, c) for c in (0.3, 0.5, 0.7)]
        settings = list(dict.fromkeys(settings))

    print(f"{'psm':>3} {'scale':>5} {'filter':8} {'grey':4} {'invert':6} {'thr':>3} "
          f"{'minc':>4} | " + " | ".join(f"{n:>14}" for n in names) +
          " | total all / text / grey-out | s/window")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for setting in settings:
            psm, scale, filt, grey, invert, threads, min_conf = setting
            cells, total, times, all_missed = [], {"all": [0, 0], "text": [0, 0],
                                                   "disabled": [0, 0]}, [], {}
            for n in names:
                truth, wbox = truths[n]
                image = preprocess(args.out / f"{n}.png", scale, filt, grey, invert, tmp)
                tsv, took = tesseract(image, psm, threads)
                times.append(took)
                lines = group(tsv, scale, wbox[:2], min_conf)
                counts, missed = score(truth, lines)
                all_missed[n] = missed
                for kind in total:
                    total[kind][0] += counts[kind][0]
                    total[kind][1] += counts[kind][1]
                cells.append(f"{pct(counts['all'])}/{pct(counts['text'])}")
            print(f"{psm:>3} {scale:>5} {filt:8} {str(grey)[0]:4} {invert:6} {threads:>3} "
                  f"{min_conf:>4} | " + " | ".join(f"{c:>14}" for c in cells) +
                  f" | {pct(total['all'])} / {pct(total['text'])} / {pct(total['disabled'])}"
                  f" | {statistics.mean(times):.2f}", flush=True)
            if args.missed:
                for n, missed in all_missed.items():
                    print(f"    {n}: {', '.join(missed)}")
    print("cells: recall of all named elements / of those drawn as text; "
          f"elements (all/text): " +
          ", ".join(f"{n} {len(truths[n][0])}/{sum(e['text'] for e in truths[n][0])}"
                    for n in names))


if __name__ == "__main__":
    sys.exit(main())
