package io.kairos.sim.bench;

import io.kairos.sim.AzureRuns;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.Workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The simulator's speed per policy on the Azure workload ({@link AzureRuns}), as
 * {@link SimulatorBenchmark} measures it, but in simulated requests per second of the simulating
 * thread's CPU time: on a shared machine, where the wall time measures the other processes, the
 * figure to compare a change by (alternating a build before it and one after, medians of the runs).
 * Each run is a whole {@link Simulation#run}, its set-up included, as the experiment pays it.
 *
 * <pre>{@code
 * mvn -B -o -q -Pbenchmarks -pl operators/sim -am test-compile
 * cd operators/sim && java -Xmx2g -cp target/test-classes:target/classes:$(cat target/benchmark-classpath.txt) \
 *     io.kairos.sim.bench.SimulatorSpeed [rate=9500] [seconds=60] [runs=5] [policy ...]
 * }</pre>
 */
public final class SimulatorSpeed {
    private static final List<String> POLICIES = List.of("clockwork", "edf", "fifo", "flex", "kairos", "smdp", "static", "triton", "work-conserving");

    private SimulatorSpeed() {}

    public static void main(String[] args) {
        int rate = 9500;
        int seconds = 60;
        int runs = 5;
        List<String> policies = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("rate=")) rate = Integer.parseInt(a.substring(5));
            else if (a.startsWith("seconds=")) seconds = Integer.parseInt(a.substring(8));
            else if (a.startsWith("runs=")) runs = Integer.parseInt(a.substring(5));
            else policies.add(a);
        }
        if (policies.isEmpty()) policies = POLICIES;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Workload hour = AzureRuns.workload(rate, 60);
        for (String policy : policies) {
            Simulation sim = AzureRuns.simulation(policy, hour, seconds * 1_000_000L, 0);
            // Two runs for the compiler, then the measured ones.
            for (int i = 0; i < 2; i++) sim.run();
            double[] perCpu = new double[runs];
            long simulated = 0;
            long ok = 0;
            for (int i = 0; i < runs; i++) {
                long cpu0 = mx.getCurrentThreadCpuTime();
                SimulationReport r = sim.run();
                long cpu = mx.getCurrentThreadCpuTime() - cpu0;
                simulated = r.simulatedRequests();
                ok = r.ok();
                perCpu[i] = simulated / (cpu / 1e9) / 1e6;
            }
            double[] sorted = perCpu.clone();
            Arrays.sort(sorted);
            System.out.printf(Locale.ROOT, "%-16s rate %d, %d s: %,d simulated (ok %,d); M requests/s of CPU: median %.3f, runs %s%n",
                    policy, rate, seconds, simulated, ok, sorted[runs / 2], format(perCpu));
        }
    }

    private static String format(double[] values) {
        StringBuilder s = new StringBuilder();
        for (double v : values) s.append(s.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", v));
        return s.toString();
    }
}
