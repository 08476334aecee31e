package io.kairos.onnx;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Checks that a {@code model.onnx} loads and takes and gives what its manifest says. */
final class OnnxModelCheck {
    private OnnxModelCheck() {}

    static void check(ModelRepository.OnnxModel model) {
        Path manifest = model.file().resolveSibling(ModelRepository.MANIFEST_FILE);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            try (OrtSession session = env.createSession(model.file().toString(), options)) {
                if (session.getNumInputs() != 1 || session.getNumOutputs() < 1) {
                    throw new ModelRepository.ManifestException(model.file() + ": takes " + session.getNumInputs()
                            + " inputs; Kairos serves models with exactly one input");
                }
                match(session.getInputInfo(), model.inputTensor(), manifest, "input");
                match(session.getOutputInfo(), model.outputTensor(), manifest, "output");
            }
        } catch (OrtException e) {
            throw new ModelRepository.ManifestException(model.file() + ": ONNX Runtime cannot load it ("
                    + e.getMessage().lines().findFirst().orElse("") + ")");
        }
    }

    private static void match(Map<String, NodeInfo> actual, ModelRepository.TensorSpec declared, Path manifest, String field) {
        NodeInfo node = actual.get(declared.name());
        if (node == null) {
            throw new ModelRepository.ManifestException(manifest + ": field '" + field + ".name' is '" + declared.name()
                    + "' but the model's " + field + "s are " + actual.keySet());
        }
        if (!(node.getInfo() instanceof TensorInfo info)) {
            throw new ModelRepository.ManifestException(manifest + ": field '" + field + "': '" + declared.name() + "' is not a tensor in the model");
        }
        String dtype = OnnxDevice.dtypeOf(info.type);
        if (!declared.dtype().equals(dtype)) {
            throw new ModelRepository.ManifestException(manifest + ": field '" + field + ".dtype' is " + declared.dtype()
                    + " but the model's '" + declared.name() + "' is " + (dtype == null ? info.type : dtype));
        }
        long[] shape = info.getShape();
        long[] perRequest = declared.shape();
        // The model's first dimension is the batch: dynamic (-1) or fixed; the rest must match.
        boolean same = shape.length == perRequest.length + 1;
        for (int d = 0; same && d < perRequest.length; d++) {
            same = shape[d + 1] == perRequest[d] || shape[d + 1] < 0;
        }
        if (!same) {
            throw new ModelRepository.ManifestException(manifest + ": field '" + field + ".shape' is " + Arrays.toString(perRequest)
                    + " but the model's '" + declared.name() + "' is " + Arrays.toString(shape) + " (first dimension: the batch)");
        }
    }

}
