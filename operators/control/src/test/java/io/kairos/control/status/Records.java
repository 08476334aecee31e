package io.kairos.control.status;

import io.kairos.schema.AssignGroup;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.Preemption;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.StageTimes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Records for the status tests, built in one line each. */
final class Records {
    private Records() {}

    static ControlDecision decision(String writer, long version, Object action) {
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(1_000 + version).setIssuedBy(writer).setAction(action).build();
    }

    static SetPolicy policy(String group, String model, String policy, Map<String, String> params) {
        return SetPolicy.newBuilder().setGroup(group).setModel(model).setPolicy(policy).setParams(params).build();
    }

    /** A placement of {@code group}: pairs of a device slot and its models, e.g. {@code 0, List.of("mlp")}. */
    static SetPlacement placement(String group, Object... slotsAndModels) {
        List<DevicePlacement> devices = new ArrayList<>();
        for (int i = 0; i < slotsAndModels.length; i += 2) {
            @SuppressWarnings("unchecked")
            List<String> models = (List<String>) slotsAndModels[i + 1];
            devices.add(DevicePlacement.newBuilder().setDevice((Integer) slotsAndModels[i]).setModels(models).build());
        }
        return SetPlacement.newBuilder().setGroup(group).setDevices(devices).build();
    }

    static AssignGroup assign(String model, String group) {
        return AssignGroup.newBuilder().setModel(model).setGroup(group).build();
    }

    static DecisionOutcome outcome(String writer, long version, String key, DecisionStatus status, String reason, long decidedAt) {
        return DecisionOutcome.newBuilder().setWriter(writer).setVersion(version).setKey(key).setStatus(status).setReason(reason)
                .setIssuedAtMicros(1_000 + version).setDecidedAtMicros(decidedAt).build();
    }

    static InferenceResult result(String model, ResultStatus status, long sentMicros, long latencyMicros, int batchSize) {
        return result(model, status, sentMicros, latencyMicros, batchSize, 0);
    }

    /** A result of a request whose latency objective was {@code sloMs} (0: none given). */
    static InferenceResult result(String model, ResultStatus status, long sentMicros, long latencyMicros, int batchSize, double sloMs) {
        return InferenceResult.newBuilder().setRequestId(model + "-" + sentMicros).setTenant("t").setModel(model).setStatus(status)
                .setBatchSize(batchSize).setSloMs(sloMs).setTimings(StageTimes.newBuilder().setSent(sentMicros).setDeadline(sentMicros + 50_000)
                        .setEmitted(sentMicros + latencyMicros).build()).build();
    }

    static BatchTelemetry batch(int device, int size, long execStart, long execEnd, boolean coldStart, Preemption preemption) {
        return BatchTelemetry.newBuilder().setBatchId("b" + device + "-" + execStart).setGroup("default").setModel("mlp").setDevice(device)
                .setBatchSize(size).setDispatchedAtMicros(execStart).setPredictedStartMicros(execStart).setPredictedLatencyMicros(execEnd - execStart)
                .setExecStartMicros(execStart).setExecEndMicros(execEnd).setColdStart(coldStart).setOk(size).setLate(0).setFailed(0)
                .setPreemption(preemption).build();
    }
}
