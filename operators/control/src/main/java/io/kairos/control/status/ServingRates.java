package io.kairos.control.status;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.result.ResultStatus;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.metrics.ResultRecords;

import java.util.ArrayList;
import java.util.List;

/**
 * SLO attainment, goodput, latency and batch sizes per model, from the results as they arrive:
 * over the last few seconds and since the reader started. Every figure is {@link ResultSummary}'s,
 * the one definition the demo, {@code collect} and the benchmarks print.
 *
 * <p>Results are counted in the second they were received in (on the reader's clock, so that a
 * job whose clock is off does not empty the window); the recent window is the current second and
 * the {@code windowSeconds - 1} before it, and its rates are per second of that span, not counting
 * time before the reader started.
 */
public final class ServingRates {
    /**
     * One model's figures over a window, or every model's ({@link ResultSummary#ALL}); a figure
     * that is undefined (no result, no served request) is null.
     */
    public record ModelRates(String model, long total, long ok, long late, long dropped, long rejected, long failed,
                             Double sloAttainment, double goodputPerSecond, double throughputPerSecond, Double meanBatchSize,
                             Double p50Ms, Double p99Ms) {}

    /** The figures of a window: its name, its length in seconds, one row per model, then the row of all. */
    public record Window(String name, double seconds, List<ModelRates> models, ModelRates all) {}

    private final long startMicros;
    private final ResultSummary sinceStart = new ResultSummary();
    private final RecentSeconds<ResultSummary> recent;

    /**
     * @param startMicros   when the reader started reading (results are read from then on)
     * @param windowSeconds length of the recent window, at least 1
     */
    public ServingRates(long startMicros, int windowSeconds) {
        this.startMicros = startMicros;
        this.recent = new RecentSeconds<>(windowSeconds, ResultSummary::new);
    }

    public void add(InferenceResult result, long receivedAtMicros) {
        ResultRecords.addTo(sinceStart, result);
        ResultSummary bucket = recent.at(receivedAtMicros);
        if (bucket != null) ResultRecords.addTo(bucket, result);
    }

    /** The recent window up to {@code nowMicros}. */
    public Window recent(long nowMicros) {
        ResultSummary window = new ResultSummary();
        for (ResultSummary second : recent.upTo(nowMicros)) window.merge(second);
        return window("last " + recent.seconds() + " s", window, recent.spanMicros(nowMicros, startMicros));
    }

    /** Everything since the reader started, up to {@code nowMicros}. */
    public Window sinceStart(long nowMicros) {
        return window("since start", sinceStart, Math.max(0, nowMicros - startMicros));
    }

    private static Window window(String name, ResultSummary summary, long spanMicros) {
        List<ModelRates> models = new ArrayList<>();
        for (String model : summary.models()) models.add(rates(summary.model(model), spanMicros));
        return new Window(name, spanMicros / (double) RecentSeconds.SECOND, List.copyOf(models), rates(summary.overall(), spanMicros));
    }

    private static ModelRates rates(ResultSummary.Stats s, long spanMicros) {
        boolean served = s.served() > 0;
        return new ModelRates(s.name(), s.total(), s.count(ResultStatus.OK), s.count(ResultStatus.LATE), s.count(ResultStatus.DROPPED),
                s.count(ResultStatus.REJECTED), s.count(ResultStatus.FAILED),
                orNull(s.sloAttainment()), s.goodputPerSecond(spanMicros), s.throughputPerSecond(spanMicros), orNull(s.meanBatchSize()),
                served ? s.p50Micros() / 1000.0 : null, served ? s.p99Micros() / 1000.0 : null);
    }

    private static Double orNull(double v) {
        return Double.isNaN(v) ? null : v;
    }
}
