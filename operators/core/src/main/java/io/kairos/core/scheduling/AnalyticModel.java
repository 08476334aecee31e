package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;

/**
 * The model-aware scheduling thesis' analytic model of a request's end-to-end latency under each
 * model-aware placement (Liu, MIT 2025, §6.5), in microseconds:
 * <ul>
 *   <li>colocation without queuing: {@code max(T_CS + T_I + T_P, n·(T_Iavg + T_Pavg))}: a cold
 *       device, or the n requests ahead on a warm one, whichever is longer;</li>
 *   <li>colocation with queuing: {@code (n+1)·(T_Iavg + T_Pavg)}: behind the n ahead on a warm device;</li>
 *   <li>the registry: {@code (T_N + T_I + T_P) + n·T_Iavg}: sent over the network to a warm
 *       device, whose n requests ahead hold it for their inference only.</li>
 * </ul>
 *
 * @param coldStartMicros   T_CS, the model's load
 * @param inferenceMicros   T_I, this request's inference
 * @param prePostMicros     T_P, its pre- and post-processing
 * @param networkMicros     T_N, its trip to a device on another machine
 * @param inferenceAvgMicros T_Iavg, the inference of the requests ahead
 * @param prePostAvgMicros  T_Pavg, their pre- and post-processing
 * @param ongoing           n, the most requests ongoing at any warm device
 */
@Internal
public record AnalyticModel(long coldStartMicros, long inferenceMicros, long prePostMicros, long networkMicros,
                            long inferenceAvgMicros, long prePostAvgMicros, int ongoing) {

    public AnalyticModel {
        if (coldStartMicros < 0 || inferenceMicros < 0 || prePostMicros < 0 || networkMicros < 0 || inferenceAvgMicros < 0 || prePostAvgMicros < 0 || ongoing < 0) {
            throw new IllegalArgumentException("the analytic model's times and n must not be negative: " + this);
        }
    }

    /** T_COLOCATION = max(T_CS + T_I + T_P, n·(T_Iavg + T_Pavg)). */
    public long colocation() {
        return Math.max(coldStartMicros + inferenceMicros + prePostMicros, ongoing * (inferenceAvgMicros + prePostAvgMicros));
    }

    /** T_COLOCATION_WITH_QUEUING = (n+1)·(T_Iavg + T_Pavg). */
    public long colocationWithQueuing() {
        return (ongoing + 1L) * (inferenceAvgMicros + prePostAvgMicros);
    }

    /** T_REGISTRY = (T_N + T_I + T_P) + n·T_Iavg. */
    public long registry() {
        return networkMicros + inferenceMicros + prePostMicros + ongoing * inferenceAvgMicros;
    }

    /**
     * The placement with the smallest estimate, by its name: {@link RegistryPlacement#NAME},
     * {@link ColocationPlacement#WITH_QUEUING} or {@link ColocationPlacement#WITHOUT_QUEUING}. Ties go in that order:
     * the registry holds a warm device for the inference alone (its pre- and post-processing run
     * where the request came from), so it leaves the device soonest to the requests after it; then
     * no load before a load.
     */
    public String best() {
        long registry = registry();
        long queuing = colocationWithQueuing();
        long colocation = colocation();
        if (registry <= queuing && registry <= colocation) return RegistryPlacement.NAME;
        return queuing <= colocation ? ColocationPlacement.WITH_QUEUING : ColocationPlacement.WITHOUT_QUEUING;
    }
}
