package io.kairos.testbed.fidelity;

import io.kairos.testbed.KairosCli;
import io.kairos.testbed.experiment.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The fidelity experiment end to end on a real broker and Flink mini-cluster, kept short. */
class FidelityCommandTest {

    @Test
    void theSimulatorReplaysExactlyTheRequestsTheJobsSchedulerSaw(@TempDir Path out) {
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        // SLOs well above the in-process Kafka hop (tens of ms on a busy 2-core machine): requests whose
        // deadline passes before they are read never reach the scheduler, and this test needs most to.
        int code = KairosCli.execute(KairosCli.commandLine(new PrintWriter(stdout, true), new PrintWriter(stderr, true)),
                "fidelity", "--workload", "resnet50:100:200,mlp:100:150", "--duration", "3", "--warmup", "2", "--out", out.toString());
        assertThat(code).as(stderr.toString()).isZero();
        ResultTable summary = ResultTable.read(out.resolve("summary.csv"));
        assertThat(summary.size()).isEqualTo(2);
        int requests = summary.index("requests");
        long job = Long.parseLong(summary.rows().get(0).get(requests));
        long sim = Long.parseLong(summary.rows().get(1).get(requests));
        assertThat(job).isGreaterThan(400); // 200 requests/s for 3 s
        assertThat(sim).isEqualTo(job);
        assertThat(out.resolve("latency-cdf.png")).isNotEmptyFile();
        assertThat(stdout.toString()).contains("attainment gap").contains("p99 gap");
    }

    @Test
    void aBadWorkloadIsOneLineAndExitTwo() {
        StringWriter stderr = new StringWriter();
        int code = KairosCli.execute(KairosCli.commandLine(new PrintWriter(new StringWriter(), true), new PrintWriter(stderr, true)),
                "fidelity", "--workload", "vgg19:100:50");
        assertThat(code).isEqualTo(2);
        assertThat(stderr.toString().lines()).hasSize(1);
        assertThat(stderr.toString()).contains("unknown model 'vgg19'");
    }
}
