"""Multiply-adds of one input through an ONNX graph, counted from its Conv, Gemm and MatMul nodes.

    python3 testbed/zoo/macs.py ~/.cache/kairos/zoo/resnet50/model.onnx

The batch axis is set to 1 and ONNX's shape inference (with data propagation, so that shapes
computed by Shape/Gather/Concat reach Reshape) gives every tensor's shape. Then:

- Conv: output elements x (input channels / groups) x kernel height x kernel width;
- Gemm: M x K x N;
- MatMul: output elements x K (the shared dimension), batched MatMuls included.

Element-wise operations, pooling, normalisation and softmax are not counted, as in the papers'
figures.
"""
import sys

import onnx
from onnx import shape_inference


def count(model):
    """{op type: multiply-adds} for one input (batch axis 1) of an onnx.ModelProto."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    for t in list(model.graph.input) + list(model.graph.output):
        dims = t.type.tensor_type.shape.dim
        if dims and not dims[0].HasField("dim_value"):
            dims[0].Clear()
            dims[0].dim_value = 1
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    shapes = {}
    for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        dims = v.type.tensor_type.shape.dim
        shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    for init in inferred.graph.initializer:
        shapes[init.name] = list(init.dims)
    attrs = lambda node: {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    total = {}

    def need(name, node):
        s = shapes.get(name)
        if s is None or any(d is None or d < 0 for d in s):
            raise ValueError("shape of %r (%s %s) unknown after shape inference" % (name, node.op_type, node.name))
        return s

    for node in inferred.graph.node:
        if node.op_type == "Conv":
            out = need(node.output[0], node)
            w = need(node.input[1], node)
            macs = prod(out) * prod(w[1:])  # w: [Cout, Cin/groups, kh, kw]
        elif node.op_type == "Gemm":
            a, b = need(node.input[0], node), need(node.input[1], node)
            at = attrs(node)
            m, k = (a[1], a[0]) if at.get("transA", 0) else (a[0], a[1])
            n = b[0] if at.get("transB", 0) else b[1]
            macs = m * k * n
        elif node.op_type == "MatMul":
            a = need(node.input[0], node)
            out = need(node.output[0], node)
            macs = prod(out) * a[-1]
        else:
            continue
        total[node.op_type] = total.get(node.op_type, 0) + macs
    return total


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


if __name__ == "__main__":
    for path in sys.argv[1:]:
        by_op = count(onnx.load(path))
        print("%s: %.3f G multiply-adds per input (%s)" % (path, sum(by_op.values()) / 1e9,
                                                            ", ".join("%s %.3f G" % (k, v / 1e9) for k, v in sorted(by_op.items()))))
