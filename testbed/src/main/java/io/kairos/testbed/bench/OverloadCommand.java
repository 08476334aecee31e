package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.PolicyOptions;
import io.kairos.tools.format.Numbers;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code overload}: the serving job on simulated devices at multiples of its serving group's
 * capacity (0.5× to 3× by default), several runs of each, in one job on an embedded broker and a
 * Flink mini-cluster. Per load: goodput (OK by the deadline, per second) against the peak goodput
 * over all loads, the most requests waiting in Kafka and in the scheduler at once, and the heap.
 * Writes {@code overload.csv} (a row per run and load) and figures of goodput and backlog.
 */
@Command(name = "overload", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Goodput, backlog and heap of the serving job at multiples of its capacity (simulated devices).")
public class OverloadCommand implements Callable<Integer> {

    @Option(names = "--loads", split = ",", paramLabel = "X", description = "Offered load as multiples of the group's capacity (default: ${DEFAULT-VALUE}).")
    double[] loads = {0.5, 1, 1.5, 2, 3};

    @Option(names = "--runs", paramLabel = "N", description = "Runs of each load, interleaved; tables and figures take the median (default: ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--duration", paramLabel = "S", description = "Seconds of load per run (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 15;

    @Option(names = "--warmup", paramLabel = "S", description = "Seconds at the start of each run whose requests are not counted in goodput (default: ${DEFAULT-VALUE}).")
    int warmupSeconds = 3;

    @Option(names = "--model", description = "Model of the requests (default: ${DEFAULT-VALUE}).")
    String model = "resnet50";

    @Option(names = "--slo-ms", paramLabel = "MS", description = "SLO of every request (default: ${DEFAULT-VALUE}).")
    double sloMs = 200;

    @CommandLine.Mixin
    DevicesOption devices = new DevicesOption(2);

    @Option(names = "--speed", paramLabel = "F", description = "Simulated devices take the catalog's latency times this (default: ${DEFAULT-VALUE}).")
    double speed = 4;

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder (default: testbed/experiments/overload in the checkout).")
    Path out;

    @Option(names = "--redraw", description = "Run nothing: draw goodput.png and backlog.png again from DIR/overload.csv (and simulator.png from DIR/simulator.csv).")
    boolean redraw;

    @Option(names = "--simulator", description = "Run the same group and loads in the simulator, not the job: seeds 1..--runs of the arrivals, early shedding on and off; "
            + "writes simulator.csv and simulator.png.")
    boolean simulator;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    static final List<String> COLUMNS = List.of("policy", "load", "run", "offered_per_s", "sent", "measured", "ok", "late", "dropped", "other",
            "shed_early", "queue_full", "goodput_per_s", "max_kafka_lag", "max_scheduler_backlog", "max_in_system", "heap_max_mb", "live_heap_mb", "missing");

    @Override
    public Integer call() throws Exception {
        PrintWriter w = spec.commandLine().getOut();
        CommandLine cl = spec.commandLine();
        ModelCatalog catalog = ModelCatalog.builtIn();
        if (!catalog.contains(model)) throw new CommandLine.ParameterException(cl, "--model '" + model + "' is not in the built-in catalog " + catalog.names());
        devices.checkCount(cl);
        policy.check(cl);
        if (runs < 1) throw new CommandLine.ParameterException(cl, "--runs must be at least 1, got " + runs);
        if (warmupSeconds < 0 || durationSeconds <= warmupSeconds) throw new CommandLine.ParameterException(cl, "--duration must be longer than --warmup, got " + durationSeconds + " and " + warmupSeconds);
        if (!(sloMs > 0) || Double.isInfinite(sloMs)) throw new CommandLine.ParameterException(cl, "--slo-ms must be a positive number, got " + sloMs);
        if (!(speed > 0) || Double.isInfinite(speed)) throw new CommandLine.ParameterException(cl, "--speed must be a positive number, got " + speed);
        if (loads.length == 0) throw new CommandLine.ParameterException(cl, "--loads needs at least one multiple");
        for (double l : loads) if (!(l > 0) || Double.isInfinite(l)) throw new CommandLine.ParameterException(cl, "--loads must be positive numbers, got " + l);
        Path dir = out != null ? out : Path.of(System.getProperty("kairos.home", "")).resolve("testbed").resolve("experiments").resolve("overload");
        if (redraw) {
            Path csv = dir.resolve("overload.csv");
            if (!java.nio.file.Files.isRegularFile(csv)) throw new CommandLine.ParameterException(cl, "--redraw: no " + csv + "; run overload first");
            drawFigures(ResultTable.read(csv), dir);
            w.println("drew " + dir.resolve("goodput.png") + " and backlog.png");
            Path sim = dir.resolve(OverloadSimulation.CSV);
            if (java.nio.file.Files.isRegularFile(sim)) {
                OverloadSimulation.drawFigure(ResultTable.read(sim), dir);
                w.println("drew " + dir.resolve("simulator.png"));
            }
            return 0;
        }

        double capacity = OverloadRig.capacity(catalog, model, devices.count(), speed);
        if (simulator) return simulate(w, catalog, capacity, dir);
        String series = policy.policy + (policy.params.isEmpty() ? "" : " " + String.join(" ", policy.params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()));
        w.printf(Locale.ROOT, "overload: %s, SLO %.0f ms, %d simulated devices at %.2fx the catalog's latency: capacity %.0f requests/s (full batches back to back); policy %s%n",
                model, sloMs, devices.count(), speed, capacity, series);
        w.printf(Locale.ROOT, "loads %s x capacity, %d runs of %d s each (first %d s not counted), %d cores, max heap %d MB%n",
                java.util.Arrays.toString(loads), runs, durationSeconds, warmupSeconds, Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        ResultTable table = new ResultTable(COLUMNS);
        ServingConfig.Builder config = ServingConfig.builder();
        config.devices = devices.count();
        config.simulatedSpeed = speed;
        config.fromEarliest = true;
        config.checkpointIntervalMs = 0;
        policy.applyTo(config);
        w.print("starting Kafka broker and Flink mini-cluster ... ");
        w.flush();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            config.bootstrapServers = broker.bootstrapServers();
            config.topicsNamed("overload-");
            config.consumerGroup = "overload";
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            try (OverloadRig rig = new OverloadRig(broker, ConfigFlags.build(config, cl), catalog, model, sloMs, StreamExecutionEnvironment.createLocalEnvironment(devices.count(), flink))) {
                w.println("serving");
                w.print("warming up at 1x capacity for " + durationSeconds + " s (not recorded; the scheduler learns the devices' latency) ... ");
                w.flush();
                rig.run(1, Duration.ofSeconds(durationSeconds), Duration.ZERO, Duration.ofSeconds(3), (s, o, b) -> {});
                w.println("done");
                Duration duration = Duration.ofSeconds(durationSeconds), warmup = Duration.ofSeconds(warmupSeconds), drain = Duration.ofSeconds(3);
                try (ProgressBar bar = new ProgressBarBuilder().setTaskName("overload").setInitialMax((long) runs * loads.length * durationSeconds * 1000L)
                        .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build()) {
                    long done = 0;
                    for (int run = 1; run <= runs; run++) {
                        for (double load : loads) {
                            long base = done;
                            bar.setExtraMessage(String.format(Locale.ROOT, "run %d, %.2fx", run, load));
                            OverloadRig.Step s = rig.run(load, duration, warmup, drain, (sent, offsetMicros, behind) -> bar.stepTo(base + offsetMicros / 1000));
                            done += durationSeconds * 1000L;
                            bar.stepTo(done);
                            table.add(row(series, run, s));
                            bar.setExtraMessage(String.format(Locale.ROOT, "run %d, %.2fx: goodput %.0f/s, scheduler backlog <= %d, Kafka lag <= %d, live heap %.0f MB",
                                    run, load, s.goodputPerSecond(), s.maxSchedulerBacklog(), s.maxKafkaLag(), s.liveHeapMb()));
                        }
                    }
                }
            }
        }
        w.println();
        w.print(summary(table, capacity));
        java.nio.file.Files.createDirectories(dir);
        table.write(dir.resolve("overload.csv"));
        drawFigures(table, dir);
        w.println("wrote " + dir.resolve("overload.csv") + ", goodput.png and backlog.png");
        return 0;
    }

    private int simulate(PrintWriter w, ModelCatalog catalog, double capacity, Path dir) throws java.io.IOException {
        w.printf(Locale.ROOT, "overload in the simulator: %s, SLO %.0f ms, %d devices at %.2fx the catalog's latency: capacity %.0f requests/s; policy %s; "
                + "loads %s x capacity, seeds 1-%d, %d s each (first %d s not counted), early shedding on and off%n",
                model, sloMs, devices.count(), speed, capacity, policy.policy, java.util.Arrays.toString(loads), runs, durationSeconds, warmupSeconds);
        OverloadSimulation simulation = new OverloadSimulation(catalog, model, sloMs, devices.count(), speed, policy.policy, policy.params, durationSeconds, warmupSeconds);
        ResultTable table;
        try (ProgressBar bar = new ProgressBarBuilder().setTaskName("simulator").setInitialMax((long) runs * 2 * loads.length)
                .setUnit(" runs", 1).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).build()) {
            table = simulation.run(loads, runs, row -> bar.step());
        }
        w.print(OverloadSimulation.summary(table, capacity));
        java.nio.file.Files.createDirectories(dir);
        table.write(dir.resolve(OverloadSimulation.CSV));
        OverloadSimulation.drawFigure(table, dir);
        w.println("wrote " + dir.resolve(OverloadSimulation.CSV) + " and simulator.png");
        return 0;
    }

    static void drawFigures(ResultTable table, Path dir) throws java.io.IOException {
        Figures.lines("load", "goodput_per_s").numericX().xAxis("offered load (x capacity)").yAxis("goodput (OK requests/s)", 0.0, null)
                .title("Goodput of the serving job as the offered load passes its capacity (simulated devices, median of the runs)")
                .save(table, dir.resolve("goodput.png"));
        Figures.lines("load", "max_scheduler_backlog").numericX().xAxis("offered load (x capacity)").yAxis("most requests queued", 0.0, null)
                .title("Most requests queued in the scheduler as the offered load passes its capacity (simulated devices, median of the runs)")
                .save(table, dir.resolve("backlog.png"));
    }

    private static List<String> row(String series, int run, OverloadRig.Step s) {
        List<String> r = new ArrayList<>(COLUMNS.size());
        r.add(series);
        r.add(Numbers.plain(s.load()));
        r.add(Integer.toString(run));
        r.add(String.format(Locale.ROOT, "%.1f", s.offeredPerSecond()));
        for (long v : new long[] {s.sent(), s.measured(), s.ok(), s.late(), s.dropped(), s.other(), s.shedEarly(), s.queueFull()}) r.add(Long.toString(v));
        r.add(String.format(Locale.ROOT, "%.1f", s.goodputPerSecond()));
        for (int v : new int[] {s.maxKafkaLag(), s.maxSchedulerBacklog(), s.maxInSystem()}) r.add(Integer.toString(v));
        r.add(String.format(Locale.ROOT, "%.1f", s.heapMaxMb()));
        r.add(String.format(Locale.ROOT, "%.1f", s.liveHeapMb()));
        r.add(Long.toString(s.missing()));
        return r;
    }

    /** The table of medians per load, goodput against the peak of the medians. */
    static String summary(ResultTable table, double capacity) {
        StringBuilder s = new StringBuilder();
        for (String series : table.distinct("policy")) {
            double peak = 0;
            for (String load : table.distinct("load")) peak = Math.max(peak, table.median("goodput_per_s", Map.of("policy", series, "load", load)));
            s.append(String.format(Locale.ROOT, "%s: medians over runs; peak goodput %.0f/s (%.0f%% of capacity)%n", series, peak, 100 * peak / capacity));
            s.append(String.format(Locale.ROOT, "%6s %10s %10s %8s %10s %9s %10s %9s %9s %9s %9s %9s%n", "load", "offered/s", "goodput/s", "of peak",
                    "late", "dropped", "shed early", "Kafka lag", "scheduler", "in system", "heap max", "live heap"));
            s.append(String.format(Locale.ROOT, "%6s %10s %10s %8s %10s %9s %10s %9s %9s %9s %9s %9s%n", "x", "", "", "", "", "", "", "max", "max", "max", "MB", "MB"));
            for (String load : table.distinct("load")) {
                Map<String, String> at = Map.of("policy", series, "load", load);
                double goodput = table.median("goodput_per_s", at);
                s.append(String.format(Locale.ROOT, "%6s %10.0f %10.0f %7.0f%% %10.0f %9.0f %10.0f %9.0f %9.0f %9.0f %9.0f %9.0f%n", load,
                        table.median("offered_per_s", at), goodput, 100 * goodput / peak, table.median("late", at), table.median("dropped", at),
                        table.median("shed_early", at), table.median("max_kafka_lag", at), table.median("max_scheduler_backlog", at),
                        table.median("max_in_system", at), table.median("heap_max_mb", at), table.median("live_heap_mb", at)));
            }
        }
        return s.toString();
    }
}
