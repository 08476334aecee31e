"""The policy network file that the Java `rl` policy reads (PolicyNetwork.java; docs/learned-policy.md).

Little-endian: b"KRLN"; int32 version 1 or 2; int32 inputs (25); float32 scale[inputs]; float32
offset[inputs]; in version 2 only, float32 cap[inputs]; the first layer sees min(state, cap) * scale
+ offset (version 1: no cap); int32 layers; per layer int32 outputs,
int32 activation (0 none, 1 tanh, 2 relu), float32 weights[outputs][inputs] row by output, float32
bias[outputs]. The last layer gives 84 logits in the mask's layout (per slot: null, infer, then
batch sizes 1, 2, 4, 8, 16).
"""
import collections
import struct

import numpy as np

MAGIC = b"KRLN"
ACTIVATIONS = {"none": 0, "tanh": 1, "relu": 2}

# A file's contents: per input its scale, offset and cap (+inf in a version 1 file), and the layers.
Network = collections.namedtuple("Network", "scale offset cap layers")


def write(path, scale, offset, layers, cap=None):
    """layers: [(weights [out, in] array, bias [out] array, activation name)]; version 2 with
    `cap`, version 1 without."""
    scale = np.asarray(scale, dtype="<f4")
    offset = np.asarray(offset, dtype="<f4")
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<ii", 1 if cap is None else 2, scale.size))
        f.write(scale.tobytes())
        f.write(offset.tobytes())
        if cap is not None:
            f.write(np.asarray(cap, dtype="<f4").tobytes())
        f.write(struct.pack("<i", len(layers)))
        for w, b, act in layers:
            w = np.asarray(w, dtype="<f4")
            b = np.asarray(b, dtype="<f4")
            f.write(struct.pack("<ii", w.shape[0], ACTIVATIONS[act]))
            f.write(np.ascontiguousarray(w).tobytes())
            f.write(b.tobytes())


def read(path):
    """The file's Network."""
    data = open(path, "rb").read()
    if data[:4] != MAGIC:
        raise ValueError("%s: not a policy network (it does not start with KRLN)" % path)
    version, inputs = struct.unpack_from("<ii", data, 4)
    if version not in (1, 2):
        raise ValueError("%s: version %d, this reader knows versions 1 and 2" % (path, version))
    pos = 12
    scale = np.frombuffer(data, "<f4", inputs, pos); pos += 4 * inputs
    offset = np.frombuffer(data, "<f4", inputs, pos); pos += 4 * inputs
    if version == 2:
        cap = np.frombuffer(data, "<f4", inputs, pos); pos += 4 * inputs
    else:
        cap = np.full(inputs, np.inf, np.float32)
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
    return Network(scale, offset, cap, layers)


def evaluate(network, state):
    """The logits for `state`, in numpy, as the Java reader computes them."""
    x = np.minimum(np.asarray(state, dtype=np.float32), network.cap) * network.scale + network.offset
    for w, b, act in network.layers:
        x = w @ x + b
        if act == "tanh":
            x = np.tanh(x)
        elif act == "relu":
            x = np.maximum(x, 0)
    return x
