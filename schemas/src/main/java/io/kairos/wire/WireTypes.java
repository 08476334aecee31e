package io.kairos.wire;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.StageResult;
import io.kairos.schema.StageTimes;
import io.kairos.schema.Tensor;
import io.kairos.schema.internal.AdmittedRequest;
import io.kairos.schema.internal.BatchOutcome;
import io.kairos.schema.internal.ControlRestore;
import io.kairos.schema.internal.DeviceReport;
import io.kairos.schema.internal.DispatchedBatch;
import io.kairos.schema.internal.GroupInput;
import io.kairos.schema.internal.PipelineHop;
import io.kairos.schema.internal.PreemptionEvent;
import io.kairos.schema.internal.RawRequest;
import io.kairos.schema.internal.StageOutcome;
import io.kairos.schema.internal.WriterVersion;

import java.util.List;

/**
 * Every record type Kairos puts on a topic or passes between operators: each is read and written
 * with its generated coders ({@link AvroCodec#enableCustomCoders}). A record type missing here is
 * read on Avro's reflective path, and so is every record nested in it (a scheduler's input, with
 * its request and tensor, was, until GroupInput was added).
 */
public final class WireTypes {
    private WireTypes() {}

    public static final List<Class<?>> ALL = List.of(
            Tensor.class, InferenceRequest.class, InferenceResult.class, StageTimes.class, BatchTelemetry.class, ControlDecision.class,
            DecisionOutcome.class, RawRequest.class, AdmittedRequest.class, GroupInput.class, DispatchedBatch.class, BatchOutcome.class,
            PreemptionEvent.class, DeviceReport.class, ControlRestore.class, WriterVersion.class, StageResult.class, PipelineHop.class,
            StageOutcome.class);
}
