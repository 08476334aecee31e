package io.kairos.core.device;

import io.kairos.core.scheduling.Dispatch;

import java.util.Set;

/**
 * The scheduler's picture of one device: which models it holds, when it is predicted to be free,
 * from the latency profile of every batch sent to it, and the last batch booked on it, so that the
 * scheduler knows what runs at a given instant and can preempt it. Predictions, not observations:
 * the scheduler never waits for a device to report back before sending it more work.
 */
public final class DeviceView {
    private final int slot;
    private final Set<String> models;
    private long freeAtMicros;
    // The last batch booked, ending at freeAtMicros; null when none was, or when it was preempted
    // (the view keeps one batch, not the whole timeline, so the one before it is not known).
    private Dispatch lastBooked;

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

    /**
     * Books work of the given latency after the work already there, work that is no batch of the
     * scheduler's (nothing to preempt); returns its predicted start.
     */
    public long book(long nowMicros, long latencyMicros) {
        long start = startAtMicros(nowMicros);
        freeAtMicros = start + latencyMicros;
        lastBooked = null;
        return start;
    }

    /**
     * Replaces the prediction with what the device itself reports: a batch ended earlier or later
     * than its profile said (noise, a model load), which shifts everything booked behind it.
     */
    public void observeFreeAt(long freeAtMicros) {
        this.freeAtMicros = freeAtMicros;
    }

    /** Books a batch whose predicted start, computed with {@link #startAtMicros}, is not before the work already there. */
    public void book(Dispatch batch) {
        if (batch.device() != slot) throw new IllegalArgumentException(batch.model() + " batch for device " + batch.device() + " booked on device " + slot);
        if (batch.predictedStartMicros() < freeAtMicros) {
            throw new IllegalArgumentException(batch.model() + " batch predicted to start at " + batch.predictedStartMicros()
                    + " on device " + slot + ", which is busy until " + freeAtMicros);
        }
        freeAtMicros = batch.predictedEndMicros();
        lastBooked = batch;
    }

    /** The last batch booked on this device, or null. It may have ended already. */
    public Dispatch lastBooked() {
        return lastBooked;
    }

    /**
     * The batch that {@link #unbookLast} would take off the device at {@code now}: the last one
     * booked, if it is predicted to be running at {@code now} or not to have started yet; else null.
     */
    public Dispatch preemptibleAt(long nowMicros) {
        return lastBooked != null && lastBooked.predictedEndMicros() > nowMicros ? lastBooked : null;
    }

    /**
     * Takes the {@link #preemptibleAt preemptible} batch off the device: the device is then free
     * from {@code now} if the batch was running, or from the batch's predicted start if it had not
     * started (the work before it stays). Returns the batch.
     */
    public Dispatch unbookLast(long nowMicros) {
        Dispatch batch = preemptibleAt(nowMicros);
        if (batch == null) throw new IllegalStateException("device " + slot + " runs no batch that can be preempted at " + nowMicros);
        freeAtMicros = Math.max(nowMicros, batch.predictedStartMicros());
        lastBooked = null;
        return batch;
    }

    /** Carries a prediction over from the view this one replaces (placement changed, device stayed). */
    public void inheritFreeAt(DeviceView previous) {
        if (previous.freeAtMicros >= freeAtMicros) {
            freeAtMicros = previous.freeAtMicros;
            lastBooked = previous.lastBooked;
        }
    }

    @Override
    public String toString() {
        return "device " + slot + (models == null ? " (all models)" : " " + models) + " free at " + freeAtMicros;
    }
}
