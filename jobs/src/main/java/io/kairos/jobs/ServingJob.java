package io.kairos.jobs;

import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultLog;
import io.kairos.core.time.Clock;
import io.kairos.flink.AcceptDecisions;
import io.kairos.flink.AdmitHops;
import io.kairos.flink.AdmitRequests;
import io.kairos.flink.AdvancePipelines;
import io.kairos.flink.AsyncInference;
import io.kairos.flink.CoalesceReports;
import io.kairos.flink.ControlPlane;
import io.kairos.flink.DeviceSlotPartitioner;
import io.kairos.flink.EmitResults;
import io.kairos.flink.GroupSchedulerFunction;
import io.kairos.flink.PreciseWakeOperator;
import io.kairos.flink.RepositoryCopy;
import io.kairos.flink.ResolvePreemptions;
import io.kairos.flink.SharedRecords;
import io.kairos.flink.SuppressAnswered;
import io.kairos.flink.kafka.AvroRecordSerializer;
import io.kairos.flink.kafka.ControlDecisionDeserializer;
import io.kairos.flink.kafka.ControlRestoreSerializer;
import io.kairos.flink.kafka.DeviceReportDeserializer;
import io.kairos.flink.kafka.PipelineHopDeserializer;
import io.kairos.flink.kafka.RawRequestDeserializer;
import io.kairos.flink.kafka.ResultsTopicLog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.OnnxDevice;
import io.kairos.onnx.OnnxDevices;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.GroupInput;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.schema.internal.RawRequest;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.wire.KafkaClientProperties;
import io.kairos.wire.device.DeviceFactory;
import io.kairos.wire.result.ResultBounds;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The serving job: requests → decode and validate → route to serving group → group scheduler →
 * device slot → async inference → one result per request, plus per-batch telemetry. Control
 * decisions are decided once ({@link AcceptDecisions}), their outcomes written out, and the applied
 * ones broadcast to the router and the scheduler. The few results of requests whose batch
 * was preempted take a detour through {@link ResolvePreemptions}, keyed by request id, which
 * keeps one of them.
 *
 * Decoding, validation and routing share one operator (see {@link AdmitRequests}).
 *
 * <p>The loop is closed through Kafka: every batch a device ran is reported back to its group's
 * scheduler (real start and end, cold start) on the device-reports topic, which the job writes and
 * reads back. Flink 2.0 has no feedback edge in a DataStream job (the iteration API was removed),
 * and a broker hop is a few milliseconds, far below the seconds over which a profile drifts. With
 * {@code reportCoalesceMicros} set, each device gathers its reports, and its telemetry, over a
 * short interval into one record of each ({@link CoalesceReports}), so that a busy job does not
 * cost the broker two records per batch.
 *
 * <p>It takes its sources and sinks in the constructor ({@link Endpoints}), so that {@code main}
 * wires Kafka and a test can wire its own around the very same topology; {@link Endpoints#onKafka}
 * gives the production ones.
 */
public final class ServingJob {
    /**
     * Where the job reads and writes.
     *
     * @param requests        the requests, as raw records
     * @param control         the control decisions
     * @param results         one result per request
     * @param telemetry       one record per batch, or per device's gathering of batches
     * @param outcomes        each control decision's outcome
     * @param controlRestores the control topic again: after a decision it did not apply, the job
     *                        writes there what it holds for that key, so that compaction keeps it
     *                        ({@link AcceptDecisions})
     * @param reportsOut      where the devices write their reports; null for an open loop
     * @param reportsIn       where the schedulers read them back (what {@code reportsOut} wrote); null for an open loop
     * @param resultLog       where {@code results} can be read back after a restore, so that under
     *                        at-least-once delivery a replayed request that already has a result
     *                        gets no second one ({@link SuppressAnswered}); null: no such rule
     * @param hopsOut         where a pipeline request goes on to its next stage ({@link AdvancePipelines});
     *                        null: no hops, a pipeline request whose path goes on fails there
     * @param hopsIn          where admission reads the hops back ({@link AdmitHops}; what {@code hopsOut} wrote)
     */
    public record Endpoints(Source<RawRequest, ?, ?> requests, Source<ControlDecision, ?, ?> control,
                            Sink<InferenceResult> results, Sink<BatchTelemetry> telemetry,
                            Sink<DecisionOutcome> outcomes, Sink<ControlRestore> controlRestores,
                            Sink<DeviceReport> reportsOut, Source<DeviceReport, ?, ?> reportsIn,
                            ResultLog resultLog, Sink<PipelineHop> hopsOut, Source<PipelineHop, ?, ?> hopsIn) {
        public Endpoints {
            Objects.requireNonNull(requests, "requests");
            Objects.requireNonNull(control, "control");
            Objects.requireNonNull(results, "results");
            Objects.requireNonNull(telemetry, "telemetry");
            Objects.requireNonNull(outcomes, "outcomes");
            Objects.requireNonNull(controlRestores, "controlRestores");
            if ((reportsOut == null) != (reportsIn == null)) throw new IllegalArgumentException("device reports need both a sink and the source that reads it back");
            if ((hopsOut == null) != (hopsIn == null)) throw new IllegalArgumentException("pipeline hops need both a sink and the source that reads it back");
        }

        /** An open loop: the devices' reports never reach the schedulers, whose predictions are never corrected. */
        public static Endpoints openLoop(Source<RawRequest, ?, ?> requests, Source<ControlDecision, ?, ?> control,
                                         Sink<InferenceResult> results, Sink<BatchTelemetry> telemetry,
                                         Sink<DecisionOutcome> outcomes, Sink<ControlRestore> controlRestores) {
            return new Endpoints(requests, control, results, telemetry, outcomes, controlRestores, null, null, null, null, null);
        }

        /** These endpoints with the loop closed through {@code reportsOut} and {@code reportsIn}. */
        public Endpoints withDeviceReports(Sink<DeviceReport> reportsOut, Source<DeviceReport, ?, ?> reportsIn) {
            return new Endpoints(requests, control, results, telemetry, outcomes, controlRestores, reportsOut, reportsIn, resultLog, hopsOut, hopsIn);
        }

        /** These endpoints with {@code results} read back from {@code resultLog} after a restore. */
        public Endpoints withResultLog(ResultLog resultLog) {
            return new Endpoints(requests, control, results, telemetry, outcomes, controlRestores, reportsOut, reportsIn, resultLog, hopsOut, hopsIn);
        }

        /** These endpoints with pipeline requests going on to their next stage through {@code hopsOut}, read back from {@code hopsIn}. */
        public Endpoints withPipelineHops(Sink<PipelineHop> hopsOut, Source<PipelineHop, ?, ?> hopsIn) {
            return new Endpoints(requests, control, results, telemetry, outcomes, controlRestores, reportsOut, reportsIn, resultLog, hopsOut, hopsIn);
        }

        boolean pipelineHops() {
            return hopsOut != null;
        }

        boolean closedLoop() {
            return reportsOut != null;
        }

        /** The Kafka topics named in {@code config}. */
        public static Endpoints onKafka(ServingConfig config) {
            Properties consumer = consumerSettings(config);
            KafkaSource<RawRequest> requests = KafkaSource.<RawRequest>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setTopics(config.requestsTopic)
                    .setGroupId(config.consumerGroup)
                    .setStartingOffsets(OffsetsInitializer.committedOffsets(config.fromEarliest ? OffsetResetStrategy.EARLIEST : OffsetResetStrategy.LATEST))
                    .setDeserializer(new RawRequestDeserializer())
                    .setProperties(consumer)
                    .build();
            // Decisions are read from the start on a fresh start: the compacted topic holds the latest
            // decision of each key, which is the plan; versions make anything read twice a no-op.
            KafkaSource<ControlDecision> control = KafkaSource.<ControlDecision>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setTopics(config.controlTopic)
                    .setGroupId(config.consumerGroup + "-control")
                    .setStartingOffsets(OffsetsInitializer.earliest())
                    .setDeserializer(new ControlDecisionDeserializer())
                    .setProperties(consumer)
                    .build();
            Properties producer = producerSettings(ProducerRole.OTHER, config);
            Properties resultsProducer = producerSettings(ProducerRole.RESULTS, config);
            Properties telemetryProducer = producerSettings(ProducerRole.TELEMETRY, config);
            Properties reportsProducer = producerSettings(ProducerRole.DEVICE_REPORTS, config);
            DeliveryGuarantee guarantee = config.delivery == ServingConfig.Delivery.EXACTLY_ONCE ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE;
            KafkaSink<InferenceResult> results = KafkaSink.<InferenceResult>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new AvroRecordSerializer<>(config.resultsTopic, InferenceResult.class, InferenceResult::getRequestId))
                    .setDeliveryGuarantee(guarantee)
                    .setTransactionalIdPrefix(transactionalIdPrefix(config))
                    .setKafkaProducerConfig(resultsProducer)
                    .setProperty("transaction.timeout.ms", Long.toString(config.transactionTimeoutMs))
                    .build();
            // The other sinks stay at least once whatever the delivery of the results: each record is
            // idempotent where it is read (a batch's telemetry by batch id, an outcome or a restore
            // decided again the same way, a device report observed twice), and a transaction would
            // hold each back until a checkpoint completes, which the device reports' loop cannot wait for.
            KafkaSink<BatchTelemetry> telemetry = KafkaSink.<BatchTelemetry>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new AvroRecordSerializer<>(config.telemetryTopic, BatchTelemetry.class, BatchTelemetry::getBatchId))
                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setKafkaProducerConfig(telemetryProducer)
                    .build();
            // Outcomes keyed by writer: each writer's in one partition, in the order they were decided.
            KafkaSink<DecisionOutcome> outcomes = KafkaSink.<DecisionOutcome>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new AvroRecordSerializer<>(config.outcomesTopic, DecisionOutcome.class, DecisionOutcome::getWriter))
                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setKafkaProducerConfig(producer)
                    .build();
            // At least once is enough: a restore written twice is read back as a duplicate twice.
            KafkaSink<ControlRestore> restores = KafkaSink.<ControlRestore>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new ControlRestoreSerializer(config.controlTopic))
                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setKafkaProducerConfig(producer)
                    .build();
            // Hops written before this job started belong to requests it never admitted: read from
            // the end on a fresh start, from the checkpoint's offsets on a restore (AdmitHops drops
            // the second copy of a hop that a replay makes again). At least once, like the device
            // reports: a transaction would hold every hop back until a checkpoint completes.
            KafkaSource<PipelineHop> hopsIn = KafkaSource.<PipelineHop>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setTopics(config.pipelineHopsTopic)
                    .setGroupId(config.consumerGroup + "-pipeline-hops")
                    .setStartingOffsets(OffsetsInitializer.latest())
                    .setDeserializer(new PipelineHopDeserializer())
                    .setProperties(consumer)
                    .build();
            KafkaSink<PipelineHop> hopsOut = KafkaSink.<PipelineHop>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new AvroRecordSerializer<>(config.pipelineHopsTopic, PipelineHop.class, h -> h.getRequest().getRequestId()))
                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setKafkaProducerConfig(producerSettings(ProducerRole.PIPELINE_HOPS, config))
                    .build();
            Endpoints open = openLoop(requests, control, results, telemetry, outcomes, restores).withResultLog(resultLog(config))
                    .withPipelineHops(hopsOut, hopsIn);
            if (!config.closedLoop) return open;
            // Reports written before this job started are of batches it never sent: read from the end.
            KafkaSource<DeviceReport> reportsIn = KafkaSource.<DeviceReport>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setTopics(config.deviceReportsTopic)
                    .setGroupId(config.consumerGroup + "-device-reports")
                    .setStartingOffsets(OffsetsInitializer.latest())
                    .setDeserializer(new DeviceReportDeserializer())
                    .setProperties(consumer)
                    .build();
            KafkaSink<DeviceReport> reportsOut = KafkaSink.<DeviceReport>builder()
                    .setBootstrapServers(config.bootstrapServers)
                    .setRecordSerializer(new AvroRecordSerializer<>(config.deviceReportsTopic, DeviceReport.class, DeviceReport::getGroup))
                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setKafkaProducerConfig(reportsProducer)
                    .build();
            return open.withDeviceReports(reportsOut, reportsIn);
        }

        /**
         * The settings of the job's consumers, the user's Kafka properties over them. A fetch is
         * answered as soon as one byte is there. Kafka's default of 1 MiB per partition returns one 600 kB image
         * per round trip to the broker, so a backlog of big requests would drain one record at a
         * time; a fetch takes {@value #MAX_FETCH_BYTES} bytes, of one partition or several. Not
         * Kafka's 50 MiB: the JDK reads a socket into the consumer's heap buffer through a
         * temporary direct buffer as large as what is left of the response, and caches it only up
         * to {@code -Djdk.nio.maxCachedBufferSize} (1 MiB on Flink JVMs, which cap it so that task
         * threads do not hold direct memory for good). A 50 MiB response was read 64 kB at a time,
         * each read allocating and zeroing tens of MiB: a restored job facing a backlog of 45 s of
         * requests read none of it in two minutes. The clusters the project starts cap the cache
         * at {@value #MAX_CACHED_DIRECT_BUFFER} bytes, so one buffer serves every read of a fetch.
         * A fetch that finds nothing may be parked at the broker {@value #FETCH_MAX_WAIT_MS} ms: the
         * broker answers a parked fetch the moment a record is appended to one of its partitions,
         * so the wait costs a record nothing; it only bounds how often an idle consumer asks. At
         * 5 ms every idle source sent the broker 200 empty fetches a second, and the broker's
         * request threads took the largest share of an idle demo's CPU.
A broker that does not answer within
         * {@value #BROKER_REQUEST_TIMEOUT_MS} ms is left for the partition's new leader
         * ({@link #BROKER_REQUEST_TIMEOUT_MS}).
         */
        static Properties consumerSettings(ServingConfig config) {
            Properties consumer = withoutJmx(new Properties());
            consumer.setProperty("fetch.min.bytes", "1");
            consumer.setProperty("fetch.max.wait.ms", Integer.toString(FETCH_MAX_WAIT_MS));
            consumer.setProperty("max.partition.fetch.bytes", Integer.toString(MAX_FETCH_BYTES));
            consumer.setProperty("fetch.max.bytes", Integer.toString(MAX_FETCH_BYTES));
            consumer.setProperty("request.timeout.ms", Integer.toString(BROKER_REQUEST_TIMEOUT_MS));
            return KafkaClientProperties.over(consumer, config.kafkaProperties);
        }

        /**
         * Every Kafka client of the job leaves its metrics out of JMX ({@code
         * auto.include.jmx.reporter=false}; Kafka 4 drops the key, and the reporter with it unless
         * named in {@code metric.reporters}). Flink's connector reports them through Flink's
         * metrics already, which the Prometheus reporter serves. Registering each of a client's
         * hundred-odd metrics as an MBean takes one JVM-wide lock: when a job restores, its four
         * sources and a dozen producers start together, and in a flight recording of a failover
         * the sources spent a third of their 3 s from deployed to running waiting on each other
         * there. The user's Kafka properties still win.
         */
        static Properties withoutJmx(Properties client) {
            client.setProperty("auto.include.jmx.reporter", "false");
            return client;
        }

        /** What a producer of the job writes, for its settings ({@link #producerSettings}). */
        enum ProducerRole { RESULTS, DEVICE_REPORTS, PIPELINE_HOPS, TELEMETRY, OTHER }

        /**
         * The settings of the job's producer of {@code role}, the user's Kafka properties over them.
         * Every producer sends at once ({@code linger.ms=0}: batching happens in the scheduler),
         * but for the telemetry, which nobody waits for: it lingers {@value #TELEMETRY_LINGER_MS} ms,
         * so that the record of every batch (a record per request when batches are of one) goes to
         * the broker a few hundred to a produce request, not one each. The results and the device
         * reports, which a client and the scheduler wait for, keep one produce request in flight per
         * connection (the pipeline hops too, which a request's next stage waits for): the first record leaves at once, and those that come while it is in flight
         * go together in the next, so the broker is sent fewer, fuller requests the busier the job
         * is, without a wait when it is not.
         *
         * <p>Every producer writes with {@code acks=all} and idempotence, set rather than left to
         * Kafka's defaults (which are the same since 3.0, unless another setting turns idempotence
         * off without a word): on replicated topics a result is acknowledged only once every
         * in-sync replica has it, so a broker's death loses no acknowledged result, and the
         * retries that carry a send over to the partition's new leader write it once. A request
         * to a broker that does not answer is given up after {@value #BROKER_REQUEST_TIMEOUT_MS}
         * ms and sent again to whoever leads the partition by then.
         */
        static Properties producerSettings(ProducerRole role, ServingConfig config) {
            Properties producer = withoutJmx(new Properties());
            producer.setProperty("acks", "all");
            producer.setProperty("enable.idempotence", "true");
            producer.setProperty("request.timeout.ms", Integer.toString(BROKER_REQUEST_TIMEOUT_MS));
            producer.setProperty("linger.ms", role == ProducerRole.TELEMETRY ? Integer.toString(TELEMETRY_LINGER_MS) : "0");
            producer.setProperty("batch.size", "65536");
            // Set rather than assumed: the results are cut to fit it (resultBounds).
            producer.setProperty("max.request.size", Integer.toString(RESULTS_MAX_REQUEST_SIZE));
            if (role == ProducerRole.RESULTS || role == ProducerRole.DEVICE_REPORTS || role == ProducerRole.PIPELINE_HOPS) {
                producer.setProperty("max.in.flight.requests.per.connection", "1");
            }
            return KafkaClientProperties.over(producer, config.kafkaProperties);
        }

        /**
         * The results topic read back, under at-least-once delivery only: exactly-once needs no
         * such rule, since what was written after the restored checkpoint was never committed.
         * Its own client settings: a consumer's, not the producer's above.
         */
        static ResultLog resultLog(ServingConfig config) {
            if (config.delivery != ServingConfig.Delivery.AT_LEAST_ONCE) return null;
            Properties client = withoutJmx(new Properties());
            client.setProperty("bootstrap.servers", config.bootstrapServers);
            // The user's settings (SASL, TLS) reach the read-back as they reach every other client.
            return new ResultsTopicLog(config.resultsTopic, KafkaClientProperties.over(client, config.kafkaProperties));
        }

        /**
         * The results sink's transactional ids start with this (exactly-once): the job's consumer
         * group and its results topic, so that two jobs on one cluster never share one (a job
         * would fence the other's producers), and stable across restarts of one job, so that a
         * restored job finds and aborts the transactions its crashed run left open.
         */
        static String transactionalIdPrefix(ServingConfig config) {
            return config.consumerGroup + "-" + config.resultsTopic;
        }
    }

    private final ServingConfig config;
    private final ModelCatalog catalog;
    private final DeviceFactory devices;
    private final Endpoints endpoints;

    public ServingJob(ServingConfig config, ModelCatalog catalog, DeviceFactory devices, Endpoints endpoints) {
        this.config = config;
        this.catalog = catalog;
        this.devices = devices;
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
    }

    /**
     * The job on the Kafka topics named in {@code config}, with ONNX Runtime devices when it names a
     * model repository, else simulated devices.
     */
    public static ServingJob onKafka(ServingConfig config, ModelCatalog catalog) {
        return onKafka(config, catalog, devices(config));
    }

    /** The devices {@code config} asks for. */
    public static DeviceFactory devices(ServingConfig config) {
        if (config.modelRepository == null) return DeviceFactory.simulated(config.simulatedSpeed, config.deviceMemoryMb << 20, config.deviceTypes, config.eviction);
        int threads = config.intraOpThreads > 0 ? config.intraOpThreads : OnnxDevice.Options.fairShareOfCores(config.devices);
        return OnnxDevices.factory(RepositoryCopy.of(config.modelRepository), config.deviceMemoryMb << 20, threads, config.warmUp, config.eviction, config.deviceTypes);
    }

    public static ServingJob onKafka(ServingConfig config, ModelCatalog catalog, DeviceFactory devices) {
        return new ServingJob(config, catalog, devices, Endpoints.onKafka(config));
    }

    /**
     * How long the job's Kafka clients wait for a broker's answer before they give the request up,
     * close the connection and send it again (to the partition's leader by then): 5 s rather than
     * Kafka's 30 s. A broker that is alive but silent (stopped, swapped out, a long pause) keeps its
     * connections open, and nothing else tells a client to look elsewhere: the results it held were
     * 30 s late, and with them every checkpoint, whose at-least-once flush waits for each record
     * sent. Fenced after 2 s (the brokers' session), such a broker's partitions have a new leader by
     * the time a request to it is given up. 5 s is still far above a produce request's time on a
     * busy machine (tens of milliseconds); one that takes longer is sent again, written once
     * (idempotence).
     */
    public static final int BROKER_REQUEST_TIMEOUT_MS = 5000;

    /** How long the telemetry's producer gathers records before it sends them: nobody waits for telemetry. */
    public static final int TELEMETRY_LINGER_MS = 20;

    /** How long the broker may hold a fetch that finds nothing (it answers at once when a record comes). */
    public static final int FETCH_MAX_WAIT_MS = 500;

    /** What the job's consumers take per fetch, of one partition or all: 4 MiB, some 7 images of 600 kB. */
    public static final int MAX_FETCH_BYTES = 4 << 20;

    /**
     * The {@code -Djdk.nio.maxCachedBufferSize} the project's clusters give Flink's JVMs: above a
     * fetch of {@link #MAX_FETCH_BYTES} and its response's framing, so that its reads reuse one buffer.
     */
    public static final int MAX_CACHED_DIRECT_BUFFER = 5 << 20;

    /** The results producer's {@code max.request.size}: Kafka's default. */
    static final int RESULTS_MAX_REQUEST_SIZE = ResultBounds.KAFKA_DEFAULT_MAX_REQUEST_SIZE;

    /**
     * How long the results of a preempted request are kept waiting for the devices' verdicts at
     * most: far beyond any deadline, since every cancel is answered in milliseconds but for a
     * failure, and only preempted requests are kept.
     */
    static final long PREEMPTION_HORIZON_MS = 10 * 60 * 1000;

    /**
     * How long admission remembers a pipeline hop, to drop its second copy after a restore
     * ({@link AdmitHops}): far beyond the time a replay takes to be read.
     */
    static final long PIPELINE_HOP_MEMORY_MS = 10 * 60 * 1000;

    /**
     * Adds the topology to {@code env}, configured for low latency. Every operator has a fixed uid
     * (its name's slug), so that a savepoint restores into a job whose topology grew around it.
     */
    public void build(StreamExecutionEnvironment env) {
        // Ship a network buffer after at most this long even if it is not full: the latency floor of each hop.
        env.setBufferTimeout(config.bufferTimeoutMs);
        // Functions here never keep or change an input after emitting it, so chained operators can share objects.
        env.getConfig().enableObjectReuse();
        if (config.checkpointIntervalMs > 0) {
            env.enableCheckpointing(config.checkpointIntervalMs,
                    config.delivery == ServingConfig.Delivery.EXACTLY_ONCE ? CheckpointingMode.EXACTLY_ONCE : CheckpointingMode.AT_LEAST_ONCE);
        }
        if (config.restarts != null) env.configure(restartStrategy(config.restarts));
        // Each slot's hardware type: the profile its batches are predicted with; on an ONNX device, a label of the device.
        DeviceSlots slots = config.deviceSlots(catalog);
        ControlPlane plan = new ControlPlane(slots, config.deviceMemoryMb << 20, config.policy, config.policyParams, catalog).evicting(config.eviction);

        // Every decision is decided once, here, with the core's code; only the applied ones reach
        // the broadcast, so that no instance downstream can fail on one.
        SingleOutputStreamOperator<ControlDecision> accepted = env
                .fromSource(endpoints.control(), WatermarkStrategy.noWatermarks(), "control decisions").uid("control-decisions-source").setParallelism(1)
                .process(new AcceptDecisions(plan)).name("decide control decisions").uid("decide-control-decisions").setParallelism(1);
        accepted.getSideOutput(AcceptDecisions.OUTCOMES).sinkTo(endpoints.outcomes()).name("decision outcomes").uid("decision-outcomes").setParallelism(1);
        // What the job holds for a key, written back after a decision it did not apply: the
        // compacted topic then keeps it, for a fresh start.
        accepted.getSideOutput(AcceptDecisions.RESTORES).sinkTo(endpoints.controlRestores()).name("control restores").uid("control-restores").setParallelism(1);
        BroadcastStream<ControlDecision> decisions = accepted.broadcast(ControlPlane.DECISIONS);

        SingleOutputStreamOperator<AdmittedRequest> admitted = env
                .fromSource(endpoints.requests(), WatermarkStrategy.noWatermarks(), "requests").uid("requests-source").setParallelism(config.sourceParallelism)
                // A poll's records in a few buffers, not one each: the backlog after a restart (ServingConfig).
                .setBufferTimeout(config.sourceBufferTimeoutMs)
                .connect(decisions)
                .process(new AdmitRequests(catalog, plan, config.admissionLimits(), config.registryFraming(), Clock.wall())).name("decode + validate + route").uid("decode-validate-route").setParallelism(config.sourceParallelism);

        // The scheduler's keyed input: the requests, and the devices' reports coming back.
        DataStream<GroupInput> toSchedulers = admitted
                .map(r -> GroupInput.newBuilder().setGroup(r.getGroup()).setRequest(r).build()).returns(new AvroTypeInfo<>(GroupInput.class))
                .name("requests to schedulers").uid("requests-to-schedulers")
                .setParallelism(config.sourceParallelism);
        // A pipeline request's next stage, read back from the hops topic: Flink 2.0 has no feedback edge.
        SingleOutputStreamOperator<AdmittedRequest> admittedHops = null;
        if (endpoints.pipelineHops()) {
            admittedHops = env
                    .fromSource(endpoints.hopsIn(), WatermarkStrategy.noWatermarks(), "pipeline hops").uid("pipeline-hops-source").setParallelism(1)
                    .keyBy(AdmitHops.KEY)
                    .connect(decisions)
                    .process(new AdmitHops(catalog, plan, config.admissionLimits(), PIPELINE_HOP_MEMORY_MS, Clock.wall()))
                    .name("admit pipeline hops").uid("admit-pipeline-hops").setParallelism(1);
            toSchedulers = toSchedulers.union(admittedHops
                    .map(r -> GroupInput.newBuilder().setGroup(r.getGroup()).setRequest(r).build()).returns(new AvroTypeInfo<>(GroupInput.class))
                    .name("hops to schedulers").uid("hops-to-schedulers").setParallelism(1));
        }
        if (endpoints.closedLoop()) {
            toSchedulers = toSchedulers.union(env
                    .fromSource(endpoints.reportsIn(), WatermarkStrategy.noWatermarks(), "device reports").uid("device-reports-source").setParallelism(1)
                    .map(r -> GroupInput.newBuilder().setGroup(r.getGroup()).setReport(r).build()).returns(new AvroTypeInfo<>(GroupInput.class))
                    .name("reports to schedulers").uid("reports-to-schedulers").setParallelism(1));
        }
        // The scheduler's operator wakes a policy at its µs, not Flink's millisecond after it (PreciseWakeOperator):
        // it takes the decisions as a plain broadcast partition and keeps their broadcast state as Flink's own would.
        SingleOutputStreamOperator<DispatchedBatch> batches = toSchedulers
                .keyBy(GroupInput::getGroup)
                .connect(accepted.broadcast())
                // Batches are never changed once sent: the async operator hands them on instead of deep-copying every tensor.
                .transform("group scheduler", new SharedRecords<>(DispatchedBatch.class), new PreciseWakeOperator<>(
                        new GroupSchedulerFunction(catalog, plan, config.learnLatency ? LatencyEstimator.Settings.DEFAULT : null),
                        List.<MapStateDescriptor<?, ?>>of(ControlPlane.DECISIONS)))
                .name("group scheduler").uid("group-scheduler").setParallelism(config.schedulerParallelism);

        SingleOutputStreamOperator<BatchOutcome> executions = AsyncDataStream.unorderedWait(
                        batches.partitionCustom(new DeviceSlotPartitioner(), DispatchedBatch::getDevice),
                        new AsyncInference(catalog, devices), config.asyncTimeoutMs, TimeUnit.MILLISECONDS, config.asyncCapacity)
                .name("inference").uid("inference").setParallelism(config.devices);

        SingleOutputStreamOperator<InferenceResult> executed = executions
                .process(new EmitResults(catalog)).name("results per request").uid("results-per-request").setParallelism(config.devices);

        SingleOutputStreamOperator<InferenceResult> afterPreemption = executed.getSideOutput(EmitResults.PREEMPTED)
                .union(batches.getSideOutput(GroupSchedulerFunction.PREEMPTED))
                .keyBy(PreemptionEvent::getRequestId)
                .process(new ResolvePreemptions(PREEMPTION_HORIZON_MS)).name("results after preemption").uid("results-after-preemption").setParallelism(config.devices);

        // A pipeline stage's result is not the request's: it goes on to the next stage, or becomes
        // the request's final result. Those that ran leave on a side output of their producer,
        // with the pipeline request's input where a later stage reads it; the scheduler's drops are
        // split off by a filter chained to it, so that the other results take no extra step.
        DataStream<InferenceResult> done = batches.getSideOutput(GroupSchedulerFunction.DROPPED);
        DataStream<InferenceResult> requestResults = executed
                .union(done.filter(r -> !AdvancePipelines.ofAStage(r)).name("drops of requests").uid("drops-of-requests").setParallelism(1),
                        afterPreemption,
                        admitted.getSideOutput(AdmitRequests.TURNED_AWAY));
        DataStream<StageOutcome> stageResults = executed.getSideOutput(EmitResults.STAGES)
                .union(done.filter(AdvancePipelines::ofAStage).name("drops of pipeline stages").uid("drops-of-pipeline-stages").setParallelism(1)
                                .map(r -> AdvancePipelines.outcome(r, null)).returns(new AvroTypeInfo<>(StageOutcome.class))
                                .name("dropped stage outcomes").uid("dropped-stage-outcomes").setParallelism(1),
                        afterPreemption.getSideOutput(ResolvePreemptions.STAGES));
        SingleOutputStreamOperator<InferenceResult> pipelineResults = stageResults
                .connect(decisions)
                .process(new AdvancePipelines(catalog, plan, endpoints.pipelineHops(), Clock.wall()))
                .name("advance pipelines").uid("advance-pipelines").setParallelism(config.devices);
        requestResults = requestResults.union(pipelineResults);
        if (admittedHops != null) {
            requestResults = requestResults.union(admittedHops.getSideOutput(AdmitHops.TURNED_AWAY));
            // One hop writer per inference subtask, chained to it: a hop leaves as soon as its stage is done.
            pipelineResults.getSideOutput(AdvancePipelines.HOPS)
                    .sinkTo(endpoints.hopsOut()).name("pipeline hops").uid("pipeline-hops").setParallelism(config.devices);
        }

        // Every result, from whichever stage, is cut to what the producer can write, in this one place:
        // a record over its limit would fail the job, and fail it again on every replay.
        ResultBounds bounds = config.resultBounds();
        DataStream<InferenceResult> results = requestResults
                .map(bounds::fit).returns(new AvroTypeInfo<>(InferenceResult.class))
                .name("results within the size limit").uid("results-within-size-limit").setParallelism(config.devices);
        if (suppressesAnswered()) {
            // At least once: after a restore, a replayed request that already has a result out gets no second one.
            results = results.transform("results not yet out", new AvroTypeInfo<>(InferenceResult.class),
                            new SuppressAnswered(endpoints.resultLog(), config.answeredReadBack))
                    .uid("results-not-yet-out").setParallelism(config.devices);
        }
        // One writer per device, chained to the bound.
        results.sinkTo(endpoints.results()).name("results").uid("results").setParallelism(config.devices);
        // One telemetry writer: a record per batch (or per gathering of a device's batches) is
        // little traffic, and every Kafka producer is a thread.
        DataStream<BatchTelemetry> telemetry = executed.getSideOutput(EmitResults.TELEMETRY);
        if (coalescesReports()) {
            // Gathered per device, chained to its results, before the one writer.
            telemetry = telemetry.transform("gather telemetry", new AvroTypeInfo<>(BatchTelemetry.class),
                            new CoalesceReports<>(config.reportCoalesceMicros, config.reportCoalesceBatches, CoalesceReports.TELEMETRY))
                    .uid("gather-telemetry").setParallelism(config.devices);
        }
        telemetry.sinkTo(endpoints.telemetry()).name("telemetry").uid("telemetry").setParallelism(1);
        // One report writer per device, chained to it: a report leaves as soon as its batch is done,
        // or, gathered, with the others of its interval.
        if (endpoints.closedLoop()) {
            DataStream<DeviceReport> reports = executed.getSideOutput(EmitResults.REPORTS);
            if (coalescesReports()) {
                reports = reports.transform("gather device reports", new AvroTypeInfo<>(DeviceReport.class),
                                new CoalesceReports<>(config.reportCoalesceMicros, config.reportCoalesceBatches, CoalesceReports.REPORTS))
                        .uid("gather-device-reports").setParallelism(config.devices);
            }
            reports.sinkTo(endpoints.reportsOut()).name("device reports").uid("device-reports").setParallelism(config.devices);
        }
    }

    /** Whether each device gathers its reports and telemetry into fewer records (off: a record of each per batch, no operator). */
    boolean coalescesReports() {
        return config.reportCoalesceMicros > 0 && config.reportCoalesceBatches > 1;
    }

    /**
     * Whether the job holds back the results of replayed requests that already have one out: under
     * at-least-once delivery with checkpoints (without them a restart replays from the committed
     * offsets, which no state of the job remembers), where the results can be read back.
     */
    boolean suppressesAnswered() {
        return config.delivery == ServingConfig.Delivery.AT_LEAST_ONCE && config.checkpointIntervalMs > 0 && endpoints.resultLog() != null;
    }

    /**
     * The job's restart strategy as Flink options. Set on the job, they override the cluster's
     * {@code restart-strategy.*}; a jitter of a tenth keeps the restarts of several jobs apart.
     */
    static Configuration restartStrategy(ServingConfig.Restarts restarts) {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF, Duration.ofMillis(restarts.initialBackoffMs()));
        c.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, Duration.ofMillis(restarts.maxBackoffMs()));
        c.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 1.5);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD, Duration.ofMillis(restarts.resetAfterMs()));
        c.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, 0.1);
        return c;
    }

    /** Builds and submits the job without waiting for it to end. */
    public JobClient start(StreamExecutionEnvironment env) throws Exception {
        build(env);
        return env.executeAsync("kairos-serving");
    }
}
