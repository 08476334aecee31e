package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PolicyComparisonTest {

    /** Two points, three policies, two seeds each; medians: a: kairos 0.95, edf 0.90, fifo 0.95; b: kairos 1.0, edf 1.0, fifo 0.5. */
    private static ResultTable table() {
        ResultTable t = new ResultTable(List.of("slo_ms", "policy", "seed", "slo_attainment", "cost"));
        t.add(List.of("a", "kairos", "1", "0.94", "2"));
        t.add(List.of("a", "kairos", "2", "0.96", "2"));
        t.add(List.of("a", "edf", "1", "0.90", "3"));
        t.add(List.of("a", "edf", "2", "0.90", "3"));
        t.add(List.of("a", "fifo", "1", "0.95", "1"));
        t.add(List.of("a", "fifo", "2", "0.95", "1"));
        t.add(List.of("b", "kairos", "1", "1.0", "1"));
        t.add(List.of("b", "kairos", "2", "1.0", "1"));
        t.add(List.of("b", "edf", "1", "1.0", "2"));
        t.add(List.of("b", "edf", "2", "1.0", "2"));
        t.add(List.of("b", "fifo", "1", "0.5", "4"));
        t.add(List.of("b", "fifo", "2", "0.5", "4"));
        return t;
    }

    @Test
    void atLeastTheBestCountsTiesAsMet() {
        Experiment.Claim c = new PolicyComparison(table(), List.of("slo_ms"), "kairos").atLeastTheBest("s", "slo_attainment", true);
        assertThat(c.verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        // a: kairos 0.94-0.96 against fifo's 0.95; b: 1.0 against edf's 1.0: both ranges overlap.
        assertThat(c.evidence()).isEqualTo("2/2 points, 2 a tie (the seeds' ranges overlap)");
    }

    @Test
    void betterThanTheBestNamesTheTiesBelowTheCeiling() {
        PolicyComparison kairos = new PolicyComparison(table(), List.of("slo_ms"), "kairos");
        // Point b's best is 1.0, at the ceiling: not counted. Point a: a tie with fifo at 0.95.
        Experiment.Claim c = kairos.betterThanTheBest("s", "slo_attainment", true, 1.0);
        assertThat(c.verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(c.evidence()).isEqualTo("0/1 points, 1 a tie (the seeds' ranges overlap); not at a: kairos 0.950000, fifo 0.950000 (a tie: the seeds' ranges overlap)");
        // Lower is better: at a fifo costs 1 against kairos' 2; at b kairos' 1 beats edf's 2.
        Experiment.Claim cost = kairos.betterThanTheBest("s", "cost", false, Double.NaN);
        assertThat(cost.evidence()).isEqualTo("1/2 points; not at a: kairos 2.00000, fifo 1.00000");
    }

    /** Three seeds each: kairos 0.90, 0.97, 0.99 (median 0.97) against edf 0.94, 0.95, 0.96 (0.95): ahead on the median, inside edf's range. */
    @Test
    void aWinInsideTheSeedsRangeIsATieAndALossInsideItToo() {
        ResultTable t = new ResultTable(List.of("slo_ms", "policy", "seed", "slo_attainment"));
        String[] kairos = {"0.90", "0.97", "0.99"};
        String[] edf = {"0.94", "0.95", "0.96"};
        for (int i = 0; i < 3; i++) {
            t.add(List.of("a", "kairos", "" + (i + 1), kairos[i]));
            t.add(List.of("a", "edf", "" + (i + 1), edf[i]));
        }
        PolicyComparison k = new PolicyComparison(t, List.of("slo_ms"), "kairos");
        Experiment.Claim better = k.betterThanTheBest("s", "slo_attainment", true, Double.NaN);
        assertThat(better.verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(better.evidence()).endsWith("not at a: kairos 0.970000, edf 0.950000 (a tie: the seeds' ranges overlap)");
        // edf against kairos: behind on the median, inside the range: a tie, so "at least" holds.
        Experiment.Claim atLeast = new PolicyComparison(t, List.of("slo_ms"), "edf").atLeastTheBest("s", "slo_attainment", true);
        assertThat(atLeast.verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        assertThat(atLeast.evidence()).isEqualTo("1/1 points, 1 a tie (the seeds' ranges overlap)");
        // Ranges apart (kairos 0.97-0.99): a win.
        ResultTable apart = new ResultTable(t.columns());
        for (int i = 0; i < 3; i++) {
            apart.add(List.of("a", "kairos", "" + (i + 1), "0.9" + (7 + i % 3)));
            apart.add(List.of("a", "edf", "" + (i + 1), edf[i]));
        }
        assertThat(new PolicyComparison(apart, List.of("slo_ms"), "kairos").betterThanTheBest("s", "slo_attainment", true, Double.NaN).verdict())
                .isEqualTo(Experiment.Claim.Verdict.PASS);
    }

    @Test
    void withoutKairosItSkips() {
        ResultTable t = new ResultTable(List.of("slo_ms", "policy", "slo_attainment"));
        t.add(List.of("a", "edf", "1.0"));
        assertThat(new PolicyComparison(t, List.of("slo_ms"), "kairos").atLeastTheBest("s", "slo_attainment", true).verdict())
                .isEqualTo(Experiment.Claim.Verdict.SKIP);
    }
}
