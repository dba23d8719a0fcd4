#!/usr/bin/env python3
"""The all-model OCR candidate: PP-OCRv4's text detector and recogniser (ONNX, from
PyPI's rapidocr-onnxruntime wheel, Apache-2.0) on the captures scripts/bench_ocr.py
made, in ONNX Runtime with numpy; writes OUT/NAME.lines.tsv for
`scripts/bench_ocr.py --lines OUT` and prints model time per window.

    .venv/bin/python scripts/bench_ocr_ppocr.py [--captures DIR] [--out OUT] [--threads N]
        [--scale 0.75] [--batch 1] [--models DIR]

Models: scripts/get-ocr-model --recogniser puts both beside each other
(${XDG_DATA_HOME:-~/.local/share}/axsight/). Boxes as axsight's regions.rs makes
them (threshold 0.3, mean 0.5, unclip 1.6, axis-aligned); each box is resized to
48 pixels high and recognised (CTC greedy decoding over the model's 6,623
characters). The box search here is Python (not timed): the times are the two
models' alone, as wall and CPU seconds.
"""
import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image


def boxes_of(prob, width, height, threshold=0.3, box_threshold=0.5, unclip=1.6):
    mh, mw = prob.shape
    mask = prob > threshold
    seen = np.zeros_like(mask)
    sx, sy = width / mw, height / mh
    out = []
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        stack = [(y0, x0)]
        seen[y0, x0] = True
        x1 = x2 = x0
        y1 = y2 = y0
        total = 0.0
        count = 0
        while stack:
            y, x = stack.pop()
            total += prob[y, x]
            count += 1
            x1, x2, y1, y2 = min(x1, x), max(x2, x), min(y1, y), max(y2, y)
            for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= yy < mh and 0 <= xx < mw and mask[yy, xx] and not seen[yy, xx]:
                    seen[yy, xx] = True
                    stack.append((yy, xx))
        if total / count < box_threshold:
            continue
        w, h = x2 + 1 - x1, y2 + 1 - y1
        grow = w * h * unclip / (2 * (w + h))
        box = (max(0, int(np.floor((x1 - grow) * sx))), max(0, int(np.floor((y1 - grow) * sy))),
               min(width, int(np.ceil((x2 + 1 + grow) * sx))),
               min(height, int(np.ceil((y2 + 1 + grow) * sy))))
        if box[2] - box[0] > 3 and box[3] - box[1] > 3:
            out.append(box)
    return sorted(out, key=lambda b: (b[1], b[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local/share")) / "axsight"
    parser.add_argument("--captures", type=Path, default=Path("/tmp/axsight-bench-ocr"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/axsight-bench-ocr/ppocr"))
    parser.add_argument("--models", type=Path, default=data)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scale", type=float, default=0.75)
    parser.add_argument("--batch", type=int, default=1, help="lines per recogniser run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    det = ort.InferenceSession(str(args.models / "ppocr-v4-det.onnx"), options)
    rec = ort.InferenceSession(str(args.models / "ppocr-v4-rec.onnx"), options)
    chars = (["blank"] + rec.get_modelmeta().custom_metadata_map["character"].split("\n")
             + [" "])
    walls, cpus = [], []
    for png in sorted(args.captures.glob("*.png")):
        bounds = json.loads(png.with_suffix(".json").read_text())["tree"]["bounds"]
        image = np.asarray(Image.open(png).convert("RGB"))
        height, width = image.shape[:2]
        dw = max(32, round(width * args.scale / 32) * 32)
        dh = max(32, round(height * args.scale / 32) * 32)
        small = np.asarray(Image.fromarray(image).resize((dw, dh), Image.BILINEAR))
        x = (small.astype(np.float32) / 127.5 - 1).transpose(2, 0, 1)[None]
        wall, cpu = time.perf_counter(), time.process_time()
        prob = det.run(None, {"x": x})[0][0, 0]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        boxes = boxes_of(prob, width, height)
        crops = []
        for x1, y1, x2, y2 in boxes:
            crop = Image.fromarray(image[y1:y2, x1:x2])
            crops.append(np.asarray(crop.resize((max(1, round(48 * (x2 - x1) / (y2 - y1))), 48),
                                                Image.BILINEAR)))
        order = sorted(range(len(crops)), key=lambda i: crops[i].shape[1])
        read = [("", 0.0)] * len(crops)
        for start in range(0, len(order), args.batch):
            group = order[start:start + args.batch]
            longest = max(crops[i].shape[1] for i in group)
            batch = np.zeros((len(group), 3, 48, longest), np.float32)
            for k, i in enumerate(group):
                batch[k, :, :, :crops[i].shape[1]] = (crops[i].astype(np.float32) / 127.5 - 1
                                                      ).transpose(2, 0, 1)
            w0, c0 = time.perf_counter(), time.process_time()
            probs = rec.run(None, {"x": batch})[0]
            wall += time.perf_counter() - w0
            cpu += time.process_time() - c0
            for k, i in enumerate(group):
                best, scores, text, last = probs[k].argmax(1), probs[k].max(1), [], 0
                kept = []
                for index, score in zip(best, scores):
                    if index != 0 and index != last:
                        text.append(chars[index])
                        kept.append(score)
                    last = index
                read[i] = ("".join(text).strip(), float(np.mean(kept)) if kept else 0.0)
        with open(args.out / f"{png.stem}.lines.tsv", "w") as f:
            for (x1, y1, x2, y2), (text, conf) in zip(boxes, read):
                if text and conf >= 0.5:
                    f.write(f"{bounds['x'] + x1}\t{bounds['y'] + y1}\t{x2 - x1}\t{y2 - y1}\t"
                            f"{conf:.3f}\t{text}\n")
        walls.append(wall)
        cpus.append(cpu)
        print(f"{png.stem:14} {len(boxes):4} lines  models {1000 * wall:6.0f} ms wall, "
              f"{1000 * cpu:6.0f} ms CPU", flush=True)
    print(f"mean {1000 * statistics.mean(walls):.0f} ms wall, "
          f"{1000 * statistics.mean(cpus):.0f} ms CPU per window")


if __name__ == "__main__":
    main()
