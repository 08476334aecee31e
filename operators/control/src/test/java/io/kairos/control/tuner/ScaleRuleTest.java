package io.kairos.control.tuner;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Algorithms 3 and 4 on a two-stage plan worked by hand. Windows of 1 s and 10 s, where the
 * planning trace peaked at 100/s and 60/s. Stage a: s 1, mu 50/s, 2 planned replicas; stage b:
 * s 0.5, mu 20/s, 3 planned replicas. So rho_a is 1·100/(2·50) = 1 at the 1-s window and 0.6 at
 * the 10-s one; rho_b is 0.5·100/(3·20) = 5/6 and 0.5·60/(3·20) = 0.5.
 */
class ScaleRuleTest {
    private static final long S = 1_000_000;
    static final TunerSettings SETTINGS = new TunerSettings(100_000, new long[]{S, 10 * S}, S, 15 * S, 250_000);
    static final TunerPlan PLAN = new TunerPlan("p", List.of(
            new StageScale("a", "p-a", "ma", "gpu", 1, 50, 4, 2),
            new StageScale("b", "p-b", "mb", "gpu", 0.5, 20, 4, 3)), new double[]{100, 60}, SETTINGS);

    @Test
    void thePlanningTracesOwnEnvelopeGivesThePlannedReplicas() {
        // Ratios 1 and 1: no window above the planning trace; k_a = 100·1/(50·1) = 2, k_b = 100·0.5/(20·5/6) = 3.
        ScaleRule.Step step = ScaleRule.next(PLAN, new double[]{100, 60}, new int[]{2, 3}, 0, 60 * S);
        assertThat(step.kind()).isEqualTo(ScaleRule.Kind.NONE);
        assertThat(step.replicas()).containsExactly(2, 3);
        assertThat(ScaleRule.rMax(PLAN, new double[]{100, 60})).isZero();
    }

    @Test
    void aBurstAboveTheShortWindowScalesUpAtOnce() {
        // 1 s at 150/s (x1.5), 10 s at 70/s (x1.17): the 1-s window decides, r_max = 150.
        // k_a = ceil(150·1/(50·1)) = 3; k_b = ceil(150·0.5/(20·5/6)) = ceil(4.5) = 5. One second after
        // the last change: scaling up does not wait.
        double[] peaks = {150, 70};
        assertThat(ScaleRule.rMax(PLAN, peaks)).isEqualTo(150);
        ScaleRule.Step step = ScaleRule.next(PLAN, peaks, new int[]{2, 3}, 59 * S, 60 * S);
        assertThat(step.kind()).isEqualTo(ScaleRule.Kind.UP);
        assertThat(step.window()).isZero();
        assertThat(step.replicas()).containsExactly(3, 5);
        assertThat(step.describe(PLAN)).isEqualTo("scale up: 1 s window at 150.0/s against the planning trace's 100.0/s (x1.500): replicas [3, 5]");
    }

    @Test
    void aSustainedRiseSeenByTheLongWindowScalesUpOnItsRatio() {
        // 1 s at 90/s (x0.9), 10 s at 120/s (x2): the 10-s window decides, r_max = 120.
        // k_a = ceil(120·1/(50·0.6)) = 4; k_b = ceil(120·0.5/(20·0.5)) = 6.
        ScaleRule.Step step = ScaleRule.next(PLAN, new double[]{90, 120}, new int[]{2, 3}, 0, 60 * S);
        assertThat(step.kind()).isEqualTo(ScaleRule.Kind.UP);
        assertThat(step.window()).isEqualTo(1);
        assertThat(step.rate()).isEqualTo(120);
        assertThat(step.replicas()).containsExactly(4, 6);
    }

    @Test
    void scaleDownWaitsFifteenSecondsAfterTheLastChange() {
        // At 50/s and 30/s (x0.5 both; the shorter window decides): k_a = ceil(50/50) = 1,
        // k_b = ceil(50·0.5/(20·5/6)) = ceil(1.5) = 2. Last change at 0: at 10 s it holds [3, 5]; at
        // 15 s it gives back the rest.
        double[] peaks = {50, 30};
        ScaleRule.Step early = ScaleRule.next(PLAN, peaks, new int[]{3, 5}, 0, 10 * S);
        assertThat(early.kind()).isEqualTo(ScaleRule.Kind.NONE);
        assertThat(early.replicas()).containsExactly(3, 5);
        ScaleRule.Step late = ScaleRule.next(PLAN, peaks, new int[]{3, 5}, 0, 15 * S);
        assertThat(late.kind()).isEqualTo(ScaleRule.Kind.DOWN);
        assertThat(late.replicas()).containsExactly(1, 2);
    }

    @Test
    void trafficBackAtThePlannedLevelRestoresStagesTakenBelowIt() {
        // After a quiet spell the stages are at [1, 2]. Traffic comes back to 95/s and 57/s (x0.95):
        // no window is above the planning trace (r_max 0), but the recent need is
        // k_a = ceil(0.95·2) = 2 and k_b = ceil(95·0.5/(20·5/6)) = ceil(2.85) = 3: up at once.
        double[] peaks = {95, 57};
        assertThat(ScaleRule.rMax(PLAN, peaks)).isZero();
        ScaleRule.Step step = ScaleRule.next(PLAN, peaks, new int[]{1, 2}, 59 * S, 60 * S);
        assertThat(step.kind()).isEqualTo(ScaleRule.Kind.UP);
        assertThat(step.replicas()).containsExactly(2, 3);
    }

    @Test
    void kmRoundsUpButNotThePlannedCountItself() {
        StageScale a = PLAN.stages().get(0);
        // 100 · 1 / (50 · 1) = 2 exactly; 100.5 asks for 2.01: 3.
        assertThat(a.replicasFor(100, 100)).isEqualTo(2);
        assertThat(a.replicasFor(100.5, 100)).isEqualTo(3);
        assertThat(a.replicasFor(0, 100)).isEqualTo(1); // never below one replica
        assertThat(new StageScale("c", "p-c", "mc", "gpu", 0, 20, 1, 4).replicasFor(500, 100)).isEqualTo(4); // reached by nothing: as planned
    }
}
