package io.kairos.testbed.fidelity;

import io.kairos.core.model.ModelCatalog;
import io.kairos.schema.InferenceResult;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Measures, from a run of the job, how long a batch takes from the scheduler's decision to the
 * start of its execution when its device is free: the hand-over between the scheduler operator
 * and the device's subtask; and how much longer than its profile each batch ran on its device
 * (a simulated device completes on a timer thread, a little after its time). The simulator is
 * calibrated with these samples (taken in the warm-up, not in the run it is compared with).
 */
final class HandoverDelays {
    private record Batch(int device, String model, int size, long dispatched, long start, long end) {}

    private final Map<String, Batch> batches = new HashMap<>();

    void add(InferenceResult r) {
        var t = r.getTimings();
        if (t.getDispatched() == null || t.getExecStart() == null || t.getExecEnd() == null || r.getDevice() == null) return;
        batches.putIfAbsent(r.getDevice() + "@" + t.getExecStart(), new Batch(r.getDevice(), r.getModel(), r.getBatchSize(), t.getDispatched(), t.getExecStart(), t.getExecEnd()));
    }

    /**
     * One sample per batch: its start minus the later of its dispatch and the end of the batch
     * before it on the same device (a batch that queued behind another waited for the device,
     * not for the hand-over).
     */
    long[] samplesMicros() {
        Map<Integer, List<Batch>> byDevice = new HashMap<>();
        for (Batch b : batches.values()) byDevice.computeIfAbsent(b.device, d -> new ArrayList<>()).add(b);
        List<Long> samples = new ArrayList<>();
        for (List<Batch> list : byDevice.values()) {
            list.sort(Comparator.comparingLong(Batch::start));
            long previousEnd = Long.MIN_VALUE;
            for (Batch b : list) {
                samples.add(Math.max(0, b.start - Math.max(b.dispatched, previousEnd)));
                previousEnd = b.end;
            }
        }
        return samples.stream().mapToLong(Long::longValue).toArray();
    }

    /** One sample per batch: how much longer than its profile (batch size padded as the profile does) it ran. */
    long[] overrunsMicros(ModelCatalog catalog) {
        return batches.values().stream()
                .filter(b -> catalog.contains(b.model) && b.size > 0)
                .mapToLong(b -> (b.end - b.start) - catalog.get(b.model).latency().latencyMicros(b.size))
                .toArray();
    }
}
