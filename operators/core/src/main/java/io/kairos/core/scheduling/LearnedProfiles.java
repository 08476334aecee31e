package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * The group scheduler's latency profiles: each queued model's profile on each hardware type of the
 * group's devices, the catalog's prior corrected from the batches the devices report (unless
 * learning is off), by queue number. A queue decides with its model's profile on these types: the
 * one type's, or, where they are several, the slowest at each batch size, so that whatever device a
 * policy picks, the batch it sized ends in time; each batch is booked with its own device's profile.
 */
final class LearnedProfiles {
    /**
     * How long after a model's last measured batch an estimate that puts a request out of reach,
     * where the catalog's profile would not, is forgotten: 5 s. An estimate can only come back down
     * through batches that run, and a model whose estimate exceeds its SLO (a device starved for
     * CPU for a while, a pause) has every request shed as unreachable, so none runs: without
     * forgetting, the model would never be served again. Forgotten, the next request runs on the
     * catalog's latency and measures the device anew; on a device still slow, the estimate rises
     * again, and another request probes 5 s later. An estimate that leaves the request in reach
     * stands, however old: its batches run and correct it.
     */
    static final long STALE_MICROS = 5_000_000;
    private final ModelCatalog catalog;
    // Profiles corrected from the devices' reports; null: the catalog's profiles, never corrected.
    private LatencyEstimator estimator = new LatencyEstimator(LatencyEstimator.Settings.DEFAULT);
    // The hardware types of the group's devices, each once, in the order of the devices.
    private List<String> types = List.of();
    // Per queue number: the model's profile on each of the group's types.
    private final List<OnTypes> onTypes = new ArrayList<>();

    LearnedProfiles(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    /** Learning with {@code settings}; {@code null}: the catalog's profiles stay. Before the first queue. */
    void learn(LatencyEstimator.Settings settings) {
        this.estimator = settings == null ? null : new LatencyEstimator(settings);
    }

    /** Binds each device's view to its type; whether the group's types changed (every queue's profile must then be {@link #retype}d). */
    boolean setDevices(List<DeviceView> devices) {
        List<String> before = types;
        types = resolveTypes(devices);
        return !types.equals(before);
    }

    /** The hardware types of the group's devices, each once, in the order of the devices. */
    List<String> types() {
        return types;
    }

    /** A new queue, numbered next, for {@code spec}'s model: its profile. */
    LatencyProfile add(ModelSpec spec) {
        OnTypes t = onTypes(spec);
        onTypes.add(t);
        return t.profile();
    }

    /** Queue {@code number}'s profile on the group's new types, learned apart per type. */
    LatencyProfile retype(int number, ModelSpec spec) {
        OnTypes t = onTypes(spec);
        onTypes.set(number, t);
        return t.profile();
    }

    /** A model with no queue: its profile on the group's types, as the catalog gives it. */
    LatencyProfile of(ModelSpec spec) {
        return onTypes(spec).profile();
    }

    /** Queue {@code number}'s profile on the type of index {@code typeIndex}, as now believed; null where its model has none. */
    LatencyProfile on(int number, int typeIndex) {
        return onTypes.get(number).on(typeIndex);
    }

    /** Queue {@code number}'s latency alone (the smallest batch) on the fastest of the group's types it has. */
    long fastestAlone(int number) {
        return onTypes.get(number).fastestAlone();
    }

    /**
     * A report of a batch of queue {@code number} that ran on {@code on} (null: a device that left
     * the group): the queue's corrected profile when the batch changed it, else null. Learned on
     * the type of the device that ran it; of a device that left a group of several types, not at all.
     */
    LatencyProfile learned(int number, DeviceView on, Dispatch batch, BatchReport report) {
        if (estimator == null) return null;
        int k = types.size() == 1 ? 0 : on == null ? -1 : on.typeIndex();
        OnTypes t = onTypes.get(number);
        if (k < 0 || t.estimates[k] == null) return null;
        // A batch sent to a remote device left its pre- and post-processing where it came from: count it in.
        t.lastReportMicros = Math.max(t.lastReportMicros, report.endMicros());
        if (t.estimates[k].add(batch.size(), report.latencyMicros() + batch.afterMicros()) == null) return null;
        return t.profile();
    }

    /**
     * Queue {@code number}'s profile with its estimates forgotten, where they put a request with
     * {@code budgetMicros} from arrival to deadline out of reach alone and the catalog's profile
     * would not, and no batch of the model was measured for {@link #STALE_MICROS} up to
     * {@code now}; else null (nothing changed).
     */
    LatencyProfile forgetIfStale(int number, long nowMicros, long budgetMicros) {
        if (estimator == null) return null;
        OnTypes t = onTypes.get(number);
        if (t.lastReportMicros == Long.MIN_VALUE || nowMicros - t.lastReportMicros <= STALE_MICROS) return null;
        boolean forgot = false;
        for (LatencyEstimator.ModelEstimate e : t.estimates) {
            if (e != null && e.outOfReachByEstimateOnly(budgetMicros)) {
                e.forget();
                forgot = true;
            }
        }
        return forgot ? t.profile() : null;
    }

    /** The distinct hardware types of {@code devices}, in their order; binds each view to its type. */
    private List<String> resolveTypes(List<DeviceView> devices) {
        List<String> distinct = new ArrayList<>(1);
        for (DeviceView d : devices) {
            String type = d.hardwareType() != null ? d.hardwareType() : catalog.firstHardwareType().name();
            int index = distinct.indexOf(type);
            if (index < 0) {
                index = distinct.size();
                distinct.add(type);
            }
            d.resolve(catalog, index);
        }
        return List.copyOf(distinct);
    }

    /**
     * A model's profile on each of the group's types: its estimate there when learning, else the
     * catalog's; none on a type it has no profile for.
     */
    private OnTypes onTypes(ModelSpec spec) {
        int n = types.size();
        LatencyProfile[] priors = new LatencyProfile[n];
        LatencyEstimator.ModelEstimate[] estimates = estimator == null ? null : new LatencyEstimator.ModelEstimate[n];
        for (int k = 0; k < n; k++) {
            // A request's pre- and post-processing holds the device's host beside its inference (T_P).
            LatencyProfile on = spec.latencyOn(types.get(k));
            priors[k] = on == null ? null : on.plus(spec.prePostMicros());
            if (estimates != null && priors[k] != null) estimates[k] = estimator.track(spec.name(), types.get(k), priors[k]);
        }
        return new OnTypes(spec, priors, estimates);
    }

    /** One model's profiles on the group's types, by the types' index. */
    private static final class OnTypes {
        final ModelSpec spec;
        final LatencyProfile[] priors;
        final LatencyEstimator.ModelEstimate[] estimates; // null when not learning
        // When the last batch of the model reported here ended; MIN_VALUE before one.
        long lastReportMicros = Long.MIN_VALUE;

        OnTypes(ModelSpec spec, LatencyProfile[] priors, LatencyEstimator.ModelEstimate[] estimates) {
            this.spec = spec;
            this.priors = priors;
            this.estimates = estimates;
        }

        /** On the k-th type, as now believed; null where the model has no profile. */
        LatencyProfile on(int k) {
            return estimates != null && estimates[k] != null ? estimates[k].profile() : priors[k];
        }

        /** Its latency alone (the smallest batch) on the fastest of the group's types it has; {@link #profile}'s where it has none. */
        long fastestAlone() {
            long fastest = Long.MAX_VALUE;
            for (int k = 0; k < priors.length; k++) {
                LatencyProfile p = on(k);
                if (p != null) fastest = Math.min(fastest, p.latencyAt(0));
            }
            return fastest == Long.MAX_VALUE ? profile().latencyAt(0) : fastest;
        }

        /**
         * What the model's queue decides with: its profile on the one type it has among the group's
         * (the very object), the slowest at each size where it has several, its first type's where
         * it has none (no device of the group runs it: its requests are shed).
         */
        LatencyProfile profile() {
            LatencyProfile only = null;
            int count = 0;
            for (int k = 0; k < priors.length; k++) {
                LatencyProfile p = on(k);
                if (p == null) continue;
                if (count++ == 0) only = p;
            }
            if (count == 0) return spec.latency().plus(spec.prePostMicros());
            if (count == 1) return only;
            int[] sizes = only.batchSizes();
            long[] slowest = new long[sizes.length];
            for (int k = 0; k < priors.length; k++) {
                LatencyProfile p = on(k);
                if (p == null) continue;
                for (int i = 0; i < sizes.length; i++) slowest[i] = Math.max(slowest[i], p.latencyAt(i));
            }
            return new LatencyProfile(sizes, slowest);
        }
    }
}
