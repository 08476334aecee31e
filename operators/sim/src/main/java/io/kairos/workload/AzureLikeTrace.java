package io.kairos.workload;

import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.PoissonSampler;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates a trace with the character of the Azure Functions trace, for when the real one is not
 * at hand: the same {@link AzureTrace} (per-minute counts per function), seeded.
 *
 * <ul>
 *   <li><b>Heavy-tailed rates.</b> Each function's mean rate is lognormal with
 *       {@code sigma = rateSigma}. The default 3.5 gives the shares Shahrad et al. report for the
 *       real trace: the top 18.6 % of functions make about 99.6 % of the invocations. Then the
 *       top 1 % make most of them (75 to 90 % depending on the seed), the median function's rate
 *       is six orders of magnitude below the busiest one's, and at 0.2 requests per second per
 *       function on average (9,500/s over 46,000), 35 to 50 % of the functions are invoked less
 *       than once an hour and about 80 to 85 % less than once a minute (the paper: 45 % and 81 %
 *       of apps). The busiest function alone may make 10 % of the invocations or more; a smaller
 *       {@code rateSigma} tames it.</li>
 *   <li><b>A daily cycle</b> common to all functions: the rate times
 *       {@code 1 + dailyAmplitude * cos(2 pi (minute - peakMinute) / 1440)}. The default amplitude
 *       1/3 makes the peak twice the trough; the default peak is minute 840 (14:00).</li>
 *   <li><b>Bursts.</b> Each function is in a burst a share {@code burstFraction} of its minutes,
 *       in runs of {@code burstMinutes} on average (a two-state Markov chain over minutes), at
 *       {@code burstFactor} times its rate. Defaults: 1 % of the minutes, 3-minute runs, 5 times.</li>
 * </ul>
 *
 * Each minute's count is Poisson with the function's rate at that minute. The rates are scaled so
 * that the expected invocations over all minutes are exactly {@code totalRatePerSecond} per
 * second; the generated total then differs from it only by Poisson noise (a few in ten thousand
 * at millions of invocations).
 *
 * <p>Owner, app and function ids are random hex strings (shorter than the real SHA-256 hashes);
 * functions come in apps and apps in owners of one to a few each, and triggers are drawn with
 * roughly the trace's shares (http about half, then timer and queue).
 */
public record AzureLikeTrace(int functions, double totalRatePerSecond, int minutes, double rateSigma,
                             double dailyAmplitude, int peakMinute,
                             double burstFraction, double burstMinutes, double burstFactor) {

    public static final double DEFAULT_RATE_SIGMA = 3.5;
    public static final double DEFAULT_DAILY_AMPLITUDE = 1.0 / 3;
    public static final int DEFAULT_PEAK_MINUTE = 840;
    public static final double DEFAULT_BURST_FRACTION = 0.01;
    public static final double DEFAULT_BURST_MINUTES = 3;
    public static final double DEFAULT_BURST_FACTOR = 5;

    private static final String[] TRIGGERS = {"http", "timer", "queue", "orchestration", "event", "storage", "others"};
    private static final double[] TRIGGER_SHARES = {0.55, 0.16, 0.15, 0.07, 0.02, 0.02, 0.03};

    public AzureLikeTrace {
        if (functions < 1) throw new IllegalArgumentException("functions must be at least 1, got " + functions);
        ArrivalProcess.checkRate(totalRatePerSecond);
        if (minutes < 1) throw new IllegalArgumentException("minutes must be at least 1, got " + minutes);
        if (!(rateSigma >= 0) || Double.isInfinite(rateSigma)) throw new IllegalArgumentException("rate sigma must be a finite number >= 0, got " + rateSigma);
        if (!(dailyAmplitude >= 0 && dailyAmplitude < 1)) throw new IllegalArgumentException("daily amplitude must be in [0, 1), got " + dailyAmplitude);
        if (!(burstFraction >= 0 && burstFraction < 1)) throw new IllegalArgumentException("burst fraction must be in [0, 1), got " + burstFraction);
        if (!(burstMinutes >= 1) || Double.isInfinite(burstMinutes)) throw new IllegalArgumentException("mean burst length must be at least 1 minute, got " + burstMinutes);
        if (!(burstFactor >= 1) || Double.isInfinite(burstFactor)) throw new IllegalArgumentException("burst factor must be at least 1, got " + burstFactor);
        // The chance to start a burst in a minute is burstFraction / (burstMinutes * (1 - burstFraction)).
        if (burstFraction / (burstMinutes * (1 - burstFraction)) > 1) {
            throw new IllegalArgumentException("bursts of " + burstMinutes + " minutes on average cannot fill " + burstFraction + " of the time");
        }
    }

    /** The default character (see the class comment) with this many functions, total rate and minutes; a day is 1440. */
    public static AzureLikeTrace of(int functions, double totalRatePerSecond, int minutes) {
        return new AzureLikeTrace(functions, totalRatePerSecond, minutes, DEFAULT_RATE_SIGMA,
                DEFAULT_DAILY_AMPLITUDE, DEFAULT_PEAK_MINUTE, DEFAULT_BURST_FRACTION, DEFAULT_BURST_MINUTES, DEFAULT_BURST_FACTOR);
    }

    public AzureLikeTrace withRateSigma(double sigma) {
        return new AzureLikeTrace(functions, totalRatePerSecond, minutes, sigma, dailyAmplitude, peakMinute, burstFraction, burstMinutes, burstFactor);
    }

    /** A daily cycle with this amplitude (0: none) peaking at this minute of the day. */
    public AzureLikeTrace withDailyCycle(double amplitude, int peakMinute) {
        return new AzureLikeTrace(functions, totalRatePerSecond, minutes, rateSigma, amplitude, peakMinute, burstFraction, burstMinutes, burstFactor);
    }

    /** Bursts over this share of the minutes (0: none), lasting this many minutes on average, at this factor. */
    public AzureLikeTrace withBursts(double fraction, double meanMinutes, double factor) {
        return new AzureLikeTrace(functions, totalRatePerSecond, minutes, rateSigma, dailyAmplitude, peakMinute, fraction, meanMinutes, factor);
    }

    /** The daily cycle's factor for a minute of the trace (minute 0 is 00:00). */
    public double dailyFactor(int minute) {
        return 1 + dailyAmplitude * Math.cos(2 * Math.PI * (minute - peakMinute) / AzureTrace.MINUTES_PER_DAY);
    }

    /**
     * The trace of this seed. Two passes: the first draws each function's relative rate and burst
     * minutes and sums the expected invocations they make; the second scales the rates to the
     * target and draws the counts. Each function draws from its own random source, split off the
     * seed's in function order.
     */
    public AzureTrace generate(long seed) {
        SplittableRandom root = new SplittableRandom(seed);
        List<AzureTrace.Function> ids = ids(root.split());
        double[] daily = new double[minutes];
        for (int m = 0; m < minutes; m++) daily[m] = dailyFactor(m);
        double startBurst = burstFraction / (burstMinutes * (1 - burstFraction));
        double endBurst = 1 / burstMinutes;

        SplittableRandom[] randoms = new SplittableRandom[functions];
        double[] relativeRate = new double[functions];
        int[][] counts = new int[functions][minutes];
        double expected = 0; // invocations per minute at relative rate 1, summed
        for (int f = 0; f < functions; f++) {
            SplittableRandom random = root.split();
            randoms[f] = random;
            relativeRate[f] = Math.exp(rateSigma * random.nextGaussian());
            // Burst minutes marked 1 in the row, to be overwritten by the counts.
            int[] row = counts[f];
            boolean burst = random.nextDouble() < burstFraction;
            double weight = 0;
            for (int m = 0; m < minutes; m++) {
                if (m > 0) burst = random.nextDouble() < (burst ? 1 - endBurst : startBurst);
                row[m] = burst ? 1 : 0;
                weight += daily[m] * (burst ? burstFactor : 1);
            }
            expected += relativeRate[f] * weight;
        }
        double perMinuteScale = totalRatePerSecond * 60 * minutes / expected;
        for (int f = 0; f < functions; f++) {
            UniformRandomProvider uniform = RandomSources.uniform(randoms[f]);
            double base = perMinuteScale * relativeRate[f];
            int[] row = counts[f];
            for (int m = 0; m < minutes; m++) {
                double mean = base * daily[m] * (row[m] == 1 ? burstFactor : 1);
                row[m] = mean > 0 ? PoissonSampler.of(uniform, mean).sample() : 0;
            }
        }
        return new AzureTrace(ids, counts, minutes);
    }

    /** Ids: a new app with probability 1/2 per function, a new owner with probability 1/2 per app. */
    private List<AzureTrace.Function> ids(SplittableRandom random) {
        List<AzureTrace.Function> ids = new ArrayList<>(functions);
        String owner = null;
        String app = null;
        for (int f = 0; f < functions; f++) {
            if (app == null || random.nextBoolean()) {
                if (owner == null || random.nextBoolean()) owner = hex(random);
                app = hex(random);
            }
            ids.add(new AzureTrace.Function(owner, app, hex(random), trigger(random.nextDouble())));
        }
        return ids;
    }

    private static String trigger(double u) {
        for (int i = 0; i < TRIGGERS.length - 1; i++) {
            u -= TRIGGER_SHARES[i];
            if (u < 0) return TRIGGERS[i];
        }
        return TRIGGERS[TRIGGERS.length - 1];
    }

    private static String hex(SplittableRandom random) {
        String h = Long.toHexString(random.nextLong());
        return "0".repeat(16 - h.length()) + h;
    }
}
