package io.kairos.core.scheduling;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What one step of a serving group's loop decided, collected as the policy acts: the batches it
 * dispatched, those it preempted, the requests a preemption or the policy itself dropped.
 * {@link #finish} hands them out and starts the next step's.
 */
final class StepOutcome {
    private List<Dispatch> dispatched = new ArrayList<>();
    private List<Dispatch> preempted = new ArrayList<>();
    private List<Drop> preemptionDrops = new ArrayList<>();
    private List<Drop> rejected = new ArrayList<>();

    void dispatched(Dispatch d) {
        dispatched.add(d);
    }

    /**
     * A batch was preempted: taken out of this step's dispatches if it was one of them (the
     * engine has not seen it), else among the preempted.
     */
    void preempted(Dispatch d) {
        for (int i = 0; i < dispatched.size(); i++) {
            if (dispatched.get(i) == d) {
                dispatched.remove(i);
                return;
            }
        }
        preempted.add(d);
    }

    void droppedByPreemption(Drop d) {
        preemptionDrops.add(d);
    }

    void rejected(Drop d) {
        rejected.add(d);
    }

    /**
     * The step's outcome: its dispatches and preemptions, and its drops in this order: shedding's
     * ({@code shed}), a preemption's, admission's ({@code overflow}), the policy's rejections.
     */
    GroupScheduler.Outcome finish(List<Drop> shed, List<Drop> overflow, long wakeMicros, List<ModelAction> actions) {
        List<Dispatch> out = dispatched.isEmpty() ? Collections.emptyList() : dispatched;
        if (!out.isEmpty()) dispatched = new ArrayList<>();
        List<Dispatch> aborted = preempted.isEmpty() ? Collections.emptyList() : preempted;
        if (!aborted.isEmpty()) preempted = new ArrayList<>();
        List<Drop> drops = shed;
        for (List<Drop> more : List.of(preemptionDrops, overflow, rejected)) {
            if (more.isEmpty()) continue;
            if (drops.isEmpty()) drops = new ArrayList<>();
            drops.addAll(more);
        }
        if (!preemptionDrops.isEmpty()) preemptionDrops = new ArrayList<>();
        if (!rejected.isEmpty()) rejected = new ArrayList<>();
        return new GroupScheduler.Outcome(out, drops, aborted, wakeMicros, actions);
    }
}
