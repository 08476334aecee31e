package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** Small builders shared by the policy tests. */
final class SchedulingFixtures {
    private SchedulingFixtures() {}

    /**
     * A: 10 ms at batch size 1 only; B: 1 ms at batch size 1 only.
     * R: Clockwork's ResNet50, tau(b) = 0.8 b + 1.9 ms at 1, 2, 4, 8, 16 (2.7, 3.5, 5.1, 8.3, 14.7 ms).
     * R2: the same profile under another name.
     */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "A", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}},
              {"name": "B", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}},
              {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 4, 8, 16],
               "latency_ms": {"alpha": 0.8, "beta": 1.9}},
              {"name": "R2", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 4, 8, 16],
               "latency_ms": {"alpha": 0.8, "beta": 1.9}}
            ]}""", "policy-test");

    static Request req(String id, String model, long arrival, long deadline) {
        return new Request(id, model, arrival, deadline, null);
    }

    static DeviceView device(int slot, String... models) {
        return new DeviceView(slot, models.length == 0 ? null : Set.of(models));
    }

    static List<String> ids(Dispatch d) {
        return Arrays.stream(d.requests()).map(Request::id).toList();
    }

    static List<String> droppedIds(GroupScheduler.Outcome o) {
        return o.drops().stream().map(drop -> drop.request().id()).toList();
    }
}
