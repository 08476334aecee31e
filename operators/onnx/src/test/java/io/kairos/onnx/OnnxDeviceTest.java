package io.kairos.onnx;

import io.kairos.core.time.WallClock;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.schema.DType;
import io.kairos.schema.Tensor;
import io.kairos.wire.device.Device.Execution;
import io.kairos.wire.device.Device;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.kairos.onnx.OnnxTestData.floats;
import static io.kairos.onnx.OnnxTestData.randomFloats;
import static io.kairos.onnx.OnnxTestData.tensor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class OnnxDeviceTest {
    private static final long MB = 1 << 20;
    private final List<OnnxDevice> devices = new ArrayList<>();

    private OnnxDevice device(Path repository, long budgetBytes) {
        OnnxDevice d = new OnnxDevice(0, ModelRepository.readManifests(repository), new OnnxDevice.Options(budgetBytes, 1, -1), WallClock::nowMicros);
        devices.add(d);
        return d;
    }

    @AfterEach
    void close() {
        devices.forEach(OnnxDevice::close);
    }

    private static Execution run(OnnxDevice d, String model, List<Tensor> inputs) throws Exception {
        return d.execute(model, inputs.size(), inputs).get(30, TimeUnit.SECONDS);
    }

    @Test
    void mlpBatchMatchesThePlainJavaMathsRequestByRequest() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-mlp"), 64 * MB);
        ExampleModels.Mlp mlp = ExampleModels.Mlp.seeded(ExampleModels.SEED);
        Random r = new Random(7);
        List<float[]> xs = new ArrayList<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            xs.add(randomFloats(r, 64));
            inputs.add(tensor(xs.get(i), 64));
        }
        Execution e = run(d, "mlp", inputs);
        assertThat(e.error()).isNull();
        assertThat(e.outputs()).hasSize(5);
        for (int i = 0; i < 5; i++) {
            Tensor out = e.outputs().get(i);
            assertThat(out.getShape()).containsExactly(10L);
            float[] expected = mlp.forward(xs.get(i));
            float[] actual = floats(out);
            assertThat(actual).hasSize(10);
            for (int j = 0; j < 10; j++) assertThat(actual[j]).as("request %d logit %d", i, j).isCloseTo(expected[j], within(1e-4f));
        }
        // Logits of different requests differ: the split did not hand every request the same row.
        assertThat(floats(e.outputs().get(0))[0]).isNotCloseTo(floats(e.outputs().get(1))[0], within(1e-6f));
    }

    @Test
    void theWidePerceptronMatchesItsPlainJavaMathsInABatch() throws Exception {
        ExampleModels.Wide wide = ExampleModels.Wide.seeded(ExampleModels.SEED + 5, 64);
        Path repository = Files.createTempDirectory("device-wide");
        Files.createDirectories(repository.resolve("wide"));
        Files.write(repository.resolve("wide").resolve(ModelRepository.MODEL_FILE), wide.toOnnx());
        Files.writeString(repository.resolve("wide").resolve(ModelRepository.MANIFEST_FILE), wide.manifest("wide", 0.1, 1));
        OnnxDevice d = device(repository, 64 * MB);
        Random r = new Random(8);
        List<float[]> xs = new ArrayList<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            xs.add(randomFloats(r, ExampleModels.Wide.IN));
            inputs.add(tensor(xs.get(i), ExampleModels.Wide.IN));
        }
        Execution e = run(d, "wide", inputs);
        assertThat(e.error()).isNull();
        for (int i = 0; i < 4; i++) {
            float[] expected = wide.forward(xs.get(i));
            float[] actual = floats(e.outputs().get(i));
            assertThat(actual).hasSize(ExampleModels.Wide.OUT);
            for (int j = 0; j < expected.length; j++) assertThat(actual[j]).as("request %d logit %d", i, j).isCloseTo(expected[j], within(1e-3f * Math.max(1f, Math.abs(expected[j]))));
        }
    }

    @Test
    void uint8RequestsOnAFloat32ModelAreServedAsTheirValuesInFloats() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-uint8"), 64 * MB);
        ExampleModels.Mlp mlp = ExampleModels.Mlp.seeded(ExampleModels.SEED);
        byte[] pixels = new byte[64];
        float[] values = new float[64];
        for (int i = 0; i < 64; i++) {
            pixels[i] = (byte) (i * 4);        // 0, 4, ..., 252: past 127, where a signed byte would go negative
            values[i] = i * 4;                 // the same numbers, as the floats a client would send
        }
        Tensor compact = Tensor.newBuilder().setDtype(DType.UINT8).setShape(List.of(64L)).setData(ByteBuffer.wrap(pixels)).build();
        // One batch holding both: the UINT8 request widened while it is stacked, the FLOAT32 one copied as it is.
        Execution e = run(d, "mlp", List.of(compact, tensor(values, 64), compact));
        assertThat(e.error()).isNull();
        assertThat(floats(e.outputs().get(0))).containsExactly(floats(e.outputs().get(1)));
        assertThat(floats(e.outputs().get(2))).containsExactly(floats(e.outputs().get(1)));
        float[] expected = mlp.forward(values);
        float[] actual = floats(e.outputs().get(0));
        for (int j = 0; j < 10; j++) assertThat(actual[j]).as("logit %d", j).isCloseTo(expected[j], within(1e-4f * Math.max(1f, Math.abs(expected[j]))));
        assertThat(compact.getData().position()).isZero(); // the request's own bytes are left as they were

        // FLOAT16 (0, 4, ..., 252 are all exact halves): the same logits again.
        ByteBuffer halves = ByteBuffer.allocate(128).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 64; i++) halves.putShort(half(i * 4));
        Tensor half = Tensor.newBuilder().setDtype(DType.FLOAT16).setShape(List.of(64L)).setData(halves.flip()).build();
        Execution h = run(d, "mlp", List.of(half, tensor(values, 64)));
        assertThat(h.error()).isNull();
        assertThat(floats(h.outputs().get(0))).containsExactly(floats(h.outputs().get(1)));
    }

    /** The half-precision bits of a whole number from 0 to 2048 (exact in binary16). */
    private static short half(int n) {
        if (n == 0) return 0;
        int exponent = 31 - Integer.numberOfLeadingZeros(n);
        int mantissa = (n << (10 - exponent)) & 0x3FF;
        return (short) (((exponent + 15) << 10) | mantissa);
    }

    @Test
    void aTypeTheDeviceCannotConvertFailsItsBatchWithTheReason() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-int8"), 64 * MB);
        Tensor signed = Tensor.newBuilder().setDtype(DType.INT8).setShape(List.of(64L)).setData(ByteBuffer.allocate(64)).build();
        assertThat(run(d, "mlp", List.of(signed)).error()).contains("request 0 of the batch has INT8 64 bytes").contains("[FLOAT32, UINT8, FLOAT16]");
    }

    @Test
    void cnnBatchMatchesThePlainJavaMaths() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-cnn"), 64 * MB);
        ExampleModels.Cnn cnn = ExampleModels.Cnn.seeded(ExampleModels.SEED + 1);
        Random r = new Random(11);
        List<float[]> images = new ArrayList<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            images.add(randomFloats(r, 3 * 32 * 32));
            inputs.add(tensor(images.get(i), 3, 32, 32));
        }
        Execution e = run(d, "cnn", inputs);
        assertThat(e.error()).isNull();
        for (int i = 0; i < 3; i++) {
            float[] expected = cnn.forward(images.get(i));
            float[] actual = floats(e.outputs().get(i));
            for (int j = 0; j < 10; j++) assertThat(actual[j]).as("image %d logit %d", i, j).isCloseTo(expected[j], within(1e-3f));
        }
    }

    @Test
    void thePipelinesModelsMatchTheirPlainJavaMathsAndFeedEachOther() throws Exception {
        // preprocess -> classifier -> rerank, each stage's output the next one's input, as a pipeline runs them.
        OnnxDevice d = device(ExampleModels.writePipelineRepository(Path.of("target", "onnx-test-models", "device-pipeline")), 64 * MB);
        ExampleModels.Preprocess pre = ExampleModels.Preprocess.CIFAR;
        ExampleModels.Classifier classifier = ExampleModels.Classifier.seeded(ExampleModels.SEED + 3);
        ExampleModels.Rerank rerank = ExampleModels.Rerank.seeded(ExampleModels.SEED + 4);
        Random r = new Random(13);
        List<float[]> pixels = new ArrayList<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            float[] p = new float[3 * 32 * 32];
            for (int j = 0; j < p.length; j++) p[j] = r.nextInt(256);
            pixels.add(p);
            inputs.add(tensor(p, 3, 32, 32));
        }
        Execution normalised = run(d, "preprocess", inputs);
        assertThat(normalised.error()).isNull();
        Execution probabilities = run(d, "classifier", normalised.outputs());
        assertThat(probabilities.error()).isNull();
        Execution second = run(d, "rerank", probabilities.outputs());
        assertThat(second.error()).isNull();
        for (int i = 0; i < 4; i++) {
            float[] image = pre.forward(pixels.get(i));
            // Pixel 0 of channel 0: (x / 63.0) - 125.3 / 63.0
            assertThat(image[0]).isCloseTo((float) (pixels.get(i)[0] / 63.0 - 125.3 / 63.0), within(1e-5f));
            float[] actualImage = floats(normalised.outputs().get(i));
            for (int j = 0; j < image.length; j++) assertThat(actualImage[j]).isCloseTo(image[j], within(1e-5f));
            float[] p = classifier.forward(image);
            float[] actualP = floats(probabilities.outputs().get(i));
            float sum = 0;
            for (int j = 0; j < 10; j++) {
                assertThat(actualP[j]).as("image %d class %d", i, j).isCloseTo(p[j], within(1e-4f));
                sum += actualP[j];
            }
            assertThat(sum).isCloseTo(1f, within(1e-5f));
            float[] q = rerank.forward(p);
            float[] actualQ = floats(second.outputs().get(i));
            for (int j = 0; j < 10; j++) assertThat(actualQ[j]).isCloseTo(q[j], within(1e-4f));
        }
    }

    @Test
    void resnetBatchMatchesThePlainJavaMaths() throws Exception {
        // Residual adds, stride-2 convolutions and global average pooling, checked like the CNN.
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-resnet"), 64 * MB);
        ExampleModels.ResNet resnet = ExampleModels.ResNet.seeded(ExampleModels.SEED + 2);
        Random r = new Random(12);
        List<float[]> images = new ArrayList<>();
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            images.add(randomFloats(r, 3 * 32 * 32));
            inputs.add(tensor(images.get(i), 3, 32, 32));
        }
        Execution e = run(d, "resnet", inputs);
        assertThat(e.error()).isNull();
        for (int i = 0; i < 2; i++) {
            float[] expected = resnet.forward(images.get(i));
            float[] actual = floats(e.outputs().get(i));
            assertThat(actual).hasSize(10);
            // Eleven layers of float sums in a different order: a relative tolerance on logits of order 1.
            for (int j = 0; j < 10; j++) assertThat(actual[j]).as("image %d logit %d", i, j).isCloseTo(expected[j], within(1e-3f * Math.max(1f, Math.abs(expected[j]))));
        }
        assertThat(floats(e.outputs().get(0))[0]).isNotCloseTo(floats(e.outputs().get(1))[0], within(1e-6f));
    }

    /** {@code n} random ResNet images: a batch of 128 takes a few hundred milliseconds on one CPU thread. */
    private static List<Tensor> images(int n) {
        Random r = new Random(n);
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < n; i++) inputs.add(tensor(randomFloats(r, 3 * 32 * 32), 3, 32, 32));
        return inputs;
    }

    @Test
    void cancellingARunningBatchTerminatesItsRunAndFreesTheDevice() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-terminate"), 64 * MB);
        List<Tensor> big = images(128);
        Execution full = run(d, "resnet", big); // loads the model, and times a whole run
        long fullMicros = full.endMicros() - full.startMicros();

        CompletableFuture<Execution> running = d.execute("resnet", big.size(), big);
        Thread.sleep(fullMicros / 4000); // a quarter of the way through
        long cancelledAt = WallClock.nowMicros();
        assertThat(running.cancel(false)).isTrue();
        Execution next = run(d, "resnet", images(1));

        assertThat(d.terminatedRuns()).isEqualTo(1);
        assertThat(next.error()).isNull();
        // Without the terminate flag the next batch would wait for the remaining three quarters.
        assertThat(next.startMicros() - cancelledAt).as("wait after the cancellation, full run %d us", fullMicros).isLessThan(fullMicros / 2);
    }

    @Test
    void aCancelledBatchThatHasNotStartedNeverRuns() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-withdraw"), 64 * MB);
        List<Tensor> big = images(128);
        Execution full = run(d, "resnet", big);
        long fullMicros = full.endMicros() - full.startMicros();

        CompletableFuture<Execution> first = d.execute("resnet", big.size(), big);
        CompletableFuture<Execution> second = d.execute("resnet", big.size(), big);
        CompletableFuture<Execution> third = d.execute("resnet", 1, images(1));
        second.cancel(false);
        Execution a = first.get(30, TimeUnit.SECONDS);
        Execution c = third.get(30, TimeUnit.SECONDS);

        assertThat(a.error()).isNull();
        assertThat(a.outputs()).hasSize(128);
        assertThat(c.error()).isNull();
        assertThat(c.startMicros() - a.endMicros()).as("gap between the first and the third, full run %d us", fullMicros).isLessThan(fullMicros / 2);
        assertThat(d.terminatedRuns()).isZero();
    }

    @Test
    void anExplicitLoadMakesTheFirstBatchWarmAndAnUnloadMakesTheNextCold() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-explicit-load"), 64 * MB);
        List<Tensor> one = List.of(tensor(new float[64], 64));
        d.load("mlp").get(30, TimeUnit.SECONDS);
        assertThat(d.loadedModels()).containsExactly("mlp");
        assertThat(run(d, "mlp", one).coldStart()).isFalse();

        d.unload("mlp").get(30, TimeUnit.SECONDS);
        assertThat(d.loadedModels()).isEmpty();
        assertThat(run(d, "mlp", one).coldStart()).isTrue();
        assertThat(d.load("resnet50")).failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(java.util.concurrent.ExecutionException.class).withMessageContaining("no model 'resnet50'");
    }

    @Test
    void aDeviceThatWarmsUpLoadsTheModelsThatFitAndRunsEachAtEveryBatchSizeBeforeTraffic() throws Exception {
        // Folder order: cnn (8 MiB), mlp (1 MiB), resnet (32 MiB); a 40 MiB budget holds the first two, or resnet.
        OnnxDevice d = new OnnxDevice(0, ModelRepository.readManifests(OnnxTestData.exampleRepository("device-warm-up")),
                new OnnxDevice.Options(40 * MB, 1, -1, true), WallClock::nowMicros);
        devices.add(d);
        Device.WarmUp w = d.warmUp();
        assertThat(w.models()).containsExactly("cnn", "mlp");
        assertThat(w.batches()).as("batch sizes 1, 2, 4, 8, 16, 32 of each").isEqualTo(12);
        assertThat(w.problems()).singleElement().asString().contains("'resnet'", "memory budget");
        assertThat(w.micros()).isPositive();
        assertThat(w.describe(0)).contains("device 0 warmed up [cnn, mlp]", "12 synthetic batches", "not warmed up: 'resnet'");
        assertThat(d.loadedModels()).containsExactly("cnn", "mlp");
        assertThat(d.lastLoadMicros()).containsOnlyKeys("cnn", "mlp");

        // The first real batch finds its model loaded: no cold start, and its own outputs.
        ExampleModels.Mlp mlp = ExampleModels.Mlp.seeded(ExampleModels.SEED);
        float[] x = randomFloats(new Random(3), 64);
        Execution first = run(d, "mlp", List.of(tensor(x, 64)));
        assertThat(first.coldStart()).isFalse();
        assertThat(floats(first.outputs().get(0))[0]).isCloseTo(mlp.forward(x)[0], within(1e-4f));
        // The model left out loads on its first batch, as without a warm-up, in place of the least recently used (cnn).
        Execution resnet = run(d, "resnet", List.of(tensor(new float[3 * 32 * 32], 3, 32, 32)));
        assertThat(resnet.error()).isNull();
        assertThat(resnet.coldStart()).isTrue();
        assertThat(d.loadedModels()).containsExactly("mlp", "resnet");
    }

    @Test
    void withoutTheWarmUpOptionNothingRunsOrLoadsBeforeTraffic() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-no-warm-up"), 64 * MB);
        assertThat(d.warmUp()).isSameAs(Device.WarmUp.NONE);
        assertThat(d.loadedModels()).isEmpty();
        assertThat(run(d, "mlp", List.of(tensor(new float[64], 64))).coldStart()).isTrue();
    }

    @Test
    void aModelThatFailsItsWarmUpIsReportedAndLeftUnloadedWhileTheOthersWarmUp() throws Exception {
        Path repository = OnnxTestData.exampleRepository("device-warm-up-broken");
        Files.write(repository.resolve("cnn").resolve(ModelRepository.MODEL_FILE), new byte[] {1, 2, 3});
        OnnxDevice d = new OnnxDevice(0, ModelRepository.readManifests(repository), new OnnxDevice.Options(64 * MB, 1, -1, true), WallClock::nowMicros);
        devices.add(d);
        Device.WarmUp w = d.warmUp();
        assertThat(w.models()).containsExactly("mlp", "resnet");
        assertThat(w.problems()).singleElement().asString().startsWith("'cnn' at batch 1: ").contains("cannot load model 'cnn'");
        assertThat(d.loadedModels()).containsExactly("mlp", "resnet");
    }

    @Test
    void firstBatchOfAModelIsAColdStartAndTheNextIsNot() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-cold"), 64 * MB);
        List<Tensor> one = List.of(tensor(new float[64], 64));
        Execution first = run(d, "mlp", one);
        Execution second = run(d, "mlp", one);
        assertThat(first.coldStart()).isTrue();
        assertThat(second.coldStart()).isFalse();
        assertThat(d.lastLoadMicros()).containsOnlyKeys("mlp");
        assertThat(d.lastLoadMicros().get("mlp")).isPositive();
    }

    @Test
    void leastRecentlyUsedModelIsEvictedWhenTheBudgetIsFullAndLoadsColdAgain() throws Exception {
        // mlp takes 1 MiB and cnn 8 MiB by their manifests: a 9 MiB budget holds both, 8.5 MiB one.
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-evict"), 8 * MB + MB / 2);
        List<Tensor> mlpIn = List.of(tensor(new float[64], 64));
        List<Tensor> cnnIn = List.of(tensor(new float[3 * 32 * 32], 3, 32, 32));
        assertThat(run(d, "mlp", mlpIn).coldStart()).isTrue();
        assertThat(run(d, "cnn", cnnIn).coldStart()).isTrue();
        assertThat(d.loadedModels()).containsExactly("cnn");
        Execution again = run(d, "mlp", mlpIn);
        assertThat(again.error()).isNull();
        assertThat(again.coldStart()).isTrue();
        assertThat(d.loadedModels()).containsExactly("mlp");
    }

    @Test
    void batchOfALoadedModelRunsWhileAnotherModelLoads() throws Exception {
        // A loader that lets the first load (mlp) through and holds the second (cnn) until released.
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        ExecutorService threads = Executors.newCachedThreadPool();
        Executor gated = task -> threads.execute(() -> {
            if (loads.incrementAndGet() > 1) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            task.run();
        });
        OnnxDevice d = new OnnxDevice(0, ModelRepository.readManifests(OnnxTestData.exampleRepository("device-no-stall")),
                new OnnxDevice.Options(64 * MB, 1, -1), WallClock::nowMicros, gated);
        devices.add(d);
        try {
            List<Tensor> mlpIn = List.of(tensor(new float[64], 64));
            run(d, "mlp", mlpIn);
            var cold = d.execute("cnn", 1, List.of(tensor(new float[3 * 32 * 32], 3, 32, 32)));
            Execution warm = run(d, "mlp", mlpIn); // would time out if the device waited for the cnn load
            assertThat(warm.error()).isNull();
            assertThat(warm.coldStart()).isFalse();
            assertThat(cold).isNotDone();
            release.countDown();
            Execution c = cold.get(30, TimeUnit.SECONDS);
            assertThat(c.error()).isNull();
            assertThat(c.coldStart()).isTrue();
            assertThat(warm.endMicros()).isLessThanOrEqualTo(c.startMicros());
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * A load the scheduler decided (LOAD) is device work in its turn, unlike a batch's own cold
     * load: a batch of a loaded model handed over after it waits until it is done, as the scheduler
     * booked it behind the load; the loaded model's first batch then runs warm.
     */
    @Test
    void anExplicitLoadHoldsTheBatchesHandedOverAfterItUntilItIsDone() throws Exception {
        // A loader that lets the first load (mlp) through and holds the second (cnn) until released.
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        ExecutorService threads = Executors.newCachedThreadPool();
        Executor gated = task -> threads.execute(() -> {
            if (loads.incrementAndGet() > 1) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            task.run();
        });
        OnnxDevice d = new OnnxDevice(0, ModelRepository.readManifests(OnnxTestData.exampleRepository("device-load-in-turn")),
                new OnnxDevice.Options(64 * MB, 1, -1), WallClock::nowMicros, gated);
        devices.add(d);
        try {
            List<Tensor> mlpIn = List.of(tensor(new float[64], 64));
            run(d, "mlp", mlpIn);
            CompletableFuture<Void> loadCnn = d.load("cnn");
            CompletableFuture<Execution> behind = d.execute("mlp", 1, mlpIn);
            Thread.sleep(300);
            assertThat(loadCnn).isNotDone();
            assertThat(behind).as("the batch behind the load waits for it").isNotDone();
            long releasedAt = WallClock.nowMicros();
            release.countDown();
            loadCnn.get(30, TimeUnit.SECONDS);
            Execution b = behind.get(30, TimeUnit.SECONDS);
            assertThat(b.error()).isNull();
            assertThat(b.startMicros()).isGreaterThanOrEqualTo(releasedAt);
            assertThat(run(d, "cnn", List.of(tensor(new float[3 * 32 * 32], 3, 32, 32))).coldStart()).isFalse();
            assertThat(d.lastLoadMicros()).containsKey("cnn");
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void batchesWaitingForTheSameLoadAreAllColdAndAllSucceed() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-same-load"), 64 * MB);
        List<Tensor> one = List.of(tensor(new float[64], 64));
        var a = d.execute("mlp", 1, one);
        var b = d.execute("mlp", 1, one);
        assertThat(a.get(30, TimeUnit.SECONDS).coldStart()).isTrue();
        assertThat(b.get(30, TimeUnit.SECONDS).coldStart()).isTrue();
        assertThat(b.get().error()).isNull();
        assertThat(d.loadedModels()).containsExactly("mlp");
    }

    @Test
    void modelLargerThanTheBudgetFailsItsBatchWithTheReason() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-too-big"), 2 * MB);
        Execution e = run(d, "cnn", List.of(tensor(new float[3 * 32 * 32], 3, 32, 32)));
        assertThat(e.succeeded()).isFalse();
        assertThat(e.error()).contains("'cnn'").contains("8388608 bytes").contains("budget of 2097152");
        assertThat(run(d, "mlp", List.of(tensor(new float[64], 64))).error()).isNull();
    }

    @Test
    void onnxRuntimeErrorFailsThatBatchOnlyWithTheRuntimeMessage() throws Exception {
        Path repo = OnnxTestData.exampleRepository("device-ort-error");
        // The manifest now says 32 features; the model takes 64. Devices do not check models
        // against manifests (the client does), so ONNX Runtime itself refuses the input.
        Path manifest = repo.resolve("mlp/model.json");
        Files.writeString(manifest, Files.readString(manifest).replace("\"shape\": [64]", "\"shape\": [32]"));
        OnnxDevice d = device(repo, 64 * MB);
        Execution bad = run(d, "mlp", List.of(tensor(new float[32], 32)));
        assertThat(bad.succeeded()).isFalse();
        assertThat(bad.outputs()).isEmpty();
        assertThat(bad.error()).contains("model 'mlp'").containsIgnoringCase("dimensions");
        Execution good = run(d, "cnn", List.of(tensor(new float[3 * 32 * 32], 3, 32, 32)));
        assertThat(good.error()).isNull();
        assertThat(good.outputs()).hasSize(1);
    }

    @Test
    void unknownModelAndWrongTensorSizeFailWithAClearReason() throws Exception {
        OnnxDevice d = device(OnnxTestData.exampleRepository("device-bad-input"), 64 * MB);
        assertThat(run(d, "resnet50", List.of(tensor(new float[64], 64))).error()).contains("no model 'resnet50'");
        assertThat(run(d, "mlp", List.of(tensor(new float[64], 64), tensor(new float[63], 63))).error())
                .contains("request 1 of the batch").contains("252 bytes").contains("256 bytes");
    }
}
