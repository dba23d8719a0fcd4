"""Convert a YOLO11-style detector's PyTorch weights (an ultralytics `model.pt`) to ONNX
without PyTorch or ultralytics.

axsight runs its UI-element detector (Microsoft OmniParser v2's icon detector, a YOLO11m
with one class) in ONNX Runtime. The published weights are a PyTorch checkpoint, and the
usual way to ONNX, ultralytics' exporter, needs PyTorch: a 6 GB install for a 40 MB file.
This script needs only numpy and onnx:

1. It reads the checkpoint, a zip of a pickle (`*/data.pkl`) and raw tensor storages
   (`*/data/N`), with an Unpickler that imports nothing: tensors become numpy arrays and
   every other class a placeholder that keeps the attributes the pickle gives it, so the
   module tree (`model.model`, a list of layers with `f`, `i`, `_modules`, `_parameters`,
   `_buffers`) can be walked. No callable from the pickle is ever run.
2. It builds the network's inference graph with onnx.helper (opset 12): batch norms folded
   into their convolutions, SiLU as x * sigmoid(x), and the detection head decoded in the
   graph (distribution focal loss, anchors from the feature maps' shapes, so any input whose
   sides are multiples of 32 works).

The result has the tensors of ultralytics' own export (`export(format='onnx', opset=12,
dynamic=True)`): input `images` [batch, 3, height, width] f32 (RGB / 255), output
`output0` [batch, 4 + classes, anchors] (box centre x, y, width, height in input pixels,
then the class scores after a sigmoid), and the `names` metadata, "{0: 'icon'}".
The same weights with the same onnx, numpy and protobuf give the same bytes: nothing in
the file depends on the time or the machine, so a file can be checked by its sha256.

    python3 detector_from_weights.py model.pt model.onnx [--source TEXT]

Supported modules: those of ultralytics' YOLO11 detection models (Conv, DWConv, C3k2, C3k,
C2f, C3, Bottleneck, SPPF, C2PSA, PSABlock, Attention, Upsample, Concat, Detect); anything
else stops the conversion with its name.
"""

import argparse
import hashlib
import pickle
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 12

# torch's storage classes, by the name the pickle gives them.
STORAGE_DTYPES = {
    "DoubleStorage": np.float64,
    "FloatStorage": np.float32,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


class ConversionError(Exception):
    pass


# --- Reading the checkpoint -------------------------------------------------------------


class Placeholder:
    """Stands for any class the pickle names: keeps what the pickle gives it, runs nothing."""

    qualname = "?"

    def __new__(cls, *args, **kwargs):
        obj = object.__new__(cls)
        obj.__dict__["_pickle_args"] = args
        return obj

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        # nn.Module pickles its __dict__; other classes may add a slots dict.
        if isinstance(state, tuple) and len(state) == 2 and all(
            s is None or isinstance(s, dict) for s in state
        ):
            for part in state:
                self.__dict__.update(part or {})
        elif isinstance(state, dict):
            self.__dict__.update(state)
        else:
            self.__dict__["_pickle_state"] = state

    def __getattr__(self, name):
        # As torch.nn.Module does: submodules, parameters and buffers read as attributes.
        for table in ("_modules", "_parameters", "_buffers"):
            entries = self.__dict__.get(table)
            if isinstance(entries, dict) and name in entries:
                return entries[name]
        raise AttributeError(f"{self.qualname} has no {name!r}")

    def __repr__(self):
        return f"<{self.qualname}>"


class StorageType:
    def __init__(self, name):
        self.name = name


def load_checkpoint(path):
    """The checkpoint's top object (a dict for ultralytics), with numpy arrays for tensors."""
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        pickles = [n for n in names if n.endswith("/data.pkl")]
        if len(pickles) != 1:
            raise ConversionError(f"{path}: expected one */data.pkl in the zip, found {pickles}")
        prefix = pickles[0][: -len("data.pkl")]
        order = "little"
        if prefix + "byteorder" in names:
            order = archive.read(prefix + "byteorder").decode().strip()
        if order not in ("little", "big"):
            raise ConversionError(f"{path}: unknown byte order {order!r}")
        storages = {}
        classes = {}

        def storage(pid):
            if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
                raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
            _, storage_type, key, _location, numel = pid
            if not isinstance(storage_type, StorageType):
                raise pickle.UnpicklingError(f"storage {key}: not a storage type")
            if key not in storages:
                dtype = STORAGE_DTYPES.get(storage_type.name)
                if dtype is None:
                    raise pickle.UnpicklingError(f"{storage_type.name} is not supported")
                dtype = np.dtype(dtype).newbyteorder("<" if order == "little" else ">")
                member = f"{prefix}data/{key}"
                if member not in names:
                    raise pickle.UnpicklingError(f"storage {key}: no {member} in the zip")
                array = np.frombuffer(archive.read(member), dtype=dtype)
                if array.size != numel:
                    raise pickle.UnpicklingError(
                        f"storage {key}: {array.size} elements, the pickle says {numel}"
                    )
                storages[key] = array
            return storages[key]

        def rebuild_tensor(storage, offset, size, stride, *_grad_hooks_metadata):
            # A tensor is a strided view of its storage; copy it out in native byte order.
            size, stride = tuple(size), tuple(stride)
            if not isinstance(storage, np.ndarray) or len(size) != len(stride):
                raise pickle.UnpicklingError("a tensor without its storage")
            if offset < 0 or any(n < 0 for n in size) or any(s < 0 for s in stride):
                raise pickle.UnpicklingError("a tensor with a negative offset, size or stride")
            if all(size):
                last = offset + sum((n - 1) * s for n, s in zip(size, stride))
                if last >= storage.size:
                    raise pickle.UnpicklingError("a tensor reaching outside its storage")
            view = np.lib.stride_tricks.as_strided(
                storage[offset:],
                shape=size,
                strides=[s * storage.itemsize for s in stride],
                writeable=False,
            )
            return np.array(view, dtype=storage.dtype.newbyteorder("="))

        def rebuild_parameter(data, _requires_grad, _hooks, *_rest):
            return data

        # The only callables the pickle may reach: plain data builders.
        known = {
            ("torch._utils", "_rebuild_tensor_v2"): rebuild_tensor,
            ("torch._utils", "_rebuild_parameter"): rebuild_parameter,
            ("torch", "Size"): tuple,
            ("collections", "OrderedDict"): dict,
            ("builtins", "set"): set,
            ("__builtin__", "set"): set,
            ("builtins", "frozenset"): frozenset,
            ("__builtin__", "frozenset"): frozenset,
        }

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                if (module, name) in known:
                    return known[(module, name)]
                if module == "torch" and name.endswith("Storage"):
                    return StorageType(name)
                qualname = f"{module}.{name}"
                if qualname not in classes:
                    classes[qualname] = type(name, (Placeholder,), {"qualname": qualname})
                return classes[qualname]

            def persistent_load(self, pid):
                return storage(pid)

        with archive.open(pickles[0]) as f:
            return Unpickler(f).load()


def kind(module):
    return getattr(type(module), "qualname", type(module).__name__).rsplit(".", 1)[-1]


def children(module):
    return list((module.__dict__.get("_modules") or {}).values())


def tensor(module, name):
    for table in ("_parameters", "_buffers"):
        value = (module.__dict__.get(table) or {}).get(name)
        if value is not None:
            return value
    return None


# --- Building the graph -----------------------------------------------------------------


class Graph:
    def __init__(self):
        self.nodes = []
        self.initializers = []
        self.counts = {}
        self.constants = {}

    def fresh(self, scope, op):
        key = f"{scope}/{op}"
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        return key if n == 0 else f"{key}_{n}"

    def op(self, op, inputs, scope, outputs=1, **attrs):
        name = self.fresh(scope, op)
        outs = [f"{name}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def weight(self, name, array):
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def const(self, array):
        # Shared small constants (shapes, scalars), named by their content.
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())
        if key not in self.constants:
            name = f"const_{len(self.constants)}"
            self.constants[key] = self.weight(name, array)
        return self.constants[key]

    def i64(self, values):
        return self.const(np.array(values, dtype=np.int64))

    def f32(self, value):
        return self.const(np.array(value, dtype=np.float32))


def folded(conv, bn):
    """The conv's weight and bias with the batch norm after it folded in. Computed in float32
    in the order PyTorch's fuse_conv_bn_weights uses (ultralytics' export folds with it), so
    the weights come out bit-identical to that export's."""
    weight = tensor(conv, "weight").astype(np.float32)
    bias = tensor(conv, "bias")
    bias = np.zeros(weight.shape[0], np.float32) if bias is None else bias.astype(np.float32)
    if kind(bn) != "BatchNorm2d":
        raise ConversionError(f"{kind(bn)} after a convolution is not supported")
    channels = weight.shape[0]
    gamma = tensor(bn, "weight")
    gamma = np.ones(channels, np.float32) if gamma is None else gamma.astype(np.float32)
    beta = tensor(bn, "bias")
    beta = np.zeros(channels, np.float32) if beta is None else beta.astype(np.float32)
    mean = tensor(bn, "running_mean").astype(np.float32)
    var = tensor(bn, "running_var").astype(np.float32)
    inv_std = np.float32(1) / np.sqrt(var + np.float32(bn.eps))
    weight = weight * (gamma * inv_std).reshape(-1, *([1] * (weight.ndim - 1)))
    bias = (bias - mean) * inv_std * gamma + beta
    return weight, bias


def param_path(scope):
    """A node scope ("/model.10/m/m.0/attn/pe/conv") as the parameter's state-dict path
    ("model.10.m.0.attn.pe.conv"): a container's child repeats the container's name."""
    parts = []
    for part in scope.strip("/").split("/"):
        if parts and part.startswith(parts[-1] + "."):
            parts[-1] = part
        else:
            parts.append(part)
    return ".".join(parts)


class Converter:
    def __init__(self, model):
        self.model = model
        self.g = Graph()

    def conv2d(self, x, conv, scope, weight=None, bias=None):
        if conv.__dict__.get("padding_mode", "zeros") != "zeros":
            raise ConversionError(f"{scope}: padding mode {conv.padding_mode} is not supported")
        if isinstance(conv.padding, str):
            raise ConversionError(f"{scope}: padding {conv.padding!r} is not supported")
        if weight is None:
            weight = tensor(conv, "weight").astype(np.float32)
            b = tensor(conv, "bias")
            bias = None if b is None else b.astype(np.float32)
        path = param_path(scope)
        inputs = [x, self.g.weight(f"{path}.weight", weight)]
        if bias is not None:
            inputs.append(self.g.weight(f"{path}.bias", bias))
        ph, pw = conv.padding
        return self.g.op(
            "Conv",
            inputs,
            scope,
            dilations=list(conv.dilation),
            group=int(conv.groups),
            kernel_shape=list(weight.shape[2:]),
            pads=[ph, pw, ph, pw],
            strides=list(conv.stride),
        )

    def activation(self, x, act, scope):
        name = kind(act)
        if name == "Identity":
            return x
        if name == "SiLU":
            return self.g.op("Mul", [x, self.g.op("Sigmoid", [x], scope)], scope)
        raise ConversionError(f"{scope}: activation {name} is not supported")

    def conv_block(self, x, m, scope):
        """ultralytics' Conv and DWConv: convolution, batch norm, activation."""
        conv = m.conv
        bn = (m.__dict__.get("_modules") or {}).get("bn")
        if bn is not None:
            weight, bias = folded(conv, bn)
            y = self.conv2d(x, conv, f"{scope}/conv", weight, bias)
        else:
            y = self.conv2d(x, conv, f"{scope}/conv")
        act = (m.__dict__.get("_modules") or {}).get("act")
        return y if act is None else self.activation(y, act, f"{scope}/act")

    def split(self, x, sizes, scope, axis=1):
        return self.g.op("Split", [x], scope, outputs=len(sizes), axis=axis, split=list(sizes))

    def concat(self, xs, scope, axis=1):
        return self.g.op("Concat", list(xs), scope, axis=axis)

    def sequence(self, x, mods, scope):
        for name, m in mods:
            x = self.module(x, m, f"{scope}/{name}")
        return x

    def module(self, x, m, scope):
        name = kind(m)
        sub = m.__dict__.get("_modules") or {}
        if name in ("Conv", "DWConv"):
            return self.conv_block(x, m, scope)
        if name == "Conv2d":
            return self.conv2d(x, m, scope)
        if name == "Sequential":
            # Children are scoped "m.0", "m.1" under "m", as torch's exporter names them.
            last = scope.rsplit("/", 1)[-1]
            return self.sequence(x, [(f"{last}.{k}", v) for k, v in sub.items()], scope)
        if name == "Identity":
            return x
        if name == "Bottleneck":
            y = self.module(self.module(x, m.cv1, f"{scope}/cv1"), m.cv2, f"{scope}/cv2")
            return self.g.op("Add", [x, y], scope) if m.add else y
        if name in ("C2f", "C3k2"):
            # cv1, halves, each block on the last part, all parts joined, cv2.
            parts = list(self.split(self.module(x, m.cv1, f"{scope}/cv1"), [m.c, m.c], scope))
            for k, block in (m.m.__dict__.get("_modules") or {}).items():
                parts.append(self.module(parts[-1], block, f"{scope}/m.{k}"))
            return self.module(self.concat(parts, scope), m.cv2, f"{scope}/cv2")
        if name in ("C3", "C3k"):
            a = self.module(self.module(x, m.cv1, f"{scope}/cv1"), m.m, f"{scope}/m")
            b = self.module(x, m.cv2, f"{scope}/cv2")
            return self.module(self.concat([a, b], scope), m.cv3, f"{scope}/cv3")
        if name == "SPPF":
            y = [self.module(x, m.cv1, f"{scope}/cv1")]
            for _ in range(3):
                y.append(self.maxpool(y[-1], m.m, f"{scope}/m"))
            return self.module(self.concat(y, scope), m.cv2, f"{scope}/cv2")
        if name == "MaxPool2d":
            return self.maxpool(x, m, scope)
        if name == "C2PSA":
            a, b = self.split(self.module(x, m.cv1, f"{scope}/cv1"), [m.c, m.c], scope)
            b = self.module(b, m.m, f"{scope}/m")
            return self.module(self.concat([a, b], scope), m.cv2, f"{scope}/cv2")
        if name == "PSABlock":
            y = self.attention(x, m.attn, f"{scope}/attn")
            x = self.g.op("Add", [x, y], scope) if m.add else y
            y = self.module(x, m.ffn, f"{scope}/ffn")
            return self.g.op("Add", [x, y], scope) if m.add else y
        if name == "Attention":
            return self.attention(x, m, scope)
        if name == "Upsample":
            return self.upsample(x, m, scope)
        qualname = getattr(type(m), "qualname", name)
        raise ConversionError(f"{scope}: module {qualname} is not supported")

    def maxpool(self, x, m, scope):
        def pair(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v, v)

        k, s, p = pair(m.kernel_size), pair(m.stride or m.kernel_size), pair(m.padding)
        if pair(m.dilation) != (1, 1) or m.ceil_mode:
            raise ConversionError(f"{scope}: max pool with dilation or ceil_mode is not supported")
        return self.g.op(
            "MaxPool", [x], scope, kernel_shape=list(k), strides=list(s), pads=[*p, *p]
        )

    def upsample(self, x, m, scope):
        factor = m.scale_factor
        if m.mode != "nearest" or m.size is not None or factor is None:
            raise ConversionError(f"{scope}: only nearest upsampling by a factor is supported")
        fh, fw = factor if isinstance(factor, (tuple, list)) else (factor, factor)
        # asymmetric + floor is PyTorch's "nearest": output pixel i reads input pixel floor(i / f).
        return self.g.op(
            "Resize",
            [x, self.g.f32([]), self.g.f32([1.0, 1.0, fh, fw])],
            scope,
            coordinate_transformation_mode="asymmetric",
            mode="nearest",
            nearest_mode="floor",
        )

    def attention(self, x, m, scope):
        """Multi-head self-attention over the H*W positions, plus a depthwise positional conv."""
        heads, key_dim, head_dim = int(m.num_heads), int(m.key_dim), int(m.head_dim)
        if tensor(m.proj.conv, "weight").shape[0] != heads * head_dim:
            raise ConversionError(f"{scope}: heads x head size is not the channel count")
        qkv = self.module(x, m.qkv, f"{scope}/qkv")
        # [B, heads, 2 key_dim + head_dim, H*W]; 0 keeps the batch, -1 takes H*W.
        qkv = self.g.op("Reshape", [qkv, self.g.i64([0, heads, 2 * key_dim + head_dim, -1])], scope)
        q, k, v = self.split(qkv, [key_dim, key_dim, head_dim], scope, axis=2)
        # Scaling q before the product costs key_dim*N multiplications instead of N*N.
        q = self.g.op("Mul", [q, self.g.f32(m.scale)], scope)
        q_t = self.g.op("Transpose", [q], scope, perm=[0, 1, 3, 2])
        scores = self.g.op("MatMul", [q_t, k], scope)
        # Opset 12's Softmax normalises over the axes from `axis` on: the last one here.
        weights = self.g.op("Softmax", [scores], scope, axis=3)
        weights_t = self.g.op("Transpose", [weights], scope, perm=[0, 1, 3, 2])
        out = self.g.op("MatMul", [v, weights_t], scope)
        shape = self.g.op("Shape", [x], scope)
        out = self.g.op("Reshape", [out, shape], scope)
        pe = self.module(self.g.op("Reshape", [v, shape], scope), m.pe, f"{scope}/pe")
        return self.module(self.g.op("Add", [out, pe], scope), m.proj, f"{scope}/proj")

    def detect(self, feats, m, scope):
        """The head, decoded: per level, box distances by DFL around each cell's centre and
        class scores; levels joined into [B, 4 + classes, anchors]."""
        reg_max, nc = int(m.reg_max), int(m.nc)
        strides = [float(s) for s in np.asarray(m.stride, np.float32)]
        if len(feats) != int(m.nl) or len(strides) != len(feats):
            raise ConversionError(f"{scope}: {len(feats)} inputs for {m.nl} levels")
        if m.__dict__.get("end2end"):
            raise ConversionError(f"{scope}: end-to-end (NMS-free) heads are not supported")
        # DFL's 1x1 conv holds the bin values (0..reg_max-1): its expectation is a MatMul.
        bins = tensor(m.dfl.conv, "weight").astype(np.float32).reshape(reg_max, 1)
        bins_name = self.g.weight(f"{param_path(scope)}.dfl.bins", bins)
        cv2 = children(m.cv2)
        cv3 = children(m.cv3)
        levels = []
        for i, (x, stride) in enumerate(zip(feats, strides)):
            s = f"{scope}/level{i}"
            box = self.module(x, cv2[i], f"{scope}/cv2.{i}")
            cls = self.module(x, cv3[i], f"{scope}/cv3.{i}")
            # [B, 4, reg_max, h*w] -> [B, 4, h*w, reg_max]: softmax over the last axis.
            box = self.g.op("Reshape", [box, self.g.i64([0, 4, reg_max, -1])], s)
            box = self.g.op("Transpose", [box], s, perm=[0, 1, 3, 2])
            box = self.g.op("Softmax", [box], s, axis=3)
            dist = self.g.op("MatMul", [box, bins_name], s)  # [B, 4, h*w, 1]
            dist = self.g.op("Reshape", [dist, self.g.i64([0, 4, -1])], s)
            left_top, right_bottom = self.split(dist, [2, 2], s)
            anchors = self.anchors(x, s)  # [2, h*w]
            x1y1 = self.g.op("Sub", [anchors, left_top], s)
            x2y2 = self.g.op("Add", [anchors, right_bottom], s)
            centre = self.g.op("Div", [self.g.op("Add", [x1y1, x2y2], s), self.g.f32(2.0)], s)
            size = self.g.op("Sub", [x2y2, x1y1], s)
            xywh = self.g.op("Mul", [self.concat([centre, size], s), self.g.f32(stride)], s)
            cls = self.g.op("Reshape", [cls, self.g.i64([0, nc, -1])], s)
            scores = self.g.op("Sigmoid", [cls], s)
            levels.append(self.concat([xywh, scores], s))
        return self.g.op("Concat", levels, scope, axis=2)

    def anchors(self, feat, scope):
        """Cell centres (x + 0.5, y + 0.5) of a [B, C, h, w] map, row by row: [2, h*w]."""
        shape = self.g.op("Shape", [feat], scope)
        h = self.g.op("Gather", [shape, self.g.i64(2)], scope, axis=0)
        w = self.g.op("Gather", [shape, self.g.i64(3)], scope, axis=0)

        def centres(n):
            r = self.g.op("Range", [self.g.i64(0), n, self.g.i64(1)], scope)
            r = self.g.op("Cast", [r], scope, to=TensorProto.FLOAT)
            return self.g.op("Add", [r, self.g.f32(0.5)], scope)

        def grid(values, shape):
            # A row (or column) of centres repeated over the h x w map, then flattened.
            values = self.g.op("Reshape", [values, self.g.i64(shape)], scope)
            values = self.g.op("Expand", [values, hw], scope)
            return self.g.op("Reshape", [values, self.g.i64([1, -1])], scope)

        hw = [self.g.op("Unsqueeze", [n], scope, axes=[0]) for n in (h, w)]
        hw = self.concat(hw, scope, axis=0)
        return self.concat([grid(centres(w), [1, -1]), grid(centres(h), [-1, 1])], scope, axis=0)

    def build(self):
        layers = list((self.model.model.__dict__.get("_modules") or {}).values())
        if not layers:
            raise ConversionError("the checkpoint's model has no layers")
        outputs = []
        x = "images"
        for index, layer in enumerate(layers):
            scope = f"/model.{index}"
            source = layer.f
            if isinstance(source, int):
                inp = x if source == -1 else outputs[source]
            else:
                inp = [x if j == -1 else outputs[j] for j in source]
            name = kind(layer)
            if isinstance(inp, list) and name not in ("Concat", "Detect"):
                raise ConversionError(f"{scope}: {name} with several inputs is not supported")
            if name == "Concat":
                x = self.concat(inp, scope, axis=int(layer.d))
            elif name == "Detect":
                if index != len(layers) - 1:
                    raise ConversionError("Detect is not the last layer")
                x = self.detect(inp, layer, scope)
            else:
                x = self.module(inp, layer, scope)
            outputs.append(x)
        if kind(layers[-1]) != "Detect":
            raise ConversionError(f"the last layer is {kind(layers[-1])}, not a Detect head")
        # The graph's output is named as ultralytics names it.
        last = self.g.nodes[-1]
        if list(last.output) != [x]:
            raise ConversionError("the head's output is not the graph's last node")
        last.output[0] = "output0"
        return layers[-1]


def metadata(checkpoint, model, head, weights_sha256, source):
    args = checkpoint.get("train_args") or model.__dict__.get("args") or {}
    imgsz = args.get("imgsz", 640)
    imgsz = list(imgsz) if isinstance(imgsz, (list, tuple)) else [imgsz, imgsz]
    yaml = model.__dict__.get("yaml") or {}
    names = model.__dict__.get("names") or {i: f"class{i}" for i in range(int(head.nc))}
    family = str(yaml.get("yaml_file", "yolo")).rsplit(".", 1)[0]
    classes = ", ".join(str(n) for n in dict(names).values())
    props = {
        "description": f"{family} detector (classes: {classes}) converted from its PyTorch "
        "weights by axsight's scripts/detector_from_weights.py, without PyTorch",
        "license": str(checkpoint.get("license", "")),
        "trained_with": f"ultralytics {checkpoint.get('version', '?')}",
        "weights_sha256": weights_sha256,
        # The keys ultralytics reads back from its own exports.
        "stride": str(int(max(np.asarray(head.stride, np.float32)))),
        "task": str(args.get("task", "detect")),
        "batch": "1",
        "imgsz": str(imgsz),
        "names": str(dict(names)),
        "args": str({"batch": 1, "dynamic": True, "opset": OPSET, "nms": False}),
        "channels": str(yaml.get("ch", 3)),
        "end2end": "False",
    }
    if source:
        props["source"] = source
    return props


def convert(weights, source=None):
    with open(weights, "rb") as f:
        weights_sha256 = hashlib.sha256(f.read()).hexdigest()
    checkpoint = load_checkpoint(weights)
    if not isinstance(checkpoint, dict):
        raise ConversionError("not an ultralytics checkpoint (no dict at the top)")
    # As ultralytics loads it: the EMA weights if saved, else the model.
    model = checkpoint.get("ema") or checkpoint.get("model")
    if model is None or kind(model) != "DetectionModel":
        raise ConversionError(f"the checkpoint holds {kind(model)}, not a DetectionModel")
    converter = Converter(model)
    head = converter.build()
    channels = int((model.__dict__.get("yaml") or {}).get("ch", 3))
    n_out = 4 + int(head.nc)
    images = helper.make_tensor_value_info(
        "images", TensorProto.FLOAT, ["batch", channels, "height", "width"]
    )
    output = helper.make_tensor_value_info(
        "output0", TensorProto.FLOAT, ["batch", n_out, "anchors"]
    )
    graph = helper.make_graph(
        converter.g.nodes, "main_graph", [images], [output], converter.g.initializers
    )
    onnx_model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="axsight detector_from_weights",
        # Opset 12 runs in every ONNX Runtime since 1.5; IR 7 is what it came with.
        ir_version=7,
    )
    for key, value in metadata(checkpoint, model, head, weights_sha256, source).items():
        onnx_model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(onnx_model, full_check=True)
    return onnx_model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", help="the ultralytics checkpoint (model.pt)")
    parser.add_argument("output", help="the ONNX file to write")
    parser.add_argument("--source", help="where the weights came from, kept in the metadata")
    args = parser.parse_args(argv)
    try:
        model = convert(args.weights, args.source)
    except (ConversionError, pickle.UnpicklingError, zipfile.BadZipFile, OSError) as error:
        print(f"detector_from_weights: {error}", file=sys.stderr)
        return 1
    with open(args.output, "wb") as f:
        f.write(model.SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
