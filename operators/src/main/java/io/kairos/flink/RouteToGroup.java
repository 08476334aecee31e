package io.kairos.flink;

import io.kairos.schema.ControlDecision;
import io.kairos.schema.internal.AdmittedRequest;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;

/** Tags each request with the serving group of its model, as the current plan says. */
public final class RouteToGroup extends BroadcastProcessFunction<AdmittedRequest, ControlDecision, AdmittedRequest> {
    private final ControlPlane control;

    public RouteToGroup(ControlPlane control) {
        this.control = control;
    }

    @Override
    public void processElement(AdmittedRequest request, ReadOnlyContext ctx, Collector<AdmittedRequest> out) throws Exception {
        request.setGroup(control.plan(ctx.getBroadcastState(ControlPlane.DECISIONS)).groupOf(request.getRequest().getModel()));
        out.collect(request);
    }

    @Override
    public void processBroadcastElement(ControlDecision decision, Context ctx, Collector<AdmittedRequest> out) throws Exception {
        control.apply(ctx.getBroadcastState(ControlPlane.DECISIONS), decision);
    }
}
