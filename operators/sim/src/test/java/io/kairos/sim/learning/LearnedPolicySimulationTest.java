package io.kairos.sim.learning;

import io.kairos.core.model.ModelCatalog;
import io.kairos.sim.Invocation;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.ArrivalProcess;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed network, served by the {@code rl} policy in plain Java, on the thesis' training
 * setup (2,400 requests/s over 48 ResNet50 instances, SLO 24 ms, 6 devices, invoked every 1 ms),
 * against the thesis' random agent on the very same arrivals (the same seed).
 */
class LearnedPolicySimulationTest {

    static SimulationReport run(String policy, Map<String, String> params, long seed) {
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 0; i < 48; i++) {
            loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, ModelCatalog.instanceName("resnet50", i), 24, ArrivalProcess.poisson(2400.0 / 48)));
        }
        return Simulation.builder(ModelCatalog.builtIn()).devices(6).workload(new Workload(loads)).policy(policy, params)
                .invocation(Invocation.every(1000)).duration(5_000_000).warmup(500_000).seed(seed).build().run();
    }

    @Test
    void theCommittedNetworkMeetsFarMoreRequestsThanTheRandomAgent() {
        SimulationReport rl = run("rl", Map.of(), 11);
        SimulationReport random = run("random", Map.of("seed", "11"), 11);
        assertThat(rl.arrivals()).isEqualTo(random.arrivals());
        System.out.printf("rl %.4f random %.4f%n", rl.sloAttainment(), random.sloAttainment());
        assertThat(rl.sloAttainment()).isGreaterThan(random.sloAttainment() + MARGIN);
    }

    /** Points of attainment the network must lead the random agent by; see the class comment of the figures in BENCHMARKS.md. */
    static final double MARGIN = 0.20;
}
