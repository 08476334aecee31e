package io.kairos.sim.bench;

import io.kairos.sim.AzureRuns;
import io.kairos.sim.Simulation;
import io.kairos.sim.SimulationReport;
import io.kairos.workload.Workload;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The simulator's speed on the Azure experiment's workload ({@link AzureRuns}: 4,026 queues, 12
 * devices, the trace at 9,500 or 12,000 requests/s), one thread: each operation simulates the
 * experiment's first {@code seconds} of the hour with one policy. The {@code requests} counter is
 * what the experiment's {@code sim_requests_per_wall_s} column counts, simulated requests per
 * second of wall time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Threads(1)
public class SimulatorBenchmark {
    @Param({"clockwork", "edf", "fifo", "flex", "kairos", "smdp", "static", "triton", "work-conserving"})
    String policy;

    @Param({"9500", "12000"})
    int rate;

    @Param({"60"})
    int seconds;

    Simulation simulation;

    /** Simulated requests, per second of the measurement. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Simulated {
        public long requests;
    }

    @Setup(Level.Trial)
    public void setUp() {
        Workload hour = AzureRuns.workload(rate, 60);
        simulation = AzureRuns.simulation(policy, hour, seconds * 1_000_000L, 0);
    }

    @Benchmark
    public SimulationReport simulate(Simulated counted) {
        SimulationReport report = simulation.run();
        counted.requests += report.simulatedRequests();
        return report;
    }
}
