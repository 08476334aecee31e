package io.kairos.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A micro-check, not a test (surefire does not run it): how many arrivals per second the merge of
 * {@link Workload.Arrivals} hands out for the simulator's scale, 4,026 Poisson loads at 9,500
 * requests per second in total over one simulated hour (34 million arrivals), through the
 * allocation-free {@link Workload.Arrivals#nextLoadIndex}. Reports thread CPU time as well as wall
 * time, since the wall time of a shared machine says little.
 *
 * <pre>{@code
 * mvn -q -B -o -pl operators -am test-compile
 * java -cp operators/target/classes:operators/target/test-classes:$(ls ~/.m2/repository/org/apache/commons/commons-rng-*\/1.6/*.jar | tr '\n' :) \
 *     io.kairos.workload.ArrivalsThroughput
 * }</pre>
 */
public final class ArrivalsThroughput {
    private ArrivalsThroughput() {}

    public static void main(String[] args) {
        int loads = 4026;
        double totalRate = 9500;
        long hourMicros = 3_600_000_000L;
        List<ModelLoad> list = new ArrayList<>(loads);
        for (int i = 0; i < loads; i++) list.add(ModelLoad.of("t", "m" + i, totalRate / loads, 100, ArrivalSpec.POISSON));
        Workload w = new Workload(list);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int round = 1; round <= 3; round++) {
            long cpu0 = mx.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            Workload.Arrivals it = w.arrivals(round);
            long n = 0;
            long check = 0;
            while (it.peekOffsetMicros() < hourMicros) {
                check += it.nextLoadIndex();
                n++;
            }
            double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
            double wall = (System.nanoTime() - wall0) / 1e9;
            System.out.printf(Locale.ROOT, "round %d: %,d arrivals; %.2f M/s of CPU time, %.2f M/s of wall time (checksum %d)%n",
                    round, n, n / cpu / 1e6, n / wall / 1e6, check);
        }
    }
}
