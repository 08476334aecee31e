package io.kairos.core.device;

import java.util.Set;

/**
 * The scheduler's picture of one device: which models it holds and when it is predicted to be
 * free, from the latency profile of every batch sent to it. Predictions, not observations: the
 * scheduler never waits for a device to report back before sending it more work.
 */
public final class DeviceView {
    private final int slot;
    private final Set<String> models;
    private long freeAtMicros;

    /** @param models the models it holds, or {@code null} for a device that holds every model */
    public DeviceView(int slot, Set<String> models) {
        this.slot = slot;
        this.models = models == null ? null : Set.copyOf(models);
    }

    public int slot() {
        return slot;
    }

    public boolean holds(String model) {
        return models == null || models.contains(model);
    }

    /** {@code null} when the device holds every model. */
    public Set<String> models() {
        return models;
    }

    public long freeAtMicros() {
        return freeAtMicros;
    }

    /** Work already sent to the device and not yet predicted done at {@code now}. */
    public long outstandingMicros(long nowMicros) {
        return Math.max(0, freeAtMicros - nowMicros);
    }

    /** When a batch sent now would start. */
    public long startAtMicros(long nowMicros) {
        return Math.max(nowMicros, freeAtMicros);
    }

    /** Books a batch of the given latency after the work already there; returns its predicted start. */
    public long book(long nowMicros, long latencyMicros) {
        long start = startAtMicros(nowMicros);
        freeAtMicros = start + latencyMicros;
        return start;
    }

    /**
     * Replaces the prediction with what the device itself reports: a batch ended earlier or later
     * than its profile said (noise, a model load), which shifts everything booked behind it.
     */
    public void observeFreeAt(long freeAtMicros) {
        this.freeAtMicros = freeAtMicros;
    }

    /** Carries a prediction over from the view this one replaces (placement changed, device stayed). */
    public void inheritFreeAt(DeviceView previous) {
        freeAtMicros = Math.max(freeAtMicros, previous.freeAtMicros);
    }

    @Override
    public String toString() {
        return "device " + slot + (models == null ? " (all models)" : " " + models) + " free at " + freeAtMicros;
    }
}
