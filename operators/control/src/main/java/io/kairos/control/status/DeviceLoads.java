package io.kairos.control.status;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ModelAction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each device did over the last few seconds, from the per-batch telemetry: batches run,
 * requests in them, the fraction of the window it was executing, cold starts (in all and by
 * model: which models a placement made it load), the loads and unloads the scheduler sent it (by
 * model, and the loads that failed), and batches the scheduler preempted. A preempted batch's
 * record (its cancel, or a discarded late copy) counts as a preemption only: its requests were not
 * served by it. A load's record is no batch: its time counts as busy.
 */
public final class DeviceLoads {
    /** One device slot's figures over the window. */
    public record Load(int device, long batches, long requests, double busyFraction, long coldStarts,
                       Map<String, Long> coldStartsByModel, long preempted, Map<String, Long> loadsByModel, long unloads, long loadsFailed) {
        public Load {
            coldStartsByModel = Collections.unmodifiableMap(new TreeMap<>(coldStartsByModel));
            loadsByModel = Collections.unmodifiableMap(new TreeMap<>(loadsByModel));
        }

        /** The cold starts as the status page shows them: {@code 3 (mlp 2, resnet 1)}, or {@code 0}. */
        public String coldStartsText() {
            return byModel(coldStarts, coldStartsByModel);
        }

        /** The loads carried out, as the status page shows them: {@code 2 (resnet 2)}, with {@code , 1 failed} where some failed. */
        public String loadsText() {
            long loads = loadsByModel.values().stream().mapToLong(Long::longValue).sum();
            return byModel(loads, loadsByModel) + (loadsFailed == 0 ? "" : ", " + loadsFailed + " failed");
        }

        private static String byModel(long all, Map<String, Long> byModel) {
            if (all == 0) return "0";
            StringBuilder b = new StringBuilder().append(all).append(" (");
            String sep = "";
            for (Map.Entry<String, Long> e : byModel.entrySet()) {
                b.append(sep).append(e.getKey()).append(' ').append(e.getValue());
                sep = ", ";
            }
            return b.append(')').toString();
        }
    }

    private static final class Counts {
        long batches;
        long requests;
        long busyMicros;
        long coldStarts;
        final Map<String, Long> coldStartsByModel = new TreeMap<>();
        long preempted;
        final Map<String, Long> loadsByModel = new TreeMap<>();
        long unloads;
        long loadsFailed;

        void add(Counts o) {
            o.coldStartsByModel.forEach((m, n) -> coldStartsByModel.merge(m, n, Long::sum));
            o.loadsByModel.forEach((m, n) -> loadsByModel.merge(m, n, Long::sum));
            unloads += o.unloads;
            loadsFailed += o.loadsFailed;
            batches += o.batches;
            requests += o.requests;
            busyMicros += o.busyMicros;
            coldStarts += o.coldStarts;
            preempted += o.preempted;
        }
    }

    private final long startMicros;
    private final RecentSeconds<Map<Integer, Counts>> recent;

    public DeviceLoads(long startMicros, int windowSeconds) {
        this.startMicros = startMicros;
        this.recent = new RecentSeconds<>(windowSeconds, TreeMap::new);
    }

    public void add(BatchTelemetry batch, long receivedAtMicros) {
        Map<Integer, Counts> second = recent.at(receivedAtMicros);
        if (second == null) return;
        Counts c = second.computeIfAbsent(batch.getDevice(), d -> new Counts());
        if (batch.getPreemption() != null) {
            c.preempted++;
            return;
        }
        if (batch.getModelAction() != null) {
            c.busyMicros += Math.max(0, batch.getExecEndMicros() - batch.getExecStartMicros());
            if (batch.getModelAction() == ModelAction.UNLOAD) c.unloads++;
            else if (batch.getError() != null) c.loadsFailed++;
            else c.loadsByModel.merge(batch.getModel(), 1L, Long::sum);
            return;
        }
        c.batches++;
        c.requests += batch.getBatchSize();
        c.busyMicros += Math.max(0, batch.getExecEndMicros() - batch.getExecStartMicros());
        if (batch.getColdStart()) {
            c.coldStarts++;
            c.coldStartsByModel.merge(batch.getModel(), 1L, Long::sum);
        }
    }

    /** Each device with telemetry in the window ending at {@code nowMicros}, in slot order. */
    public List<Load> upTo(long nowMicros) {
        Map<Integer, Counts> sum = new TreeMap<>();
        for (Map<Integer, Counts> second : recent.upTo(nowMicros)) {
            second.forEach((device, c) -> sum.computeIfAbsent(device, d -> new Counts()).add(c));
        }
        long span = recent.spanMicros(nowMicros, startMicros);
        List<Load> loads = new ArrayList<>();
        sum.forEach((device, c) -> loads.add(new Load(device, c.batches, c.requests,
                span == 0 ? 0 : Math.min(1.0, c.busyMicros / (double) span), c.coldStarts, c.coldStartsByModel, c.preempted,
                c.loadsByModel, c.unloads, c.loadsFailed)));
        return loads;
    }

    public int windowSeconds() {
        return recent.seconds();
    }
}
