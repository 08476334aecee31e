package io.kairos.testbed.bench;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.tools.client.OpenLoopPacer;
import io.kairos.tools.client.RandomTensors;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.tools.client.OpenLoopPacer;
import io.kairos.tools.client.RandomTensors;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.wire.AvroCodec;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ArrivalSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The bare Kafka round trip that the serving pipeline's latency is compared with: producer ->
 * request topic -> consumer -> producer -> result topic -> consumer, with nothing in between, on
 * the same brokers, at the same rate and with records of the same sizes.
 *
 * <p>Three threads play the three parts: the sender (the load generator, paced open-loop like
 * {@link RequestProducer#run}), the relay (the serving job, minus Flink: it turns each request into
 * a result-sized record) and the receiver (the results collector). The clients use the same
 * low-latency settings as {@link RequestProducer} and {@link ResultConsumer}. Latency runs from the
 * send of a request to the receipt of its answer, measured with {@link System#nanoTime} in this one
 * JVM, so no clock skew enters it.
 *
 * <p>Each request record starts with a 17-byte header: send time in nanoseconds, sequence number,
 * and whether it is measured (sent after the warm-up); the relay copies it into the answer. The
 * rest is filler up to the configured size.
 *
 * <pre>{@code
 * KafkaRoundTrip.Result bare = new KafkaRoundTrip(bootstrap, "rt-requests", "rt-results")
 *         .rate(1000).duration(Duration.ofSeconds(10)).recordSizesOf(catalog.get("resnet50"))
 *         .run();
 * bare.p99Micros();
 * }</pre>
 */
public final class KafkaRoundTrip {
    static final int HEADER_BYTES = 17;

    private final String bootstrapServers;
    private final String requestTopic;
    private final String resultTopic;
    private double ratePerSecond = 1_000;
    private ArrivalSpec arrivals = ArrivalSpec.POISSON;
    private long seed = 1;
    private Duration duration = Duration.ofSeconds(10);
    private Duration warmup = Duration.ofSeconds(1);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private int partitions = 1;
    private int requestBytes;
    private int resultBytes;
    private Map<String, Object> consumerOverrides = Map.of();

    /** A round trip through two topics on these brokers; they are created (one partition) if absent. */
    public KafkaRoundTrip(String bootstrapServers, String requestTopic, String resultTopic) {
        this.bootstrapServers = bootstrapServers;
        this.requestTopic = requestTopic;
        this.resultTopic = resultTopic;
        recordSizesOf(ModelCatalog.builtIn().get("resnet50"));
    }

    /** Requests per second offered (default 1000). */
    public KafkaRoundTrip rate(double ratePerSecond) {
        this.ratePerSecond = ArrivalProcess.checkRate(ratePerSecond);
        return this;
    }

    /** How requests are spaced (default Poisson), and the seed of the gaps (default 1). */
    public KafkaRoundTrip arrivals(ArrivalSpec arrivals, long seed) {
        this.arrivals = arrivals;
        this.seed = seed;
        return this;
    }

    /** How long requests are sent, warm-up included (default 10 s). */
    public KafkaRoundTrip duration(Duration duration) {
        this.duration = positive(duration, "duration");
        return this;
    }

    /** The first stretch of the run, whose round trips are not measured (default 1 s): connections and JIT settle. */
    public KafkaRoundTrip warmup(Duration warmup) {
        if (warmup.isNegative()) throw new IllegalArgumentException("warm-up must not be negative, got " + warmup);
        this.warmup = warmup;
        return this;
    }

    /** How long to wait for the last answers after the last send (default 10 s); what has not come by then is lost. */
    public KafkaRoundTrip drainTimeout(Duration drainTimeout) {
        this.drainTimeout = positive(drainTimeout, "drain timeout");
        return this;
    }

    /** Partitions of each topic when this run creates it (default 1). */
    public KafkaRoundTrip partitions(int partitions) {
        if (partitions < 1) throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
        this.partitions = partitions;
        return this;
    }

    /**
     * Consumer settings over the low-latency ones, for both consumers (e.g. a larger
     * {@code max.partition.fetch.bytes}, to see what the default's one big record per fetch costs).
     */
    public KafkaRoundTrip consumerProperties(Map<String, ?> overrides) {
        this.consumerOverrides = Map.copyOf(overrides);
        return this;
    }

    /** Sizes of the request and answer records in bytes (at least {@value #HEADER_BYTES}). */
    public KafkaRoundTrip recordSizes(int requestBytes, int resultBytes) {
        if (requestBytes < HEADER_BYTES || resultBytes < HEADER_BYTES) {
            throw new IllegalArgumentException("records must be at least " + HEADER_BYTES + " bytes, got " + requestBytes + " and " + resultBytes);
        }
        this.requestBytes = requestBytes;
        this.resultBytes = resultBytes;
        return this;
    }

    /** Record sizes of this model's requests and results, as the serving pipeline encodes them (default: built-in resnet50). */
    public KafkaRoundTrip recordSizesOf(ModelSpec model) {
        return recordSizes(encodedRequestBytes(model), encodedResultBytes(model));
    }

    public int requestBytes() {
        return requestBytes;
    }

    public int resultBytes() {
        return resultBytes;
    }

    /** Bytes of an encoded request for {@code model}: its input tensor plus ids, times and SLO. */
    public static int encodedRequestBytes(ModelSpec model) {
        InferenceRequest r = InferenceRequest.newBuilder()
                .setRequestId("1a2b3c4d-1234567").setTenant("default").setModel(model.name())
                .setInput(RandomTensors.of(model.input(), new SplittableRandom(1)))
                .setSentAtMicros(1_760_000_000_000_000L).setSloMs(25)
                .build();
        return AvroCodec.of(InferenceRequest.class).encode(r).length;
    }

    /**
     * Bytes of an encoded OK result for {@code model} with every stage time set. Without an output
     * tensor: the catalog does not say a model's output shape, and the simulated devices return
     * none; pass sizes to {@link #recordSizes} to account for one.
     */
    public static int encodedResultBytes(ModelSpec model) {
        long t = 1_760_000_000_000_000L;
        InferenceResult r = InferenceResult.newBuilder()
                .setRequestId("1a2b3c4d-1234567").setTenant("default").setModel(model.name()).setStatus(ResultStatus.OK)
                .setBatchSize(8).setDevice(0).setSloMs(25)
                .setTimings(StageTimes.newBuilder().setSent(t).setDeadline(t + 25_000).setIngested(t + 100).setEnqueued(t + 150)
                        .setDispatched(t + 900).setExecStart(t + 1_000).setExecEnd(t + 8_000).setEmitted(t + 8_200).build())
                .build();
        return AvroCodec.of(InferenceResult.class).encode(r).length;
    }

    /** Runs the round trip and returns its latencies. Blocks for about the duration plus the drain. */
    public Result run() throws InterruptedException {
        createTopicsIfAbsent();
        AtomicLong received = new AtomicLong();
        AtomicLong lastReceivedNanos = new AtomicLong(Long.MIN_VALUE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Every answer is a served request to the figures; written by the receiver only, read after it stopped.
        ResultSummary.Stats latency = new ResultSummary.Stats("kafka round trip");

        // Consumers first, positioned at the end, so that no request can be sent before they listen.
        // Every client is connected and has the topics' metadata before the first send, so that the
        // warm-up only has to absorb JIT and first-fetch effects, not connection setup.
        KafkaConsumer<byte[], byte[]> relayIn = consumerAtEnd(requestTopic);
        KafkaConsumer<byte[], byte[]> receiverIn = consumerAtEnd(resultTopic);
        KafkaProducer<byte[], byte[]> relayOut = producer();
        relayOut.partitionsFor(resultTopic);
        Thread relay = new Thread(() -> relay(relayIn, relayOut, failure), "round-trip-relay");
        Thread receiver = new Thread(() -> receive(receiverIn, latency, received, lastReceivedNanos, failure), "round-trip-receiver");
        relay.start();
        receiver.start();

        long sent = 0;
        long measuredSent = 0;
        long maxBehindMicros = 0;
        long elapsedMicros = 0;
        boolean allSent = false;
        long sentUntilNanos = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.partitionsFor(requestTopic); // metadata now, not on the first send
            byte[] filler = filler(requestBytes, 2);
            long durationMicros = duration.toNanos() / 1_000;
            long warmupMicros = warmup.toNanos() / 1_000;
            ArrivalProcess.Gaps gaps = arrivals.at(ratePerSecond).start(new SplittableRandom(seed));
            OpenLoopPacer pacer = new OpenLoopPacer();
            for (long at = gaps.nextGapMicros(); at < durationMicros; at += gaps.nextGapMicros()) {
                maxBehindMicros = Math.max(maxBehindMicros, pacer.awaitOffset(at));
                boolean measured = at >= warmupMicros;
                byte[] value = filler.clone();
                ByteBuffer.wrap(value).putLong(System.nanoTime()).putLong(sent).put((byte) (measured ? 1 : 0));
                producer.send(new ProducerRecord<>(requestTopic, value));
                sent++;
                if (measured) measuredSent++;
            }
            elapsedMicros = pacer.elapsedMicros();
            producer.flush();
            sentUntilNanos = System.nanoTime();
            allSent = true;
        } finally {
            // Wait for the answers still on their way (unless sending failed), then stop both loops.
            long until = System.nanoTime() + drainTimeout.toNanos();
            while (allSent && received.get() < sent && System.nanoTime() < until && failure.get() == null) Thread.sleep(5);
            relayIn.wakeup();
            receiverIn.wakeup();
            relay.join(10_000);
            receiver.join(10_000);
        }
        if (failure.get() != null) throw new IllegalStateException("round trip failed: " + failure.get(), failure.get());
        long drainMicros = lastReceivedNanos.get() == Long.MIN_VALUE ? 0 : Math.max(0, (lastReceivedNanos.get() - sentUntilNanos) / 1_000);
        return new Result(sent, measuredSent, received.get(), elapsedMicros, maxBehindMicros, drainMicros, requestBytes, resultBytes, latency);
    }

    /** The serving job's place: every request becomes one answer of the result size, header copied. */
    private void relay(KafkaConsumer<byte[], byte[]> in, KafkaProducer<byte[], byte[]> out, AtomicReference<Throwable> failure) {
        byte[] filler = filler(resultBytes, 3);
        try (in; out) {
            while (true) {
                for (ConsumerRecord<byte[], byte[]> r : in.poll(Duration.ofMillis(100))) {
                    byte[] answer = filler.clone();
                    System.arraycopy(r.value(), 0, answer, 0, HEADER_BYTES);
                    out.send(new ProducerRecord<>(resultTopic, r.key(), answer));
                }
            }
        } catch (WakeupException e) {
            // the run is over
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    private static void receive(KafkaConsumer<byte[], byte[]> in, ResultSummary.Stats latency, AtomicLong received, AtomicLong lastReceivedNanos,
                                AtomicReference<Throwable> failure) {
        try (in) {
            while (true) {
                for (ConsumerRecord<byte[], byte[]> r : in.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    ByteBuffer header = ByteBuffer.wrap(r.value());
                    long sentNanos = header.getLong(0);
                    long sentMicros = sentNanos / 1_000;
                    if (header.get(16) == 1) latency.add(io.kairos.core.result.ResultStatus.OK, sentMicros, sentMicros + (now - sentNanos) / 1_000, 0);
                    lastReceivedNanos.set(now);
                    received.incrementAndGet();
                }
            }
        } catch (WakeupException e) {
            // the run is over
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(RequestProducer.lowLatencyConfig(bootstrapServers), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> consumerAtEnd(String topic) throws InterruptedException {
        Map<String, Object> config = ResultConsumer.lowLatencyConfig(bootstrapServers);
        config.putAll(consumerOverrides);
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<PartitionInfo> infos = c.partitionsFor(topic);
        // A topic created a moment ago may not have reached every broker's metadata yet.
        for (long until = System.nanoTime() + 10_000_000_000L; infos.isEmpty() && System.nanoTime() < until; infos = c.partitionsFor(topic)) {
            Thread.sleep(50);
        }
        if (infos.isEmpty()) {
            c.close();
            throw new IllegalStateException("topic '" + topic + "' has no partitions on " + bootstrapServers);
        }
        List<TopicPartition> assigned = new ArrayList<>();
        for (PartitionInfo p : infos) assigned.add(new TopicPartition(topic, p.partition()));
        c.assign(assigned);
        c.seekToEnd(assigned);
        for (TopicPartition p : assigned) c.position(p); // resolve the lazy seek now
        return c;
    }

    private void createTopicsIfAbsent() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            for (String topic : List.of(requestTopic, resultTopic)) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic '" + topic + "' on " + bootstrapServers + ": " + e.getCause().getMessage());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /** Random bytes: incompressible, like the tensors the pipeline carries. */
    private static byte[] filler(int size, long seed) {
        byte[] b = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < size; i++) b[i] = (byte) random.nextInt(256);
        return b;
    }

    private static Duration positive(Duration d, String what) {
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(what + " must be positive, got " + d);
        return d;
    }

    /**
     * What a run measured. {@code sent} counts every request, {@code measuredSent} those after the
     * warm-up, {@code received} every answer that came back. Latencies are of the measured round
     * trips, in microseconds, counted as served requests by the shared figures. {@code maxBehindMicros} is how late the sender fell behind its
     * schedule at worst: if it is large, the client, not Kafka, limited the rate. {@code drainMicros}
     * is from the last send (flushed) to the last answer: how long the backlog left when the sending
     * stopped took to clear.
     */
    public record Result(long sent, long measuredSent, long received, long elapsedMicros, long maxBehindMicros, long drainMicros,
                         int requestBytes, int resultBytes, ResultSummary.Stats latency) {

        /** Requests that never came back within the drain timeout. */
        public long lost() {
            return sent - received;
        }

        public long measured() {
            return latency.served();
        }

        public double offeredRatePerSecond() {
            return elapsedMicros == 0 ? 0 : sent * 1_000_000.0 / elapsedMicros;
        }

        public long latencyMicrosAt(double percentile) {
            return latency.latencyMicrosAt(percentile);
        }

        public long p50Micros() {
            return latencyMicrosAt(50);
        }

        public long p99Micros() {
            return latencyMicrosAt(99);
        }

        public long p999Micros() {
            return latencyMicrosAt(99.9);
        }

        public double meanMicros() {
            return latency.meanLatencyMicros();
        }

        public long maxMicros() {
            return latency.maxLatencyMicros();
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "kafka round trip: %d sent (%.0f/s), %d back, %d measured; p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms;"
                            + " records %d B / %d B; sender at most %.2f ms behind",
                    sent, offeredRatePerSecond(), received, measured(), p50Micros() / 1000.0, p99Micros() / 1000.0,
                    p999Micros() / 1000.0, maxMicros() / 1000.0, requestBytes, resultBytes, maxBehindMicros / 1000.0);
        }
    }
}
