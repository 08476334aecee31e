package io.kairos.control.status;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.result.ResultStatus;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.metrics.ResultRecords;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * SLO attainment, goodput and p99 latency per model over the last minutes, bucket by bucket, from
 * the results as they arrive: what the status page draws. Every figure of a bucket is
 * {@link ResultSummary}'s, as in {@link ServingRates}.
 *
 * <p>Buckets are {@code bucketSeconds} long and start at the reader's start (so that none is cut
 * short by it); a result counts in the bucket it was received in, on the reader's clock. Only
 * complete buckets are shown: the one filling now is summed up once it ends, then kept as a few
 * figures per model, so that memory is bounded by {@code buckets} times the models seen in them
 * (the bucket filling now holds its latencies as {@link ResultSummary} does).
 */
public final class ServingHistory {
    /** The page's buckets: 5 s, so that a p99 at tens of requests a second rests on hundreds of latencies. */
    public static final int BUCKET_SECONDS = 5;
    /** 60 buckets of 5 s: the last 5 minutes. */
    public static final int BUCKETS = 60;

    /**
     * The complete buckets of the last {@code buckets * bucketSeconds} seconds, oldest first.
     *
     * @param bucketSeconds the length of a bucket
     * @param buckets       how many buckets the history holds once it has run that long
     * @param endsAtMicros  when each bucket shown ended; a point is drawn at its bucket's end
     * @param models        each model with a result in one of them, in name order
     */
    public record Series(int bucketSeconds, int buckets, List<Long> endsAtMicros, List<ModelSeries> models) {}

    /**
     * One model's figures, one per bucket of {@link Series#endsAtMicros}; null where undefined.
     *
     * @param sloMs           the latency objective of every result of the model in these buckets;
     *                        null when they differ or none carried one
     * @param results         results of the model in the bucket, whatever their status
     * @param sloAttainment   OK of all results, in [0, 1]; null in a bucket without results
     * @param goodputPerSecond OK results per second of the bucket (0 in a bucket without results)
     * @param p99Ms           latency of the served (OK and LATE) results at the 99th percentile;
     *                        null in a bucket without any
     */
    public record ModelSeries(String model, Double sloMs, List<Long> results, List<Double> sloAttainment,
                              List<Double> goodputPerSecond, List<Double> p99Ms) {}

    /** What is kept of one model in a complete bucket. */
    private record Point(long results, long ok, Double p99Ms, double sloMinMs, double sloMaxMs) {}

    private record Bucket(long index, Map<String, Point> models) {}

    private final long startMicros;
    private final long bucketMicros;
    private final int buckets;
    private final ArrayDeque<Bucket> complete = new ArrayDeque<>();
    private long openIndex;
    private ResultSummary open = new ResultSummary();
    // Per model of the open bucket: the least and the greatest slo_ms of its results.
    private Map<String, double[]> openSlo = new HashMap<>();

    /**
     * @param startMicros   when the reader started reading; the first bucket starts then
     * @param bucketSeconds the length of a bucket, at least 1
     * @param buckets       how many complete buckets to keep, at least 1
     */
    public ServingHistory(long startMicros, int bucketSeconds, int buckets) {
        if (bucketSeconds < 1) throw new IllegalArgumentException("a bucket must be at least 1 s, got " + bucketSeconds);
        if (buckets < 1) throw new IllegalArgumentException("at least 1 bucket, got " + buckets);
        this.startMicros = startMicros;
        this.bucketMicros = bucketSeconds * RecentSeconds.SECOND;
        this.buckets = buckets;
    }

    /** A result received at {@code receivedAtMicros}; one received before the bucket filling now (a clock set back) counts in it. */
    public void add(InferenceResult result, long receivedAtMicros) {
        moveTo(Math.max(index(receivedAtMicros), openIndex));
        ResultRecords.addTo(open, result);
        double slo = result.getSloMs();
        if (slo > 0 && Double.isFinite(slo)) {
            double[] range = openSlo.computeIfAbsent(name(result.getModel()), m -> new double[] {slo, slo});
            range[0] = Math.min(range[0], slo);
            range[1] = Math.max(range[1], slo);
        }
    }

    /** The complete buckets up to {@code nowMicros}: the last {@code buckets} of them, fewer while the reader has run less long. */
    public Series upTo(long nowMicros) {
        long now = Math.max(index(nowMicros), openIndex);
        moveTo(now);
        long first = Math.max(0, now - buckets);
        int n = (int) (now - first);
        List<Long> ends = new ArrayList<>(n);
        for (long i = first; i < now; i++) ends.add(startMicros + (i + 1) * bucketMicros);
        Map<Long, Map<String, Point>> byIndex = new HashMap<>();
        TreeSet<String> names = new TreeSet<>();
        for (Bucket b : complete) {
            if (b.index() < first) continue;
            byIndex.put(b.index(), b.models());
            names.addAll(b.models().keySet());
        }
        double seconds = bucketMicros / (double) RecentSeconds.SECOND;
        List<ModelSeries> models = new ArrayList<>(names.size());
        for (String model : names) {
            List<Long> results = new ArrayList<>(n);
            List<Double> attainment = new ArrayList<>(n);
            List<Double> goodput = new ArrayList<>(n);
            List<Double> p99 = new ArrayList<>(n);
            double sloMin = Double.POSITIVE_INFINITY;
            double sloMax = Double.NEGATIVE_INFINITY;
            for (long i = first; i < now; i++) {
                Map<String, Point> bucket = byIndex.get(i);
                Point p = bucket == null ? null : bucket.get(model);
                if (p == null) {
                    results.add(0L);
                    attainment.add(null);
                    goodput.add(0.0);
                    p99.add(null);
                    continue;
                }
                results.add(p.results());
                attainment.add(p.results() == 0 ? null : (double) p.ok() / p.results());
                goodput.add(p.ok() / seconds);
                p99.add(p.p99Ms());
                sloMin = Math.min(sloMin, p.sloMinMs());
                sloMax = Math.max(sloMax, p.sloMaxMs());
            }
            Double slo = sloMin == sloMax ? sloMin : null;
            models.add(new ModelSeries(model, slo, List.copyOf(results), unmodifiable(attainment), List.copyOf(goodput), unmodifiable(p99)));
        }
        return new Series((int) (bucketMicros / RecentSeconds.SECOND), buckets, List.copyOf(ends), List.copyOf(models));
    }

    // List.copyOf refuses nulls.
    private static List<Double> unmodifiable(List<Double> values) {
        return Collections.unmodifiableList(values);
    }

    /** How many complete buckets are kept: never more than {@code buckets}. */
    int kept() {
        return complete.size();
    }

    private long index(long micros) {
        return Math.max(0, Math.floorDiv(micros - startMicros, bucketMicros));
    }

    /** Ends the open bucket if {@code index} is a later one, and forgets the buckets older than the history to come. */
    private void moveTo(long index) {
        if (index > openIndex) {
            if (!open.models().isEmpty()) complete.addLast(new Bucket(openIndex, points()));
            openIndex = index;
            open = new ResultSummary();
            openSlo = new HashMap<>();
        }
        for (Iterator<Bucket> it = complete.iterator(); it.hasNext(); ) {
            if (it.next().index() >= openIndex - buckets) break;
            it.remove();
        }
    }

    private Map<String, Point> points() {
        Map<String, Point> points = new HashMap<>();
        for (String model : open.models()) {
            ResultSummary.Stats s = open.model(model);
            double[] slo = openSlo.get(model);
            points.put(model, new Point(s.total(), s.count(ResultStatus.OK), s.served() == 0 ? null : s.p99Micros() / 1000.0,
                    slo == null ? Double.POSITIVE_INFINITY : slo[0], slo == null ? Double.NEGATIVE_INFINITY : slo[1]));
        }
        return Map.copyOf(points);
    }

    // As ResultSummary names a result's model.
    private static String name(String model) {
        return model == null || model.isEmpty() ? "(unknown)" : model;
    }
}
