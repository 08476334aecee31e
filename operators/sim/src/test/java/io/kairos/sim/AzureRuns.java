package io.kairos.sim;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.policy.TritonPolicy;
import io.kairos.core.scheduling.policy.LatestStartPolicy;
import io.kairos.workload.AzureLikeTrace;
import io.kairos.workload.AzureTrace;
import io.kairos.workload.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Azure experiment's simulations ({@code AzureExperiment} in the testbed), for the simulator's
 * own tests and benchmark: 12 devices that each hold every model; 4,026 ResNet50 instances, each
 * its own queue; an Azure-Functions-like trace of 46,000 functions (seed 1) mapped onto them and
 * scaled to a total rate; SLO 100 ms; every policy as the experiments run it.
 */
public final class AzureRuns {
    public static final int DEVICES = 12;
    public static final int INSTANCES = 61 * 66;
    public static final double SLO_MS = 100;
    private static final int MINUTES = 60;
    private static AzureTrace trace;

    private AzureRuns() {}

    /** The trace's first {@code minutes}, scaled to {@code rate} requests per second over them (60: the experiment's hour). */
    public static Workload workload(int rate, int minutes) {
        AzureTrace t = trace();
        List<String> instances = new ArrayList<>(INSTANCES);
        for (int i = 0; i < INSTANCES; i++) instances.add(ModelCatalog.instanceName("resnet50", i));
        return t.toInstanceWorkload(instances, SLO_MS, t.rateScaleFor(rate, 0, minutes), 0, minutes);
    }

    /** A run of {@code policy} on {@code workload} for {@code durationMicros}, the first {@code warmupMicros} not counted. */
    public static Simulation simulation(String policy, Workload workload, long durationMicros, long warmupMicros) {
        return Simulation.builder(ModelCatalog.builtIn()).devices(DEVICES).workload(workload)
                .policy(policy, asPublished(policy)).duration(durationMicros).warmup(warmupMicros).seed(1).build();
    }

    /** The parameters the experiments give a policy ({@code Experiment.asPublished} in the testbed). */
    public static Map<String, String> asPublished(String policy) {
        if (policy.equals(LatestStartPolicy.KAIROS)) return Map.of();
        if (policy.equals(TritonPolicy.NAME)) return Map.of(ConfiguredPolicy.SHED_EARLY, "false", ConfiguredPolicy.SHED, "false");
        return Map.of(ConfiguredPolicy.SHED_EARLY, "false");
    }

    private static synchronized AzureTrace trace() {
        if (trace == null) trace = AzureLikeTrace.of(46_000, 9500, MINUTES).generate(1);
        return trace;
    }
}
