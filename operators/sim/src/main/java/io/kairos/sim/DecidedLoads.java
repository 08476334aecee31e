package io.kairos.sim;

import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;

/**
 * Counts the loads the scheduler decided (a placement's, the load planner's, the registry's load
 * elsewhere: {@link FateListener#onLoad}) that start at or after a warm-up, and passes every fate
 * on to another listener. The report's cold starts count only the loads a batch carried; a figure
 * of every load of a model onto a device adds these.
 */
public final class DecidedLoads implements FateListener {
    private final long fromMicros;
    private final FateListener fates;
    private long count;

    /** Counts the loads from {@code fromMicros} on; every fate goes to {@code fates}. */
    public DecidedLoads(long fromMicros, FateListener fates) {
        this.fromMicros = fromMicros;
        this.fates = fates;
    }

    @Override
    public void onFate(Request request, ResultStatus status, long endMicros, int batchSize) {
        fates.onFate(request, status, endMicros, batchSize);
    }

    @Override
    public void onLoad(int device, String model, long startMicros, long endMicros) {
        if (startMicros >= fromMicros) count++;
        fates.onLoad(device, model, startMicros, endMicros);
    }

    /** The loads counted so far. */
    public long count() {
        return count;
    }
}
