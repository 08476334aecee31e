package io.kairos.wire.metrics;

import io.kairos.core.api.Internal;
import io.kairos.core.metrics.ResultSummary;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.result.ResultStatuses;

/** Results read from the results topic, counted in a {@link ResultSummary}. */
@Internal
public final class ResultRecords {
    private ResultRecords() {}

    /** Adds {@code r} to {@code summary}: its latency runs from the client's send to the job's emission. */
    public static void addTo(ResultSummary summary, InferenceResult r) {
        summary.add(r.getModel(), ResultStatuses.core(r.getStatus()), r.getTimings().getSent(), r.getTimings().getEmitted(), r.getBatchSize());
    }
}
