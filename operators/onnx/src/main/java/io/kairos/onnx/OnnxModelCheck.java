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
                batchAxis(session.getInputInfo(), model, manifest);
                match(session.getOutputInfo(), model.outputTensor(), manifest, "output");
            }
        } catch (OrtException e) {
            throw new ModelRepository.ManifestException(model.file() + ": ONNX Runtime cannot load it ("
                    + e.getMessage().lines().findFirst().orElse("") + ")");
        }
    }

    /**
     * A model exported without a dynamic batch axis takes batches of one size only: the batch
     * sizes of its manifest must all be that size, or a device fails every other batch at run time.
     */
    private static void batchAxis(Map<String, NodeInfo> inputs, ModelRepository.OnnxModel model, Path manifest) {
        long fixed = ((TensorInfo) inputs.get(model.inputTensor().name()).getInfo()).getShape()[0];
        if (fixed < 1) return;
        for (int b : model.batchSizes()) {
            if (b != fixed) {
                throw new ModelRepository.ManifestException(manifest + ": field 'batch_sizes' is " + Arrays.toString(model.batchSizes())
                        + " but the model's '" + model.inputTensor().name() + "' has a fixed batch dimension of " + fixed
                        + " (export it with a dynamic batch axis, e.g. torch.onnx.export(..., dynamic_axes={'" + model.inputTensor().name()
                        + "': {0: 'batch'}}), or list only " + fixed + ")");
            }
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
