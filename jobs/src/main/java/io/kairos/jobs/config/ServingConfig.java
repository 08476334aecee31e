package io.kairos.jobs.config;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.device.Eviction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.AdmissionLimits;
import io.kairos.core.result.AnsweredRequests;
import io.kairos.wire.result.ResultBounds;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.wire.RegistryFraming;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Everything the serving job is configured with, immutable and checked: made by a {@link Builder}
 * ({@link #builder()}, {@link #toBuilder()}) whose {@link Builder#build build} runs every check of
 * the values in one place, so that no configuration the job is given is one it would refuse later.
 * Filled from command-line flags or a properties file by {@code serve} and the testbed's commands
 * that run the job; the defaults are the ones docs/reference/cli.md shows. In a package of its own,
 * below both the job and the option groups ({@code jobs.options}) that read its defaults, so that
 * neither package depends on the other's.
 */
public final class ServingConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    public enum Delivery { AT_LEAST_ONCE, EXACTLY_ONCE }

    /**
     * The defaults, written once as the {@link Builder}'s starting values: the commands' flags start
     * from them ({@code serve}, and the testbed's commands where they share a flag).
     */
    public static final ServingConfig DEFAULTS = builder().build();

    public final String bootstrapServers;
    /**
     * Kafka client properties (SASL, TLS, ...) that every source and sink of the job takes over its
     * own settings ({@code KafkaClientProperties}); credentials among them, so never print this map
     * but through {@code Secrets.masked}.
     */
    public final Map<String, String> kafkaProperties;
    public final String requestsTopic;
    public final String resultsTopic;
    public final String telemetryTopic;
    public final String controlTopic;
    /** Where the job writes what it did with each control decision (applied, rejected, duplicate). */
    public final String outcomesTopic;
    /** Where the devices report each batch's real start and end, read back by the schedulers (the job's feedback loop). */
    public final String deviceReportsTopic;
    /** Where a pipeline request goes from one stage to the next, read back by the job's admission. */
    public final String pipelineHopsTopic;
    public final String consumerGroup;
    /** Read the requests topic from the earliest offset when the group has none committed (else latest). */
    public final boolean fromEarliest;
    public final String policy;
    public final Map<String, String> policyParams;
    public final int devices;
    /**
     * The devices' hardware types with counts in slot order ({@code cpu:2,gpu-t4:1}), as
     * {@code serve --devices} takes them, adding up to {@link #devices}; null: every slot of the
     * catalog's first type.
     */
    public final String deviceTypes;
    /** Latency of simulated devices as a multiple of the profile; 0 for zero-latency devices. */
    public final double simulatedSpeed;
    /** Profiles file (JSON); null for the built-in catalog. */
    public final String modelsFile;
    /**
     * Model repository (a folder of ONNX models with manifests); when set, the devices run the
     * models with ONNX Runtime and the catalog comes from the repository instead of {@link #modelsFile}.
     */
    public final String modelRepository;
    /** Memory budget of each ONNX device for its loaded models, in MiB; least recently used evicted beyond it. */
    public final long deviceMemoryMb;
    /**
     * Which loaded model a device evicts when one must load that does not fit: least recently used
     * first, or least often used per byte with aging ({@code frequency}); the scheduler replays it.
     */
    public final Eviction eviction;
    /** CPU threads of one ONNX batch; 0: the machine's cores shared evenly among the devices. */
    public final int intraOpThreads;
    /**
     * Each ONNX device loads the repository's models and runs each at every batch size of its
     * manifest on synthetic inputs before it takes traffic (Triton's model_warmup), so that the
     * first batches do not pay the runtime's and the JIT compiler's first-run costs.
     */
    public final boolean warmUp;
    /**
     * Flink's network buffer timeout: 0, a record leaves its task at once. Above 0 each exchange of
     * a request's path waits up to the timeout for its buffer to fill, and every task runs a flusher
     * thread that wakes at that interval, which an idle job pays for in CPU with nothing to serve
     * (BENCHMARKS.md, "The demo").
     */
    public final long bufferTimeoutMs;
    /**
     * The buffer timeout of the exchange right after the requests' Kafka source. A source hands on
     * a whole poll (up to hundreds of records) at once; at 0 each of them leaves in a buffer of its
     * own and wakes the next task, so a job restarted under load works off its backlog slowly and
     * serves again much later after a TaskManager's death. 1 ms gathers a poll into a few buffers,
     * and costs the demo nothing it can measure (docs/benchmarks/history.md). The pipeline hops' source keeps {@link #bufferTimeoutMs}:
     * a hop's latency is a stage's, and its rate at most the stages' results.
     */
    public final long sourceBufferTimeoutMs;
    public final long asyncTimeoutMs;
    public final int asyncCapacity;
    public final long checkpointIntervalMs;
    public final Delivery delivery;
    /** How the job restarts after a failure; null leaves the restart strategy to the cluster or the environment. */
    public final Restarts restarts;
    public final int sourceParallelism;
    /**
     * Subtasks of the group scheduler: each runs the serving groups whose keys it owns, so that
     * the groups' scheduling spreads over several threads (and TaskManagers). One group is one
     * subtask's whatever this is; more than the number of groups leaves subtasks idle.
     */
    public final int schedulerParallelism;
    /**
     * Whether the devices report every batch back to its scheduler through {@link #deviceReportsTopic}
     * (default). Off, the job is open-loop: the schedulers plan from their predictions alone, as a
     * test that stages a scheduler whose belief lags its device needs.
     */
    public final boolean closedLoop;
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
    public final long reportCoalesceMicros;
    /** The most batches gathered into one record: a full one leaves at once. */
    public final int reportCoalesceBatches;
    /** Whether the schedulers correct their latency profiles from the devices' reports (a windowed percentile per model and batch size). */
    public final boolean learnLatency;

    /** Longest request_id and pipeline_id admitted, in UTF-8 bytes. */
    public final int maxIdBytes;
    /** Longest tenant and model name admitted, in UTF-8 bytes. */
    public final int maxNameBytes;
    /** Longest SLO admitted. */
    public final double maxSloMs;
    /** How far ahead of the job's clock a request's send time may be. */
    public final long maxClockSkewMs;

    /**
     * Schema ids under which producers that frame their records for a schema registry (Confluent's
     * serializers) registered Kairos's InferenceRequest schema: such records are read as plain ones.
     */
    public final Set<Integer> registrySchemaIds;
    /** A schema registry to look up the writer's schema of other ids in; null for none. */
    public final String schemaRegistryUrl;

    /** Which framed records the job reads; throws IllegalArgumentException naming a bad URL. */
    public RegistryFraming registryFraming() {
        return new RegistryFraming(registrySchemaIds, schemaRegistryUrl);
    }

    /** The bounds a request must keep to be admitted; throws IllegalArgumentException naming a bad one. */
    public AdmissionLimits admissionLimits() {
        return admissionLimits(maxIdBytes, maxNameBytes, maxSloMs, maxClockSkewMs);
    }

    private static AdmissionLimits admissionLimits(int maxIdBytes, int maxNameBytes, double maxSloMs, long maxClockSkewMs) {
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
    public final long transactionTimeoutMs;
    /** At-least-once delivery: how the results topic is read back after a restore ({@link io.kairos.core.result.AnsweredRequests}). */
    public final AnsweredRequests.Settings answeredReadBack;

    /** The topics the job reads and writes. */
    public List<String> topics() {
        return List.of(requestsTopic, resultsTopic, telemetryTopic, controlTopic, outcomesTopic, deviceReportsTopic, pipelineHopsTopic);
    }

    /**
     * The device slots with their types, read against the job's catalog.
     *
     * @throws IllegalArgumentException for a type the catalog lacks
     */
    public DeviceSlots deviceSlots(ModelCatalog catalog) {
        return deviceTypes == null ? DeviceSlots.of(devices, catalog) : DeviceSlots.parse(deviceTypes, catalog);
    }

    /**
     * What every result is cut to before it is written: the results producer's limit (the user's
     * {@code max.request.size} among the Kafka client properties, else Kafka's default), and the
     * admission limits.
     *
     * @throws IllegalArgumentException or {@link ArithmeticException} for a limit that leaves no room for a result
     */
    public ResultBounds resultBounds() {
        return resultBounds(kafkaProperties, admissionLimits());
    }

    private static ResultBounds resultBounds(Map<String, String> kafkaProperties, AdmissionLimits admissionLimits) {
        String limit = kafkaProperties.get("max.request.size");
        int maxRequestSize;
        try {
            maxRequestSize = limit == null ? ResultBounds.KAFKA_DEFAULT_MAX_REQUEST_SIZE : Integer.parseInt(limit.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("max.request.size '" + limit + "' is not a number of bytes");
        }
        return ResultBounds.forProducer(maxRequestSize, admissionLimits);
    }

    private ServingConfig(Builder b) {
        this.bootstrapServers = b.bootstrapServers;
        this.kafkaProperties = Collections.unmodifiableMap(new LinkedHashMap<>(b.kafkaProperties));
        this.requestsTopic = b.requestsTopic;
        this.resultsTopic = b.resultsTopic;
        this.telemetryTopic = b.telemetryTopic;
        this.controlTopic = b.controlTopic;
        this.outcomesTopic = b.outcomesTopic;
        this.deviceReportsTopic = b.deviceReportsTopic;
        this.pipelineHopsTopic = b.pipelineHopsTopic;
        this.consumerGroup = b.consumerGroup;
        this.fromEarliest = b.fromEarliest;
        this.policy = b.policy;
        this.policyParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.policyParams));
        this.devices = b.devices;
        this.deviceTypes = b.deviceTypes;
        this.simulatedSpeed = b.simulatedSpeed;
        this.modelsFile = b.modelsFile;
        this.modelRepository = b.modelRepository;
        this.deviceMemoryMb = b.deviceMemoryMb;
        this.eviction = b.eviction;
        this.intraOpThreads = b.intraOpThreads;
        this.warmUp = b.warmUp;
        this.bufferTimeoutMs = b.bufferTimeoutMs;
        this.sourceBufferTimeoutMs = b.sourceBufferTimeoutMs;
        this.asyncTimeoutMs = b.asyncTimeoutMs;
        this.asyncCapacity = b.asyncCapacity;
        this.checkpointIntervalMs = b.checkpointIntervalMs;
        this.delivery = b.delivery;
        this.restarts = b.restarts;
        this.sourceParallelism = b.sourceParallelism;
        this.schedulerParallelism = b.schedulerParallelism;
        this.closedLoop = b.closedLoop;
        this.reportCoalesceMicros = b.reportCoalesceMicros;
        this.reportCoalesceBatches = b.reportCoalesceBatches;
        this.learnLatency = b.learnLatency;
        this.maxIdBytes = b.maxIdBytes;
        this.maxNameBytes = b.maxNameBytes;
        this.maxSloMs = b.maxSloMs;
        this.maxClockSkewMs = b.maxClockSkewMs;
        this.registrySchemaIds = Collections.unmodifiableSortedSet(new TreeSet<>(b.registrySchemaIds));
        this.schemaRegistryUrl = b.schemaRegistryUrl;
        this.transactionTimeoutMs = b.transactionTimeoutMs;
        this.answeredReadBack = b.answeredReadBack;
    }

    /** A builder that starts from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this configuration, for one that differs in a few values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.bootstrapServers = bootstrapServers;
        b.kafkaProperties = new LinkedHashMap<>(kafkaProperties);
        b.requestsTopic = requestsTopic;
        b.resultsTopic = resultsTopic;
        b.telemetryTopic = telemetryTopic;
        b.controlTopic = controlTopic;
        b.outcomesTopic = outcomesTopic;
        b.deviceReportsTopic = deviceReportsTopic;
        b.pipelineHopsTopic = pipelineHopsTopic;
        b.consumerGroup = consumerGroup;
        b.fromEarliest = fromEarliest;
        b.policy = policy;
        b.policyParams = new LinkedHashMap<>(policyParams);
        b.devices = devices;
        b.deviceTypes = deviceTypes;
        b.simulatedSpeed = simulatedSpeed;
        b.modelsFile = modelsFile;
        b.modelRepository = modelRepository;
        b.deviceMemoryMb = deviceMemoryMb;
        b.eviction = eviction;
        b.intraOpThreads = intraOpThreads;
        b.warmUp = warmUp;
        b.bufferTimeoutMs = bufferTimeoutMs;
        b.sourceBufferTimeoutMs = sourceBufferTimeoutMs;
        b.asyncTimeoutMs = asyncTimeoutMs;
        b.asyncCapacity = asyncCapacity;
        b.checkpointIntervalMs = checkpointIntervalMs;
        b.delivery = delivery;
        b.restarts = restarts;
        b.sourceParallelism = sourceParallelism;
        b.schedulerParallelism = schedulerParallelism;
        b.closedLoop = closedLoop;
        b.reportCoalesceMicros = reportCoalesceMicros;
        b.reportCoalesceBatches = reportCoalesceBatches;
        b.learnLatency = learnLatency;
        b.maxIdBytes = maxIdBytes;
        b.maxNameBytes = maxNameBytes;
        b.maxSloMs = maxSloMs;
        b.maxClockSkewMs = maxClockSkewMs;
        b.registrySchemaIds = new TreeSet<>(registrySchemaIds);
        b.schemaRegistryUrl = schemaRegistryUrl;
        b.transactionTimeoutMs = transactionTimeoutMs;
        b.answeredReadBack = answeredReadBack;
        return b;
    }

    private List<Object> values() {
        return Arrays.asList(bootstrapServers, kafkaProperties, requestsTopic, resultsTopic, telemetryTopic, controlTopic, outcomesTopic, deviceReportsTopic, pipelineHopsTopic, consumerGroup, fromEarliest, policy, policyParams, devices, deviceTypes, simulatedSpeed, modelsFile, modelRepository, deviceMemoryMb, eviction, intraOpThreads, warmUp, bufferTimeoutMs, sourceBufferTimeoutMs, asyncTimeoutMs, asyncCapacity, checkpointIntervalMs, delivery, restarts, sourceParallelism, schedulerParallelism, closedLoop, reportCoalesceMicros, reportCoalesceBatches, learnLatency, maxIdBytes, maxNameBytes, maxSloMs, maxClockSkewMs, registrySchemaIds, schemaRegistryUrl, transactionTimeoutMs, answeredReadBack);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServingConfig other && values().equals(other.values());
    }

    @Override
    public int hashCode() {
        return values().hashCode();
    }

    /**
     * A configuration being written: a field for each of {@link ServingConfig}'s, of the same name
     * and meaning, starting from the defaults. {@link #build} checks the values, all of them and
     * only there, and copies them into an immutable configuration; the builder can go on being
     * changed and built again.
     */
    public static final class Builder {
        public String bootstrapServers = "127.0.0.1:9092";
        public Map<String, String> kafkaProperties = new LinkedHashMap<>();
        public String requestsTopic = "kairos-requests";
        public String resultsTopic = "kairos-results";
        public String telemetryTopic = "kairos-telemetry";
        public String controlTopic = "kairos-control";
        public String outcomesTopic = "kairos-control-outcomes";
        public String deviceReportsTopic = "kairos-device-reports";
        public String pipelineHopsTopic = "kairos-pipeline-hops";
        public String consumerGroup = "kairos-serving";
        public boolean fromEarliest = false;
        public String policy = "clockwork";
        public Map<String, String> policyParams = new LinkedHashMap<>();
        public int devices = 4;
        public String deviceTypes = null;
        public double simulatedSpeed = 1.0;
        public String modelsFile = null;
        public String modelRepository = null;
        public long deviceMemoryMb = 1024;
        public Eviction eviction = Eviction.LRU;
        public int intraOpThreads = 0;
        public boolean warmUp = true;
        public long bufferTimeoutMs = 0;
        public long sourceBufferTimeoutMs = 1;
        public long asyncTimeoutMs = 30_000;
        public int asyncCapacity = 1_000;
        public long checkpointIntervalMs = 10_000;
        public Delivery delivery = Delivery.AT_LEAST_ONCE;
        public Restarts restarts = Restarts.SERVING;
        public int sourceParallelism = 1;
        public int schedulerParallelism = 1;
        public boolean closedLoop = true;
        public long reportCoalesceMicros = 2_000;
        public int reportCoalesceBatches = 64;
        public boolean learnLatency = true;
        public int maxIdBytes = AdmissionLimits.DEFAULTS.maxIdBytes();
        public int maxNameBytes = AdmissionLimits.DEFAULTS.maxNameBytes();
        public double maxSloMs = AdmissionLimits.DEFAULTS.maxSloMs();
        public long maxClockSkewMs = AdmissionLimits.DEFAULTS.maxClockSkewMicros() / 1000;
        public Set<Integer> registrySchemaIds = new TreeSet<>();
        public String schemaRegistryUrl = null;
        public long transactionTimeoutMs = 15 * 60 * 1000;
        public AnsweredRequests.Settings answeredReadBack = AnsweredRequests.Settings.DEFAULTS;

        private Builder() {}

        /**
         * Names every topic of the job {@code prefix} followed by its role ({@code requests},
         * {@code results}, {@code telemetry}, {@code control}, {@code control-outcomes},
         * {@code device-reports}, {@code pipeline-hops}): a bench or a test of its own on a shared broker.
         */
        public Builder topicsNamed(String prefix) {
            requestsTopic = prefix + "requests";
            resultsTopic = prefix + "results";
            telemetryTopic = prefix + "telemetry";
            controlTopic = prefix + "control";
            outcomesTopic = prefix + "control-outcomes";
            deviceReportsTopic = prefix + "device-reports";
            pipelineHopsTopic = prefix + "pipeline-hops";
            return this;
        }

        /** The topics the job will read and write, for a command that creates them before it builds the configuration. */
        public List<String> topics() {
            return List.of(requestsTopic, resultsTopic, telemetryTopic, controlTopic, outcomesTopic, deviceReportsTopic, pipelineHopsTopic);
        }

        /**
         * The configuration these values make, its errors naming the fields as they are named here.
         *
         * @throws InvalidConfig for the first value the job would refuse
         */
        public ServingConfig build() {
            return build(field -> field);
        }

        /**
         * The configuration these values make, its errors naming each field as {@code names} has it:
         * the flag or the configuration file's key that gave the value ({@code serve}).
         *
         * @throws InvalidConfig for the first value the job would refuse
         */
        public ServingConfig build(Function<String, String> names) {
            new Checks(names).of(this);
            return new ServingConfig(this);
        }
    }

    /** The checks {@link Builder#build} runs, each error naming its fields through {@code names}. */
    private record Checks(Function<String, String> names) {
        void of(Builder b) {
            if (b.devices < 1) throw invalid("devices", " must be at least 1, got " + b.devices);
            if (b.deviceTypes != null) {
                int slots;
                try {
                    slots = DeviceSlots.countIn(b.deviceTypes);
                } catch (IllegalArgumentException | ArithmeticException e) {
                    throw invalid("deviceTypes", ": " + e.getMessage());
                }
                if (slots != b.devices) {
                    throw invalid("deviceTypes", " '" + b.deviceTypes + "' are " + slots + " slots, " + names.apply("devices") + " is " + b.devices);
                }
            }
            if (!(b.simulatedSpeed >= 0)) throw invalid("simulatedSpeed", " must not be negative");
            if (!Policies.names().contains(b.policy)) throw invalid("policy", " '" + b.policy + "' is unknown; known: " + Policies.names());
            try {
                Policies.configure(null, b.policy, PolicyParams.of(b.policyParams));
            } catch (IllegalArgumentException e) {
                throw invalid("policyParams", ": " + e.getMessage());
            }
            if (b.modelRepository != null && b.modelsFile != null) {
                throw invalid("modelsFile", " and " + names.apply("modelRepository") + " exclude each other: the repository's manifests are the catalog");
            }
            if (b.deviceMemoryMb < 1) throw invalid("deviceMemoryMb", " must be at least 1, got " + b.deviceMemoryMb);
            if (b.intraOpThreads < 0) throw invalid("intraOpThreads", " must not be negative, got " + b.intraOpThreads);
            if (b.asyncCapacity < 1) throw invalid("asyncCapacity", " must be at least 1, got " + b.asyncCapacity);
            if (b.delivery == Delivery.EXACTLY_ONCE && b.checkpointIntervalMs <= 0) {
                throw invalid("delivery", " EXACTLY_ONCE needs checkpoints (" + names.apply("checkpointIntervalMs") + " > 0): results are committed when one completes");
            }
            if (b.delivery == Delivery.EXACTLY_ONCE && b.transactionTimeoutMs <= b.checkpointIntervalMs) {
                throw invalid("transactionTimeoutMs", " (" + b.transactionTimeoutMs + ") must exceed " + names.apply("checkpointIntervalMs") + " ("
                        + b.checkpointIntervalMs + "): a transaction stays open from one checkpoint to the next");
            }
            if (b.sourceParallelism < 1) throw invalid("sourceParallelism", " must be at least 1, got " + b.sourceParallelism);
            if (b.schedulerParallelism < 1) throw invalid("schedulerParallelism", " must be at least 1, got " + b.schedulerParallelism);
            if (b.reportCoalesceMicros < 0 || b.reportCoalesceMicros > 1_000_000) {
                throw invalid("reportCoalesceMicros", " must be from 0 to 1000 ms, got " + b.reportCoalesceMicros / 1e3 + " ms");
            }
            if (b.reportCoalesceBatches < 1) throw invalid("reportCoalesceBatches", " must be at least 1, got " + b.reportCoalesceBatches);
            try {
                new RegistryFraming(b.registrySchemaIds, b.schemaRegistryUrl);
            } catch (IllegalArgumentException e) {
                throw invalid("registrySchemaIds", ", " + names.apply("schemaRegistryUrl") + ": " + e.getMessage());
            }
            try {
                resultBounds(b.kafkaProperties, admissionLimits(b.maxIdBytes, b.maxNameBytes, b.maxSloMs, b.maxClockSkewMs));
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw invalid("maxIdBytes", ", " + names.apply("maxNameBytes") + ", " + names.apply("maxSloMs") + ", " + names.apply("maxClockSkewMs")
                        + ", the Kafka property max.request.size: " + e.getMessage());
            }
        }

        /** The error for {@code field}: its name, then what is wrong with it. */
        private InvalidConfig invalid(String field, String problem) {
            return new InvalidConfig(field, names.apply(field) + problem);
        }
    }

    /**
     * A value the job would refuse, found by {@link Builder#build}: the message names the field
     * (or the flag or key that gave it) and what is wrong, in one line.
     */
    public static final class InvalidConfig extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String field;

        InvalidConfig(String field, String message) {
            super(message);
            this.field = field;
        }

        /** The configuration's field that is wrong, or the first of those that are wrong together. */
        public String field() {
            return field;
        }
    }
}
