"""Compare two detector ONNX files (the converter's and a reference export) by running both
in ONNX Runtime on the same inputs: a picture letterboxed as axsight does it, and random
pictures of a few sizes. Prints the largest difference of the raw outputs and whether the
boxes left after non-maximum suppression are the same; exits 1 if they are not.

    .venv/bin/python scripts/compare_detectors.py REFERENCE.onnx CONVERTED.onnx [PICTURE.png]

Needs numpy and onnxruntime (the repository's .venv has both) and, for a picture, PIL
(Debian's python3-pil, seen by .venv).
"""

import sys

import numpy as np
import onnxruntime as ort

# (confidence, IoU) of the NMS runs compared: axsight's defaults, and OmniParser's lower
# confidence, which lets random pictures have boxes too.
THRESHOLDS = ((0.25, 0.45), (0.05, 0.45))
# Boxes count as the same when no corner moved more than this many input pixels.
BOX_TOLERANCE = 0.01


def letterbox(path, side):
    """The picture scaled into side x side (bilinear, pixel centres aligned, no smoothing),
    centred on grey 114, as [1, 3, side, side] values / 255: axsight's letterbox."""
    from PIL import Image

    rgb = np.asarray(Image.open(path).convert("RGB"), np.float32)
    height, width = rgb.shape[:2]
    r = min(side / width, side / height)
    nw, nh = round(width * r), round(height * r)

    def taps(n_out, n_in):
        x = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        x = np.clip(x, 0, n_in - 1)
        lo = np.floor(x).astype(int)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, (x - lo).astype(np.float32)

    y0, y1, fy = taps(nh, height)
    x0, x1, fx = taps(nw, width)
    rows = rgb[y0] * (1 - fy)[:, None, None] + rgb[y1] * fy[:, None, None]
    scaled = rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]
    canvas = np.full((side, side, 3), 114, np.float32)
    left = round((side - nw) / 2 - 0.1)
    top = round((side - nh) / 2 - 0.1)
    canvas[top : top + nh, left : left + nw] = np.round(scaled)
    return (canvas / 255).transpose(2, 0, 1)[None].astype(np.float32)


def boxes(output, confidence, overlap):
    """Greedy NMS on one picture's [4 + classes, anchors]:
    (anchor, class, score, x1, y1, x2, y2) of the boxes kept, best first."""
    xywh, scores = output[:4].T, output[4:].T
    cls = scores.argmax(1)
    score = scores.max(1)
    keep = np.nonzero(score >= confidence)[0]
    keep = keep[np.argsort(-score[keep], kind="stable")]
    corners = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], 1)
    kept = []
    for a in keep:
        ok = True
        for b in kept:
            if cls[a] != cls[b]:
                continue
            lt = np.maximum(corners[a, :2], corners[b, :2])
            rb = np.minimum(corners[a, 2:], corners[b, 2:])
            inter = np.prod(np.clip(rb - lt, 0, None))
            area = lambda i: np.prod(corners[i, 2:] - corners[i, :2])
            if inter / (area(a) + area(b) - inter) > overlap:
                ok = False
                break
        if ok:
            kept.append(a)
    return [(int(a), int(cls[a]), float(score[a]), *map(float, corners[a])) for a in kept]


def rectangles(rng, height, width, count=60):
    picture = np.full((3, height, width), 0.94, np.float32)
    for _ in range(count):
        h, w = rng.integers(12, 80), rng.integers(12, 200)
        y, x = rng.integers(0, height - h), rng.integers(0, width - w)
        picture[:, y : y + h, x : x + w] = rng.random(3, dtype=np.float32)[:, None, None]
        picture[:, y : y + h, x] = picture[:, y : y + h, x + w - 1] = 0.2
        picture[:, y, x : x + w] = picture[:, y + h - 1, x : x + w] = 0.2
    return picture[None]


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    sessions = [
        ort.InferenceSession(p, options, providers=["CPUExecutionProvider"]) for p in argv[:2]
    ]
    rng = np.random.default_rng(0)
    cases = []
    if len(argv) == 3:
        for side in (640, 1280):
            cases.append((f"{argv[2]} at {side}x{side}", letterbox(argv[2], side)))
    for batch, h, w in ((1, 640, 640), (1, 736, 1280), (1, 64, 96), (2, 96, 64)):
        cases.append((f"noise {batch}x3x{h}x{w}", rng.random((batch, 3, h, w), dtype=np.float32)))
    # Noise has no controls in it: random flat rectangles (button-like) give boxes to compare.
    for h, w in ((640, 640), (736, 1280)):
        cases.append((f"rectangles 1x3x{h}x{w}", rectangles(rng, h, w)))
    same = True
    for name, images in cases:
        ref, new = (s.run(None, {"images": images})[0] for s in sessions)
        if ref.shape != new.shape:
            print(f"{name}: output shapes differ: {ref.shape} and {new.shape}")
            same = False
            continue
        diff = np.abs(ref - new)
        print(
            f"{name}: output {list(new.shape)}, max abs diff {diff.max():.3g} "
            f"(boxes {diff[:, :4].max():.3g} px, scores {diff[:, 4:].max():.3g})"
        )
        for i in range(new.shape[0]):
            for confidence, overlap in THRESHOLDS:
                a = boxes(ref[i], confidence, overlap)
                b = boxes(new[i], confidence, overlap)
                moved = max(
                    (abs(p - q) for x, y in zip(a, b) for p, q in zip(x[3:], y[3:])), default=0.0
                )
                identical = [x[:2] for x in a] == [x[:2] for x in b] and moved <= BOX_TOLERANCE
                print(
                    f"  picture {i}, NMS at confidence {confidence}, IoU {overlap}: "
                    f"{len(a)} and {len(b)} boxes, "
                    + (f"identical (corners within {moved:.2g} px)" if identical else "DIFFERENT")
                )
                same &= identical
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
