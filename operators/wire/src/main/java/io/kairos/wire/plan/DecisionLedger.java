package io.kairos.wire.plan;

import io.kairos.core.api.Internal;
import io.kairos.core.plan.ServingPlan;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.internal.WriterVersion;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Decides what becomes of each control decision, and keeps the serving plan they make.
 *
 * <p>The contract of the control topic, for any number of writers:
 * <ul>
 *   <li>every decision has a key, its action's type and target ({@link DecisionKey});
 *   <li>versions are counted per writer and key: a decision is a {@code DUPLICATE} (and does
 *       nothing) if its writer already had an equal or higher version decided for its key, so a
 *       replay is a no-op and no writer's counter can shadow another's; a rejected version counts
 *       as decided too, so that a replayed rejection is not reported twice;
 *   <li>anything else is applied to the plan ({@link Decisions}), or {@code REJECTED} with the
 *       reason, leaving the plan as it was.
 * </ul>
 *
 * <p>The plan is the latest applied decision of each key: that is all the state there is to keep
 * (bounded by the number of targets, plus one version per writer and key), and it is what the
 * plan is rebuilt from after a restore ({@link #restore}), never the whole log.
 */
@Internal
public final class DecisionLedger {
    /** A group's policy before its models' overrides, placements, then routing ({@link DecisionKey#rank}); by key within a rank. */
    private static final Comparator<ControlDecision> REBUILD_ORDER =
            Comparator.comparingInt((ControlDecision d) -> DecisionKey.rank(DecisionKey.of(d))).thenComparing(DecisionKey::of);

    private final ServingPlan plan;
    private final Map<String, ControlDecision> current = new HashMap<>();
    private final Map<String, Map<String, Long>> versions = new HashMap<>();

    /** @param plan the plan before any decision (the job's configured default) */
    public DecisionLedger(ServingPlan plan) {
        this.plan = plan;
    }

    /**
     * A ledger with the state that {@link #current()} and {@link #versions()} gave, its plan
     * rebuilt on {@code empty}. A decision that no longer applies (it cannot happen to one that was
     * applied in the same job configuration) is left out and reported to {@code problems}.
     */
    public static DecisionLedger restore(ServingPlan empty, Iterable<ControlDecision> current, Iterable<WriterVersion> versions,
                                         Consumer<String> problems) {
        DecisionLedger ledger = new DecisionLedger(empty);
        for (WriterVersion v : versions) ledger.versions.computeIfAbsent(v.getKey(), k -> new HashMap<>()).merge(v.getWriter(), v.getVersion(), Math::max);
        for (ControlDecision d : rebuild(empty, current, problems)) ledger.current.put(DecisionKey.of(d), d);
        return ledger;
    }

    /**
     * Applies the latest decision of each key to {@code empty}, in the order of
     * {@link DecisionKey#rank}; returns those that applied. One that fails is reported to
     * {@code problems} and left out.
     */
    public static List<ControlDecision> rebuild(ServingPlan empty, Iterable<ControlDecision> latestPerKey, Consumer<String> problems) {
        List<ControlDecision> ordered = new ArrayList<>();
        latestPerKey.forEach(ordered::add);
        ordered.sort(REBUILD_ORDER);
        List<ControlDecision> applied = new ArrayList<>();
        for (ControlDecision d : ordered) {
            try {
                Decisions.apply(empty, d);
                applied.add(d);
            } catch (IllegalArgumentException e) {
                problems.accept("decision " + describe(d) + " no longer applies: " + e.getMessage());
            }
        }
        return applied;
    }

    /** Decides {@code decision}: applies it to the plan, or says why not. */
    public DecisionOutcome decide(ControlDecision decision, long nowMicros) {
        String writer = decision.getIssuedBy();
        String key;
        try {
            key = DecisionKey.of(decision);
        } catch (IllegalArgumentException e) {
            return outcome(decision, decision.getKey() == null ? "" : decision.getKey(), DecisionStatus.REJECTED, e.getMessage(), nowMicros);
        }
        if (writer == null || writer.isEmpty()) {
            return outcome(decision, key, DecisionStatus.REJECTED, "the decision names no writer (issued_by)", nowMicros);
        }
        if (decision.getKey() != null && !decision.getKey().equals(key)) {
            // Compaction would keep it in place of the wrong target's decision, or drop it for another's.
            return outcome(decision, decision.getKey(), DecisionStatus.REJECTED,
                    "written under key '" + decision.getKey() + "', but the key of its action is '" + key + "'", nowMicros);
        }
        Map<String, Long> writers = versions.computeIfAbsent(key, k -> new HashMap<>());
        Long last = writers.get(writer);
        if (last != null && decision.getVersion() <= last) {
            return outcome(decision, key, DecisionStatus.DUPLICATE,
                    "writer '" + writer + "' already had version " + last + " decided for " + key, nowMicros);
        }
        writers.put(writer, decision.getVersion());
        try {
            Decisions.apply(plan, decision);
        } catch (IllegalArgumentException e) {
            return outcome(decision, key, DecisionStatus.REJECTED, e.getMessage(), nowMicros);
        }
        current.put(key, decision);
        forgetDroppedOverrides(decision);
        return outcome(decision, key, DecisionStatus.APPLIED, null, nowMicros);
    }

    /**
     * A group's change of policy drops its models' overrides, which were the old policy's
     * parameters ({@link ServingPlan#setPolicy}): their decisions no longer hold, so they leave the
     * state that a restore replays.
     */
    private void forgetDroppedOverrides(ControlDecision decision) {
        if (!(decision.getAction() instanceof SetPolicy p) || p.getModel() != null) return;
        Map<String, Map<String, String>> overrides = plan.policyOf(p.getGroup()).params().perModel();
        current.values().removeIf(d -> d.getAction() instanceof SetPolicy o && o.getModel() != null
                && o.getGroup().equals(p.getGroup()) && !overrides.containsKey(o.getModel()));
    }

    public ServingPlan plan() {
        return plan;
    }

    /** The decision applied for {@code key}, if any: what the plan holds for that target. */
    public Optional<ControlDecision> applied(String key) {
        return Optional.ofNullable(current.get(key));
    }

    /** The latest applied decision of each key, in the order a rebuild applies them. */
    public List<ControlDecision> current() {
        List<ControlDecision> all = new ArrayList<>(current.values());
        all.sort(REBUILD_ORDER);
        return all;
    }

    /** The highest version decided per writer and key. */
    public List<WriterVersion> versions() {
        List<WriterVersion> all = new ArrayList<>();
        versions.forEach((key, writers) -> writers.forEach((writer, version) ->
                all.add(WriterVersion.newBuilder().setWriter(writer).setKey(key).setVersion(version).build())));
        all.sort(Comparator.comparing(WriterVersion::getKey).thenComparing(WriterVersion::getWriter));
        return all;
    }

    /** "writer/version (key)", for messages. */
    public static String describe(ControlDecision d) {
        String key;
        try {
            key = DecisionKey.of(d);
        } catch (IllegalArgumentException e) {
            key = "no key";
        }
        return d.getIssuedBy() + "/" + d.getVersion() + " (" + key + ")";
    }

    private static DecisionOutcome outcome(ControlDecision d, String key, DecisionStatus status, String reason, long nowMicros) {
        return DecisionOutcome.newBuilder()
                .setWriter(d.getIssuedBy() == null ? "" : d.getIssuedBy())
                .setVersion(d.getVersion())
                .setKey(key)
                .setStatus(status)
                .setReason(reason)
                .setIssuedAtMicros(d.getIssuedAtMicros())
                .setDecidedAtMicros(nowMicros)
                .build();
    }
}
