package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import io.kairos.core.model.ModelSpec;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code auto}: per model, the model-aware placement that the thesis' {@link AnalyticModel}
 * estimates fastest for the next batch, from what the group measures as it runs. T_I is the mean
 * of the model's warm batches as the devices report them (an exponentially weighted mean, weight
 * {@value #WEIGHT} on the newest; before the first report, the catalog's latency at the smallest
 * batch); T_CS the last cold start's load (its batch's time less T_I and T_P; before one, the
 * catalog's {@code load_ms}); T_P and T_N the catalog's {@code pre_post_ms} and {@code network_ms};
 * n the most batches outstanding on any device that holds the model in memory. With no such
 * device the first load is unavoidable: colocation without queuing, the first device free.
 * Measurements start afresh when the group's policy is set again.
 */
@Internal
public final class AutoPlacement implements PlacementPolicy {
    public static final String NAME = "auto";
    static final double WEIGHT = 0.2;

    private final ColocationPlacement colocation = new ColocationPlacement(false);
    private final ColocationPlacement queuing = new ColocationPlacement(true);
    private final RegistryPlacement registry;
    private final Map<String, Measured> measured = new HashMap<>();

    /** A model's times as measured so far; -1: none yet. */
    private static final class Measured {
        double inferenceMicros = -1;
        long coldStartMicros = -1;
        String last;
    }

    public AutoPlacement(int targetOngoing) {
        this.registry = new RegistryPlacement(targetOngoing);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean admits(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        return placement(choose(model, devices, nowMicros)).admits(model, device, devices, nowMicros);
    }

    @Override
    public boolean remote(ModelSpec model, DeviceView device, List<DeviceView> devices, long nowMicros) {
        return placement(choose(model, devices, nowMicros)).remote(model, device, devices, nowMicros);
    }

    /** Where the analytic model picks the registry, the registry's load elsewhere ({@link RegistryPlacement#copyWanted}). */
    @Override
    public String copyWanted(ModelSpec model, List<DeviceView> devices, long nowMicros) {
        AnalyticModel estimate = estimate(model, devices, nowMicros);
        return estimate != null && RegistryPlacement.NAME.equals(estimate.best()) ? registry.copyWanted(model, devices, nowMicros) : null;
    }

    /** The placement the analytic model picks for the next batch of {@code model} at {@code now}. */
    public String choose(ModelSpec model, List<DeviceView> devices, long nowMicros) {
        AnalyticModel estimate = estimate(model, devices, nowMicros);
        String best = estimate == null ? ColocationPlacement.WITHOUT_QUEUING : estimate.best();
        measured.computeIfAbsent(model.name(), m -> new Measured()).last = best;
        return best;
    }

    /** The analytic model's inputs for {@code model} now; null when no device holds it in memory. */
    public AnalyticModel estimate(ModelSpec model, List<DeviceView> devices, long nowMicros) {
        int n = -1;
        for (DeviceView d : devices) {
            if (d.holds(model.name()) && d.isWarm(model)) n = Math.max(n, d.outstandingBatches(nowMicros));
        }
        if (n < 0) return null;
        Measured m = measured.get(model.name());
        long inference = m == null || m.inferenceMicros < 0 ? model.latency().latencyAt(0) : Math.round(m.inferenceMicros);
        long coldStart = m == null || m.coldStartMicros < 0 ? model.loadMicros() : m.coldStartMicros;
        return new AnalyticModel(coldStart, inference, model.prePostMicros(), model.networkMicros(), inference, model.prePostMicros(), n);
    }

    /** What the analytic model last picked for {@code model}; null before its first batch. */
    public String lastChoice(String model) {
        Measured m = measured.get(model);
        return m == null ? null : m.last;
    }

    @Override
    public void observe(ModelSpec model, BatchReport report) {
        if (report.failed()) return;
        Measured m = measured.computeIfAbsent(model.name(), k -> new Measured());
        // Pre- and post-processing ran on the device unless the batch was sent to a remote one.
        long onDevice = report.latencyMicros() - (report.batch().afterMicros() > 0 ? 0 : model.prePostMicros());
        if (report.coldStart()) {
            long inference = m.inferenceMicros < 0 ? model.latency().latencyAt(0) : Math.round(m.inferenceMicros);
            m.coldStartMicros = Math.max(0, onDevice - inference);
        } else {
            m.inferenceMicros = m.inferenceMicros < 0 ? onDevice : (1 - WEIGHT) * m.inferenceMicros + WEIGHT * onDevice;
        }
    }

    private PlacementPolicy placement(String name) {
        return switch (name) {
            case ColocationPlacement.WITH_QUEUING -> queuing;
            case RegistryPlacement.NAME -> registry;
            default -> colocation;
        };
    }
}
