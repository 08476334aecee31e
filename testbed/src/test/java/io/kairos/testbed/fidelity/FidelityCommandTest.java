package io.kairos.testbed.fidelity;

import io.kairos.testbed.CliRun;
import io.kairos.testbed.experiment.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The fidelity experiment end to end on a real broker and Flink mini-cluster, kept short. */
class FidelityCommandTest {

    @Test
    void theSimulatorReplaysExactlyTheRequestsTheJobsSchedulerSaw(@TempDir Path out) {
        // SLOs well above the in-process Kafka hop (tens of ms on a busy 2-core machine): requests whose
        // deadline passes before they are read never reach the scheduler, and this test needs most to.
        CliRun r = CliRun.lab("fidelity", "--workload", "resnet50:100:200,mlp:100:150", "--duration", "3", "--warmup", "2", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        ResultTable summary = ResultTable.read(out.resolve("summary.csv"));
        // The job, the simulator with the warm-up's hand-overs replayed in time, and with them drawn one by one.
        assertThat(summary.size()).isEqualTo(3);
        assertThat(summary.rows()).extracting(row -> row.get(summary.index("source"))).containsExactly("flink-job", "simulator", "sim-draw");
        int requests = summary.index("requests");
        long job = Long.parseLong(summary.rows().get(0).get(requests));
        assertThat(job).isGreaterThan(400); // 200 requests/s for 3 s
        assertThat(Long.parseLong(summary.rows().get(1).get(requests))).isEqualTo(job);
        assertThat(Long.parseLong(summary.rows().get(2).get(requests))).isEqualTo(job);
        assertThat(out.resolve("latency-cdf.png")).isNotEmptyFile();
        ResultTable handover = ResultTable.read(out.resolve("handover.csv"));
        assertThat(handover.rows()).extracting(row -> row.get(0)).containsExactly("warm-up", "measured");
        assertThat(r.out()).contains("attainment gap").contains("p99 gap").contains("sim-draw (not judged)");
    }

    @Test
    void aPlacementChangeMidRunReachesTheJobAndIsReplayedInTheSimulator(@TempDir Path out) {
        // From 1.5 s on, device 0 serves only ResNet and device 1 only the MLP.
        CliRun r = CliRun.lab("fidelity", "--workload", "resnet50:100:200,mlp:100:150", "--duration", "3", "--warmup", "2",
                "--placement-change", "1.5:0=resnet50/1=mlp", "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        ResultTable summary = ResultTable.read(out.resolve("summary.csv"));
        int requests = summary.index("requests");
        long job = Long.parseLong(summary.rows().get(0).get(requests));
        assertThat(job).isGreaterThan(400);
        assertThat(Long.parseLong(summary.rows().get(1).get(requests))).isEqualTo(job);
        // Every request reached a device that holds its model, in both: none is dropped for want of one.
        int dropped = summary.index("dropped");
        assertThat(Long.parseLong(summary.rows().get(1).get(dropped))).isLessThan(job / 10);
        assertThat(r.out()).containsPattern("placement change \\{0=\\[resnet50\\], 1=\\[mlp\\]\\} sent to the job 1\\.\\d+ s into its measured requests");
    }

    @Test
    void aBadPlacementChangeIsOneLineAndExitTwo() {
        CliRun r = CliRun.lab("fidelity", "--workload", "resnet50:100:200,mlp:100:150", "--placement-change", "10:0=mlp");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().lines()).hasSize(1);
        assertThat(r.err()).contains("--placement-change: placement change '10:0=mlp': no device holds model 'resnet50'");
    }

    @Test
    void aBadWorkloadIsOneLineAndExitTwo() {
        CliRun r = CliRun.lab("fidelity", "--workload", "vgg19:100:50");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().lines()).hasSize(1);
        assertThat(r.err()).contains("unknown model 'vgg19'");
    }
}
