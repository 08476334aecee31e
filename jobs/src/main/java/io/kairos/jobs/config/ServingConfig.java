package io.kairos.jobs.config;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.AdmissionLimits;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything the serving job is configured with. Filled from command-line flags or a properties
 * file by {@code serve} and the testbed's commands that run the job; the defaults are the ones
 * docs/reference/cli.md shows. In a package of its own, below both the job and the option groups
 * ({@code jobs.options}) that read its defaults, so that neither package depends on the other's.
 */
public final class ServingConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    public enum Delivery { AT_LEAST_ONCE, EXACTLY_ONCE }

    /**
     * The defaults, the one place where they are written: the commands' flags start from them
     * ({@code serve}, and the testbed's commands where they share a flag). Read only.
     */
    public static final ServingConfig DEFAULTS = new ServingConfig();

    public String bootstrapServers = "127.0.0.1:9092";
    /**
     * Kafka client properties (SASL, TLS, ...) that every source and sink of the job takes over its
     * own settings ({@code KafkaClientProperties}); credentials among them, so never print this map
     * but through {@code Secrets.masked}.
     */
    public Map<String, String> kafkaProperties = new LinkedHashMap<>();
    public String requestsTopic = "kairos-requests";
    public String resultsTopic = "kairos-results";
    public String telemetryTopic = "kairos-telemetry";
    public String controlTopic = "kairos-control";
    /** Where the job writes what it did with each control decision (applied, rejected, duplicate). */
    public String outcomesTopic = "kairos-control-outcomes";
    /** Where the devices report each batch's real start and end, read back by the schedulers (the job's feedback loop). */
    public String deviceReportsTopic = "kairos-device-reports";
    /** Where a pipeline request goes from one stage to the next, read back by the job's admission. */
    public String pipelineHopsTopic = "kairos-pipeline-hops";
    public String consumerGroup = "kairos-serving";
    /**
     * Names every topic of the job {@code prefix} followed by its role ({@code requests},
     * {@code results}, {@code telemetry}, {@code control}, {@code control-outcomes},
     * {@code device-reports}, {@code pipeline-hops}): a bench or a test of its own on a shared broker.
     */
    public ServingConfig topicsNamed(String prefix) {
        requestsTopic = prefix + "requests";
        resultsTopic = prefix + "results";
        telemetryTopic = prefix + "telemetry";
        controlTopic = prefix + "control";
        outcomesTopic = prefix + "control-outcomes";
        deviceReportsTopic = prefix + "device-reports";
        pipelineHopsTopic = prefix + "pipeline-hops";
        return this;
    }

    /** Read the requests topic from the earliest offset when the group has none committed (else latest). */
    public boolean fromEarliest = false;
    public String policy = "clockwork";
    public Map<String, String> policyParams = new LinkedHashMap<>();
    public int devices = 4;
    /**
     * The devices' hardware types with counts in slot order ({@code cpu:2,gpu-t4:1}), as
     * {@code serve --devices} takes them, adding up to {@link #devices}; null: every slot of the
     * catalog's first type.
     */
    public String deviceTypes = null;
    /** Latency of simulated devices as a multiple of the profile; 0 for zero-latency devices. */
    public double simulatedSpeed = 1.0;
    /** Profiles file (JSON); null for the built-in catalog. */
    public String modelsFile = null;
    /**
     * Model repository (a folder of ONNX models with manifests); when set, the devices run the
     * models with ONNX Runtime and the catalog comes from the repository instead of {@link #modelsFile}.
     */
    public String modelRepository = null;
    /** Memory budget of each ONNX device for its loaded models, in MiB; least recently used evicted beyond it. */
    public long deviceMemoryMb = 1024;
    /**
     * Which loaded model a device evicts when one must load that does not fit: least recently used
     * first, or least often used per byte with aging ({@code frequency}); the scheduler replays it.
     */
    public Eviction eviction = Eviction.LRU;
    /** CPU threads of one ONNX batch; 0: the machine's cores shared evenly among the devices. */
    public int intraOpThreads = 0;
    /**
     * Each ONNX device loads the repository's models and runs each at every batch size of its
     * manifest on synthetic inputs before it takes traffic (Triton's model_warmup), so that the
     * first batches do not pay the runtime's and the JIT compiler's first-run costs.
     */
    public boolean warmUp = true;
    /**
     * Flink's network buffer timeout: 0, a record leaves its task at once. Above 0 each exchange of
     * a request's path waits up to the timeout for its buffer to fill, and every task runs a flusher
     * thread that wakes at that interval, which an idle job pays for in CPU with nothing to serve
     * (BENCHMARKS.md, "The demo").
     */
    public long bufferTimeoutMs = 0;
    /**
     * The buffer timeout of the exchange right after the requests' Kafka source. A source hands on
     * a whole poll (up to hundreds of records) at once; at 0 each of them leaves in a buffer of its
     * own and wakes the next task, so a job restarted under load works off its backlog slowly and
     * serves again much later after a TaskManager's death. 1 ms gathers a poll into a few buffers,
     * and costs the demo nothing it can measure (docs/benchmarks/history.md). The pipeline hops' source keeps {@link #bufferTimeoutMs}:
     * a hop's latency is a stage's, and its rate at most the stages' results.
     */
    public long sourceBufferTimeoutMs = 1;
    public long asyncTimeoutMs = 30_000;
    public int asyncCapacity = 1_000;
    public long checkpointIntervalMs = 10_000;
    public Delivery delivery = Delivery.AT_LEAST_ONCE;
    /** How the job restarts after a failure; null leaves the restart strategy to the cluster or the environment. */
    public Restarts restarts = Restarts.SERVING;
    public int sourceParallelism = 1;
    /**
     * Subtasks of the group scheduler: each runs the serving groups whose keys it owns, so that
     * the groups' scheduling spreads over several threads (and TaskManagers). One group is one
     * subtask's whatever this is; more than the number of groups leaves subtasks idle.
     */
    public int schedulerParallelism = 1;
    /**
     * Whether the devices report every batch back to its scheduler through {@link #deviceReportsTopic}
     * (default). Off, the job is open-loop: the schedulers plan from their predictions alone, as a
     * test that stages a scheduler whose belief lags its device needs.
     */
    public boolean closedLoop = true;
    /**
     * How long each device gathers the reports and telemetry of its batches into one record of
     * each after the last one left, µs; 0: a record of each per batch. At high rates, where batches
     * are of one request, a record per batch and kind cost the broker two records per request
     * beside the request and its result; the first record after a quiet spell leaves at once, so
     * an idle scheduler learns a batch's end without the wait. 2 ms by default: over that interval
     * a busy device's reports and telemetry share a record or two, which brings the records per
     * request on the broker close to a bare round trip's two and lowers the pipeline's latency at
     * high rates, while the schedulers still learn of a batch's end in time for the fidelity check
     * against the simulator to pass (BENCHMARKS.md, "Device reports and telemetry gathered per device").
     */
    public long reportCoalesceMicros = 2_000;
    /** The most batches gathered into one record: a full one leaves at once. */
    public int reportCoalesceBatches = 64;
    /** Whether the schedulers correct their latency profiles from the devices' reports (a windowed percentile per model and batch size). */
    public boolean learnLatency = true;

    /** Longest request_id and pipeline_id admitted, in UTF-8 bytes. */
    public int maxIdBytes = AdmissionLimits.DEFAULTS.maxIdBytes();
    /** Longest tenant and model name admitted, in UTF-8 bytes. */
    public int maxNameBytes = AdmissionLimits.DEFAULTS.maxNameBytes();
    /** Longest SLO admitted. */
    public double maxSloMs = AdmissionLimits.DEFAULTS.maxSloMs();
    /** How far ahead of the job's clock a request's send time may be. */
    public long maxClockSkewMs = AdmissionLimits.DEFAULTS.maxClockSkewMicros() / 1000;

    /**
     * Schema ids under which producers that frame their records for a schema registry (Confluent's
     * serializers) registered Kairos's InferenceRequest schema: such records are read as plain ones.
     */
    public java.util.Set<Integer> registrySchemaIds = new java.util.TreeSet<>();
    /** A schema registry to look up the writer's schema of other ids in; null for none. */
    public String schemaRegistryUrl = null;

    /** Which framed records the job reads; throws IllegalArgumentException naming a bad URL. */
    public io.kairos.wire.RegistryFraming registryFraming() {
        return new io.kairos.wire.RegistryFraming(registrySchemaIds, schemaRegistryUrl);
    }

    /** The bounds a request must keep to be admitted; throws IllegalArgumentException naming a bad one. */
    public AdmissionLimits admissionLimits() {
        return new AdmissionLimits(maxIdBytes, maxNameBytes, maxSloMs, Math.multiplyExact(maxClockSkewMs, 1000L));
    }

    /**
     * Flink's exponential-delay restart strategy with a reset: the first restart after
     * {@code initialBackoffMs}, each further one after 1.5 times the last (at most {@code maxBackoffMs}),
     * and back to {@code initialBackoffMs} once the job has run {@code resetAfterMs} without a failure.
     * Attempts are not counted, so failures spaced further apart than the reset never end the job,
     * and a cause that lasts (a broker down for minutes) is retried every {@code maxBackoffMs} until
     * it goes away.
     */
    public record Restarts(long initialBackoffMs, long maxBackoffMs, long resetAfterMs) implements Serializable {
        /**
         * A serving job's: a quarter of a second after a crash, and retries close together while a
         * TaskManager comes back (each restart without free slots fails at once and counts); no
         * faster than every 10 s while the job keeps failing; back to the start after 15 s of service.
         */
        public static final Restarts SERVING = new Restarts(250, 10_000, 15_000);

        public Restarts {
            if (initialBackoffMs < 1) throw new IllegalArgumentException("the initial restart backoff must be at least 1 ms, got " + initialBackoffMs);
            if (maxBackoffMs < initialBackoffMs) {
                throw new IllegalArgumentException("the maximum restart backoff (" + maxBackoffMs + " ms) must not be below the initial one (" + initialBackoffMs + " ms)");
            }
            if (resetAfterMs < 1) throw new IllegalArgumentException("the restart backoff's reset threshold must be at least 1 ms, got " + resetAfterMs);
        }
    }

    /**
     * Exactly-once delivery: how long a transaction of the results sink may stay open before the
     * broker aborts it. A transaction spans a checkpoint interval and is committed when the
     * checkpoint completes; if the job is down longer than this between the two, those results are
     * lost. Flink's sink asks 1 hour by default, which a broker refuses beyond its
     * {@code transaction.max.timeout.ms} (15 minutes by default): so 15 minutes, at most what a
     * broker allows unless told otherwise.
     */
    public long transactionTimeoutMs = 15 * 60 * 1000;
    /** At-least-once delivery: how the results topic is read back after a restore ({@link io.kairos.core.result.AnsweredRequests}). */
    public io.kairos.core.result.AnsweredRequests.Settings answeredReadBack = io.kairos.core.result.AnsweredRequests.Settings.DEFAULTS;

    /** The topics the job reads and writes. */
    public java.util.List<String> topics() {
        return java.util.List.of(requestsTopic, resultsTopic, telemetryTopic, controlTopic, outcomesTopic, deviceReportsTopic, pipelineHopsTopic);
    }

    /**
     * The device slots with their types, read against the job's catalog.
     *
     * @throws IllegalArgumentException for a type the catalog lacks, or types whose counts do not add up to {@link #devices}
     */
    public DeviceSlots deviceSlots(ModelCatalog catalog) {
        if (deviceTypes == null) return DeviceSlots.of(devices, catalog);
        DeviceSlots slots = DeviceSlots.parse(deviceTypes, catalog);
        if (slots.count() != devices) {
            throw new IllegalArgumentException("devices '" + deviceTypes + "' are " + slots.count() + " slots, the configuration has " + devices);
        }
        return slots;
    }
}
