package io.kairos.sim.pipeline;

import java.util.Locale;

/**
 * What the {@link PipelineEstimator} found for one configuration on its trace.
 *
 * <p>The P99 is the nearest rank: the {@code ⌈0.99·N⌉}-th smallest of the N end-to-end latencies.
 * So it meets the SLO exactly when at most {@link #allowedMisses} = {@code N − ⌈0.99·N⌉}
 * requests take longer than the SLO ({@link #misses}), which is how an estimate can stop early:
 * once more than that many have missed, the P99 is known to be above the SLO, whatever the rest do.
 *
 * @param requests          N, the trace's requests
 * @param sloMicros         the end-to-end P99 target the misses are counted against
 * @param misses            requests whose end-to-end latency exceeds the SLO; when stopped early,
 *                          those found before stopping (more than {@link #allowedMisses})
 * @param allowedMisses     {@code N − ⌈0.99·N⌉}
 * @param p99Micros         the P99 end-to-end latency; -1 when stopped early (above the SLO)
 * @param complete          whether every request was simulated to its end
 * @param latenciesMicros   every request's end-to-end latency, in trace order, when asked for; else null
 * @param simulatedRequests the stage visits this estimate simulated (the rest came from the cache)
 */
public record PipelineEstimate(int requests, long sloMicros, int misses, int allowedMisses, long p99Micros, boolean complete,
                               int[] latenciesMicros, long simulatedRequests) {

    /** Whether the configuration meets the SLO: its P99 is within it. */
    public boolean feasible() {
        return complete && misses <= allowedMisses;
    }

    /** The share of the requests over the SLO; a lower bound when stopped early. */
    public double missRate() {
        return requests == 0 ? 0 : misses / (double) requests;
    }

    /** {@code N − ⌈0.99·N⌉}: how many requests may exceed the SLO with the P99 still within it. */
    public static int allowedMisses(int requests) {
        return requests - (int) ((99L * requests + 99) / 100);
    }

    /** The P99 of {@code latenciesMicros} by the same nearest rank, the {@code ⌈0.99·N⌉}-th smallest: of latencies measured or simulated elsewhere. */
    public static long p99Micros(int[] latenciesMicros) {
        int n = latenciesMicros.length;
        int[] sorted = latenciesMicros.clone();
        java.util.Arrays.sort(sorted);
        return sorted[(int) ((99L * n + 99) / 100) - 1];
    }

    /** One line: the P99 against the SLO and the misses. */
    public String describe() {
        String p99 = complete ? String.format(Locale.ROOT, "P99 %.3f ms", p99Micros / 1000.0) : "P99 above the SLO";
        return String.format(Locale.ROOT, "%s (SLO %.3f ms): %d of %d requests over it (%.3f %%; at most %d for the P99)%s",
                p99, sloMicros / 1000.0, misses, requests, 100.0 * missRate(), allowedMisses, complete ? "" : ", stopped early");
    }
}
