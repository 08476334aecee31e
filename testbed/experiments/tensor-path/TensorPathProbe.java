import io.kairos.core.model.InputConversion;
import io.kairos.core.model.InputSpec;
import io.kairos.schema.DType;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.tools.client.RandomTensors;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Two figures for the tensor path that the pipeline benchmark cannot give by itself, on one core:
 * what the device's input assembly costs per image (a FLOAT32 image copied into the direct buffer
 * against a UINT8 one widened into it), and what Kafka's compression codecs do to request records
 * (ratio, and compression plus decompression time per record) for the benchmark's random tensors.
 *
 * <pre>
 * java -cp "testbed/target/classes:$(cat testbed/target/classpath.txt)" testbed/experiments/tensor-path/TensorPathProbe.java
 * </pre>
 */
public class TensorPathProbe {

    public static void main(String[] args) throws Exception {
        SplittableRandom random = new SplittableRandom(1);
        InputSpec image = new InputSpec("FLOAT32", new long[]{3, 224, 224});
        Tensor floats = RandomTensors.of(image, random);
        byte[] pixels = new byte[(int) image.elementCount()];
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) random.nextInt(256);
        ByteBuffer device = ByteBuffer.allocateDirect((int) image.byteSize()).order(ByteOrder.nativeOrder());

        System.out.println("device input assembly, one 3x224x224 image into the direct buffer (CPU us, median of 5 rounds of 2,000):");
        System.out.printf("  FLOAT32 request (602,112 B copied)          %8.1f%n", assembly(floats.getData(), "FLOAT32", device));
        System.out.printf("  UINT8 request (150,528 B widened to floats) %8.1f%n", assembly(ByteBuffer.wrap(pixels), "UINT8", device));
        ByteBuffer halves = ByteBuffer.allocate(pixels.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (byte p : pixels) halves.putShort((short) (0x3800 | (p & 0xFF) << 2)); // values in [0.5, 1)
        System.out.printf("  FLOAT16 request (301,056 B widened)         %8.1f%n", assembly(halves.flip(), "FLOAT16", device));

        System.out.println();
        System.out.println("Kafka compression of one request record (Avro, as the load generator writes it), random tensors:");
        System.out.println("  payload                      codec   bytes in   bytes out  ratio   compress+decompress CPU us");
        List<Object[]> payloads = List.of(
                new Object[]{"12 KB FLOAT32 (resnet50 bench)", request(RandomTensors.of(new InputSpec("FLOAT32", new long[]{3, 32, 32}), random))},
                new Object[]{"150 KB UINT8 (224x224x3)", request(Tensor.newBuilder().setDtype(DType.UINT8).setShape(List.of(3L, 224L, 224L)).setData(ByteBuffer.wrap(pixels)).build())},
                new Object[]{"600 KB FLOAT32 (224x224x3)", request(floats)});
        for (Object[] p : payloads) {
            byte[] record = (byte[]) p[1];
            for (String codec : List.of("lz4", "zstd", "snappy")) {
                Compression c = Compression.of(codec).build();
                int[] out = new int[1];
                double us = median(() -> out[0] = roundTrip(c, record), Math.max(20, 20_000_000 / record.length));
                System.out.printf("  %-28s %-6s %9d %11d  %5.3f  %10.1f%n", p[0], codec, record.length, out[0], (double) record.length / out[0], us);
            }
        }
    }

    private static byte[] request(Tensor input) {
        return AvroCodec.of(InferenceRequest.class).encode(InferenceRequest.newBuilder().setRequestId("probe-0000001").setTenant("bench").setModel("resnet50")
                .setInput(input).setSentAtMicros(System.currentTimeMillis() * 1000).setSloMs(100).build());
    }

    private static double assembly(ByteBuffer data, String dtype, ByteBuffer device) {
        return median(() -> {
            device.clear();
            InputConversion.copy(data, dtype, device, "FLOAT32");
            return device.position();
        }, 2_000);
    }

    private static int roundTrip(Compression c, byte[] record) {
        try {
            ByteBufferOutputStream buffer = new ByteBufferOutputStream(record.length + 1024);
            try (OutputStream out = c.wrapForOutput(buffer, RecordBatch.CURRENT_MAGIC_VALUE)) {
                out.write(record);
            }
            ByteBuffer compressed = buffer.buffer().flip();
            int size = compressed.remaining();
            byte[] back = new byte[record.length];
            try (InputStream in = c.wrapForInput(compressed, RecordBatch.CURRENT_MAGIC_VALUE, BufferSupplier.NO_CACHING)) {
                int read = 0, n;
                while (read < back.length && (n = in.read(back, read, back.length - read)) > 0) read += n;
                if (read != back.length) throw new IllegalStateException("read back " + read + " of " + back.length + " bytes");
            }
            return size;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    interface Work {
        int run();
    }

    /**
     * CPU microseconds per call (this thread's CPU time, so that other processes on a shared machine
     * do not count): the median of 5 rounds of {@code n} calls, after one round of warm-up.
     */
    private static double median(Work work, int n) {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double[] rounds = new double[6];
        long sink = 0;
        for (int r = 0; r < rounds.length; r++) {
            long start = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) sink += work.run();
            rounds[r] = (cpu.getCurrentThreadCpuTime() - start) / 1e3 / n;
        }
        if (sink == 42) System.out.println();
        double[] measured = java.util.Arrays.copyOfRange(rounds, 1, rounds.length);
        java.util.Arrays.sort(measured);
        return measured[2];
    }
}
