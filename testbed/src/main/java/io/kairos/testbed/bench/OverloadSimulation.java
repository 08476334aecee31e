package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
import io.kairos.tools.format.Numbers;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.ModelLoad;
import io.kairos.workload.Workload;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The overload run's counterpart in the simulator: the same group (devices, speed, model, SLO,
 * policy) at the same multiples of its capacity, with early shedding on (the default) and off, on
 * seeds 1..N of the Poisson arrivals. The job's figures say what the pipeline adds; these say what
 * the scheduling alone does, without a machine's noise, so several seeds are cheap.
 */
final class OverloadSimulation {
    static final String CSV = "simulator.csv";
    static final List<String> COLUMNS = List.of("policy", "early_shedding", "load", "seed", "offered_per_s", "arrivals", "ok", "late", "dropped",
            "goodput_per_s", "mean_batch");

    private final ModelCatalog catalog;
    private final String model;
    private final double sloMs;
    private final int devices;
    private final double speed;
    private final String policy;
    private final Map<String, String> params;
    private final long durationMicros;
    private final long warmupMicros;

    OverloadSimulation(ModelCatalog catalog, String model, double sloMs, int devices, double speed, String policy, Map<String, String> params,
                       int durationSeconds, int warmupSeconds) {
        this.catalog = catalog;
        this.model = model;
        this.sloMs = sloMs;
        this.devices = devices;
        this.speed = speed;
        this.policy = policy;
        this.params = Map.copyOf(params);
        this.durationMicros = durationSeconds * 1_000_000L;
        this.warmupMicros = warmupSeconds * 1_000_000L;
    }

    /** Every load × shedding × seed; {@code done} hears of each run as it ends. */
    ResultTable run(double[] loads, int seeds, Consumer<List<String>> done) {
        double capacity = OverloadRig.capacity(catalog, model, devices, speed);
        ResultTable table = new ResultTable(COLUMNS);
        for (int seed = 1; seed <= seeds; seed++) {
            for (boolean shedEarly : new boolean[] {true, false}) {
                for (double load : loads) {
                    Map<String, String> p = new LinkedHashMap<>(params);
                    p.put(ConfiguredPolicy.SHED_EARLY, Boolean.toString(shedEarly));
                    SimulationReport r = Simulation.builder(catalog).devices(devices).speed(speed).policy(policy, p)
                            .workload(new Workload(List.of(ModelLoad.of("overload", model, load * capacity, sloMs, ArrivalSpec.POISSON))))
                            .duration(durationMicros).warmup(warmupMicros).seed(seed).build().run();
                    List<String> row = List.of(policy, shedEarly ? "on" : "off", Numbers.plain(load), Integer.toString(seed),
                            String.format(Locale.ROOT, "%.1f", load * capacity), Long.toString(r.arrivals()), Long.toString(r.ok()), Long.toString(r.late()),
                            Long.toString(r.dropped()), String.format(Locale.ROOT, "%.1f", r.goodputPerSecond()), String.format(Locale.ROOT, "%.2f", r.meanBatchSize()));
                    table.add(row);
                    done.accept(row);
                }
            }
        }
        return table;
    }

    /** Per shedding and load: the median goodput over seeds and the seeds' range. */
    static String summary(ResultTable table, double capacity) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "simulator (%d seeds): goodput/s, median [least-greatest], capacity %.0f/s%n",
                table.distinct("seed").size(), capacity));
        s.append(String.format(Locale.ROOT, "%6s %24s %24s%n", "load", "shedding early", "not shedding early"));
        for (String load : table.distinct("load")) {
            s.append(String.format(Locale.ROOT, "%6s", load));
            for (String shed : List.of("on", "off")) {
                Map<String, String> at = Map.of("load", load, "early_shedding", shed);
                double[] range = table.range("goodput_per_s", at);
                s.append(String.format(Locale.ROOT, " %24s", String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", table.median("goodput_per_s", at), range[0], range[1])));
            }
            s.append('\n');
        }
        return s.toString();
    }

    static void drawFigure(ResultTable table, Path dir) throws IOException {
        Figures.lines("load", "goodput_per_s").numericX().series("early_shedding").xAxis("offered load (x capacity)").yAxis("goodput (OK requests/s)", 0.0, null)
                .title("Goodput in the simulator as the offered load passes capacity, early shedding on and off (median of the seeds)")
                .save(table, dir.resolve("simulator.png"));
    }
}
