package io.kairos.testbed.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The highest rate a path sustains, found with few short trials: from a start rate, double while
 * the trial holds (halve while it does not), then bisect between the highest rate held and the
 * lowest that failed until they are within {@code precision} of each other or the trials run out.
 * A trial that holds at the ceiling ends the search there: the limit was not reached.
 *
 * <p>What "holds" means is the trial's to say (see {@link PayloadSweep}); the search only assumes
 * that a path that holds a rate holds every lower one. A trial that fails is run again at the same
 * rate up to {@code retries} times, and the rate holds if any of them holds: on a machine shared
 * with other work a burst of load fails a trial, but no burst makes one hold. The rate reported is what the held trial
 * achieved, which a sender that fell short of its schedule keeps below what was asked.
 *
 * <pre>{@code
 * RateSearch.Result r = new RateSearch(1_000, 1_000_000, 8, 0.1).search(rate -> trialAt(rate));
 * r.sustainedPerSecond();
 * }</pre>
 */
final class RateSearch {

    /** Runs the path at {@code ratePerSecond} and says whether it held. */
    @FunctionalInterface
    interface Trial {
        Outcome run(double ratePerSecond) throws Exception;
    }

    /**
     * One trial: the rate asked for, the rate the sender achieved, whether the path held it, and
     * why not when it did not.
     */
    record Outcome(double askedPerSecond, double achievedPerSecond, boolean held, String why) {
        static Outcome held(double asked, double achieved) {
            return new Outcome(asked, achieved, true, "held");
        }

        static Outcome failed(double asked, double achieved, String why) {
            return new Outcome(asked, achieved, false, why);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.0f/s: %s", askedPerSecond, held ? "held" : why);
        }
    }

    /**
     * What a search found: the highest achieved rate of a held trial (0 when none held), whether
     * that is a limit (a higher rate failed) or only the ceiling, and every trial in order.
     */
    record Result(double sustainedPerSecond, boolean limitFound, List<Outcome> trials) {
        /** The lowest rate that failed, or infinity when none did. */
        double lowestFailedPerSecond() {
            return trials.stream().filter(t -> !t.held()).mapToDouble(Outcome::askedPerSecond).min().orElse(Double.POSITIVE_INFINITY);
        }
    }

    private final double start;
    private final double ceiling;
    private final int maxTrials;
    private final double precision;
    private final int retries;

    /** A search that believes the first verdict at each rate. */
    RateSearch(double start, double ceiling, int maxTrials, double precision) {
        this(start, ceiling, maxTrials, precision, 0);
    }

    /**
     * @param start     the first rate tried
     * @param ceiling   no rate above it is tried
     * @param maxTrials the most trials of one search
     * @param precision the search stops once the lowest failed rate is at most {@code 1 + precision}
     *                  times the highest held one
     * @param retries   how many times a failed trial is run again at the same rate (all count against {@code maxTrials})
     */
    RateSearch(double start, double ceiling, int maxTrials, double precision, int retries) {
        if (!(start > 0) || !(ceiling >= start) || Double.isInfinite(ceiling)) {
            throw new IllegalArgumentException("need 0 < start <= ceiling < infinity, got start " + start + " and ceiling " + ceiling);
        }
        if (maxTrials < 1) throw new IllegalArgumentException("need at least one trial, got " + maxTrials);
        if (!(precision > 0)) throw new IllegalArgumentException("precision must be positive, got " + precision);
        if (retries < 0) throw new IllegalArgumentException("retries must not be negative, got " + retries);
        this.retries = retries;
        this.start = start;
        this.ceiling = ceiling;
        this.maxTrials = maxTrials;
        this.precision = precision;
    }

    /** The most trials one search runs. */
    int maxTrials() {
        return maxTrials;
    }

    Result search(Trial trial) throws Exception {
        List<Outcome> trials = new ArrayList<>();
        double held = 0;         // highest rate asked that held
        double failed = Double.POSITIVE_INFINITY; // lowest rate asked that failed
        double best = 0;         // achieved rate of the highest held trial
        double rate = start;
        while (trials.size() < maxTrials) {
            Outcome o = trial.run(rate);
            trials.add(o);
            for (int again = 0; !o.held() && again < retries && trials.size() < maxTrials; again++) {
                o = trial.run(rate);
                trials.add(o);
            }
            if (o.held()) {
                if (rate > held) {
                    held = rate;
                    best = o.achievedPerSecond();
                }
                if (held >= ceiling) break;
            } else {
                failed = Math.min(failed, rate);
            }
            if (held > 0 && failed <= held * (1 + precision)) break;
            if (held == 0) rate = rate / 2;                          // nothing held yet: halve
            else if (Double.isInfinite(failed)) rate = Math.min(ceiling, rate * 2); // nothing failed yet: double
            else rate = (held + failed) / 2;                          // bracketed: bisect
        }
        return new Result(best, !Double.isInfinite(failed) && held > 0, List.copyOf(trials));
    }
}
