package io.kairos.testbed;

import io.kairos.tools.ResultCsv;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.StageTimes;
import io.kairos.wire.AvroCodec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** loadgen and collect end to end on a real broker. */
class CommandsOnBrokerTest {
    static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = SharedBroker.get();
        broker.createTopic("kairos-requests", 2);
        broker.createTopic("kairos-results", 2);
    }

    @Test
    void loadgenSendsTheSeedsScheduleAndReportsHowFarBehindItFell() {
        int planned = Workload.parse("resnet50:200:25,mlp:400:10", ArrivalSpec.gamma(4)).arrivalsWithin(3, 500_000).size();

        CliRun r = CliRun.checkout("loadgen", "--bootstrap-servers", broker.bootstrapServers(), "-w", "resnet50:200:25,mlp:400:10",
                "--duration", "0.5", "--seed", "3", "--arrivals", "gamma:cv2=4");

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("loadgen: resnet50:200:25,mlp:400:10 (gamma:cv2=4 arrivals, seed 3, about 300 requests) for 0.5 s")
                .contains("sent " + planned + " requests in ")
                .containsPattern("(?s)behind schedule: mean [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms; [0-9]+ sent more than 1 ms late")
                .contains("acknowledged " + planned + ", failed 0");
    }

    @Test
    void loadgenSaysAtOnceWhenARequestIsGivenUpOnAndExitsWithOne() {
        // Records of at most 100 bytes where an mlp request takes about 300: the broker refuses
        // every send, an error no retry can cure, so the producer gives each up at once.
        broker.createTopic("kairos-requests-tiny", 1, Map.of("max.message.bytes", "100"));

        CliRun r = CliRun.checkout("loadgen", "--bootstrap-servers", broker.bootstrapServers(), "--topic", "kairos-requests-tiny",
                "-w", "mlp:20:1000", "--duration", "0.2", "--arrivals", "fixed", "--no-progress");

        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.err().lines().filter(l -> l.startsWith("loadgen: ")).toList()).first().asString()
                .startsWith("loadgen: a request was not delivered and the producer gave up on it (RecordTooLargeException: ");
        assertThat(r.out()).containsPattern("acknowledged 0, failed [1-9][0-9]* \\(first error: RecordTooLargeException");
    }

    @Test
    void collectWritesOneRowPerDistinctResultAndPrintsTheSummary(@TempDir Path out) throws Exception {
        AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 6; i++) {
                String id = "r" + (i % 5); // r0 twice: a duplicate
                ResultStatus status = i == 4 ? ResultStatus.LATE : ResultStatus.OK;
                InferenceResult result = InferenceResult.newBuilder().setRequestId(id).setTenant("t").setModel("mlp")
                        .setStatus(status).setBatchSize(4).setSloMs(10)
                        .setTimings(StageTimes.newBuilder().setSent(1_000_000L * (i + 1)).setDeadline(1_000_000L * (i + 1) + 10_000)
                                .setEmitted(1_000_000L * (i + 1) + 1_000 * (i + 1)).build())
                        .build();
                producer.send(new ProducerRecord<>("kairos-results", id.getBytes(), codec.encode(result)));
            }
        }
        // Relative paths: under .kairos/ of the checkout (here a temporary one), never in the working directory.
        Path rows = out.resolve(".kairos/run/rows.csv");
        Path summary = out.resolve(".kairos/run/summary.csv");
        String home = System.getProperty("kairos.home");
        System.setProperty("kairos.home", out.toString());
        CliRun r;
        try {
            r = CliRun.checkout("collect", "--bootstrap-servers", broker.bootstrapServers(), "--from-earliest", "--expect", "5",
                    "--idle-timeout", "10", "--csv", "run/rows.csv", "--summary-csv", "run/summary.csv");
        } finally {
            if (home == null) System.clearProperty("kairos.home"); else System.setProperty("kairos.home", home);
        }

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("collect: writing rows to " + rows.toAbsolutePath())
                .contains("rows written to " + rows.toAbsolutePath())
                .contains("summary written to " + summary.toAbsolutePath());
        assertThat(Path.of("run/rows.csv")).doesNotExist();
        assertThat(r.out()).contains("received 5 distinct results (1 duplicates dropped, 0 malformed records skipped); stopped: all 5 expected results are in")
                .containsPattern("mlp +5 +4 +1 +0 +0 +0 +0 +80.00 ");
        List<String> lines = Files.readAllLines(rows);
        assertThat(lines).hasSize(6).first().isEqualTo(ResultCsv.HEADER);
        assertThat(lines.subList(1, 6)).extracting(l -> l.split(",")[0]).containsExactlyInAnyOrder("r0", "r1", "r2", "r3", "r4");
        assertThat(Files.readAllLines(summary)).hasSize(3).last().asString().startsWith("ALL,5,4,1,0,0,0,0,0.800000,");
    }
}
