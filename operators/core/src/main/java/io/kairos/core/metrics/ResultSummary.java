package io.kairos.core.metrics;

import io.kairos.core.api.Internal;
import io.kairos.core.result.ResultStatus;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run achieved, per model and overall, from its terminal results: how many ended in each
 * status, SLO attainment, goodput, throughput, latency percentiles and batch sizes.
 *
 * <p>The one definition of these figures in Kairos: the clients ({@code collect}, the demo), the
 * simulator's report, the fidelity comparison and the benchmarks all count with {@link Stats}, so
 * that a figure means the same wherever it is printed:
 * <ul>
 *   <li>latency = end - start of each result, on one clock: here {@code emitted - sent}, client
 *       send to result emission; the simulator and the fidelity comparison measure from admission
 *       to batch end, the Kafka round trip from send to receipt;</li>
 *   <li>SLO attainment = OK / all results (a dropped or rejected request counts against it, and
 *       so does one with a window SLO done before its window start, EARLY);</li>
 *   <li>the observed span runs from the earliest start to the latest end of the results seen;
 *       goodput = OK per second and throughput = served (OK + LATE + EARLY) per second over that span, or
 *       over a window the caller measured (the simulator's window after its warm-up);</li>
 *   <li>latency percentiles are over the served requests (OK, LATE and EARLY) only: a request shed or
 *       rejected early answers fast, and counting it would flatter the tail;</li>
 *   <li>mean batch size is over the requests that ran on a device (batch size above 0), weighted
 *       per request, i.e. the batch size the average executed request saw;</li>
 *   <li>energy is the model's energy profile {@code zeta(b)} of each batch that ran, shared equally
 *       by its requests (each carries {@code zeta(b) / b}); mean power = energy / time (mJ/ms = W)
 *       over the span or the caller's window; energy per request = energy / requests that ran;
 *       energy efficiency = requests that ran per joule (the SMDP paper's {@code eta = b / zeta(b)}
 *       averaged over the run). Unknown (NaN, an empty CSV field), never 0, as soon as one request
 *       that ran has no energy: a model without an energy profile, or a source that cannot know it.</li>
 * </ul>
 * Not thread-safe: one collector fills it; several are combined with {@link #merge}.
 */
@Internal
public final class ResultSummary {
    /** Name of the row that sums every model. */
    public static final String ALL = "ALL";

    // Looked up once per result (the simulator adds millions a second, over thousands of models);
    // sorted by name only when shown.
    private final Map<String, Stats> byModel = new HashMap<>();
    private final Stats overall = new Stats(ALL);

    /**
     * Adds one terminal result. {@code sentMicros} is 0 for a request whose bytes could not even be
     * decoded: it counts, but has no latency and does not widen the span.
     */
    public void add(String model, ResultStatus status, long sentMicros, long emittedMicros, int batchSize) {
        add(model, status, sentMicros, emittedMicros, batchSize, Double.NaN);
    }

    /**
     * Adds one terminal result whose request's share of its batch's energy is {@code energyMj}
     * ({@code zeta(b) / b}; NaN when unknown, ignored for a request that never ran).
     */
    public void add(String model, ResultStatus status, long sentMicros, long emittedMicros, int batchSize, double energyMj) {
        String name = model == null || model.isEmpty() ? "(unknown)" : model;
        addTo(byModel.computeIfAbsent(name, Stats::new), status, sentMicros, emittedMicros, batchSize, energyMj);
        addTo(overall, status, sentMicros, emittedMicros, batchSize, energyMj);
    }

    /**
     * Adds one terminal result timed on a clock that may start at 0 (the simulator's), so that a
     * start of 0 is a time, not the mark of an undecodable request; energy as in {@link #add}.
     */
    public void addTimed(String model, ResultStatus status, long startMicros, long endMicros, int batchSize, double energyMj) {
        byModel.computeIfAbsent(model, Stats::new).add(status, startMicros, endMicros, batchSize, energyMj);
        overall.add(status, startMicros, endMicros, batchSize, energyMj);
    }

    /**
     * Adds results of one model timed as in {@link #addTimed}, for a caller that adds many of one
     * model at once (the simulator, a batch's requests): it looks the model up once. Call
     * {@link Batch#add} for each result.
     */
    public Batch batchOf(String model) {
        return new Batch(model);
    }

    /**
     * Results of one model, added as {@link #addTimed} adds them; the model's row is made on the
     * first. A caller may keep it for as many results of the model as it likes (the simulator, one
     * per model for a whole run).
     */
    public final class Batch {
        private final String model;
        private Stats stats;

        private Batch(String model) {
            this.model = model;
        }

        public void add(ResultStatus status, long startMicros, long endMicros, int batchSize, double energyMj) {
            if (stats == null) stats = byModel.computeIfAbsent(model, Stats::new);
            stats.add(status, startMicros, endMicros, batchSize, energyMj);
            overall.add(status, startMicros, endMicros, batchSize, energyMj);
        }
    }

    private static void addTo(Stats s, ResultStatus status, long sentMicros, long emittedMicros, int batchSize, double energyMj) {
        if (sentMicros > 0) s.add(status, sentMicros, emittedMicros, batchSize, energyMj);
        else s.addUntimed(status, batchSize, energyMj);
    }

    /** Adds everything {@code other} has seen to this summary; {@code other} is left as it was. */
    public ResultSummary merge(ResultSummary other) {
        for (Stats s : other.byModel.values()) byModel.computeIfAbsent(s.name, Stats::new).merge(s);
        overall.merge(other.overall);
        return this;
    }

    public Stats overall() {
        return overall;
    }

    /** The figures of one model; empty figures for a model that has no result. */
    public Stats model(String name) {
        Stats s = byModel.get(name);
        return s != null ? s : new Stats(name);
    }

    /** Models with at least one result, in name order. */
    public List<String> models() {
        return List.copyOf(new TreeMap<>(byModel).keySet());
    }

    /** Per-model rows then the overall row, fixed width, for a terminal. */
    public String table() {
        int nameWidth = ALL.length();
        for (String m : byModel.keySet()) nameWidth = Math.max(nameWidth, m.length());
        String nameCol = "%-" + nameWidth + "s";
        String header = String.format(Locale.ROOT, nameCol + " %9s %9s %7s %7s %8s %6s %6s %7s %10s %10s %8s %8s %8s %6s",
                "model", "total", "ok", "late", "dropped", "rejected", "failed", "early",
                "attain%", "goodput/s", "thruput/s", "p50 ms", "p99 ms", "p99.9 ms", "batch");
        StringBuilder t = new StringBuilder(header).append(System.lineSeparator());
        List<Stats> rows = new ArrayList<>(new TreeMap<>(byModel).values());
        rows.add(overall);
        for (Stats s : rows) {
            if (s == overall && byModel.size() > 1) t.append("-".repeat(header.length())).append(System.lineSeparator());
            if (s == overall && byModel.size() <= 1) continue; // the one model's row already says it all
            t.append(String.format(Locale.ROOT, nameCol + " %9d %9d %7d %7d %8d %6d %6d %7s %10.1f %10.1f %8s %8s %8s %6s%n",
                    s.name, s.total(), s.count(ResultStatus.OK), s.count(ResultStatus.LATE), s.count(ResultStatus.DROPPED),
                    s.count(ResultStatus.REJECTED), s.count(ResultStatus.FAILED), s.count(ResultStatus.EARLY),
                    s.total() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", 100 * s.sloAttainment()),
                    s.goodputPerSecond(), s.throughputPerSecond(),
                    ms(s, s.p50Micros()), ms(s, s.p99Micros()), ms(s, s.p999Micros()),
                    Double.isNaN(s.meanBatchSize()) ? "-" : String.format(Locale.ROOT, "%.2f", s.meanBatchSize())));
        }
        if (byModel.isEmpty()) t.append("(no results)").append(System.lineSeparator());
        return t.toString();
    }

    private static String ms(Stats s, long micros) {
        return s.served() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    public static String csvHeader() {
        return "model,total,ok,late,dropped,rejected,failed,early,slo_attainment,goodput_per_s,throughput_per_s,"
                + "p50_ms,p99_ms,p999_ms,mean_latency_ms,max_latency_ms,mean_batch_size,span_s,"
                + "energy_mj,mean_power_w,energy_per_request_mj,requests_per_j";
    }

    /** One CSV row per model, then the overall row named {@value #ALL}; no header. Empty fields where a figure is undefined. */
    public List<String> csvRows() {
        List<String> rows = new ArrayList<>();
        for (Stats s : new TreeMap<>(byModel).values()) rows.add(s.csvRow());
        rows.add(overall.csvRow());
        return Collections.unmodifiableList(rows);
    }

    @Override
    public String toString() {
        return table();
    }

    /** The figures of one model, or of all models together. */
    public static final class Stats {
        private static final ResultStatus[] STATUSES = ResultStatus.values();
        private static final int FLUSH_AT = 4096;

        private final String name;
        private final long[] counts = new long[STATUSES.length];
        // Auto-resizing with 3 significant digits: latencies are reported to 0.1 %, from 1 us up.
        // Made on the first flush of the latencies below: null until then.
        private Histogram latency;
        // Latencies not yet in the histogram, recorded into it in bulk when a figure is asked for
        // or FLUSH_AT of them wait: a histogram per model reaching 100 ms takes 64 kB, so that with
        // thousands of models (the simulator's Azure workload: 4,026) one recorded on every result
        // cost a cache miss per result and hundreds of megabytes per run. The histogram's figures
        // depend only on the values recorded, not on when.
        private long[] unrecorded;
        private int unrecordedCount;
        private long latencyCount;
        private long latencySumMicros;
        private long executed;
        private long executedBatchSizeSum;
        private double energyMj;
        private long executedEnergyUnknown;
        private long firstSentMicros = Long.MAX_VALUE;
        private long lastEmittedMicros = Long.MIN_VALUE;

        public Stats(String name) {
            this.name = name;
        }

        /**
         * Adds one terminal result that started (was sent, or admitted) at {@code startMicros} and
         * ended at {@code endMicros}, both on one clock of any origin; {@code batchSize} 0 when it
         * never ran on a device. Its latency counts if it was served (OK, LATE or EARLY).
         */
        public void add(ResultStatus status, long startMicros, long endMicros, int batchSize) {
            add(status, startMicros, endMicros, batchSize, Double.NaN);
        }

        /**
         * As {@link #add(ResultStatus, long, long, int)}, for a request that carries
         * {@code energyMj} of its batch's energy (NaN: unknown; ignored if it never ran).
         */
        public void add(ResultStatus status, long startMicros, long endMicros, int batchSize, double energyMj) {
            addUntimed(status, batchSize, energyMj);
            firstSentMicros = Math.min(firstSentMicros, startMicros);
            lastEmittedMicros = Math.max(lastEmittedMicros, endMicros);
            if (status == ResultStatus.OK || status == ResultStatus.LATE || status == ResultStatus.EARLY) {
                // Producer and job may run on hosts whose clocks differ by more than the latency;
                // a negative difference is clock skew, recorded as zero rather than lost.
                long micros = Math.max(0, endMicros - startMicros);
                if (unrecorded == null || unrecordedCount == unrecorded.length) makeRoom();
                unrecorded[unrecordedCount++] = micros;
                latencyCount++;
                latencySumMicros += micros;
            }
        }

        private void makeRoom() {
            if (unrecorded == null) unrecorded = new long[8];
            else if (unrecorded.length < FLUSH_AT) unrecorded = Arrays.copyOf(unrecorded, unrecorded.length * 2);
            else flush();
        }

        private void flush() {
            if (latency == null) latency = new Histogram(3);
            for (int i = 0; i < unrecordedCount; i++) latency.recordValue(unrecorded[i]);
            unrecordedCount = 0;
        }

        // Every latency recorded so far; only for a figure (a histogram is made if none was).
        private Histogram latencies() {
            flush();
            return latency;
        }

        /** Adds a result with no start time (bytes that could not be decoded): it counts, without latency or span. */
        public void addUntimed(ResultStatus status, int batchSize) {
            addUntimed(status, batchSize, Double.NaN);
        }

        /** Adds a result with no start time, carrying {@code energyMj} of its batch's energy (NaN: unknown). */
        public void addUntimed(ResultStatus status, int batchSize, double shareMj) {
            counts[status.ordinal()]++;
            if (batchSize > 0) {
                executed++;
                executedBatchSizeSum += batchSize;
                if (Double.isNaN(shareMj)) executedEnergyUnknown++;
                else energyMj += shareMj;
            }
        }

        void merge(Stats other) {
            for (int i = 0; i < counts.length; i++) counts[i] += other.counts[i];
            if (other.latencyCount > 0) {
                latencies().add(other.latencies());
                latencyCount += other.latencyCount;
            }
            latencySumMicros += other.latencySumMicros;
            executed += other.executed;
            executedBatchSizeSum += other.executedBatchSizeSum;
            energyMj += other.energyMj;
            executedEnergyUnknown += other.executedEnergyUnknown;
            firstSentMicros = Math.min(firstSentMicros, other.firstSentMicros);
            lastEmittedMicros = Math.max(lastEmittedMicros, other.lastEmittedMicros);
        }

        public String name() {
            return name;
        }

        public long count(ResultStatus status) {
            return counts[status.ordinal()];
        }

        public long total() {
            long total = 0;
            for (long c : counts) total += c;
            return total;
        }

        /** Requests that were answered with an output: OK, LATE and EARLY. */
        public long served() {
            return count(ResultStatus.OK) + count(ResultStatus.LATE) + count(ResultStatus.EARLY);
        }

        /** OK / all results, in [0, 1]; NaN with no result. */
        public double sloAttainment() {
            long total = total();
            return total == 0 ? Double.NaN : (double) count(ResultStatus.OK) / total;
        }

        /** Earliest start to latest end; 0 with no timed result. */
        public long spanMicros() {
            return lastEmittedMicros < firstSentMicros ? 0 : lastEmittedMicros - firstSentMicros;
        }

        /** OK results per second over the observed span; 0 when the span is empty. */
        public double goodputPerSecond() {
            return perSecond(count(ResultStatus.OK));
        }

        /** Served (OK + LATE + EARLY) results per second over the observed span; 0 when the span is empty. */
        public double throughputPerSecond() {
            return perSecond(served());
        }

        /** OK results per second over a window of {@code windowMicros}; 0 when it is empty. */
        public double goodputPerSecond(long windowMicros) {
            return perSecond(count(ResultStatus.OK), windowMicros);
        }

        /** Served (OK + LATE + EARLY) results per second over a window of {@code windowMicros}; 0 when it is empty. */
        public double throughputPerSecond(long windowMicros) {
            return perSecond(served(), windowMicros);
        }

        private double perSecond(long n) {
            return perSecond(n, spanMicros());
        }

        private static double perSecond(long n, long windowMicros) {
            return windowMicros <= 0 ? 0 : n * 1_000_000.0 / windowMicros;
        }

        /**
         * End-to-end latency of served requests at a percentile in [0, 100], in microseconds, to
         * HdrHistogram's precision (3 significant digits); 0 with no served request.
         */
        public long latencyMicrosAt(double percentile) {
            return latencyCount == 0 ? 0 : latencies().getValueAtPercentile(percentile);
        }

        public long p50Micros() {
            return latencyMicrosAt(50);
        }

        public long p99Micros() {
            return latencyMicrosAt(99);
        }

        public long p999Micros() {
            return latencyMicrosAt(99.9);
        }

        /** Exact mean of the served requests' latencies; NaN with none. */
        public double meanLatencyMicros() {
            long n = latencyCount;
            return n == 0 ? Double.NaN : (double) latencySumMicros / n;
        }

        public long maxLatencyMicros() {
            return latencyCount == 0 ? 0 : latencies().getMaxValue();
        }

        /** Mean batch size seen by the requests that ran on a device; NaN with none. */
        public double meanBatchSize() {
            return executed == 0 ? Double.NaN : (double) executedBatchSizeSum / executed;
        }

        /** Requests that ran on a device (batch size above 0), whatever their status. */
        public long executed() {
            return executed;
        }

        /**
         * Millijoules of the batches that ran, by the requests' shares; NaN when nothing ran or when
         * a request that ran has no known energy.
         */
        public double energyMillijoules() {
            return executed == 0 || executedEnergyUnknown > 0 ? Double.NaN : energyMj;
        }

        /** Mean power over the observed span, in W (mJ per ms); NaN when the energy is unknown or the span empty. */
        public double meanPowerWatts() {
            return meanPowerWatts(spanMicros());
        }

        /** Mean power over a window of {@code windowMicros}, in W (mJ per ms); NaN when the energy is unknown or the window empty. */
        public double meanPowerWatts(long windowMicros) {
            return windowMicros <= 0 ? Double.NaN : energyMillijoules() / (windowMicros / 1000.0);
        }

        /** Millijoules per request that ran; NaN when unknown. */
        public double energyPerRequestMillijoules() {
            return energyMillijoules() / executed;
        }

        /** Energy efficiency: requests that ran per joule; NaN when unknown. */
        public double requestsPerJoule() {
            return executed / (energyMillijoules() / 1000.0);
        }

        String csvRow() {
            boolean timed = served() > 0;
            return String.join(",",
                    csv(name), Long.toString(total()),
                    Long.toString(count(ResultStatus.OK)), Long.toString(count(ResultStatus.LATE)),
                    Long.toString(count(ResultStatus.DROPPED)), Long.toString(count(ResultStatus.REJECTED)),
                    Long.toString(count(ResultStatus.FAILED)), Long.toString(count(ResultStatus.EARLY)),
                    num(sloAttainment(), "%.6f"), num(goodputPerSecond(), "%.3f"), num(throughputPerSecond(), "%.3f"),
                    timed ? num(p50Micros() / 1000.0, "%.3f") : "",
                    timed ? num(p99Micros() / 1000.0, "%.3f") : "",
                    timed ? num(p999Micros() / 1000.0, "%.3f") : "",
                    num(meanLatencyMicros() / 1000.0, "%.3f"),
                    timed ? num(maxLatencyMicros() / 1000.0, "%.3f") : "",
                    num(meanBatchSize(), "%.3f"),
                    num(spanMicros() / 1e6, "%.6f"),
                    num(energyMillijoules(), "%.6g"), num(meanPowerWatts(), "%.6g"),
                    num(energyPerRequestMillijoules(), "%.6g"), num(requestsPerJoule(), "%.6g"));
        }

        private static String num(double v, String format) {
            return Double.isFinite(v) ? String.format(Locale.ROOT, format, v) : "";
        }

        private static String csv(String s) {
            if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) return s;
            return '"' + s.replace("\"", "\"\"") + '"';
        }
    }
}
