package io.kairos.testbed.experiment;

import io.kairos.workload.ArrivalTrace;

/**
 * A replayed trace cut into bins of its arrival times: how many requests arrived in each and how
 * many of them missed the SLO. The rows of the tuner experiment's and the surge's timelines.
 */
record MissBins(int[] requests, int[] misses) {

    /** Each request counted in the bin of its arrival; the last bin takes what arrives after it. */
    static MissBins of(ArrivalTrace trace, int[] latenciesMicros, long sloMicros, int binSeconds, int bins) {
        int[] requests = new int[bins];
        int[] misses = new int[bins];
        for (int r = 0; r < trace.size(); r++) {
            int b = (int) Math.min(bins - 1, trace.at(r) / (binSeconds * 1_000_000L));
            requests[b]++;
            if (latenciesMicros[r] > sloMicros) misses[b]++;
        }
        return new MissBins(requests, misses);
    }

    /** The share of bin {@code b}'s requests that missed; 0 for an empty bin. */
    double missRate(int b) {
        return requests[b] == 0 ? 0 : misses[b] / (double) requests[b];
    }
}
