package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.schema.internal.RawRequest;

import java.util.List;

/** Every record type Kairos puts on a topic or passes between operators. */
public final class WireTypes {
    private WireTypes() {}

    public static final List<Class<?>> ALL = List.of(
            Tensor.class, InferenceRequest.class, InferenceResult.class, StageTimes.class, BatchTelemetry.class, ControlDecision.class,
            RawRequest.class, AdmittedRequest.class, DispatchedBatch.class, BatchOutcome.class, PreemptionEvent.class);
}
