"""The policy network file that the Java `rl` policy reads (PolicyNetwork.java; docs/learned-policy.md).

Little-endian: b"KRLN"; int32 version 1; int32 inputs (25); float32 scale[inputs]; float32
offset[inputs] (the first layer sees state * scale + offset); int32 layers; per layer int32 outputs,
int32 activation (0 none, 1 tanh, 2 relu), float32 weights[outputs][inputs] row by output, float32
bias[outputs]. The last layer gives 84 logits in the mask's layout (per slot: null, infer, then
batch sizes 1, 2, 4, 8, 16).
"""
import struct

import numpy as np

MAGIC = b"KRLN"
VERSION = 1
ACTIVATIONS = {"none": 0, "tanh": 1, "relu": 2}


def write(path, scale, offset, layers):
    """layers: [(weights [out, in] array, bias [out] array, activation name)]."""
    scale = np.asarray(scale, dtype="<f4")
    offset = np.asarray(offset, dtype="<f4")
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<ii", VERSION, scale.size))
        f.write(scale.tobytes())
        f.write(offset.tobytes())
        f.write(struct.pack("<i", len(layers)))
        for w, b, act in layers:
            w = np.asarray(w, dtype="<f4")
            b = np.asarray(b, dtype="<f4")
            f.write(struct.pack("<ii", w.shape[0], ACTIVATIONS[act]))
            f.write(np.ascontiguousarray(w).tobytes())
            f.write(b.tobytes())


def read(path):
    """(scale, offset, layers) as written."""
    data = open(path, "rb").read()
    if data[:4] != MAGIC:
        raise ValueError("%s: not a policy network (it does not start with KRLN)" % path)
    version, inputs = struct.unpack_from("<ii", data, 4)
    pos = 12
    scale = np.frombuffer(data, "<f4", inputs, pos); pos += 4 * inputs
    offset = np.frombuffer(data, "<f4", inputs, pos); pos += 4 * inputs
    (count,) = struct.unpack_from("<i", data, pos); pos += 4
    layers = []
    width = inputs
    names = {v: k for k, v in ACTIVATIONS.items()}
    for _ in range(count):
        out, act = struct.unpack_from("<ii", data, pos); pos += 8
        w = np.frombuffer(data, "<f4", out * width, pos).reshape(out, width); pos += 4 * out * width
        b = np.frombuffer(data, "<f4", out, pos); pos += 4 * out
        layers.append((w, b, names[act]))
        width = out
    if pos != len(data):
        raise ValueError("%s: %d bytes after the last layer" % (path, len(data) - pos))
    return scale, offset, layers


def evaluate(network, state):
    """The logits for `state`, in numpy, as the Java reader computes them."""
    scale, offset, layers = network
    x = np.asarray(state, dtype=np.float32) * scale + offset
    for w, b, act in layers:
        x = w @ x + b
        if act == "tanh":
            x = np.tanh(x)
        elif act == "relu":
            x = np.maximum(x, 0)
    return x
