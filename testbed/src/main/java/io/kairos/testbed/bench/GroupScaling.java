package io.kairos.testbed.bench;

import io.kairos.control.DecisionPublisher;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingPlan;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;
import me.tongfei.progressbar.ProgressBar;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The job's highest sustained rate against its number of serving groups (Shepherd's point: groups
 * are how scheduling scales out). For each count {@code n}: a fresh job on the embedded broker with
 * zero-latency simulated devices and its group scheduler on {@code n} subtasks (or as asked), the
 * devices split into {@code n} groups of equal size, each serving one instance of {@code mlp}
 * ({@code mlp#0001}...), the default group left with none; the load is Poisson, spread evenly over
 * the instances; a rate search ({@link RateSearch}, judged as {@link PayloadSweep#judge}) finds
 * the highest rate it holds. The same total devices and the same requests at every count: only
 * the grouping, and so the number of scheduler subtasks at work, changes.
 */
final class GroupScaling {
    static final String MODEL = "mlp";
    private static final double CEILING_PER_S = 1_000_000;
    private static final double PRECISION = 0.1;
    private static final int RETRIES = 1;

    /** One count's search: the groups, the scheduler subtasks, what the search found, and how long it took, seconds. */
    record Row(int groups, int schedulerSubtasks, RateSearch.Result search, double seconds) {}

    private final int devices;
    private final long bufferTimeoutMs;
    private final Duration trial;
    private final int maxTrials;

    GroupScaling(int devices, long bufferTimeoutMs, Duration trial, int maxTrials) {
        this.devices = devices;
        this.bufferTimeoutMs = bufferTimeoutMs;
        this.trial = trial;
        this.maxTrials = maxTrials;
    }

    /** The instance of {@link #MODEL} that group {@code i} (from 1) serves. */
    static String instance(int i) {
        return String.format(Locale.ROOT, "%s%c%04d", MODEL, ModelCatalog.INSTANCE_SEPARATOR, i);
    }

    /** Group {@code i}'s devices (from 1) of {@code n} equal groups of {@code devices} slots: a contiguous slice. */
    static List<Integer> slice(int i, int n, int devices) {
        int per = devices / n;
        List<Integer> out = new ArrayList<>();
        for (int d = (i - 1) * per; d < i * per; d++) out.add(d);
        return out;
    }

    /**
     * Searches each count in turn.
     *
     * @param schedulerSubtasks the scheduler's parallelism; 0: as many as groups
     */
    List<Row> run(List<Integer> counts, int schedulerSubtasks) throws Exception {
        List<Row> rows = new ArrayList<>();
        Duration warmup = Duration.ofSeconds(1);
        Duration drain = Duration.ofSeconds(2);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
             ProgressBar bar = ProgressLine.bar("group scaling", (long) (counts.size() + 1) * (maxTrials + 1), s -> List.of())) {
            // First a job that is not measured, at rising rates: the JIT compiles the job's path for
            // tens of seconds, and whichever count ran first would pay for it.
            int most = counts.stream().mapToInt(Integer::intValue).max().orElse(1);
            try (PipelineRig rig = rig(broker, "groups-warm", most, schedulerSubtasks > 0 ? schedulerSubtasks : most)) {
                for (double rate : new double[] {2_000, 5_000, 10_000, 20_000}) {
                    bar.setExtraMessage(String.format(Locale.ROOT, "warming up at %.0f/s", rate));
                    rig.run(load(most, rate), trial, warmup, drain, false);
                    rig.settle(Duration.ofSeconds(1), Duration.ofSeconds(60));
                }
            }
            bar.stepBy(maxTrials + 1);
            int run = 0;
            for (int n : counts) {
                long t0 = System.nanoTime();
                int subtasks = schedulerSubtasks > 0 ? schedulerSubtasks : n;
                // Topics and a consumer group of its own: a count asked twice starts afresh.
                try (PipelineRig rig = rig(broker, "groups-" + (++run) + "-" + n, n, subtasks)) {
                    bar.setExtraMessage(n + " group(s): warming up");
                    rig.run(load(n, 2_000), trial, warmup, drain, false);
                    bar.step();
                    RateSearch search = new RateSearch(5_000, CEILING_PER_S, maxTrials, PRECISION, RETRIES);
                    RateSearch.Result r = search.search(rate -> {
                        PipelineRig.Phase p = rig.run(load(n, rate), trial, warmup, drain, false);
                        RateSearch.Outcome o = PayloadSweep.judge(rate, p.sent(), p.received(), p.measured().total() - p.measured().served(),
                                p.elapsedMicros(), trial.toNanos() / 1_000, p.p99Micros(), p.drainMicros());
                        if (!o.held()) rig.settle(Duration.ofSeconds(1), Duration.ofSeconds(60));
                        bar.step();
                        bar.setExtraMessage(ProgressLine.extra(n + " group(s)", o.toString()));
                        return o;
                    });
                    bar.stepBy(maxTrials - r.trials().size());
                    rows.add(new Row(n, subtasks, r, (System.nanoTime() - t0) / 1e9));
                }
            }
        }
        return rows;
    }

    /** A job of {@code n} groups on the broker, its scheduler on {@code subtasks} subtasks, serving each group's instance. */
    private PipelineRig rig(EmbeddedKafkaBroker broker, String name, int n, int subtasks) throws Exception {
        PipelineRig rig = new PipelineRig(broker, name, devices, ModelCatalog.builtIn(), MODEL, bufferTimeoutMs,
                io.kairos.jobs.config.ServingConfig.DEFAULTS.delivery, io.kairos.jobs.config.ServingConfig.DEFAULTS.checkpointIntervalMs,
                java.util.Map.of(), c -> c.schedulerParallelism = subtasks);
        group(rig, n);
        for (int i = 1; i <= n; i++) rig.awaitServing(instance(i));
        return rig;
    }

    /** {@code rate} requests/s in all, Poisson, evenly over the {@code n} instances. */
    static Workload load(int n, double rate) {
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 1; i <= n; i++) loads.add(ModelLoad.of("bench", instance(i), rate / n, 600_000, ArrivalSpec.POISSON));
        return new Workload(loads);
    }

    /**
     * Publishes the groups and waits for each outcome: the default group gives up every device
     * first (a device serves one group), then per group its slice holding its instance, and the
     * instance routed to it.
     */
    private void group(PipelineRig rig, int n) {
        var config = rig.config();
        try (DecisionPublisher publisher = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "bench-groups")) {
            List<Object> actions = new ArrayList<>();
            actions.add(SetPlacement.newBuilder().setGroup(ServingPlan.DEFAULT_GROUP).setDevices(List.of()).build());
            for (int i = 1; i <= n; i++) {
                List<DevicePlacement> placed = new ArrayList<>();
                for (int d : slice(i, n, devices)) placed.add(DevicePlacement.newBuilder().setDevice(d).setModels(List.of(instance(i))).build());
                actions.add(SetPlacement.newBuilder().setGroup("g" + i).setDevices(placed).build());
                actions.add(AssignGroup.newBuilder().setModel(instance(i)).setGroup("g" + i).build());
            }
            for (Object action : actions) {
                Optional<DecisionOutcome> o = publisher.awaitOutcome(publisher.publish(action), Duration.ofSeconds(120));
                if (o.isEmpty() || o.get().getStatus() != DecisionStatus.APPLIED) {
                    throw new IllegalStateException("the job did not apply " + action + ": " + o.map(x -> x.getStatus() + " " + x.getReason()).orElse("no outcome"));
                }
            }
        }
    }
}
