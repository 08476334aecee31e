"""The zoo's graphs do the published work: multiply-adds per input within 5 % of each model's figure.

    python3 -m unittest discover -s testbed/zoo -v

Exports into the zoo's cache (zoo.py's default, or $KAIROS_ZOO) where a model is not there yet;
$KAIROS_ZOO_MODELS (comma-separated) limits the test to some models, as CI does.
"""
import json
import os
import unittest
from pathlib import Path

import onnx
from onnx import TensorProto, helper

import macs
import zoo

# Published multiply-adds per input (batch 1). ResNet-50: 4.1 G (He et al. 2016, "3.8 x 10^9
# FLOPs" counting multiply-adds, torchvision's 4.09 G with the 1x1 stride in the 3x3 conv);
# GoogLeNet: 1.5 G (Szegedy et al. 2015, torchvision 1.50 G); MobileNetV2: 300 M (Sandler et al.
# 2018, Table 8). BERT-base's encoder has no single published figure; ours is the formula
#   layers x (n x (4 h^2 + 2 h f) + 2 n^2 h)
# with n = sequence length, h = 768, f = 3072: the Q, K, V and output projections and the two
# feed-forward matrices per token (12 x 7.08 M = 85 M per token, the encoder's parameter count),
# plus Q K^T and attention x V.
BERT = zoo.BERT_LAYERS * (zoo.BERT_SEQUENCE * (4 * zoo.BERT_HIDDEN ** 2 + 2 * zoo.BERT_HIDDEN * zoo.BERT_FF)
                          + 2 * zoo.BERT_SEQUENCE ** 2 * zoo.BERT_HIDDEN)
PUBLISHED = {"resnet50": 4.1e9, "googlenet": 1.5e9, "mobilenet_v2": 300e6, "bert_base_encoder": BERT}


def repository():
    return Path(os.environ.get("KAIROS_ZOO") or zoo.default_out())


def selected():
    names = os.environ.get("KAIROS_ZOO_MODELS")
    return [n.strip() for n in names.split(",")] if names else list(zoo.MODELS)


class MacsCountTest(unittest.TestCase):
    """The counter on a graph worked by hand."""

    def test_conv_gemm_matmul_by_hand(self):
        # x [N, 2, 5, 5] -> Conv 3x3, 4 filters, pad 1 -> [N, 4, 5, 5]: 100 outputs x 2 x 9 = 1,800
        # -> Flatten [N, 100] -> Gemm with B [100, 6] -> [N, 6]: 1 x 100 x 6 = 600
        # -> Reshape [N, 2, 3] -> MatMul with [3, 7] -> [N, 2, 7]: 14 outputs x 3 = 42
        w = helper.make_tensor("w", TensorProto.FLOAT, [4, 2, 3, 3], [0.0] * 72)
        b = helper.make_tensor("b", TensorProto.FLOAT, [100, 6], [0.0] * 600)
        shape = helper.make_tensor("shape", TensorProto.INT64, [3], [-1, 2, 3])
        m = helper.make_tensor("m", TensorProto.FLOAT, [3, 7], [0.0] * 21)
        nodes = [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("Flatten", ["r"], ["f"]),
            helper.make_node("Gemm", ["f", "b"], ["g"]),
            helper.make_node("Reshape", ["g", "shape"], ["s"]),
            helper.make_node("MatMul", ["s", "m"], ["y"]),
        ]
        graph = helper.make_graph(nodes, "hand", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2, 5, 5])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2, 7])], [w, b, shape, m])
        counted = macs.count(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]))
        self.assertEqual({"Conv": 1800, "Gemm": 600, "MatMul": 42}, counted)

    def test_grouped_conv_counts_its_groups_channels_only(self):
        # depthwise: 8 channels, 8 groups, 3x3 on [1, 8, 4, 4] with pad 1 -> 128 outputs x 1 x 9
        w = helper.make_tensor("w", TensorProto.FLOAT, [8, 1, 3, 3], [0.0] * 72)
        graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], group=8)], "dw",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 4, 4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 4, 4])], [w])
        self.assertEqual({"Conv": 1152}, macs.count(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])))


class ZooTest(unittest.TestCase):
    """Each zoo model as exported: its multiply-adds, its dynamic batch axis and its manifest."""

    @classmethod
    def setUpClass(cls):
        cls.manifests = {n: zoo.export(n, repository() / n) for n in selected()}

    def test_multiply_adds_within_5_percent_of_the_published_figure(self):
        for name in selected():
            with self.subTest(model=name):
                counted = sum(macs.count(onnx.load(str(repository() / name / "model.onnx"))).values())
                published = PUBLISHED[name]
                print("%s: %.3f G multiply-adds counted, %.3f G published (%+.1f %%)" % (
                    name, counted / 1e9, published / 1e9, 100 * (counted / published - 1)))
                self.assertLess(abs(counted / published - 1), 0.05, "%s: %d multiply-adds against %d" % (name, counted, published))

    def test_batch_axis_is_dynamic_and_the_manifest_matches_the_graph(self):
        for name in selected():
            with self.subTest(model=name):
                graph = onnx.load(str(repository() / name / "model.onnx"), load_external_data=False).graph
                manifest = json.loads((repository() / name / "model.json").read_text())
                self.assertEqual(self.manifests[name], manifest)
                for declared, tensor in ((manifest["input"], graph.input[0]), (manifest["output"], graph.output[0])):
                    dims = tensor.type.tensor_type.shape.dim
                    self.assertEqual(declared["name"], tensor.name)
                    self.assertTrue(dims[0].dim_param and not dims[0].HasField("dim_value"), "%s: batch axis of %s is fixed" % (name, tensor.name))
                    self.assertEqual(declared["shape"], [d.dim_value for d in dims[1:]])
                self.assertGreater(manifest["memory_bytes"], (repository() / name / "model.onnx").stat().st_size)


if __name__ == "__main__":
    unittest.main()
