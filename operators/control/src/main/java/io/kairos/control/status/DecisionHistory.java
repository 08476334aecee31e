package io.kairos.control.status;

import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job's last verdicts on control decisions, from the outcomes topic, each beside the decision
 * it answers (from the control topic: what it asked for). Bounded: the last {@code capacity}
 * outcomes, and the decisions and verdicts of the last {@code 10 * capacity} decisions read.
 *
 * <p>The reader decides every decision again with the job's own ledger, to hold the plan the job
 * holds; where the job's verdict and the reader's differ (one applied what the other rejected),
 * the plan shown is not the job's, and {@link #disagreements} says so: the reader's default plan
 * (devices, policy) is not the one the job was started with.
 */
public final class DecisionHistory {
    /** Writer, version and key: what names one decision (a writer's version is counted per key). */
    private record Id(String writer, long version, String key) {}

    /**
     * One decision with the job's verdict.
     *
     * @param action what it asked for ({@link ActionText}); null when the decision is no longer on
     *               the control topic (compacted away) or has not been read yet
     */
    public record Row(long decidedAtMicros, long issuedAtMicros, String writer, long version, String key, String status,
                      String reason, String action) {}

    private final int capacity;
    private final ArrayDeque<DecisionOutcome> outcomes = new ArrayDeque<>();
    private final Map<Id, ControlDecision> decisions;
    private final Map<Id, DecisionOutcome> ownVerdicts;

    public DecisionHistory(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        this.capacity = capacity;
        this.decisions = bounded(10 * capacity);
        this.ownVerdicts = bounded(10 * capacity);
    }

    private static <K, V> Map<K, V> bounded(int entries) {
        return new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > entries;
            }
        };
    }

    /** A decision read from the control topic, with the verdict the reader's own ledger gave it. */
    public void decision(ControlDecision decision, DecisionOutcome ownVerdict) {
        Id id = new Id(ownVerdict.getWriter(), ownVerdict.getVersion(), ownVerdict.getKey());
        decisions.putIfAbsent(id, decision);
        ownVerdicts.putIfAbsent(id, ownVerdict); // the first verdict is the verdict; a read-back is a duplicate
    }

    /** An outcome read from the outcomes topic. */
    public void outcome(DecisionOutcome outcome) {
        outcomes.addLast(outcome);
        if (outcomes.size() > capacity) outcomes.removeFirst();
    }

    /** The last outcomes, newest first. */
    public List<Row> latest() {
        List<Row> rows = new ArrayList<>();
        for (Iterator<DecisionOutcome> it = outcomes.descendingIterator(); it.hasNext(); ) {
            DecisionOutcome o = it.next();
            ControlDecision d = decisions.get(id(o));
            rows.add(new Row(o.getDecidedAtMicros(), o.getIssuedAtMicros(), o.getWriter(), o.getVersion(), o.getKey(), o.getStatus().name(),
                    o.getReason(), d == null ? null : ActionText.of(d.getAction())));
        }
        return rows;
    }

    /**
     * The last outcomes where the job applied what the reader rejected or the other way round, one
     * line each, newest first. A duplicate is no verdict on the content (the job reads back what
     * it restored), so it is never compared.
     */
    public List<String> disagreements() {
        List<String> lines = new ArrayList<>();
        for (Iterator<DecisionOutcome> it = outcomes.descendingIterator(); it.hasNext(); ) {
            DecisionOutcome job = it.next();
            DecisionOutcome own = ownVerdicts.get(id(job));
            if (own == null || job.getStatus() == DecisionStatus.DUPLICATE || own.getStatus() == DecisionStatus.DUPLICATE
                    || own.getStatus() == job.getStatus()) continue;
            lines.add(job.getWriter() + "/" + job.getVersion() + " (" + job.getKey() + "): the job " + verdict(job) + ", this page " + verdict(own));
        }
        return lines;
    }

    private static String verdict(DecisionOutcome o) {
        return o.getStatus() == DecisionStatus.APPLIED ? "applied it" : "rejected it (" + o.getReason() + ")";
    }

    private static Id id(DecisionOutcome o) {
        return new Id(o.getWriter(), o.getVersion(), o.getKey());
    }
}
