package io.kairos.core.scheduling;

import io.kairos.core.api.Internal;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A stationary batching policy: for each number of requests in the system, wait (0) or serve a
 * batch of that size, in states {@code 0..s_max} and the overflow state {@code S_o} of the
 * truncated model. What a batching policy in the scheduler reads: when the device is free with
 * {@code n} requests queued, serve {@link #batchSize}{@code (n)} of them, or wait for the next
 * arrival when it is 0.
 *
 * <p>Past {@code s_max} the scheduler serves what the table serves at {@code s_max}, not what it
 * does in {@code S_o}: the overflow state's action answers the abstract cost {@code c_o} (with
 * {@code c_o = 100} it serves small batches to leave {@code S_o} soonest), an artefact of the
 * truncation, while at {@code s_max} the table has long settled on its largest batch.
 *
 * <p>The SMDP solver ({@code io.kairos.control.smdp}) makes them, a control decision
 * ({@code SetBatchingTable}) carries them to a serving group, and the {@code smdp} policy
 * ({@link io.kairos.core.scheduling.policy.SmdpPolicy}) serves from them. Immutable.
 */
@Internal
public final class BatchingTable implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int[] actions;

    /** @param actions the action in states {@code 0..s_max}, then the one in {@code S_o} */
    public BatchingTable(int[] actions) {
        if (actions.length < 2) throw new IllegalArgumentException("a table needs states 0..s_max and the overflow state");
        int sMax = actions.length - 2;
        for (int s = 0; s < actions.length; s++) {
            int n = Math.min(s, sMax);
            if (actions[s] < 0 || actions[s] > n) throw new IllegalArgumentException("state " + s + ": batch of " + actions[s] + " with " + n + " requests in the system");
        }
        this.actions = actions.clone();
    }

    /** Serve {@code min(s, B_max)} as soon as anything waits: the paper's work-conserving baseline. */
    public static BatchingTable workConserving(int maxBatch, int sMax) {
        int[] a = new int[sMax + 2];
        for (int s = 0; s < a.length; s++) a[s] = Math.min(Math.min(s, sMax), maxBatch);
        return new BatchingTable(a);
    }

    /** Always a batch of exactly {@code b}, waiting until there are {@code b}: the static baseline ({@code b = B_max}: maximum batching). */
    public static BatchingTable staticBatch(int b, int sMax) {
        if (b < 1 || b > sMax) throw new IllegalArgumentException("static batch size must be in 1..s_max, got " + b);
        int[] a = new int[sMax + 2];
        for (int s = 0; s < a.length; s++) a[s] = Math.min(s, sMax) >= b ? b : 0;
        return new BatchingTable(a);
    }

    public int sMax() {
        return actions.length - 2;
    }

    /** The action in state {@code state} of the truncated model ({@code s_max + 1} is {@code S_o}). */
    public int action(int state) {
        return actions[state];
    }

    /** The batch to serve with {@code requests} in the system and the device free; 0: wait. */
    public int batchSize(long requests) {
        if (requests < 0) throw new IllegalArgumentException("requests must not be negative, got " + requests);
        return actions[(int) Math.min(requests, sMax())];
    }

    /** The fewest requests at which the table serves; -1 if it never does up to {@code s_max}. */
    public int controlLimit() {
        for (int s = 0; s <= sMax(); s++) {
            if (actions[s] > 0) return s;
        }
        return -1;
    }

    /**
     * Whether the table has the control-limit form the paper observes: wait below the limit, serve
     * at and above it, over states {@code 0..s_max} ({@code S_o} aside, see above).
     */
    public boolean isControlLimit() {
        int limit = controlLimit();
        if (limit < 0) return false;
        for (int s = limit; s <= sMax(); s++) {
            if (actions[s] == 0) return false;
        }
        return true;
    }

    /**
     * A control limit whose batch sizes never fall as the queue grows, up to {@code state}. The
     * paper observes it; it is not a theorem: at low load the optimum can serve less from a long
     * queue that the chain all but never reaches (at rho 0.1, w = (1, 1): 10 requests in 10, 8 in 11).
     */
    public boolean isMonotoneUpTo(int state) {
        if (!isControlLimit()) return false;
        for (int s = controlLimit() + 1; s <= Math.min(state, sMax()); s++) {
            if (actions[s] < actions[s - 1]) return false;
        }
        return true;
    }

    /** A copy of the actions, states {@code 0..s_max} then {@code S_o}. */
    public int[] actions() {
        return actions.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchingTable t && Arrays.equals(actions, t.actions);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(actions);
    }

    /** Runs of equal actions, e.g. {@code 0-4:wait 5:5 6:6 7-70:7 S_o:7}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        int start = 0;
        int sMax = sMax();
        for (int i = 1; i <= sMax + 1; i++) {
            if (i == sMax + 1 || actions[i] != actions[start]) {
                if (s.length() > 0) s.append(' ');
                s.append(start).append(i - 1 > start ? "-" + (i - 1) : "").append(':').append(actions[start] == 0 ? "wait" : actions[start]);
                start = i;
            }
        }
        return s.append(" S_o:").append(actions[sMax + 1] == 0 ? "wait" : actions[sMax + 1]).toString();
    }
}
