package io.kairos.testbed.fidelity;

import io.kairos.schema.ResultStatus;
import org.HdrHistogram.Histogram;

import java.util.List;

/** SLO attainment and latency percentiles of one side of the comparison. */
record FateStats(String source, long requests, long ok, long late, long dropped, double meanBatch, Histogram latencyMicros) {

    static FateStats of(String source, List<ServedRequest> fates) {
        Histogram h = new Histogram(3);
        long ok = 0, late = 0, dropped = 0, batchSum = 0;
        for (ServedRequest f : fates) {
            switch (f.status()) {
                case OK -> ok++;
                case LATE -> late++;
                default -> dropped++;
            }
            if (f.served()) {
                h.recordValue(Math.max(0, f.latencyMicros()));
                batchSum += f.batchSize();
            }
        }
        long served = ok + late;
        return new FateStats(source, fates.size(), ok, late, dropped, served == 0 ? 0 : (double) batchSum / served, h);
    }

    double attainment() {
        return requests == 0 ? Double.NaN : (double) ok / requests;
    }

    long p50Micros() {
        return latencyMicros.getValueAtPercentile(50);
    }

    long p99Micros() {
        return latencyMicros.getValueAtPercentile(99);
    }
}
