package io.kairos.tools.demo;

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
public final class HandoverDelays {
    private record Batch(int device, String model, int size, long dispatched, long start, long end) {}

    private final Map<String, Batch> batches = new HashMap<>();

    public void add(InferenceResult r) {
        var t = r.getTimings();
        if (t.getDispatched() == null || t.getExecStart() == null || t.getExecEnd() == null || r.getDevice() == null) return;
        handOvers = null;
        batches.putIfAbsent(key(r.getDevice(), t.getExecStart()), new Batch(r.getDevice(), r.getModel(), r.getBatchSize(), t.getDispatched(), t.getExecStart(), t.getExecEnd()));
    }

    /**
     * One sample per batch: its start minus the later of its dispatch and the end of the batch
     * before it on the same device (a batch that queued behind another waited for the device,
     * not for the hand-over).
     */
    public long[] samplesMicros() {
        return handOverByBatch().values().stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * The shortest {@code keepPercent} of {@link #samplesMicros()}, ascending, at least one where
     * there is one: the longest are stalls of a warm-up itself, not of the run it calibrates.
     */
    public long[] shortestMicros(double keepPercent) {
        long[] sorted = samplesMicros();
        java.util.Arrays.sort(sorted);
        return java.util.Arrays.copyOf(sorted, Math.min(sorted.length, Math.max(1, (int) Math.ceil(sorted.length * keepPercent / 100.0))));
    }

    /** Hand-overs in the order of their batches' dispatch: when each batch was dispatched, and its hand-over. */
    public record Timeline(long[] dispatchedMicros, long[] handOversMicros) {}

    /**
     * Every batch's hand-over in the order it was dispatched, for a simulator that replays them
     * in time (their stalls come together, on every device at once); {@code keepPercent} of them
     * stay, the shortest: the longest are dropped, those {@link #shortestMicros} leaves out.
     */
    public Timeline timeline(double keepPercent) {
        Map<String, Long> byBatch = handOverByBatch();
        List<Batch> ordered = new ArrayList<>(batches.values());
        ordered.sort(Comparator.comparingLong(Batch::dispatched).thenComparingInt(Batch::device));
        long[] shortest = shortestMicros(keepPercent);
        long longestKept = shortest.length == 0 ? 0 : shortest[shortest.length - 1];
        List<long[]> kept = new ArrayList<>();
        for (Batch b : ordered) {
            long h = byBatch.get(key(b.device, b.start));
            if (h <= longestKept) kept.add(new long[] {b.dispatched, h});
        }
        return new Timeline(kept.stream().mapToLong(x -> x[0]).toArray(), kept.stream().mapToLong(x -> x[1]).toArray());
    }

    /** The hand-over of the batch that started at {@code execStartMicros} on {@code device}, after every result was added; 0 for a batch not added. */
    public long handOverMicros(Integer device, long execStartMicros) {
        if (handOvers == null) handOvers = handOverByBatch();
        return handOvers.getOrDefault(key(device, execStartMicros), 0L);
    }

    private Map<String, Long> handOvers;

    private static String key(Integer device, long execStartMicros) {
        return device + "@" + execStartMicros;
    }

    private Map<String, Long> handOverByBatch() {
        Map<Integer, List<Batch>> byDevice = new HashMap<>();
        for (Batch b : batches.values()) byDevice.computeIfAbsent(b.device, d -> new ArrayList<>()).add(b);
        Map<String, Long> handOvers = new HashMap<>();
        for (List<Batch> list : byDevice.values()) {
            list.sort(Comparator.comparingLong(Batch::start));
            long previousEnd = Long.MIN_VALUE;
            for (Batch b : list) {
                handOvers.put(key(b.device, b.start), Math.max(0, b.start - Math.max(b.dispatched, previousEnd)));
                previousEnd = b.end;
            }
        }
        return handOvers;
    }

    /** One sample per batch: how much longer than its profile (batch size padded as the profile does) it ran. */
    public long[] overrunsMicros(ModelCatalog catalog) {
        return batches.values().stream()
                .filter(b -> catalog.contains(b.model) && b.size > 0)
                .mapToLong(b -> (b.end - b.start) - catalog.get(b.model).latency().latencyMicros(b.size))
                .toArray();
    }
}
