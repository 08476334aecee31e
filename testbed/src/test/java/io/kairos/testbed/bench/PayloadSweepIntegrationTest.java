package io.kairos.testbed.bench;

import io.kairos.testbed.CliRun;
import io.kairos.testbed.experiment.ResultTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code kairos-lab bench --sweep-kb 600} end to end with tiny durations, on its own embedded broker and
 * the serving job in this JVM: 600 kB requests (a 224x224x3 float32 image) pass admission, come
 * back served, and both searches, the latency runs, the table, the CSV and the figures come out.
 * The rates are low (tens per second): what is checked is that the sweep works, not how fast.
 */
class PayloadSweepIntegrationTest {

    @Test
    void aSweepOfTheLargestImageRequestsMeasuresBothPathsAndWritesItsTable(@TempDir Path dir) throws Exception {
        CliRun r = CliRun.lab("bench", "--sweep-kb", "600", "--trial-seconds", "2", "--search-trials", "2", "--runs", "1", "--duration", "3",
                "--out", dir.toString());
        System.out.println(r.out());

        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("600 kB: image-float32, input FLOAT32[3, 224, 224] (602,112 B)")
                .contains("targets of the serving path:").contains("total wall time");
        ResultTable t = ResultTable.read(dir.resolve(PayloadSweep.CSV));
        assertThat(t.rows()).hasSize(1);
        List<String> row = t.rows().get(0);
        assertThat(row.get(t.index("model"))).isEqualTo("image-float32");
        assertThat(Integer.parseInt(row.get(t.index("request_bytes")))).isBetween(602_112, PayloadModels.MAX_REQUEST_BYTES);
        // Some 13 requests/s of 600 kB (8 MB/s) first: both paths hold it on any machine, and the
        // pipeline's results came back served (a rejected request would fail its trial).
        assertThat(Double.parseDouble(row.get(t.index("bare_per_s")))).isPositive();
        assertThat(Double.parseDouble(row.get(t.index("pipeline_per_s")))).isPositive();
        assertThat(row.get(t.index("pipeline_trials"))).contains("+");
        assertThat(Double.parseDouble(row.get(t.index("half_rate_per_s"))))
                .isEqualTo(Math.round(Double.parseDouble(row.get(t.index("pipeline_per_s"))) / 2.0), org.assertj.core.api.Assertions.within(1.0));
        assertThat(Double.parseDouble(row.get(t.index("bare_p99_ms")))).isPositive();
        assertThat(Double.parseDouble(row.get(t.index("pipeline_p99_ms")))).isPositive();
        // Each path's CPU per request (the process but the sender and the JIT compiler), and the idle process's.
        assertThat(Double.parseDouble(row.get(t.index("bare_cpu_us_per_request")))).isPositive();
        assertThat(Double.parseDouble(row.get(t.index("pipeline_cpu_us_per_request")))).isPositive();
        assertThat(r.out()).containsPattern("idle, the job started and nothing offered, the process took [0-9.]+ cores");
        assertThat(dir.resolve("throughput.png")).isNotEmptyFile();
        assertThat(dir.resolve("p99.png")).isNotEmptyFile();
    }
}
