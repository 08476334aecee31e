package io.kairos.control.smdp.bench;

import io.kairos.control.smdp.BatchServiceModel;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.SmdpSolution;
import io.kairos.control.smdp.SmdpSolver;
import io.kairos.control.smdp.TruncatedSmdp;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One solve of the paper's accuracy setting (GoogLeNet on a Tesla P4, B_max 32, rho 0.9,
 * w = (1, 1), epsilon 0.01, iter_max 10,000, c_o = 100) at s_max 70 (Table I's minimum) and 200
 * (the speed target): relative value iteration and the stationary analysis of its table.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(1)
public class SmdpSolverBenchmark {
    @Param({"70", "200"})
    int sMax;

    TruncatedSmdp smdp;
    final SmdpSolver solver = new SmdpSolver();

    @Setup
    public void setUp() {
        BatchServiceModel p4 = BatchServiceModel.linear(1, 0.3051, 1.052, 19.90, 19.60, 32).atLoad(0.9);
        smdp = new TruncatedSmdp(p4, CostWeights.of(1, 1), sMax, 100);
    }

    @Benchmark
    public SmdpSolution solve() {
        return solver.solve(smdp);
    }
}
