package io.kairos.jobs.tuner;

import io.kairos.flink.kafka.AvroRecordSerializer;
import io.kairos.flink.kafka.RawRequestDeserializer;
import io.kairos.jobs.ServingJob;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.internal.RawRequest;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.KafkaClientProperties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

import java.util.Map;
import java.util.Properties;

/**
 * The tuner job, beside the serving job: requests topic → the pipeline each request names → keyed
 * by pipeline, {@link TunePipelines} (the arrival envelope and InferLine's scale rules) → the
 * control topic, where the serving job decides the placements as it decides any writer's. It
 * takes its source and sink in its constructor: {@link #onKafka} wires the topics, a test its own.
 * A request that names no pipeline, or that cannot be decoded, is not counted (the serving job
 * answers it).
 */
public final class TunerJob {
    private final Source<RawRequest, ?, ?> requests;
    private final Sink<ControlDecision> decisions;

    public TunerJob(Source<RawRequest, ?, ?> requests, Sink<ControlDecision> decisions) {
        this.requests = requests;
        this.decisions = decisions;
    }

    /**
     * The requests topic read from its end (the tuner watches the traffic from now on) under its
     * own consumer group, and the control topic written at least once with every in-sync replica's
     * acknowledgement, idempotently, each decision under its key (what compaction keeps): the
     * settings {@code DecisionPublisher} publishes with. A decision written twice is a duplicate
     * the serving job's ledger ignores.
     */
    public static TunerJob onKafka(String bootstrapServers, Map<String, String> kafkaProperties, String requestsTopic, String controlTopic, String consumerGroup) {
        Properties fast = new Properties();
        // The broker answers a parked fetch as soon as a request arrives, so the first requests of
        // a step reach the envelope at once; fetch.min.bytes 1 (Kafka's default) says so, and the
        // serving job's wait bounds how often an idle source asks.
        fast.setProperty("fetch.min.bytes", "1");
        fast.setProperty("fetch.max.wait.ms", Integer.toString(ServingJob.FETCH_MAX_WAIT_MS));
        Properties consumer = KafkaClientProperties.over(fast, kafkaProperties);
        KafkaSource<RawRequest> source = KafkaSource.<RawRequest>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(requestsTopic)
                .setGroupId(consumerGroup)
                .setStartingOffsets(OffsetsInitializer.latest())
                .setDeserializer(new RawRequestDeserializer())
                .setProperties(consumer)
                .build();
        Properties producer = new Properties();
        producer.setProperty("acks", "all");
        producer.setProperty("enable.idempotence", "true");
        producer.setProperty("linger.ms", "0");
        KafkaSink<ControlDecision> sink = KafkaSink.<ControlDecision>builder()
                .setBootstrapServers(bootstrapServers)
                .setRecordSerializer(new AvroRecordSerializer<>(controlTopic, ControlDecision.class, ControlDecision::getKey))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .setKafkaProducerConfig(KafkaClientProperties.over(producer, kafkaProperties))
                .build();
        return new TunerJob(source, sink);
    }

    /**
     * How long a network buffer of the job may wait to fill before it is sent on, ms. Flink's
     * default, 100 ms, would hold a pipeline id on its way to the envelope, and a decision on its way
     * to the control topic, up to that long: the job's traffic is one short string per request and
     * a few decisions, so flushing every millisecond costs little.
     */
    public static final long BUFFER_TIMEOUT_MS = 1;

    /** Adds the job's operators to {@code env}, tuning with {@code tune}. */
    public void build(StreamExecutionEnvironment env, TunePipelines tune) {
        env.fromSource(requests, WatermarkStrategy.noWatermarks(), "requests").uid("tuner-requests").setBufferTimeout(BUFFER_TIMEOUT_MS)
                .flatMap(new PipelineOfRequest()).returns(Types.STRING).name("pipeline of each request").uid("tuner-pipeline-of-request")
                .setBufferTimeout(BUFFER_TIMEOUT_MS)
                .keyBy(pipeline -> pipeline)
                .process(tune).returns(new AvroTypeInfo<>(ControlDecision.class)).name("tune pipelines").uid("tuner-tune-pipelines")
                .setBufferTimeout(BUFFER_TIMEOUT_MS)
                .sinkTo(decisions).name("control topic").uid("tuner-control-topic");
    }

    /** The pipeline a request names, if it names one and can be decoded. */
    static final class PipelineOfRequest implements FlatMapFunction<RawRequest, String> {
        private transient AvroCodec<InferenceRequest> codec;

        @Override
        public void flatMap(RawRequest raw, Collector<String> out) {
            if (codec == null) codec = AvroCodec.of(InferenceRequest.class);
            try {
                InferenceRequest r = codec.decode(raw.getPayload().duplicate());
                if (r.getPipelineId() != null) out.collect(r.getPipelineId());
            } catch (AvroCodec.MalformedRecordException | IllegalArgumentException e) {
                // not a request the tuner can read: the serving job answers it
            }
        }
    }
}
