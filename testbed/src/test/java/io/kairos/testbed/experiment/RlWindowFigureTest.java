package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Fig 6.1's shape check on hand-made tables. */
class RlWindowFigureTest {

    private static ResultTable table(String unheldOne, String heldOne, String heldZero) {
        ResultTable t = new ResultTable(RlWindowFigure.COLUMNS);
        for (String agent : RlWindowFigure.JUDGED) {
            t.add(List.of(agent, "no-window", RlWindowFigure.type(0), "1", "100", "100", "0", "0", "0", "1.000000"));
            t.add(List.of(agent, "no-window", RlWindowFigure.type(1), "1", "100", "0", "100", "0", "0", unheldOne));
            t.add(List.of(agent, "hold", RlWindowFigure.type(0), "1", "100", "100", "0", "0", "0", heldZero));
            t.add(List.of(agent, "hold", RlWindowFigure.type(1), "1", "100", "100", "0", "0", "0", heldOne));
            t.add(List.of(agent, "hold+noise", RlWindowFigure.type(1), "1", "100", "70", "30", "0", "0", "0.700000"));
            t.add(List.of(agent, "hold+noise+margin", RlWindowFigure.type(1), "1", "100", "100", "0", "0", "0", heldOne));
        }
        // The control: a random agent that the hold does not carry to model 1's window.
        t.add(List.of("random", "hold", RlWindowFigure.type(1), "1", "100", "50", "50", "0", "0", "0.500000"));
        return t;
    }

    @Test
    void passesWhenTheHoldMeetsModelOneThatWouldOtherwiseBeEarly() {
        // Model 0 at 100 %, model 1 at 100 % held and 0 % without its window: every claim holds.
        List<Experiment.Claim> claims = RlWindowFigure.claims(table("0.000000", "1.000000", "1.000000"));
        assertThat(claims).hasSize(15).allSatisfy(c -> assertThat(c.verdict()).isEqualTo(Experiment.Claim.Verdict.PASS));
        assertThat(claims.get(1).evidence()).isEqualTo("rl hold: 100.00 %, no-window: 0.00 %, random hold: 50.00 %");
        assertThat(claims.get(2).evidence()).isEqualTo("rl hold+noise+margin: 100.00 %, hold+noise: 70.00 %");
    }

    @Test
    void failsWhenModelOneIsMissedHeldOrMetWithoutItsWindow() {
        // Held 98 % (< 99 %), and with the margin: FAIL; met 50 % without the window (>= 10 %): FAIL; model 0 at 98.5 %: FAIL.
        assertThat(RlWindowFigure.claims(table("0.000000", "0.980000", "0.985000")))
                .extracting(Experiment.Claim::verdict).containsOnly(Experiment.Claim.Verdict.FAIL);
        assertThat(RlWindowFigure.claims(table("0.500000", "1.000000", "1.000000")).get(1).verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
        assertThat(RlWindowFigure.claims(new ResultTable(RlWindowFigure.COLUMNS)))
                .extracting(Experiment.Claim::verdict).containsOnly(Experiment.Claim.Verdict.SKIP);
    }

    @Test
    void eachAgentIsJudgedByItsMedianOverTheSeeds() {
        // rl holds model 1 at 100 % on seed 1; seeds 2 and 3 added at 99.5 % and 50 %: the median,
        // 99.5 %, still meets 99 %. With seed 2 at 60 % instead, the median is 60 %: FAIL.
        ResultTable t = table("0.000000", "1.000000", "1.000000");
        t.add(List.of("rl", "hold", RlWindowFigure.type(1), "2", "200", "199", "1", "0", "0", "0.995000"));
        t.add(List.of("rl", "hold", RlWindowFigure.type(1), "3", "100", "50", "50", "0", "0", "0.500000"));
        assertThat(RlWindowFigure.claims(t).get(1).verdict()).isEqualTo(Experiment.Claim.Verdict.PASS);
        assertThat(RlWindowFigure.claims(t).get(1).evidence()).startsWith("rl hold: 99.50 %");
        ResultTable worse = table("0.000000", "1.000000", "1.000000");
        worse.add(List.of("rl", "hold", RlWindowFigure.type(1), "2", "100", "60", "40", "0", "0", "0.600000"));
        worse.add(List.of("rl", "hold", RlWindowFigure.type(1), "3", "100", "50", "50", "0", "0", "0.500000"));
        assertThat(RlWindowFigure.claims(worse).get(1).verdict()).isEqualTo(Experiment.Claim.Verdict.FAIL);
    }
}
