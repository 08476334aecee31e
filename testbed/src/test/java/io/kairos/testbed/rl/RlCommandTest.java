package io.kairos.testbed.rl;

import io.kairos.sim.learning.SchedulingEnvironment;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RlCommandTest {

    @Test
    void oneOfEachIsEveryEpisodesWorkload() {
        for (long seed = 0; seed < 50; seed++) {
            assertThat(RlCommand.Workload.draw(seed, List.of(48), List.of(2400.0), List.of(24.0))).isEqualTo(new RlCommand.Workload(48, 2400, 24));
        }
    }

    @Test
    void severalAreDrawnPerEpisodeFromItsSeedEachAboutEquallyOften() {
        List<Integer> models = List.of(12, 48);
        List<Double> rates = List.of(600.0, 1200.0, 2400.0);
        List<Double> slos = List.of(12.0, 24.0, 48.0);
        Map<RlCommand.Workload, Integer> seen = new HashMap<>();
        int episodes = 18_000;
        for (long seed = 0; seed < episodes; seed++) {
            RlCommand.Workload w = RlCommand.Workload.draw(seed, models, rates, slos);
            // The same seed, the same workload: a rerun of an episode is the same episode.
            assertThat(RlCommand.Workload.draw(seed, models, rates, slos)).isEqualTo(w);
            seen.merge(w, 1, Integer::sum);
        }
        // 2 x 3 x 3 = 18 workloads, 1,000 episodes each expected; a binomial's sd is about 31.
        assertThat(seen).hasSize(18);
        assertThat(seen.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
    }

    @Test
    void theOptionsTakeCommaSeparatedValues() {
        RlCommand.Setup setup = new RlCommand.Setup();
        new picocli.CommandLine(setup).parseArgs("--models", "12,48", "--rate", "600,2400", "--slo-ms", "12");
        assertThat(setup.models).containsExactly(12, 48);
        assertThat(setup.rate).containsExactly(600.0, 2400.0);
        assertThat(setup.sloMs).containsExactly(12.0);
        assertThat(RlCommand.Setup.label(setup.rate)).isEqualTo("600,2400");
        RlCommand.Setup defaults = new RlCommand.Setup();
        new picocli.CommandLine(defaults).parseArgs();
        assertThat(defaults.models).containsExactly(48);
        assertThat(defaults.rate).containsExactly(2400.0);
        assertThat(defaults.sloMs).containsExactly(24.0);
        assertThat(defaults.gpuTermPerMs).isEqualTo(io.kairos.sim.learning.Reward.GPU_TERM_PER_MS);
    }

    @Test
    void aGpuTermBelowZeroIsRefusedWithTheOptionsName() {
        RlCommand.Setup setup = new RlCommand.Setup();
        new picocli.CommandLine(setup).parseArgs("--gpu-term", "-0.5");
        org.assertj.core.api.Assertions.assertThatThrownBy(setup::environment).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--gpu-term must be a finite number of at least 0, got -0.5");
        RlCommand.Setup half = new RlCommand.Setup();
        new picocli.CommandLine(half).parseArgs("--gpu-term", "0.5");
        assertThat(half.gpuTermPerMs).isEqualTo(0.5);
        assertThat(half.environment()).isNotNull();
    }

    @Test
    void theWindowWorkloadAnswersModelOneEarlyUnlessTheHoldOrTheLearnerWaits() {
        // Fig 6.1's two loads, 150 req/s each, on one device, served by a learner that starts the
        // most urgent slot's request at once whenever it may. Unheld, model 1 is then answered
        // some 97 ms before its window (EARLY, counted with the requests that ran and missed),
        // model 0 in time: about half of each. With the hold (the default) every request is met.
        SchedulingEnvironment.Learner atOnce = (state, mask, reward, action) -> {
            java.util.Arrays.fill(action, 0);
            action[0] = mask[1] ? 1 : 0;
        };
        RlCommand.Setup unheld = new RlCommand.Setup();
        new picocli.CommandLine(unheld).parseArgs("--window", "--devices", "1", "--param", "window_hold=false");
        SchedulingEnvironment.Episode early = unheld.environment().run(7, 3000, atOnce);
        long ran = early.ok() + early.late();
        assertThat(ran).isGreaterThan(600); // 300 req/s over about 3 s
        assertThat((double) early.late() / ran).isBetween(0.4, 0.6);
        assertThat(early.dropped()).isZero();
        assertThat(unheld.workload(7)).isEqualTo(new RlCommand.Workload(2, 300, 1000));

        // As `rl env` parses them (the setup mixed into the command).
        RlCommand.Env both = new RlCommand.Env();
        new picocli.CommandLine(both).parseArgs("--window", "--rate", "600");
        org.assertj.core.api.Assertions.assertThatThrownBy(both.setup::environment).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--window runs Fig 6.1's two loads: --models, --rate and --slo-ms do not apply (given --rate)");
        // Given, even at its default value, it is refused all the same.
        RlCommand.Env asDefault = new RlCommand.Env();
        new picocli.CommandLine(asDefault).parseArgs("--window", "--models", "48", "--slo-ms", "24");
        org.assertj.core.api.Assertions.assertThatThrownBy(asDefault.setup::environment).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--window runs Fig 6.1's two loads: --models, --rate and --slo-ms do not apply (given --models, --slo-ms)");

        RlCommand.Setup held = new RlCommand.Setup();
        new picocli.CommandLine(held).parseArgs("--window", "--devices", "1");
        SchedulingEnvironment.Episode met = held.environment().run(7, 3000, atOnce);
        assertThat(met.ok()).isGreaterThan(400);
        assertThat(met.late() + met.dropped()).isZero();
    }
}
