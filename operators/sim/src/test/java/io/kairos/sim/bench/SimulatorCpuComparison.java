package io.kairos.sim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The simulator's speed on two builds of the repository, compared on a shared machine: one JVM
 * loads each build's simulator in a class loader of its own and alternates their runs of one
 * policy on the Azure workload ({@link io.kairos.sim.AzureRuns}), measuring each run by the CPU
 * time of this thread (what other processes take does not count, what they do to the caches
 * does). Prints each round and the medians after two rounds of warm-up; both builds must give
 * the same number of simulated requests.
 *
 * <p>Arguments: policy, rate (requests/s), simulated seconds per run, rounds, the baseline's
 * root, the other's root; each built with {@code mvn -B -o -q -Pbenchmarks -pl operators/sim -am test-compile}.
 */
public class SimulatorCpuComparison {
    static Object[] setup(String root, String policy, int rate, int seconds) throws Exception {
        String sim = root + "/operators/sim/target/";
        List<URL> urls = new ArrayList<>();
        urls.add(Path.of(sim + "test-classes/").toUri().toURL());
        urls.add(Path.of(sim + "classes/").toUri().toURL());
        for (String p : Files.readString(Path.of(sim + "benchmark-classpath.txt")).trim().split(":")) urls.add(Path.of(p).toUri().toURL());
        ClassLoader cl = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        Class<?> runs = cl.loadClass("io.kairos.sim.AzureRuns");
        Class<?> workload = cl.loadClass("io.kairos.workload.Workload");
        Object w = runs.getMethod("workload", int.class, int.class).invoke(null, rate, 60);
        Method simulation = runs.getMethod("simulation", String.class, workload, long.class, long.class);
        return new Object[] {simulation, w};
    }

    static long[] run(Object[] s, String policy, int seconds) throws Exception {
        Object sim = ((Method) s[0]).invoke(null, policy, s[1], seconds * 1_000_000L, 0L);
        ThreadMXBean t = ManagementFactory.getThreadMXBean();
        long c0 = t.getCurrentThreadCpuTime();
        Object report = sim.getClass().getMethod("run").invoke(sim);
        long cpu = t.getCurrentThreadCpuTime() - c0;
        long n = (long) report.getClass().getMethod("simulatedRequests").invoke(report);
        return new long[] {n, cpu};
    }

    public static void main(String[] a) throws Exception {
        String policy = a[0];
        int rate = Integer.parseInt(a[1]);
        int seconds = Integer.parseInt(a[2]);
        int rounds = Integer.parseInt(a[3]);
        Object[] base = setup(a[4], policy, rate, seconds);
        Object[] branch = setup(a[5], policy, rate, seconds);
        List<Double> ratios = new ArrayList<>();
        List<Double> bs = new ArrayList<>(), ns = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            boolean baseFirst = r % 2 == 0;
            long[] x = run(baseFirst ? base : branch, policy, seconds);
            long[] y = run(baseFirst ? branch : base, policy, seconds);
            long[] b = baseFirst ? x : y, n = baseFirst ? y : x;
            if (b[0] != n[0]) throw new IllegalStateException("different request counts " + b[0] + " " + n[0]);
            double bm = b[0] / (b[1] / 1e3), nm = n[0] / (n[1] / 1e3);
            System.out.printf("round %d base %.3f M/s_cpu branch %.3f ratio %.2f%n", r, bm, nm, nm / bm);
            if (r >= 2) { ratios.add(nm / bm); bs.add(bm); ns.add(nm); }
        }
        System.out.printf("%s rate %d: median base %.3f M/s branch %.3f M/s, median ratio %.2f (rounds after 2 of warm-up: %d)%n", policy, rate, median(bs), median(ns), median(ratios), ratios.size());
    }

    static double median(List<Double> v) {
        double[] d = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(d);
        return d.length % 2 == 1 ? d[d.length / 2] : (d[d.length / 2 - 1] + d[d.length / 2]) / 2;
    }
}
