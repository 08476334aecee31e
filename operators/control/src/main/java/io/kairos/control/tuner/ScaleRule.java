package io.kairos.control.tuner;

import java.util.Arrays;
import java.util.Locale;

/**
 * InferLine's tuning rules, Algorithms 3 and 4, as one pure function of the recent envelope, the
 * replicas now and the time of the last change. No clock, no state: the simulator and the tuner
 * job call the same function.
 *
 * <p><b>Algorithm 3, scale up at once.</b> Each window's recent peak rate is compared with the
 * planning trace's rate for that window; of the windows above it, the one furthest above (the
 * largest ratio) gives {@code r_max}, and every stage gets {@code k_m = ceil(r_max · s_m / (mu_m ·
 * rho_m))} replicas if that is more than it has ({@code rho_m} at that window: {@link StageScale}).
 * Algorithm 3 as written assumes the stages hold at least their planned replicas: once Algorithm 4
 * has taken them below (the traffic fell), traffic that comes back to the planned level exceeds
 * no window of the planning trace and would find them short. So a stage also grows at once to
 * what the recent peak needs ({@link #recentNeed}) whenever that is more than it has; at or above
 * the planned level the two are the same.
 *
 * <p><b>Algorithm 4, scale down no sooner than the quiet time (15 s) after the last change</b>,
 * against oscillation: the rate is computed the same way over every window (the largest ratio of
 * recent peak to the planning trace's, whether above 1 or not), and a stage with more replicas than
 * that needs gives the rest back.
 */
public final class ScaleRule {
    private ScaleRule() {}

    /** Which rule changed the replicas, if any. */
    public enum Kind { NONE, UP, DOWN }

    /**
     * The rules' verdict.
     *
     * @param replicas   per stage, the replicas from now on (the same as before when {@code kind} is NONE)
     * @param kind       what changed
     * @param window     the deciding window's index (the largest ratio of peak to sample rate)
     * @param rate       its recent peak rate, {@code r_max} when scaling up
     * @param sampleRate the planning trace's rate at that window
     */
    public record Step(int[] replicas, Kind kind, int window, double rate, double sampleRate) {
        public boolean changed() {
            return kind != Kind.NONE;
        }

        /** One line: what changed and on which window's rate. */
        public String describe(TunerPlan plan) {
            long w = plan.settings().windowsMicros()[window];
            return String.format(Locale.ROOT, "%s: %s s window at %.1f/s against the planning trace's %.1f/s (x%.3f): replicas %s",
                    kind == Kind.UP ? "scale up" : kind == Kind.DOWN ? "scale down" : "hold", w / 1e6 == Math.rint(w / 1e6) ? Long.toString(w / 1_000_000) : Double.toString(w / 1e6),
                    rate, sampleRate, rate / sampleRate, Arrays.toString(replicas));
        }
    }

    /**
     * Applies Algorithm 3, then (when it added nothing) Algorithm 4.
     *
     * @param peaks            the recent peak rate per window ({@link ArrivalEnvelope#peakRates})
     * @param current          each stage's replicas now, in the plan's order
     * @param lastChangeMicros when the replicas last changed (or the tuner started)
     */
    public static Step next(TunerPlan plan, double[] peaks, int[] current, long lastChangeMicros, long nowMicros) {
        if (peaks.length != plan.sampleRates().length) throw new IllegalArgumentException(peaks.length + " peak rates for " + plan.sampleRates().length + " windows");
        if (current.length != plan.stages().size()) throw new IllegalArgumentException(current.length + " replica counts for " + plan.stages().size() + " stages");
        int w = decidingWindow(plan, peaks);
        int[] need = recentNeed(plan, peaks, w);
        int[] next = current.clone();
        boolean up = false;
        for (int s = 0; s < next.length; s++) {
            if (need[s] > current[s]) {
                next[s] = need[s];
                up = true;
            }
        }
        if (up) return new Step(next, Kind.UP, w, peaks[w], plan.sampleRate(w));
        if (nowMicros - lastChangeMicros < plan.settings().scaleDownQuietMicros()) return new Step(current.clone(), Kind.NONE, w, peaks[w], plan.sampleRate(w));
        boolean down = false;
        for (int s = 0; s < next.length; s++) {
            if (need[s] < current[s]) {
                next[s] = need[s];
                down = true;
            }
        }
        return new Step(next, down ? Kind.DOWN : Kind.NONE, w, peaks[w], plan.sampleRate(w));
    }

    /**
     * Algorithm 3's {@code r_max}: the recent peak of the window furthest above the planning
     * trace's rate for it, or 0 when no window is above it.
     */
    public static double rMax(TunerPlan plan, double[] peaks) {
        int w = decidingWindow(plan, peaks);
        return peaks[w] > plan.sampleRate(w) ? peaks[w] : 0;
    }

    /** The window of the largest ratio of recent peak to the planning trace's rate; of equal ratios, the shortest. */
    static int decidingWindow(TunerPlan plan, double[] peaks) {
        int best = 0;
        for (int i = 1; i < peaks.length; i++) {
            if (peaks[i] / plan.sampleRate(i) > peaks[best] / plan.sampleRate(best)) best = i;
        }
        return best;
    }

    /** Each stage's {@code k_m} for the rate of window {@code w}. */
    static int[] recentNeed(TunerPlan plan, double[] peaks, int w) {
        int[] k = new int[plan.stages().size()];
        for (int s = 0; s < k.length; s++) k[s] = plan.stages().get(s).replicasFor(peaks[w], plan.sampleRate(w));
        return k;
    }
}
