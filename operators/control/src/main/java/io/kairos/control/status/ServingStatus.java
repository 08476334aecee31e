package io.kairos.control.status;

import io.kairos.core.plan.ServingPlan;
import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.InferenceResult;
import io.kairos.wire.plan.DecisionLedger;

import java.util.ArrayList;
import java.util.List;

/**
 * The status of a serving job as a reader of its topics sees it, kept up to date record by record:
 * the control topic's decisions decided by a {@link DecisionLedger} on the job's default plan, as
 * a job started now decides them (so the plan is the job's); the job's own verdicts from the
 * outcomes topic; the results and the batch telemetry. One thread feeds it, others take
 * {@link #snapshot}s: every method is synchronized.
 */
public final class ServingStatus {
    /** The topics read, for the page to name. */
    public record Topics(String control, String outcomes, String results, String telemetry) {}

    private final Topics topics;
    private final long startMicros;
    private final DecisionLedger ledger;
    private final DecisionHistory history;
    private final ServingRates rates;
    private final ServingHistory series;
    private final DeviceLoads devices;
    private final ModelActions modelActions;
    private final long[] read = new long[4];
    private final long[] skipped = new long[4];
    private final long[] lastReadMicros = new long[4];
    private String readerProblem;

    private static final int CONTROL = 0;
    private static final int OUTCOMES = 1;
    private static final int RESULTS = 2;
    private static final int TELEMETRY = 3;

    /**
     * @param plan          the job's plan before any decision: its devices, default policy and
     *                      parameters, as the job was started with
     * @param startMicros   when reading started (results and telemetry are read from then on)
     * @param windowSeconds the recent window of the rates and device loads
     * @param decisionRows  how many of the last verdicts to keep, and of the last model loads and unloads
     */
    public ServingStatus(Topics topics, ServingPlan plan, long startMicros, int windowSeconds, int decisionRows) {
        this.topics = topics;
        this.startMicros = startMicros;
        this.ledger = new DecisionLedger(plan);
        this.history = new DecisionHistory(decisionRows);
        this.rates = new ServingRates(startMicros, windowSeconds);
        this.series = new ServingHistory(startMicros, ServingHistory.BUCKET_SECONDS, ServingHistory.BUCKETS);
        this.devices = new DeviceLoads(startMicros, windowSeconds);
        this.modelActions = new ModelActions(decisionRows);
    }

    /** A decision from the control topic, in the topic's order, read at {@code nowMicros}. */
    public synchronized void decision(ControlDecision decision, long nowMicros) {
        read(CONTROL, nowMicros);
        history.decision(decision, ledger.decide(decision, nowMicros));
    }

    /** A control-topic record that is not a decision: a tombstone, or one that cannot be decoded (the job skips it too). */
    public synchronized void notADecision(long nowMicros) {
        read(CONTROL, nowMicros);
        skipped[CONTROL]++;
    }

    public synchronized void outcome(DecisionOutcome outcome, long nowMicros) {
        read(OUTCOMES, nowMicros);
        history.outcome(outcome);
    }

    public synchronized void result(InferenceResult result, long receivedAtMicros) {
        read(RESULTS, receivedAtMicros);
        rates.add(result, receivedAtMicros);
        series.add(result, receivedAtMicros);
    }

    public synchronized void batch(BatchTelemetry batch, long receivedAtMicros) {
        read(TELEMETRY, receivedAtMicros);
        devices.add(batch, receivedAtMicros);
        modelActions.add(batch);
    }

    /** A record of the outcomes, results or telemetry topic that cannot be decoded. */
    public synchronized void undecodable(String topic, long nowMicros) {
        int i = topic.equals(topics.outcomes()) ? OUTCOMES : topic.equals(topics.results()) ? RESULTS
                : topic.equals(topics.telemetry()) ? TELEMETRY : CONTROL;
        read(i, nowMicros);
        skipped[i]++;
    }

    private void read(int source, long nowMicros) {
        read[source]++;
        lastReadMicros[source] = nowMicros;
    }

    /** Why reading stopped or fails, for the page to say; null once it reads again. */
    public synchronized void readerProblem(String problem) {
        readerProblem = problem;
    }

    public synchronized StatusSnapshot snapshot(long nowMicros) {
        List<String> warnings = new ArrayList<>();
        if (readerProblem != null) warnings.add("reading the topics: " + readerProblem);
        List<String> disagreements = history.disagreements();
        if (!disagreements.isEmpty()) {
            warnings.add("this page decided " + disagreements.size() + " of the last decisions otherwise than the job, so the plan shown is not the job's: "
                    + "start it with the job's --devices, --policy and --policy-param");
            warnings.addAll(disagreements);
        }
        return new StatusSnapshot(nowMicros, startMicros, PlanView.of(ledger), history.latest(), List.copyOf(warnings),
                List.of(rates.recent(nowMicros), rates.sinceStart(nowMicros)), series.upTo(nowMicros),
                devices.windowSeconds(), devices.upTo(nowMicros), modelActions.latest(),
                List.of(source("decisions", topics.control(), CONTROL), source("outcomes", topics.outcomes(), OUTCOMES),
                        source("results", topics.results(), RESULTS), source("telemetry", topics.telemetry(), TELEMETRY)));
    }

    private StatusSnapshot.Source source(String role, String topic, int i) {
        return new StatusSnapshot.Source(role, topic, read[i], skipped[i], read[i] == 0 ? null : lastReadMicros[i]);
    }
}
