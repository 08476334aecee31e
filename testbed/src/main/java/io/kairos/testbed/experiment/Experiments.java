package io.kairos.testbed.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Every experiment by the name the command line uses. */
public final class Experiments {
    private static final Map<String, Supplier<Experiment>> BY_NAME = new LinkedHashMap<>();

    static {
        BY_NAME.put(LowSloExperiment.NAME, LowSloExperiment::new);
        BY_NAME.put(AzureExperiment.NAME, AzureExperiment::new);
        BY_NAME.put(BurstyExperiment.NAME, BurstyExperiment::new);
        BY_NAME.put(BurstyExperiment.ZOO_CPU_NAME, BurstyExperiment::onZooCpu);
        BY_NAME.put(HotModelExperiment.NAME, HotModelExperiment::new);
    }

    private Experiments() {}

    /** Experiments that solve rather than simulate (their own command-line path, see {@link ExperimentCommand}). */
    public static boolean isAnalytic(String name) {
        return SmdpExperiment.NAME.equals(name);
    }

    public static Experiment create(String name) {
        Supplier<Experiment> make = BY_NAME.get(name);
        if (make == null) throw new IllegalArgumentException("unknown experiment '" + name + "'; known: " + names());
        return make.get();
    }

    /** Every experiment's name: the simulated ones, then the analytic ones. */
    public static List<String> names() {
        List<String> names = new java.util.ArrayList<>(BY_NAME.keySet());
        names.add(SmdpExperiment.NAME);
        names.add(SmdpGuardExperiment.NAME);
        names.add(InferLineExperiment.NAME);
        names.add(RlExperiment.NAME);
        names.add(TunerExperiment.NAME);
        names.add(PlacementExperiment.NAME);
        names.add(PlacementScaleExperiment.NAME);
        names.add(HerdExperiment.NAME);
        return List.copyOf(names);
    }
}
