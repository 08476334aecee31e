package io.kairos.testbed.rl;

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
}
