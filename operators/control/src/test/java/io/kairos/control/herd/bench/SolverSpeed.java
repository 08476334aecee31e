package io.kairos.control.herd.bench;

import io.kairos.control.herd.HerdPlan;
import io.kairos.control.herd.HerdProblem;
import io.kairos.control.herd.HerdSolver;
import io.kairos.control.herd.RequestStream;
import io.kairos.core.model.ModelCatalog;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Herd's ILP against the number of streams and devices: solve time (wall, and the process's CPU
 * time, which counts the solver's native workers, medians of the runs), the worst gap reached,
 * and of the last run's instance the minimum burst tolerance and the groups' mean load above their
 * devices, beside the first-fit grouping the solver starts from.
 *
 * <p>An instance of {@code S} streams on {@code N} devices: {@code S / 10} models (a popular model
 * serves many tenants' streams), each of 256 MiB to 1 GiB (in steps of 128 MiB) on 16 GiB devices,
 * so memory binds (the models take about 40 times a device) without forcing more groups than 12
 * devices make; each stream's model drawn with Zipf weights (exponent 1), its rate log-normal
 * (σ 1.5: heavy-tailed), its {@code T_i} the model's, 200 to 2,000 requests/s; the rates scaled so
 * that the streams need 70 % of the cluster on average ({@code Σ n_i = 0.7 N}). Groups of at most
 * 16 devices. The streams' {@code T_i} are given, not simulated: this measures the ILP.
 *
 * <pre>{@code
 * mvn -B -q -Pbenchmarks -pl operators/control -am test-compile
 * cd operators/control && java -cp target/test-classes:target/classes:$(cat target/benchmark-classpath.txt) \
 *     io.kairos.control.herd.bench.SolverSpeed [streams=100,250,500,1000,2000] [devices=12,24,48,96,192] [runs=3] [limit-s=10] [solver=CP_SAT] [threads=2]
 * }</pre>
 */
public final class SolverSpeed {
    private SolverSpeed() {}

    static final long MIB = 1024L * 1024;

    public static void main(String[] args) {
        int[] streams = {100, 250, 500, 1000, 2000};
        int[] devices = {12, 24, 48, 96, 192};
        int runs = 3;
        double limit = 10;
        String backend = "CP_SAT";
        int threads = 2;
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "streams" -> streams = Arrays.stream(kv[1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "devices" -> devices = Arrays.stream(kv[1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "runs" -> runs = Integer.parseInt(kv[1]);
                case "limit-s" -> limit = Double.parseDouble(kv[1]);
                case "solver" -> backend = kv[1];
                case "threads" -> threads = Integer.parseInt(kv[1]);
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        HerdSolver solver = new HerdSolver(new HerdSolver.Settings(Duration.ofMillis(Math.round(limit * 1000)), backend, threads));
        // Warm the JVM and load the native library on a small instance, not counted.
        solver.solve(instance(100, 12, 1));
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.out.printf(Locale.ROOT, "%s, %d worker(s), time limit %s s, %d run(s) a point (median)%n", backend, threads, limit, runs);
        System.out.println("| streams | models | devices | groups | solve s (wall) | CPU s | status | gap (worst) | min bt | first fit's min bt | load above devices | first fit's |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
        for (int s : streams) {
            for (int n : devices) {
                double[] wall = new double[runs];
                double[] cpu = new double[runs];
                HerdPlan plan = null;
                HerdProblem p = null;
                double worstGap = 0;
                boolean allOptimal = true;
                for (int r = 0; r < runs; r++) {
                    p = instance(s, n, 1 + r);
                    long cpu0 = os.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    plan = solver.solve(p);
                    wall[r] = (System.nanoTime() - t0) / 1e9;
                    cpu[r] = (os.getProcessCpuTime() - cpu0) / 1e9;
                    if (plan.feasible()) {
                        worstGap = Math.max(worstGap, plan.gap());
                        allOptimal &= plan.status().equals("OPTIMAL");
                    }
                }
                if (!plan.feasible()) {
                    System.out.printf(Locale.ROOT, "| %d | %d | %d | - | %.2f | %.2f | %s | | | |%n", s, p.models().size(), n, median(wall), median(cpu), plan.infeasibility());
                    continue;
                }
                HerdPlan first = HerdSolver.firstFit(p);
                System.out.printf(Locale.ROOT, "| %d | %d | %d | %d | %.2f | %.2f | %s | %.2f %% | %.3f | %.3f | %.2f | %.2f |%n", s, p.models().size(), n,
                        plan.groups().size(), median(wall), median(cpu), allOptimal ? "optimal" : "feasible", 100 * worstGap, plan.minBurstTolerance(),
                        first.feasible() ? first.minBurstTolerance() : Double.NaN, overload(plan), first.feasible() ? overload(first) : Double.NaN);
            }
        }
    }

    /** {@code Σ_j max(0, load_j - size_j)}: the devices' worth of mean load the groups carry above their devices. */
    static double overload(HerdPlan plan) {
        double over = 0;
        for (HerdPlan.Group g : plan.groups()) over += Math.max(0, g.load() - g.devices().size());
        return over;
    }

    /** An instance of {@code streams} streams on {@code devices} devices, as the class comment says, from {@code seed}. */
    public static HerdProblem instance(int streams, int devices, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int models = Math.max(2, streams / 10);
        StringBuilder json = new StringBuilder("{\"models\": [");
        double[] throughput = new double[models];
        for (int k = 0; k < models; k++) {
            if (k > 0) json.append(',');
            long memory = (2 + random.nextInt(7)) * 128 * MIB;
            json.append("{\"name\": \"model-").append(k).append("\", \"input\": {\"dtype\": \"FLOAT32\", \"shape\": [1]}, \"batch_sizes\": [1], ")
                    .append("\"latency_ms\": {\"table\": {\"1\": 1}}, \"memory_bytes\": ").append(memory).append('}');
            throughput[k] = 200 + random.nextDouble() * 1800;
        }
        ModelCatalog catalog = ModelCatalog.parse(json.append("]}").toString(), "generated");
        double[] zipf = new double[models];
        double total = 0;
        for (int k = 0; k < models; k++) total += zipf[k] = 1.0 / (k + 1);
        List<String> model = new ArrayList<>();
        List<Double> rate = new ArrayList<>();
        double need = 0;
        for (int i = 0; i < streams; i++) {
            double u = random.nextDouble() * total;
            int k = 0;
            while (k < models - 1 && (u -= zipf[k]) > 0) k++;
            double r = Math.exp(1.5 * gaussian(random));
            model.add("model-" + k);
            rate.add(r);
            need += r / throughput[k];
        }
        double scale = 0.7 * devices / need;
        List<RequestStream> list = new ArrayList<>();
        Map<String, Double> t = new HashMap<>();
        for (int i = 0; i < streams; i++) {
            list.add(RequestStream.of("stream-" + i, model.get(i), rate.get(i) * scale, 100, 1, null));
            t.put("stream-" + i, throughput[Integer.parseInt(model.get(i).substring("model-".length()))]);
        }
        return HerdProblem.of(list, catalog, devices, 16, 16 * 1024 * MIB, s -> t.get(s.name()));
    }

    private static double gaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
