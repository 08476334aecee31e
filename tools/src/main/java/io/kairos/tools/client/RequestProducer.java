package io.kairos.tools.client;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.core.time.WallClock;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.Tensor;
import io.kairos.wire.AvroCodec;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A client that sends inference requests to the requests topic: one at a time with {@link #send},
 * or a whole {@link Workload} paced open-loop in real time with {@link #run}.
 *
 * <p>Each request carries a random input tensor of its model's shape. The tensor is generated once
 * per model and shared by every request of that model (the Avro encoder only reads it), so the
 * cost of a request is its encoding, not a fresh multi-kilobyte buffer. Its key is the request id,
 * which the serving job keeps as the key of the result.
 *
 * <p>Not thread-safe: one request object per model is reused between sends. Use it from one thread;
 * only {@link #stop} may be called from another.
 */
public final class RequestProducer implements AutoCloseable {
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final ModelCatalog catalog;
    private final AvroCodec<InferenceRequest> codec = AvroCodec.of(InferenceRequest.class);
    /** The reused request of each model, its input tensor generated once. */
    private final Map<String, InferenceRequest> templates = new HashMap<>();
    /** Ids are this prefix and a sequence number from 0: random unless {@link #idPrefix(String)} names one. */
    private String idPrefix = UUID.randomUUID().toString().substring(0, 8) + "-";
    private long sequence;

    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    /** One callback for every send, so that sending allocates no lambda. */
    private final Callback onAck = this::onAck;
    private volatile boolean stopped;
    private volatile FailureListener onFailure = FailureListener.NONE;
    /** How many times the topic's metadata is asked for before a producer gives up on it. */
    static final int METADATA_ATTEMPTS = 3;

    /** A producer with {@link #lowLatencyConfig} for the given brokers. */
    public RequestProducer(String bootstrapServers, String topic, ModelCatalog catalog) {
        this(lowLatencyConfig(bootstrapServers), topic, catalog);
    }

    /** A producer with these Kafka settings (start from {@link #lowLatencyConfig} and override). */
    public RequestProducer(Map<String, Object> kafkaConfig, String topic, ModelCatalog catalog) {
        this(new KafkaProducer<>(kafkaConfig, new ByteArraySerializer(), new ByteArraySerializer()), topic, catalog);
    }

    /**
     * Sends through {@code producer}, which this object then owns and closes. Fetches the topic's
     * metadata now, so that the first request does not wait for it and a missing topic is reported
     * here, before any pacing starts.
     */
    public RequestProducer(Producer<byte[], byte[]> producer, String topic, ModelCatalog catalog) {
        this.producer = producer;
        this.topic = topic;
        this.catalog = catalog;
        // Three tries of max.block.ms each: a broker just restarted, or one on a machine loaded
        // many times over, may take more than one to answer (a fault suite's load generator gave
        // up after one at a load average of 21); a topic that does not exist still fails.
        for (int attempt = 1; ; attempt++) {
            try {
                producer.partitionsFor(topic);
                break;
            } catch (TimeoutException e) {
                if (attempt < METADATA_ATTEMPTS) continue;
                producer.close(Duration.ZERO);
                throw new IllegalStateException("topic '" + topic + "' is not known to the brokers (does it exist? are they reachable?): " + e.getMessage());
            }
        }
    }

    /**
     * Producer settings for the request path.
     * <ul>
     *   <li>{@code linger.ms=0}: a request leaves as soon as the sender thread is free; records
     *       that arrive while a send is in flight still go out together in the next batch, so
     *       batching happens under load without delaying a lone request.</li>
     *   <li>{@code acks=all} with idempotence: a consumer (the serving job) can read a record only
     *       once every in-sync replica has it (the high watermark), whatever {@code acks} says, so
     *       {@code acks=1} would not make a request reach the job sooner; it would only make the
     *       producer's acknowledgement earlier and allow losing an acknowledged request. Idempotence
     *       keeps retries from duplicating requests.</li>
     *   <li>{@code batch.size=262144}: the default 16 KiB holds a single 12 KiB image request, so
     *       each produce request would carry one record and the five in flight would cap the rate
     *       at five records per broker round trip. With linger 0 a larger batch never waits to
     *       fill; it only lets the records that queued up during a round trip go out together.</li>
     *   <li>no compression: random tensors do not compress, and it costs CPU on the hot path.</li>
     *   <li>{@code max.block.ms=10000}: an unreachable broker or missing topic fails in seconds,
     *       not the default minute.</li>
     *   <li>{@code buffer.memory=134217728}: while a partition has no leader (a broker restarting)
     *       its requests wait in the producer's buffer, and a send blocks, then fails, once the
     *       buffer is full. The default 32 MiB held about 18 s of 5,000 small requests a second;
     *       a broker restarted on a machine at a load average of 28 took longer, and the fault
     *       suite's load generator gave up on 2 requests. 128 MiB holds over a minute of them.</li>
     *   <li>{@code request.timeout.ms=5000}: a broker that is alive but silent (stopped, a long
     *       pause) holds a request 5 s, not 30, before it is sent again to the partition's leader
     *       by then (as the serving job's clients do).</li>
     * </ul>
     */
    public static Map<String, Object> lowLatencyConfig(String bootstrapServers) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ProducerConfig.CLIENT_ID_CONFIG, "kairos-requests-" + UUID.randomUUID().toString().substring(0, 8));
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        c.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L << 20);
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        return c;
    }

    /**
     * Names the requests sent from now on {@code prefix + 0}, {@code prefix + 1}, ... in send order,
     * so that whoever checks the results knows every id that was sent from the prefix and the count.
     */
    public RequestProducer idPrefix(String prefix) {
        this.idPrefix = Objects.requireNonNull(prefix, "prefix");
        this.sequence = 0;
        return this;
    }

    /**
     * Tells {@code listener} of every request the producer gives up on (its retries spent or the
     * error not retriable), when it gives up: a broker that dies is not such a failure, since the
     * producer sends on to the partition's new leader, but a partition left with too few in-sync
     * replicas for longer than {@code delivery.timeout.ms} is.
     */
    public RequestProducer onFailure(FailureListener listener) {
        this.onFailure = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /** Sends one request now and returns its id. */
    public String send(String tenant, String model, double sloMs) {
        InferenceRequest request = template(model);
        String id = idPrefix + sequence++;
        request.setRequestId(id);
        request.setTenant(tenant);
        request.setSloMs(sloMs);
        // Stamped last, right before encoding: the SLO clock starts when the request leaves the client.
        request.setSentAtMicros(WallClock.nowMicros());
        byte[] value = codec.encode(request);
        producer.send(new ProducerRecord<>(topic, id.getBytes(StandardCharsets.UTF_8), value), onAck);
        return id;
    }

    /**
     * Sends one request now into pipeline {@code pipelineId}, naming its entry stage's
     * {@code model} (whose input it carries), and returns its id.
     */
    public String sendToPipeline(String tenant, String pipelineId, String model, double sloMs) {
        return sendWith(model, InferenceRequest::setPipelineId, pipelineId, () -> send(tenant, model, sloMs));
    }

    /** Sends one request now with a window SLO: its answer wanted between {@code windowStartMs} and {@code sloMs} after it is sent. */
    public String sendWithWindow(String tenant, String model, double windowStartMs, double sloMs) {
        return sendWith(model, InferenceRequest::setWindowStartMs, windowStartMs, () -> send(tenant, model, sloMs));
    }

    /**
     * Sends with one field of {@code model}'s request template set to {@code value}, and that field
     * back to null afterwards: the template is reused for every request of the model.
     */
    private <V> String sendWith(String model, BiConsumer<InferenceRequest, V> field, V value, Supplier<String> send) {
        InferenceRequest request = template(model);
        field.accept(request, value);
        try {
            return send.get();
        } finally {
            field.accept(request, null);
        }
    }

    /** Sends one request of a workload now, with its window when it has one. */
    public String send(Arrival arrival) {
        if (arrival.hasWindow()) return sendWithWindow(arrival.tenant(), arrival.model(), arrival.windowStartMs(), arrival.sloMs());
        return send(arrival.tenant(), arrival.model(), arrival.sloMs());
    }

    /** Runs {@link #run(Workload, long, Duration, Progress)} without a progress listener. */
    public PacingReport run(Workload workload, long seed, Duration duration) throws InterruptedException {
        return run(workload, seed, duration, Progress.NONE);
    }

    /**
     * Sends the arrivals of {@code workload} with this seed whose offset falls within {@code duration},
     * each at its offset from now in real time, then flushes. Returns how many were sent and how far
     * behind schedule the sends fell. Ends early after {@link #stop}.
     *
     * @throws IllegalArgumentException when the workload asks for a model that is not in the catalog
     */
    public PacingReport run(Workload workload, long seed, Duration duration, Progress progress) throws InterruptedException {
        // Unknown models fail here, before the first send; encoding each template once loads and
        // warms the Avro writer, so that the first requests do not go out late for it.
        for (String model : workload.models()) codec.encode(template(model));
        long durationMicros = duration.toNanos() / 1_000;
        // Lag from 1 us to an hour, 2 significant digits: enough to tell 0.1 ms from 1 ms from 10 ms.
        Histogram behind = new Histogram(3_600_000_000L, 2);
        long sent = 0;
        long sentLate = 0;
        long behindSum = 0;
        stopped = false;
        Workload.Arrivals arrivals = workload.arrivals(seed);
        OpenLoopPacer pacer = new OpenLoopPacer();
        while (!stopped && arrivals.peekOffsetMicros() < durationMicros) {
            Arrival a = arrivals.next();
            long lag = pacer.awaitOffset(a.offsetMicros());
            send(a);
            sent++;
            behind.recordValue(Math.min(lag, behind.getHighestTrackableValue()));
            behindSum += lag;
            if (lag > LATE_SEND_MICROS) sentLate++;
            progress.onSent(sent, a.offsetMicros(), lag);
        }
        long elapsed = pacer.elapsedMicros();
        producer.flush();
        return new PacingReport(sent, elapsed, sent == 0 ? 0 : (double) behindSum / sent,
                behind.getValueAtPercentile(99), sent == 0 ? 0 : behind.getMaxValue(), sentLate,
                acked.get(), failed.get(), firstError.get());
    }

    /** A send later than this behind its moment counts as late in {@link PacingReport#sentLate}. */
    public static final long LATE_SEND_MICROS = 1_000;

    /** Makes a running {@link #run} return after its current send. Safe from any thread. */
    public void stop() {
        stopped = true;
    }

    /** Waits until every request sent so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    public long acked() {
        return acked.get();
    }

    public long failed() {
        return failed.get();
    }

    /** The first send error, or null. */
    public String firstError() {
        return firstError.get();
    }

    /** The input tensor every request of {@code model} carries. */
    public Tensor inputOf(String model) {
        return template(model).getInput();
    }

    private InferenceRequest template(String model) {
        InferenceRequest t = templates.get(model);
        if (t != null) return t;
        ModelSpec spec = catalog.get(model);
        if (spec == null) throw new IllegalArgumentException("unknown model '" + model + "'; the catalog has " + catalog.names());
        // Seeded by the model's name: the same model always carries the same input.
        Tensor input = RandomTensors.of(spec.input(), new SplittableRandom(model.hashCode()));
        t = InferenceRequest.newBuilder()
                .setRequestId("").setTenant("").setModel(model).setInput(input).setSentAtMicros(0).setSloMs(1)
                .build();
        templates.put(model, t);
        return t;
    }

    private void onAck(RecordMetadata metadata, Exception error) {
        // Runs on the producer's I/O thread.
        if (error == null) {
            acked.incrementAndGet();
        } else {
            long n = failed.incrementAndGet();
            String described = error.getClass().getSimpleName() + ": " + error.getMessage();
            firstError.compareAndSet(null, described);
            onFailure.failed(n, described);
        }
    }

    @Override
    public void close() {
        producer.close();
    }

    /** Told of every request given up on, on the producer's I/O thread: keep it short. */
    @FunctionalInterface
    public interface FailureListener {
        FailureListener NONE = (failedSoFar, error) -> {};

        /** {@code failedSoFar} counts this one; {@code error} names the exception and its message. */
        void failed(long failedSoFar, String error);
    }

    /** Told of every send of a {@link #run}, on the sending thread: keep it short. */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (sent, offsetMicros, behindMicros) -> {};

        void onSent(long sent, long offsetMicros, long behindMicros);
    }

    /**
     * What a {@link #run} did: requests sent, real time it took, and how far behind their scheduled
     * moment the sends went out (mean, p99 and max in microseconds; {@code sentLate} is the count
     * more than {@link #LATE_SEND_MICROS} behind). {@code acked} and {@code failed} count the
     * broker's answers to every send of this producer so far, after the run's final flush;
     * {@code firstError} is the first failure, or null.
     */
    public record PacingReport(long sent, long elapsedMicros, double meanBehindMicros, long p99BehindMicros,
                               long maxBehindMicros, long sentLate, long acked, long failed, String firstError) {

        /** Requests per second actually offered. */
        public double offeredRatePerSecond() {
            return elapsedMicros == 0 ? 0 : sent * 1_000_000.0 / elapsedMicros;
        }
    }
}
