#!/usr/bin/env python3
"""The model zoo: real architectures exported from PyTorch to ONNX, as a Kairos model repository.

    python3 testbed/zoo/zoo.py                         # all four into ~/.cache/kairos/zoo
    python3 testbed/zoo/zoo.py --models mobilenet_v2 --out target/zoo

Each model is built by torchvision (ResNet-50, GoogLeNet, MobileNetV2) or from torch's own
modules (Linear, LayerNorm, softmax: an encoder of BERT-base's shape), with random weights from a fixed seed:
nothing is downloaded, the weights are random, and the work per input is the real architecture's.
Each is exported with a dynamic batch axis into <out>/<name>/model.onnx beside its manifest
<out>/<name>/model.json (input, output, batch sizes, memory_bytes), the layout of docs/models.md.
Where the committed profiles (testbed/zoo/profiles.json, written by `kairos profile`) list a model,
its manifest takes that profile's latency_ms and load_ms, so that it is scheduled as measured.

Needs Debian's python3-torch and python3-torchvision (torch 1.13, torchvision 0.14, or later).
A model whose files already exist is not exported again unless --force is given.
"""
import argparse
import json
import math
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROFILES = HERE / "profiles.json"

# BERT-base: 12 layers, hidden 768, 12 heads, feed-forward 3072. The encoder takes the token
# embeddings (sequence length x hidden, FLOAT32), as BERT's encoder does after its embedding
# lookup (which does no multiply-adds); requests then carry any float tensor.
BERT_SEQUENCE = 128
BERT_HIDDEN = 768
BERT_LAYERS = 12
BERT_HEADS = 12
BERT_FF = 3072

SEED = 20240229


def default_out():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "kairos" / "zoo"


# name -> (per-request input shape, output shape, batch sizes, what it is)
MODELS = {
    "resnet50": ([3, 224, 224], [1000], [1, 2, 4, 8, 16], "ResNet-50 (torchvision), 224x224"),
    "googlenet": ([3, 224, 224], [1000], [1, 2, 4, 8, 16], "GoogLeNet / Inception v1 (torchvision, no auxiliary heads), 224x224"),
    "mobilenet_v2": ([3, 224, 224], [1000], [1, 2, 4, 8, 16, 32], "MobileNetV2 (torchvision), 224x224"),
    "bert_base_encoder": ([BERT_SEQUENCE, BERT_HIDDEN], [BERT_SEQUENCE, BERT_HIDDEN], [1, 2, 4, 8],
                          "an encoder of BERT-base's shape (12 layers, hidden 768, 12 heads, FF 3072), sequence length %d" % BERT_SEQUENCE),
}


def build(name):
    import torch
    import torchvision
    torch.manual_seed(SEED)
    if name == "resnet50":
        return torchvision.models.resnet50(weights=None)
    if name == "googlenet":
        return torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(weights=None)
    if name == "bert_base_encoder":
        return BertEncoder()
    raise ValueError(name)


def _bert_encoder_class():
    import torch

    class Layer(torch.nn.Module):
        """One BERT layer (post-norm), as BERT's own: Q, K and V projections, scaled dot-product
        attention over 12 heads, the output projection, add & norm, feed-forward with GELU, add & norm."""

        def __init__(self):
            super().__init__()
            self.query = torch.nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
            self.key = torch.nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
            self.value = torch.nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
            self.out = torch.nn.Linear(BERT_HIDDEN, BERT_HIDDEN)
            self.norm1 = torch.nn.LayerNorm(BERT_HIDDEN, eps=1e-12)
            self.ff1 = torch.nn.Linear(BERT_HIDDEN, BERT_FF)
            self.ff2 = torch.nn.Linear(BERT_FF, BERT_HIDDEN)
            self.norm2 = torch.nn.LayerNorm(BERT_HIDDEN, eps=1e-12)

        def heads(self, x):  # [batch, n, hidden] -> [batch, heads, n, hidden / heads]
            return x.reshape(x.shape[0], BERT_SEQUENCE, BERT_HEADS, BERT_HIDDEN // BERT_HEADS).transpose(1, 2)

        def forward(self, x):
            q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
            scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(BERT_HIDDEN // BERT_HEADS)
            a = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(x.shape[0], BERT_SEQUENCE, BERT_HIDDEN)
            x = self.norm1(x + self.out(a))
            return self.norm2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([Layer() for _ in range(BERT_LAYERS)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    return Encoder


def BertEncoder():
    return _bert_encoder_class()()


def export(name, folder, force=False):
    """Writes folder/model.onnx and folder/model.json; returns the manifest."""
    import torch
    shape, out_shape, batch_sizes, _ = MODELS[name]
    folder.mkdir(parents=True, exist_ok=True)
    onnx_file = folder / "model.onnx"
    if force or not onnx_file.exists():
        model = build(name).eval()
        dummy = torch.randn([2] + shape, generator=torch.Generator().manual_seed(SEED))
        tmp = folder / "model.onnx.tmp"
        torch.onnx.export(model, (dummy,), str(tmp), input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                          opset_version=14, do_constant_folding=True)
        tmp.replace(onnx_file)
    weights = onnx_file.stat().st_size
    max_batch = batch_sizes[-1]
    per_request = 4 * (prod(shape) + prod(out_shape))
    manifest = {
        "name": name,
        "version": 1,
        "input": {"name": "input", "dtype": "FLOAT32", "shape": shape},
        "output": {"name": "output", "dtype": "FLOAT32", "shape": out_shape},
        "batch_sizes": batch_sizes,
        # The weights twice (the file as read, the session's initialised copy) and the largest
        # batch's input and output: an estimate, not a measurement of ONNX Runtime's arena.
        "memory_bytes": 2 * weights + max_batch * per_request,
    }
    profile = committed_profile(name)
    if profile:
        manifest["latency_ms"] = profile["latency_ms"]
        if "load_ms" in profile:
            manifest["load_ms"] = profile["load_ms"]
    (folder / "model.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def committed_profile(name):
    if not PROFILES.exists():
        return None
    for m in json.loads(PROFILES.read_text()).get("models", []):
        if m.get("name") == name:
            return m
    return None


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def main(argv=None):
    p = argparse.ArgumentParser(description="Export the model zoo (random weights, real architectures) to ONNX as a Kairos model repository.")
    p.add_argument("--out", type=Path, default=default_out(), help="model repository to write (default: %(default)s)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated, of: " + ", ".join(MODELS) + " (default: all)")
    p.add_argument("--force", action="store_true", help="export again even where model.onnx exists")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print("zoo: --models names unknown model(s) %s; the zoo has %s" % (", ".join(unknown), ", ".join(MODELS)), file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print("zoo: needs PyTorch and torchvision (Debian: apt-get install python3-torch python3-torchvision): %s" % e, file=sys.stderr)
        return 2
    for n in names:
        m = export(n, args.out / n, args.force)
        print("%-18s %s/model.onnx  %.1f MB, batch sizes %s  (%s)" % (n, args.out / n, (args.out / n / "model.onnx").stat().st_size / 1e6,
                                                           m["batch_sizes"], MODELS[n][3]))
    print("model repository: %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
