package io.kairos.testbed.experiment;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.workload.AzureTrace;

import java.util.List;

/**
 * How much device time a trace needs when every instance runs the largest batch its own arrivals
 * allow: a bound below what any policy can use, since instances never share a batch.
 *
 * <p>A batch of an instance holds its oldest request and those that arrive before that request's
 * latest start, its deadline less the batch's own time. An instance that gets {@code r} requests
 * per second has, on average, {@code 1 + r (slo - tau(b))} requests in that window, so its batch
 * is at best the largest allowed size {@code b} with {@code b <= 1 + r (slo - tau(b))}; the
 * instance then needs {@code r tau(b) / b} of a device per second. Summed over instances, minute by
 * minute: the mean over the minutes and the busiest minute. When the busiest minute needs more
 * device-seconds per second than there are devices, some requests miss whatever the policy does.
 *
 * <p>It is an estimate, not a strict bound: Poisson arrivals make some windows fuller than the
 * mean, and a queue left to grow (past what the SLO allows its first request) serves larger
 * batches at the cost of misses. Used to say why the Azure run misses where the thesis met all.
 */
record AzureDemand(double meanDevices, double peakDevices, int peakMinute) {

    /**
     * @param instanceCounts per instance, its arrivals in each minute of the window ({@link AzureTrace#instanceCounts})
     * @param instances      the instances' names, in the same order
     * @param rateScale      the scale that {@link AzureTrace#rateScaleFor} gives for the run's rate
     * @param fromMinute     the window's first minute, to name the busiest one
     */
    static AzureDemand of(int[][] instanceCounts, List<String> instances, ModelCatalog catalog, double sloMs, double rateScale, int fromMinute) {
        int minutes = instanceCounts[0].length;
        double[] devices = new double[minutes];
        for (int i = 0; i < instances.size(); i++) {
            LatencyProfile latency = catalog.get(instances.get(i)).latency();
            for (int m = 0; m < minutes; m++) devices[m] += devicesFor(instanceCounts[i][m] * rateScale / 60.0, latency, sloMs);
        }
        double sum = 0, peak = 0;
        int peakAt = 0;
        for (int m = 0; m < minutes; m++) {
            sum += devices[m];
            if (devices[m] > peak) {
                peak = devices[m];
                peakAt = fromMinute + m;
            }
        }
        return new AzureDemand(sum / minutes, peak, peakAt);
    }

    /** The share of a device an instance at {@code ratePerSecond} needs at its best batch; 0 for no requests. */
    static double devicesFor(double ratePerSecond, LatencyProfile latency, double sloMs) {
        if (ratePerSecond <= 0) return 0;
        int best = latency.batchSizeAt(0);
        for (int i = 1; i < latency.batchSizeCount(); i++) {
            int b = latency.batchSizeAt(i);
            double windowSeconds = (sloMs * 1000 - latency.latencyAt(i)) / 1e6;
            if (windowSeconds > 0 && 1 + ratePerSecond * windowSeconds >= b) best = b;
        }
        return ratePerSecond * latency.latencyMicros(best) / 1e6 / best;
    }
}
