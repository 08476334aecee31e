package io.kairos.testbed.bench;

import io.kairos.core.model.ModelSpec;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.testbed.experiment.Figures;
import io.kairos.testbed.experiment.ResultTable;
import io.kairos.testbed.profile.ThreadCpu;
import me.tongfei.progressbar.ProgressBar;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pipeline against the bare Kafka round trip over payload sizes, in one run on one broker: for
 * each size, the highest rate each sustains (a {@link RateSearch} of short trials each), and the
 * latency of both at half the pipeline's highest rate. Both paths carry records of the same sizes
 * (the bare round trip's are sized as the pipeline's encoded requests and results) and are judged
 * by the same rule, {@link #judge}.
 *
 * <p>Each search starts from a rate where the path is expected to hold: the bare round trip's
 * from the previous size's throughput in MB/s (the first from {@link #FIRST_START_BYTES_PER_S}),
 * the pipeline's from half the bare round trip's rate. Doubling from there bounds the first failed
 * trial to twice what the path holds, so the backlog it leaves is drained in about one trial.
 */
final class PayloadSweep {
    /** The first search's start: this many bytes of requests per second. */
    static final double FIRST_START_BYTES_PER_S = 8e6;
    /** No search tries more than this: the load generator's own limit is near. */
    static final double CEILING_PER_S = 1_000_000;
    /** A search stops when the lowest failed rate is within this of the highest held. */
    static final double PRECISION = 0.1;
    /** A failed trial is run once more at its rate before the search believes it (see {@link RateSearch}). */
    static final int RETRIES = 1;
    /** The share of a trial's length within which the backlog left at its end must clear. */
    static final double DRAIN_SHARE = 0.1;
    /** The existing definition's bound on the tail (see {@link PipelineRig.Phase#keptUp}). */
    static final long MAX_P99_MICROS = 1_000_000;

    static final List<String> COLUMNS = List.of("payload_kb", "model", "input", "request_bytes", "result_bytes",
            "bare_per_s", "bare_mb_per_s", "bare_limit_found", "pipeline_per_s", "pipeline_mb_per_s", "pipeline_limit_found", "mb_ratio",
            "half_rate_per_s", "bare_p50_ms", "bare_p99_ms", "pipeline_p50_ms", "pipeline_p99_ms", "p99_ratio",
            "bare_trials", "pipeline_trials", "seconds", "bare_cpu_us_per_request", "pipeline_cpu_us_per_request", "cpu_ratio",
            "pipeline_records_per_request_top", "pipeline_records_per_request_half", "report_delay_p50_ms", "report_delay_p99_ms");
    static final String CSV = "sweep.csv";

    private final EmbeddedKafkaBroker broker;
    private final PipelineRig pipeline;
    private final Duration trial;
    private final Duration trialWarmup;
    private final Duration latencyRun;
    private final int runs;
    private final int maxTrials;
    private final Duration drain = Duration.ofSeconds(3);
    private final Map<String, String> consumerProperties;
    private double fixedBytesPerSecond;
    /** CPU of the idle process, in cores, measured before the first size. */
    private double idleCores;
    private int topics;
    /** The highest rate the current search's pipeline trials held, and the records per request on the broker at it. */
    private double topHeld;
    private double recordsAtTopHeld;

    /**
     * @param trial      length of each trial of a search
     * @param latencyRun length of each latency run at half the pipeline's highest rate
     * @param runs       latency runs of each path per size (medians are reported)
     * @param maxTrials  the most trials of one search
     */
    PayloadSweep(EmbeddedKafkaBroker broker, PipelineRig pipeline, Duration trial, Duration latencyRun, int runs, int maxTrials) {
        this(broker, pipeline, trial, latencyRun, runs, maxTrials, Map.of());
    }

    /** With {@code consumerProperties} over the bare round trip's consumers' settings, as the pipeline's were given them. */
    PayloadSweep(EmbeddedKafkaBroker broker, PipelineRig pipeline, Duration trial, Duration latencyRun, int runs, int maxTrials,
                 Map<String, String> consumerProperties) {
        this.consumerProperties = Map.copyOf(consumerProperties);
        this.broker = broker;
        this.pipeline = pipeline;
        this.trial = trial;
        this.trialWarmup = trial.dividedBy(4);
        this.latencyRun = latencyRun;
        this.runs = runs;
        this.maxTrials = maxTrials;
    }

    /**
     * Instead of the rate searches, the latency runs of each size at this many bytes of requests
     * per second: both paths at one rate, so that two builds can be compared on their latency and
     * their CPU per request, which a machine shared with other work disturbs far less than it
     * does the highest sustained rate.
     */
    PayloadSweep atBytesPerSecond(double bytesPerSecond) {
        this.fixedBytesPerSecond = bytesPerSecond;
        return this;
    }

    /** What one payload size measured; latencies in microseconds, 0 where not measured. */
    record Row(double kilobytes, ModelSpec model, int requestBytes, int resultBytes, RateSearch.Result bare, RateSearch.Result pipeline,
               double halfRate, long bareP50, long bareP99, long pipelineP50, long pipelineP99, double seconds,
               double bareCpuMicros, double pipelineCpuMicros, double recordsAtTop, double recordsAtHalf, long reportDelayP50, long reportDelayP99) {

        double bareMegabytes() {
            return bare.sustainedPerSecond() * requestBytes / 1e6;
        }

        double pipelineMegabytes() {
            return pipeline.sustainedPerSecond() * requestBytes / 1e6;
        }

        /** The pipeline's sustained MB/s over the bare round trip's (the same as of requests/s: same records). */
        double megabytesRatio() {
            return bare.sustainedPerSecond() == 0 ? Double.NaN : pipeline.sustainedPerSecond() / bare.sustainedPerSecond();
        }

        /** The pipeline's CPU per request over the bare round trip's, each of the whole process but the sender and the JIT compiler. */
        double cpuRatio() {
            return bareCpuMicros == 0 || pipelineCpuMicros == 0 ? Double.NaN : pipelineCpuMicros / bareCpuMicros;
        }

        double p99Ratio() {
            return bareP99 == 0 || pipelineP99 == 0 ? Double.NaN : (double) pipelineP99 / bareP99;
        }

        List<String> csv() {
            return List.of(PayloadModels.trim(kilobytes), model.name(), model.input().dtype() + "[" + String.join("x", Arrays.stream(model.input().shape()).mapToObj(Long::toString).toList()) + "]", Integer.toString(requestBytes), Integer.toString(resultBytes),
                    f0(bare.sustainedPerSecond()), f2(bareMegabytes()), Boolean.toString(bare.limitFound()),
                    f0(pipeline.sustainedPerSecond()), f2(pipelineMegabytes()), Boolean.toString(pipeline.limitFound()), f3(megabytesRatio()),
                    f0(halfRate), ms(bareP50), ms(bareP99), ms(pipelineP50), ms(pipelineP99), f3(p99Ratio()),
                    trials(bare), trials(pipeline), f0(seconds), f1(bareCpuMicros), f1(pipelineCpuMicros), f3(cpuRatio()),
                    f3(recordsAtTop), f3(recordsAtHalf), ms(reportDelayP50), ms(reportDelayP99));
        }
    }

    /**
     * Whether a trial held, by one rule for both paths: every request came back (waiting for the
     * stragglers up to the drain), every measured one was served, the sender kept to its schedule
     * (sending took at most {@link #DRAIN_SHARE} of the trial longer than asked), the tail stayed
     * under {@link #MAX_P99_MICROS} (the benchmark's definition of keeping up), and no backlog was
     * growing: what was left when the sending stopped cleared within {@link #DRAIN_SHARE} of the
     * trial's length. Over a few seconds a backlog that grows slowly keeps the p99 short; the
     * time it takes to clear tells it.
     */
    static RateSearch.Outcome judge(double asked, long sent, long received, long notServed, long elapsedMicros, long trialMicros,
                                    long p99Micros, long drainMicros) {
        double achieved = elapsedMicros == 0 ? 0 : sent * 1e6 / elapsedMicros;
        long slack = Math.round(trialMicros * DRAIN_SHARE);
        if (received < sent) return RateSearch.Outcome.failed(asked, achieved, (sent - received) + " of " + sent + " not back");
        if (notServed > 0) return RateSearch.Outcome.failed(asked, achieved, notServed + " not served");
        if (elapsedMicros > trialMicros + slack) {
            return RateSearch.Outcome.failed(asked, achieved, String.format(Locale.ROOT, "sender behind (%.0f/s)", achieved));
        }
        if (p99Micros >= MAX_P99_MICROS) return RateSearch.Outcome.failed(asked, achieved, String.format(Locale.ROOT, "p99 %.0f ms", p99Micros / 1e3));
        if (drainMicros > slack) return RateSearch.Outcome.failed(asked, achieved, String.format(Locale.ROOT, "backlog cleared in %.0f ms", drainMicros / 1e3));
        return RateSearch.Outcome.held(asked, achieved);
    }

    /** Runs every size in turn; returns a row for each. */
    List<Row> run(List<Double> kilobytes, List<ModelSpec> models) throws Exception {
        List<Row> rows = new ArrayList<>();
        long steps = 2 + (long) models.size() * (2L * maxTrials + 2L * runs);
        try (ProgressBar bar = ProgressLine.bar("payload sweep", steps, s -> List.of())) {
            // One unmeasured trial of each path first: the JIT and the broker's first segments are not what is compared.
            ModelSpec first = models.get(0);
            double warmRate = clampStart(FIRST_START_BYTES_PER_S / 2 / KafkaRoundTrip.encodedRequestBytes(first));
            bar.setExtraMessage("warming up at " + f0(warmRate) + "/s");
            roundTrip(first, warmRate, trial).run();
            bar.step();
            pipeline.run(first.name(), warmRate, trial, trialWarmup, drain);
            bar.step();
            // What the process takes with nothing offered (the idle job's timers and polls, the broker's):
            // part of every figure of CPU per request below, and printed beside them.
            long idle0 = processCpuNanos(), idleT0 = System.nanoTime();
            Thread.sleep(3_000);
            idleCores = (processCpuNanos() - idle0) / (double) (System.nanoTime() - idleT0);
            double startBytesPerSecond = FIRST_START_BYTES_PER_S;
            for (int i = 0; i < models.size(); i++) {
                long t0 = System.nanoTime();
                ModelSpec m = models.get(i);
                int requestBytes = KafkaRoundTrip.encodedRequestBytes(m);
                int resultBytes = KafkaRoundTrip.encodedResultBytes(m);
                String size = PayloadModels.trim(kilobytes.get(i)) + " kB";
                pipeline.awaitServing(m.name());

                RateSearch.Result bare, pipe;
                double half;
                if (fixedBytesPerSecond > 0) {
                    bare = pipe = new RateSearch.Result(0, false, List.of());
                    half = fixedBytesPerSecond / requestBytes;
                    bar.stepBy(2L * maxTrials);
                } else {
                    double bareStart = clampStart(startBytesPerSecond / requestBytes);
                    bare = search(bareStart, rate -> bareTrial(m, rate), bar, size + " bare");
                    double pipelineStart = clampStart(bare.sustainedPerSecond() > 0 ? bare.sustainedPerSecond() / 2 : bareStart);
                    topHeld = 0;
                    recordsAtTopHeld = Double.NaN;
                    pipe = search(pipelineStart, rate -> pipelineTrial(m, rate), bar, size + " pipeline");
                    if (bare.sustainedPerSecond() > 0) startBytesPerSecond = bare.sustainedPerSecond() * requestBytes / 2;
                    half = pipe.sustainedPerSecond() / 2;
                }

                long[] bareP50 = new long[runs], bareP99 = new long[runs], pipeP50 = new long[runs], pipeP99 = new long[runs];
                double[] bareCpu = new double[runs], pipeCpu = new double[runs], records = new double[runs];
                long[] reportP50 = new long[runs], reportP99 = new long[runs];
                if (half > 0) {
                    for (int r = 0; r < runs; r++) {
                        long cpu0 = processCpuNanos();
                        KafkaRoundTrip.Result b = roundTrip(m, half, latencyRun).run();
                        bareCpu[r] = (processCpuNanos() - cpu0) / 1e3 / Math.max(1, b.sent());
                        bareP50[r] = b.p50Micros();
                        bareP99[r] = b.p99Micros();
                        bar.step();
                        cpu0 = processCpuNanos();
                        PipelineRig.Phase p = pipeline.run(m.name(), half, latencyRun, Duration.ofSeconds(2), drain, true);
                        pipeCpu[r] = (processCpuNanos() - cpu0) / 1e3 / Math.max(1, p.sent());
                        records[r] = p.recordsPerRequest();
                        reportP50[r] = p.reportDelays().p50Micros();
                        reportP99[r] = p.reportDelays().p99Micros();
                        pipeP50[r] = p.p50Micros();
                        pipeP99[r] = p.p99Micros();
                        bar.step();
                        bar.setExtraMessage(ProgressLine.extra(size + " at " + f0(half) + "/s", String.format(Locale.ROOT, "p99 bare %.1f ms, pipeline %.1f ms", b.p99Micros() / 1e3, p.p99Micros() / 1e3)));
                    }
                } else {
                    bar.stepBy(2L * runs);
                }
                Row row = new Row(kilobytes.get(i), m, requestBytes, resultBytes, bare, pipe, half,
                        half > 0 ? BenchCommand.median(bareP50) : 0, half > 0 ? BenchCommand.median(bareP99) : 0,
                        half > 0 ? BenchCommand.median(pipeP50) : 0, half > 0 ? BenchCommand.median(pipeP99) : 0, (System.nanoTime() - t0) / 1e9,
                        half > 0 ? median(bareCpu) : 0, half > 0 ? median(pipeCpu) : 0,
                        fixedBytesPerSecond > 0 ? Double.NaN : recordsAtTopHeld, half > 0 ? median(records) : Double.NaN,
                        half > 0 ? BenchCommand.median(reportP50) : 0, half > 0 ? BenchCommand.median(reportP99) : 0);
                rows.add(row);
            }
        }
        return rows;
    }

    /** The CPU the process took while idle, in cores (after {@link #run}). */
    double idleCores() {
        return idleCores;
    }

    /**
     * CPU time of this whole process but the calling thread and the JIT compiler: broker, job and
     * clients share the process, so a path's CPU per request is what it costs the machine, the
     * broker's share included. The calling thread is the sender of both paths, left out: its
     * pacer spins the last stretch before each send, which takes whatever CPU is free and says
     * nothing of the path.
     */
    private static long processCpuNanos() {
        long process = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        return process - java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - compilerCpuNanos();
    }

    /**
     * CPU time of the JIT compiler's threads ({@link ThreadCpu}; 0 where it cannot be read), also
     * left out: over runs of seconds the compiler is still at work on whatever code ran first,
     * up to a core on two, which says nothing of either path.
     */
    private static long compilerCpuNanos() {
        ThreadCpu cpu = ThreadCpu.read();
        return cpu == null ? 0 : Math.round(cpu.jit() * 1e9);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private RateSearch.Result search(double start, RateSearch.Trial trial, ProgressBar bar, String what) throws Exception {
        RateSearch search = new RateSearch(start, Math.max(start, CEILING_PER_S), maxTrials, PRECISION, RETRIES);
        RateSearch.Result r = search.search(rate -> {
            RateSearch.Outcome o = trial.run(rate);
            bar.step();
            bar.setExtraMessage(ProgressLine.extra(what, o.toString()));
            return o;
        });
        bar.stepBy(maxTrials - r.trials().size());
        return r;
    }

    private RateSearch.Outcome bareTrial(ModelSpec m, double rate) throws InterruptedException {
        KafkaRoundTrip.Result r = roundTrip(m, rate, trial).run();
        return judge(rate, r.sent(), r.received(), 0, r.elapsedMicros(), micros(trial), r.p99Micros(), r.drainMicros());
    }

    private RateSearch.Outcome pipelineTrial(ModelSpec m, double rate) throws InterruptedException {
        PipelineRig.Phase p = pipeline.run(m.name(), rate, trial, trialWarmup, drain);
        RateSearch.Outcome o = judge(rate, p.sent(), p.received(), p.measured().total() - p.measured().served(), p.elapsedMicros(), micros(trial), p.p99Micros(), p.drainMicros());
        if (o.held() && rate > topHeld) {
            topHeld = rate;
            recordsAtTopHeld = p.recordsPerRequest();
        }
        // What an overloaded trial left in the job would weigh on the next one.
        if (!o.held()) pipeline.settle(Duration.ofSeconds(1), Duration.ofSeconds(60));
        return o;
    }

    /** A round trip on topics of its own, so that what an earlier trial left behind is not in its way. */
    private KafkaRoundTrip roundTrip(ModelSpec m, double rate, Duration length) {
        int n = topics++;
        return new KafkaRoundTrip(broker.bootstrapServers(), "sweep-rt" + n + "-a", "sweep-rt" + n + "-b")
                .rate(rate).duration(length).warmup(length == trial ? trialWarmup : Duration.ofSeconds(2)).drainTimeout(drain)
                .recordSizesOf(m).consumerProperties(Map.copyOf(consumerProperties));
    }

    private static double clampStart(double rate) {
        return Math.max(10, Math.min(CEILING_PER_S, rate));
    }

    /** Prints the table of the rows and the serving path's targets ({@link #targets}), met or not. */
    static void print(List<Row> rows, PrintWriter out) {
        out.printf("%n%-8s %-14s %9s | %-21s | %-21s | %6s | %8s | %-15s | %-15s | %5s | %-21s%n", "payload", "model", "request B",
                "bare round trip", "pipeline", "MB", "at /s", "bare ms", "pipeline ms", "p99", "CPU us per request");
        out.printf("%-8s %-14s %9s | %10s %10s | %10s %10s | %6s | %8s | %7s %7s | %7s %7s | %5s | %6s %8s %5s%n", "kB", "", "",
                "req/s", "MB/s", "req/s", "MB/s", "ratio", "(half)", "p50", "p99", "p50", "p99", "ratio", "bare", "pipeline", "ratio");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-8s %-14s %9d | %10s %10.2f | %10s %10.2f | %6.2f | %8.0f | %7.2f %7.2f | %7.2f %7.2f | %5.2f | %6.1f %8.1f %5.2f%n",
                    PayloadModels.trim(r.kilobytes()), r.model().name(), r.requestBytes(),
                    rate(r.bare()), r.bareMegabytes(), rate(r.pipeline()), r.pipelineMegabytes(), r.megabytesRatio(),
                    r.halfRate(), r.bareP50() / 1e3, r.bareP99() / 1e3, r.pipelineP50() / 1e3, r.pipelineP99() / 1e3, r.p99Ratio(),
                    r.bareCpuMicros(), r.pipelineCpuMicros(), r.cpuRatio());
        }
        out.println("  (>= : the search's ceiling or trial budget ended it before a rate failed)");
        out.println();
        out.printf("%-8s | %-33s | %-29s%n", "payload", "pipeline's records per request", "device report delay ms (half)");
        out.printf("%-8s | %15s %17s | %14s %14s%n", "kB", "at its top rate", "at half the top", "p50", "p99");
        for (Row r : rows) {
            out.printf(Locale.ROOT, "%-8s | %15s %17s | %14s %14s%n", PayloadModels.trim(r.kilobytes()), f3(r.recordsAtTop()), f3(r.recordsAtHalf()),
                    ms(r.reportDelayP50()), ms(r.reportDelayP99()));
        }
        out.println("  (records: what the job's topics took on the broker over a run, per request sent; the bare round trip takes 2;"
                + " report delay: a batch's end on its device to its report read back from the broker)");
        for (Row r : rows) {
            out.printf("  %s kB trials, bare: %s%n", PayloadModels.trim(r.kilobytes()), String.join(", ", r.bare().trials().stream().map(RateSearch.Outcome::toString).toList()));
            out.printf("  %s kB trials, pipeline: %s%n", PayloadModels.trim(r.kilobytes()), String.join(", ", r.pipeline().trials().stream().map(RateSearch.Outcome::toString).toList()));
        }
        out.println();
        targets(rows).forEach(out::println);
    }

    /**
     * The standing targets of the serving path against the bare round trip, one line
     * each, with every size's figure: MET only where every size it applies to meets it.
     */
    static List<String> targets(List<Row> rows) {
        List<Row> mid = rows.stream().filter(r -> r.kilobytes() >= 10 && r.kilobytes() <= 200).toList();
        List<Row> small = rows.stream().filter(r -> r.kilobytes() < 1).toList();
        return List.of("targets of the serving path:",
                "  pipeline p50 <= the bare round trip's + 1 ms at half the pipeline's highest rate, every size: "
                        + verdict(rows, r -> r.bareP50() > 0 && r.pipelineP50() > 0 && r.pipelineP50() - r.bareP50() <= 1_000,
                                r -> String.format(Locale.ROOT, "%+.2f ms", (r.pipelineP50() - r.bareP50()) / 1e3)),
                "  pipeline p99 <= 1.5x the bare round trip's there, every size: " + verdict(rows, r -> r.p99Ratio() <= 1.5, r -> f2(r.p99Ratio())),
                "    stretch, <= 1.2x: " + verdict(rows, r -> r.p99Ratio() <= 1.2, r -> f2(r.p99Ratio())),
                "  small requests >= 0.5x the bare round trip's sustained rate: "
                        + verdict(small, r -> r.megabytesRatio() >= 0.5, r -> rate(r.pipeline()) + "/s, " + ratioText(r) + "x"),
                "    stretch, >= 0.7x: " + verdict(small, r -> r.megabytesRatio() >= 0.7, r -> ratioText(r) + "x"),
                "  pipeline >= 0.7x the bare round trip's sustained MB/s at 12 and 150 kB: "
                        + verdict(mid, r -> r.megabytesRatio() >= 0.7, PayloadSweep::ratioText));
    }

    private static String verdict(List<Row> rows, java.util.function.Predicate<Row> met, java.util.function.Function<Row, String> value) {
        if (rows.isEmpty()) return "not measured (no such size in the sweep)";
        boolean all = rows.stream().allMatch(met);
        StringBuilder s = new StringBuilder(all ? "MET" : "NOT MET").append(" (");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            s.append(i == 0 ? "" : ", ").append(PayloadModels.trim(r.kilobytes())).append(" kB: ").append(value.apply(r));
        }
        return s.append(')').toString();
    }

    /** Writes {@value #CSV}, one row per size, and two figures: sustained MB/s and p99 per size, of both paths. */
    static List<Path> write(List<Row> rows, Path dir) throws IOException {
        Files.createDirectories(dir);
        ResultTable table = new ResultTable(COLUMNS);
        for (Row r : rows) table.add(r.csv());
        Path csv = dir.resolve(CSV);
        table.write(csv);
        ResultTable byPath = new ResultTable(List.of("payload_kb", "path", "per_s", "mb_per_s", "p99_ms"));
        for (Row r : rows) {
            byPath.add(List.of(PayloadModels.trim(r.kilobytes()), "bare Kafka round trip", f0(r.bare().sustainedPerSecond()), f2(r.bareMegabytes()), ms(r.bareP99())));
            byPath.add(List.of(PayloadModels.trim(r.kilobytes()), "Kairos pipeline", f0(r.pipeline().sustainedPerSecond()), f2(r.pipelineMegabytes()), ms(r.pipelineP99())));
        }
        List<Path> files = new ArrayList<>(List.of(csv));
        boolean logX = rows.stream().mapToDouble(Row::kilobytes).distinct().count() > 1;
        Figures.Plot mb = Figures.lines("payload_kb", "mb_per_s").series("path").xAxis("payload kB").yAxis("sustained MB/s of requests", 0.0, null)
                .title("Highest sustained MB/s of requests: pipeline and bare Kafka round trip");
        Figures.Plot p99 = Figures.lines("payload_kb", "p99_ms").series("path").xAxis("payload kB").yAxis("p99 ms at half the pipeline's highest rate", 0.0, null)
                .title("p99 at half the pipeline's highest rate: pipeline and bare Kafka round trip");
        if (logX) {
            mb.logX();
            p99.logX();
        } else {
            mb.numericX();
            p99.numericX();
        }
        files.add(mb.save(byPath, dir.resolve("throughput.png")));
        files.add(p99.save(byPath, dir.resolve("p99.png")));
        return files;
    }

    /**
     * The throughput ratio, marked as a bound where a search ended before a rate failed: at most
     * this when the bare round trip's limit was not found, at least this when the pipeline's was not.
     */
    private static String ratioText(Row r) {
        String bound = !r.bare().limitFound() && r.pipeline().limitFound() ? "<="
                : r.bare().limitFound() && !r.pipeline().limitFound() ? ">=" : !r.bare().limitFound() ? "~" : "";
        return bound + f2(r.megabytesRatio());
    }

    private static String rate(RateSearch.Result r) {
        return (r.limitFound() || r.sustainedPerSecond() == 0 ? "" : ">=") + f0(r.sustainedPerSecond());
    }

    private static String trials(RateSearch.Result r) {
        return String.join(" ", r.trials().stream().map(t -> f0(t.askedPerSecond()) + (t.held() ? "+" : "-")).toList());
    }

    private static long micros(Duration d) {
        return d.toNanos() / 1_000;
    }

    private static String f0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String f3(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String ms(long micros) {
        return micros == 0 ? "" : String.format(Locale.ROOT, "%.2f", micros / 1e3);
    }
}
