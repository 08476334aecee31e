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
        assertThat(c.evidence()).isEqualTo("2/2 points");
    }

    @Test
    void betterThanTheBestNamesTheTiesBelowTheCeiling() {
        PolicyComparison kairos = new PolicyComparison(table(), List.of("slo_ms"), "kairos");
        // Point b's best is 1.0, at the ceiling: not counted. Point a: a tie with fifo at 0.95.
        Experiment.Claim c = kairos.betterThanTheBest("s", "slo_attainment", true, 1.0);
        assertThat(c.verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(c.evidence()).isEqualTo("0/1 points; not at a: kairos 0.950000, fifo 0.950000");
        // Lower is better: at a fifo costs 1 against kairos' 2; at b kairos' 1 beats edf's 2.
        Experiment.Claim cost = kairos.betterThanTheBest("s", "cost", false, Double.NaN);
        assertThat(cost.evidence()).isEqualTo("1/2 points; not at a: kairos 2.00000, fifo 1.00000");
    }

    @Test
    void withoutKairosItSkips() {
        ResultTable t = new ResultTable(List.of("slo_ms", "policy", "slo_attainment"));
        t.add(List.of("a", "edf", "1.0"));
        assertThat(new PolicyComparison(t, List.of("slo_ms"), "kairos").atLeastTheBest("s", "slo_attainment", true).verdict())
                .isEqualTo(Experiment.Claim.Verdict.SKIP);
    }
}
