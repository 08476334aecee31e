package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import io.kairos.core.model.LatencyProfile;
import io.kairos.core.scheduling.RequestQueue;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupView;

/**
 * The RL thesis' fixed-size picture of a serving group for one decision on one device, and the
 * action that comes back: what the training environment and the serving policy share, so that a
 * network trained on the simulator sees in the job exactly what it saw in training.
 *
 * <p>The state is {@value #STATE_SIZE} numbers: for each of {@value #SLOTS} model slots the number
 * of pending requests and the laxity of the oldest (most urgent) one in ms, {@code deadline - now -
 * latency of the smallest batch on this device}; then the work booked on the device, in ms. The
 * slots hold the queues with pending requests that this device holds, most urgent first (the
 * order of {@link GroupView#pendingQueues}: the latest start alone, i.e. the requests that expire
 * soonest); the rest are padding: 0 requests, laxity {@value #PAD_LAXITY_MS} ms ("not urgent").
 *
 * <p>The action is two numbers per slot: null (0) or infer (1), and an index into
 * {@link #BATCH_SIZES}. The mask has {@value #MASK_SIZE} flags, {@value #CHOICES} per slot: null,
 * infer, then the five batch sizes. Null is always allowed; infer only on a slot with pending
 * requests; a batch size only up to what is pending (and the model's largest batch). Batch size 1
 * stays allowed on an empty slot, so that every choice has one allowed value (it is moot there:
 * infer is not allowed).
 *
 * <p>Not thread-safe: one per policy object; it keeps the slot map of the last {@link #encode}.
 */
@Internal
public final class StateEncoder {
    public static final int SLOTS = 12;
    public static final int STATE_SIZE = 2 * SLOTS + 1;
    /** The batch sizes an action may choose, by index. */
    public static final int[] BATCH_SIZES = {1, 2, 4, 8, 16};
    /** Mask flags per slot: null, infer, then one per batch size. */
    public static final int CHOICES = 2 + BATCH_SIZES.length;
    public static final int MASK_SIZE = SLOTS * CHOICES;
    /** Action numbers per slot: infer or not, batch-size index. */
    public static final int ACTION_SIZE = 2 * SLOTS;
    public static final float PAD_PENDING = 0;
    public static final float PAD_LAXITY_MS = 1000;

    private final RequestQueue[] slots = new RequestQueue[SLOTS];
    // The group's most urgent queues, read a chunk at a time: no iterator per decision.
    private final RequestQueue[] chunk = new RequestQueue[2 * SLOTS];
    private final int[] largest = new int[SLOTS];
    private int filled;

    /**
     * Writes the state of {@code group} for a decision on {@code device} at {@code nowMicros} into
     * {@code state} ({@value #STATE_SIZE} floats) and remembers which queue is in which slot.
     */
    public void encode(GroupView group, DeviceView device, long nowMicros, float[] state) {
        filled = 0;
        int read = 0;
        int n;
        while (filled < SLOTS && (n = group.pendingQueues(read, chunk)) > 0) {
            read += n;
            for (int c = 0; c < n && filled < SLOTS; c++) {
                RequestQueue q = chunk[c];
                if (!device.holds(q.model())) continue;
                LatencyProfile p = group.profileOn(q, device);
                slots[filled] = q;
                largest[filled] = p.maxBatch();
                state[2 * filled] = q.size();
                state[2 * filled + 1] = (q.headDeadline() - nowMicros - p.latencyAt(0)) / 1000f;
                filled++;
            }
            if (n < chunk.length) break;
        }
        java.util.Arrays.fill(chunk, null); // no queue kept alive by the scratch
        for (int i = filled; i < SLOTS; i++) {
            slots[i] = null;
            state[2 * i] = PAD_PENDING;
            state[2 * i + 1] = PAD_LAXITY_MS;
        }
        state[2 * SLOTS] = device.outstandingMicros(nowMicros) / 1000f;
    }

    /** The slots filled by the last {@link #encode}. */
    public int filled() {
        return filled;
    }

    /** The queue in {@code slot} at the last {@link #encode}; null for padding. */
    public RequestQueue slot(int slot) {
        return slots[slot];
    }

    /** The allowed choices for the last {@link #encode}, {@value #MASK_SIZE} flags (see the class). */
    public void mask(boolean[] mask) {
        for (int i = 0; i < SLOTS; i++) {
            int base = i * CHOICES;
            int pending = slots[i] == null ? 0 : slots[i].size();
            int cap = slots[i] == null ? 0 : Math.min(pending, largest[i]);
            mask[base] = true;
            mask[base + 1] = pending > 0;
            for (int k = 0; k < BATCH_SIZES.length; k++) mask[base + 2 + k] = k == 0 || BATCH_SIZES[k] <= cap;
        }
    }

    /**
     * Why {@code action} is not allowed by the mask of the last {@link #encode}, or null when it is:
     * a decision from outside (a learner over a pipe) is checked before it is carried out.
     */
    public String invalid(int[] action) {
        for (int i = 0; i < SLOTS; i++) {
            int infer = action[2 * i];
            int k = action[2 * i + 1];
            if (infer != 0 && infer != 1) return "slot " + i + ": infer must be 0 or 1, got " + infer;
            if (k < 0 || k >= BATCH_SIZES.length) return "slot " + i + ": batch-size index must be 0 to " + (BATCH_SIZES.length - 1) + ", got " + k;
            if (infer == 0) continue;
            if (slots[i] == null) return "slot " + i + ": infer on a slot with no pending request";
            int cap = Math.min(slots[i].size(), largest[i]);
            if (BATCH_SIZES[k] > cap) return "slot " + i + ": batch of " + BATCH_SIZES[k] + " but " + cap + " can run (" + slots[i].size() + " pending)";
        }
        return null;
    }

    /**
     * Carries out {@code action} for the last {@link #encode}: each slot set to infer starts a batch
     * of its size on {@code device}, slot by slot (the most urgent first), each after the work
     * booked before it. Returns how many batches started; {@code started} receives each.
     */
    public int apply(GroupView group, DeviceView device, long nowMicros, int[] action, java.util.function.Consumer<io.kairos.core.scheduling.Dispatch> started) {
        int n = 0;
        for (int i = 0; i < filled; i++) {
            if (action[2 * i] != 1) continue;
            RequestQueue q = slots[i];
            int size = Math.min(BATCH_SIZES[action[2 * i + 1]], Math.min(q.size(), largest[i]));
            if (size < 1) continue;
            started.accept(group.dispatch(q, size, device, nowMicros));
            n++;
        }
        return n;
    }
}
