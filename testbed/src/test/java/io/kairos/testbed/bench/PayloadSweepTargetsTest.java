package io.kairos.testbed.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The targets bench prints under its sweep, judged on two sizes worked out by hand. */
class PayloadSweepTargetsTest {
    private static RateSearch.Result found(double perSecond) {
        return new RateSearch.Result(perSecond, true, List.of());
    }

    /** A size measured: sustained rates, then p50 and p99 of each path in µs at half the pipeline's rate. */
    private static PayloadSweep.Row row(double kb, double bare, double pipeline, long bareP50, long bareP99, long pipeP50, long pipeP99) {
        return new PayloadSweep.Row(kb, null, 300, 100, found(bare), found(pipeline), pipeline / 2, bareP50, bareP99, pipeP50, pipeP99, 60,
                50, 60, 2.1, 2.1, 10_000, 30_000);
    }

    @Test
    void eachTargetIsMetOnlyWhereEverySizeItAppliesToMeetsIt() {
        // 0.3 kB: 60,000 of 100,000/s (0.6x: the target, not the stretch); p50 +0.80 ms; p99 13/10 = 1.3x.
        // 12 kB: 6,000 of 10,000/s (0.6x of the MB/s, under 0.7); p50 +1.50 ms; p99 11/10 = 1.1x.
        List<String> lines = PayloadSweep.targets(List.of(
                row(0.3, 100_000, 60_000, 2_000, 10_000, 2_800, 13_000),
                row(12, 10_000, 6_000, 2_000, 10_000, 3_500, 11_000)));
        assertThat(lines).containsExactly(
                "targets of the serving path:",
                "  pipeline p50 <= the bare round trip's + 1 ms at half the pipeline's highest rate, every size: NOT MET (0.3 kB: +0.80 ms, 12 kB: +1.50 ms)",
                "  pipeline p99 <= 1.5x the bare round trip's there, every size: MET (0.3 kB: 1.30, 12 kB: 1.10)",
                "    stretch, <= 1.2x: NOT MET (0.3 kB: 1.30, 12 kB: 1.10)",
                "  small requests >= 0.5x the bare round trip's sustained rate: MET (0.3 kB: 60000/s, 0.60x)",
                "    stretch, >= 0.7x: NOT MET (0.3 kB: 0.60x)",
                "  pipeline >= 0.7x the bare round trip's sustained MB/s at 12 and 150 kB: NOT MET (12 kB: 0.60)");
    }

    @Test
    void aLatencyNotMeasuredMeetsNoLatencyTarget() {
        // The pipeline's p50 and p99 missing (0): no p50 within 1 ms of the bare one, no p99 ratio.
        List<String> lines = PayloadSweep.targets(List.of(row(0.3, 100_000, 60_000, 2_000, 10_000, 0, 0)));
        assertThat(lines.get(1)).contains("NOT MET");
        assertThat(lines.get(2)).contains("NOT MET");
    }

    @Test
    void aTargetWithNoSizeOfItsOwnSaysSo() {
        List<String> lines = PayloadSweep.targets(List.of(row(600, 400, 300, 3_000, 16_000, 8_000, 27_000)));
        assertThat(lines.get(4)).endsWith("not measured (no such size in the sweep)");
        assertThat(lines.get(6)).endsWith("not measured (no such size in the sweep)");
    }
}
