package io.kairos.testbed.bench;

import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.schema.DType;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageResult;
import io.kairos.schema.Tensor;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.plan.PipelineActions;
import me.tongfei.progressbar.ProgressBar;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The latency one pipeline hop adds: the serving job on an embedded broker, with simulated devices
 * of exact latencies, serves in the same run, interleaved one for one, a 2-stage pipeline of two
 * 0.5 ms models ({@code half} then {@code half}) and single requests of one 1 ms model
 * ({@code whole}): the same work on the devices, so that the difference of their latencies (from
 * the client's send to its receipt of the result) is what the hop costs: the stage's result made
 * into a hop, the hops topic there and back, the second admission and scheduling. Each run gives
 * p50 and p99 of both and of the hop's own transit (the second stage's ingestion less the first
 * stage's result), and, after each, a bare Kafka round trip at the same rate (producer, topic,
 * consumer, producer, topic, consumer: two hops of plain Kafka clients), the floor of any route
 * through Kafka on the same machine at the same moment; the medians over the runs are reported.
 */
final class PipelineHopBench {
    /** Two models of the same input, one taking twice the other's time at every batch size. */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "half",  "input": {"dtype": "FLOAT32", "shape": [64]}, "max_batch": 16, "latency_ms": {"alpha": 0, "beta": 0.5}},
              {"name": "whole", "input": {"dtype": "FLOAT32", "shape": [64]}, "max_batch": 16, "latency_ms": {"alpha": 0, "beta": 1.0}}
            ]}""", "pipeline hop bench");
    static final PipelineSpec PIPELINE = PipelineSpec.parse("""
            {"pipeline": "two-halves", "slo_p99_ms": 100, "stages": [{"name": "first", "model": "half"}, {"name": "second", "model": "half"}],
             "edges": [{"from": "first", "to": "second", "probability": 1}]}""", "pipeline hop bench");

    /** One run's figures, microseconds. */
    record Run(long pipelineP50, long pipelineP99, long singleP50, long singleP99, long hopP50, long hopP99, long pipelineResults, long singleResults,
               long bareP50, long bareP99) {}

    private final int devices;
    private final long bufferTimeoutMs;

    PipelineHopBench(int devices, long bufferTimeoutMs) {
        this.devices = devices;
        this.bufferTimeoutMs = bufferTimeoutMs;
    }

    List<Run> run(PrintWriter out, double ratePerKind, Duration warmup, Duration duration, int runs) throws Exception {
        List<Run> measured = new ArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            ServingConfig.Builder config = ServingConfig.builder();
            config.bootstrapServers = broker.bootstrapServers();
            String name = "hop-bench";
            config.topicsNamed(name + "-");
            config.consumerGroup = name;
            config.devices = devices;
            config.simulatedSpeed = 1.0;
            config.bufferTimeoutMs = bufferTimeoutMs;
            config.fromEarliest = true;
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            JobClient job = ServingJob.onKafka(config.build(), CATALOG).start(StreamExecutionEnvironment.createLocalEnvironment(devices, flink));
            try (DecisionPublisher publisher = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "hop-bench");
                 ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST);
                 KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(RequestProducer.lowLatencyConfig(broker.bootstrapServers()),
                         new ByteArraySerializer(), new ByteArraySerializer())) {
                var outcome = publisher.awaitOutcome(publisher.publish(PipelineActions.action(PIPELINE)), Duration.ofSeconds(120));
                if (outcome.isEmpty() || outcome.get().getStatus() != DecisionStatus.APPLIED) {
                    throw new IllegalStateException("the job did not apply the pipeline: " + outcome.map(o -> o.getStatus() + " " + o.getReason()).orElse("no outcome"));
                }
                out.println("warming up (" + warmup.toSeconds() + " s, not measured) ...");
                if (!warmup.isZero()) phase(producer, results, config.requestsTopic, "warm-", ratePerKind, warmup);
                try (ProgressBar bar = ProgressLine.bar("pipeline hop runs", runs, s -> List.of(ProgressLine.count(s, "runs"), ProgressLine.remaining(s)))) {
                    for (int i = 0; i < runs; i++) {
                        Run r = phase(producer, results, config.requestsTopic, "run" + i + "-", ratePerKind, duration);
                        // The floor of a hop through Kafka on this machine, now: a bare round trip's two hops, records of the hop's size.
                        KafkaRoundTrip.Result bare = new KafkaRoundTrip(broker.bootstrapServers(), "bare" + i + "-a", "bare" + i + "-b")
                                .rate(ratePerKind).duration(duration).warmup(Duration.ofSeconds(1)).recordSizesOf(CATALOG.get("half")).run();
                        measured.add(new Run(r.pipelineP50(), r.pipelineP99(), r.singleP50(), r.singleP99(), r.hopP50(), r.hopP99(), r.pipelineResults(),
                                r.singleResults(), bare.p50Micros(), bare.p99Micros()));
                        bar.step();
                    }
                }
            } finally {
                job.cancel().get();
            }
        }
        return measured;
    }

    /** Sends both kinds, interleaved, at {@code ratePerKind} each for {@code duration}; waits for their results. */
    private Run phase(KafkaProducer<byte[], byte[]> producer, ResultConsumer results, String topic, String prefix, double ratePerKind,
                      Duration duration) throws InterruptedException {
        Histogram pipeline = new Histogram(3), single = new Histogram(3), hop = new Histogram(3);
        long[] counts = new long[2];
        results.onResult((r, receivedAt) -> {
            if (!r.getRequestId().startsWith(prefix) || r.getStatus() != ResultStatus.OK && r.getStatus() != ResultStatus.LATE) return;
            long latency = Math.max(0, receivedAt - r.getTimings().getSent());
            if (r.getPipelineId() != null) {
                counts[0]++;
                pipeline.recordValue(latency);
                List<StageResult> s = r.getStages();
                if (s.size() == 2) hop.recordValue(Math.max(0, s.get(1).getTimings().getIngested() - s.get(0).getTimings().getEmitted()));
            } else {
                counts[1]++;
                single.recordValue(latency);
            }
        });
        AvroCodec<InferenceRequest> codec = AvroCodec.of(InferenceRequest.class);
        ByteBuffer zeros = ByteBuffer.allocate(64 * 4);
        Tensor input = Tensor.newBuilder().setDtype(DType.FLOAT32).setShape(List.of(64L)).setData(zeros).build();
        AtomicBoolean sending = new AtomicBoolean(true);
        Thread reader = new Thread(() -> {
            while (sending.get()) results.poll(Duration.ofMillis(20));
        }, "hop-bench-results");
        reader.start();
        long pairs = Math.round(ratePerKind * duration.toSeconds());
        // Half an interval apart, the two kinds alternating: each request finds the devices as idle as the other kind does.
        long halfIntervalNanos = Math.round(1e9 / ratePerKind / 2);
        long start = System.nanoTime();
        try {
            for (long i = 0; i < 2 * pairs; i++) {
                long wait = start + i * halfIntervalNanos - System.nanoTime();
                if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                boolean asPipeline = i % 2 == 0;
                String id = prefix + (asPipeline ? "p" : "s") + i / 2;
                InferenceRequest r = InferenceRequest.newBuilder().setRequestId(id).setTenant("bench").setModel(asPipeline ? "" : "whole")
                        .setPipelineId(asPipeline ? PIPELINE.id() : null).setInput(input).setSloMs(1_000)
                        .setSentAtMicros(WallClock.nowMicros()).build();
                producer.send(new ProducerRecord<>(topic, id.getBytes(StandardCharsets.UTF_8), codec.encode(r)));
            }
            producer.flush();
        } finally {
            sending.set(false);
            reader.join();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((counts[0] < pairs || counts[1] < pairs) && System.nanoTime() < deadline) results.poll(Duration.ofMillis(50));
        return new Run(pipeline.getValueAtPercentile(50), pipeline.getValueAtPercentile(99), single.getValueAtPercentile(50),
                single.getValueAtPercentile(99), hop.getValueAtPercentile(50), hop.getValueAtPercentile(99), counts[0], counts[1], 0, 0);
    }
}
