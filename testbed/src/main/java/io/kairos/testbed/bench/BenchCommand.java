package io.kairos.testbed.bench;

import io.kairos.jobs.options.BufferTimeoutOption;
import io.kairos.jobs.options.ReportCoalescingOptions;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import io.kairos.jobs.options.ConfigFlags;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.kairos.core.model.ModelSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench pipeline}: the serving pipeline against a bare Kafka round trip on the same broker,
 * in the same process. With zero-latency simulated devices it measures (1) the added latency at a
 * given rate, pipeline p50/p99 beside the round trip's, over several runs, and (2) the highest
 * offered rate the pipeline keeps up with. With {@code --compare-delivery} it measures instead what
 * exactly-once delivery costs: the pipeline's latency (send to a {@code read_committed} receive)
 * at-least-once against exactly-once at several checkpoint intervals. With {@code --sweep-kb} it
 * runs a {@link PayloadSweep} instead: both paths' highest sustained rates and latencies over
 * request sizes.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Pipeline benchmark: latency against a bare Kafka round trip, and the highest sustained rate.")
public class BenchCommand implements Callable<Integer> {

    @Option(names = "--rate", description = "Requests/s of the latency runs (default: ${DEFAULT-VALUE}).")
    double rate = 5_000;

    @Option(names = "--duration", description = "Seconds per run (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 15;

    @Option(names = "--runs", description = "Latency runs; medians are reported (default: ${DEFAULT-VALUE}).")
    int runs = 3;

    @Option(names = "--rates", split = ",", description = "Offered rates of the throughput search (default: ${DEFAULT-VALUE}).")
    double[] rates = {10_000, 20_000, 30_000, 40_000, 50_000};

    /** Zero-latency simulated devices. */
    @CommandLine.Mixin
    DevicesOption devices = new DevicesOption(2);

    @Option(names = "--model", description = "Model whose input the requests carry (default: ${DEFAULT-VALUE}).")
    String model = "mlp";

    @CommandLine.Mixin
    BufferTimeoutOption bufferTimeout = new BufferTimeoutOption();

    @CommandLine.Mixin
    ReportCoalescingOptions coalescing = new ReportCoalescingOptions();

    @Option(names = "--skip-throughput", description = "Only the latency runs.")
    boolean skipThroughput;

    @Option(names = "--delivery", description = "The pipeline's delivery of results: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ServingConfig.Delivery delivery = ServingConfig.DEFAULTS.delivery;

    @Option(names = "--checkpoint-interval-ms", paramLabel = "MS", description = "The pipeline's checkpoint interval (default: ${DEFAULT-VALUE}).")
    long checkpointIntervalMs = ServingConfig.DEFAULTS.checkpointIntervalMs;

    @Option(names = "--compare-delivery", description = "Instead: latency at least once (at --checkpoint-interval-ms) against exactly once at each of --exactly-once-intervals-ms.")
    boolean compareDelivery;

    @Option(names = "--exactly-once-intervals-ms", paramLabel = "MS", split = ",",
            description = "Checkpoint intervals of the exactly-once runs of --compare-delivery (default: ${DEFAULT-VALUE}).")
    long[] exactlyOnceIntervalsMs = {100, 1_000, 10_000};

    @Option(names = "--pipeline-hops", description = "Instead: the latency one pipeline hop adds: a 2-stage pipeline of two 0.5 ms models against single requests of one 1 ms model, "
            + "interleaved at --rate each on simulated devices, --runs runs of --duration s (medians).")
    boolean pipelineHops;

    @Option(names = "--hop-warmup-s", paramLabel = "S",
            description = "With --pipeline-hops: seconds of both kinds of requests, not measured, before the first run; the JIT is still compiling "
                    + "the job's path for tens of seconds (default: --duration).")
    Integer hopWarmupSeconds;

    @Option(names = "--sweep-kb", paramLabel = "KB", split = ",",
            description = "Instead: a payload sweep over these request sizes in kB (e.g. 0.3,12,150,600): for each, the highest sustained rate of the pipeline "
                    + "and of the bare round trip (requests/s and MB/s), and both latencies at half the pipeline's highest rate (--runs runs of --duration s).")
    double[] sweepKilobytes;

    @Option(names = "--groups", paramLabel = "N", split = ",",
            description = "Instead: the highest sustained rate against the number of serving groups (e.g. 1,2,4,8): for each, a job whose "
                    + "--devices (zero-latency) are split into that many equal groups, each serving an instance of mlp, its scheduler on as many "
                    + "subtasks (or --scheduler-parallelism), the load spread evenly; a rate search of --trial-seconds trials each.")
    int[] groups;

    @Option(names = "--scheduler-parallelism", paramLabel = "N",
            description = "With --groups: the group scheduler's subtasks at every count (default: as many as groups).")
    int schedulerParallelism;

    @Option(names = "--trial-seconds", paramLabel = "S", description = "Seconds per trial of the sweep's rate searches (default: ${DEFAULT-VALUE}).")
    int trialSeconds = 4;

    @Option(names = "--search-trials", paramLabel = "N", description = "The most trials of each rate search of the sweep, a failed one tried again included (default: ${DEFAULT-VALUE}).")
    int searchTrials = 12;

    @Option(names = "--at-mb-per-s", paramLabel = "MB",
            description = "With --sweep-kb: no rate searches; the latency runs of each size at this many MB/s of requests, with both paths' CPU per request.")
    double atMegabytesPerSecond;

    @Option(names = "--consumer-property", paramLabel = "KEY=VALUE",
            description = "A Kafka consumer setting for every consumer of the sweep, the pipeline's and the bare round trip's alike (e.g. max.partition.fetch.bytes=16777216).")
    Map<String, String> consumerProperties = new java.util.LinkedHashMap<>();

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder of the sweep's sweep.csv and figures (default: testbed/experiments/bench-sweep in the checkout).")
    Path out;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ModelCatalog catalog = ModelCatalog.builtIn();
        if (!catalog.contains(model)) throw new CommandLine.ParameterException(spec.commandLine(), "--model '" + model + "' is not in the built-in catalog " + catalog.names());
        devices.checkCount(spec.commandLine());
        if (runs < 1 || durationSeconds < 3 || rate <= 0) throw new CommandLine.ParameterException(spec.commandLine(), "--runs must be >= 1, --duration >= 3, --rate > 0");
        if (checkpointIntervalMs < 0) throw new CommandLine.ParameterException(spec.commandLine(), "--checkpoint-interval-ms must not be negative, got " + checkpointIntervalMs);
        if (delivery == ServingConfig.Delivery.EXACTLY_ONCE && checkpointIntervalMs == 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--delivery EXACTLY_ONCE needs checkpoints (--checkpoint-interval-ms > 0)");
        }
        for (long ms : exactlyOnceIntervalsMs) {
            if (ms < 10) throw new CommandLine.ParameterException(spec.commandLine(), "--exactly-once-intervals-ms must each be at least 10 ms, got " + ms);
        }
        ServingConfig.Builder checked = ServingConfig.builder();
        coalescing.applyTo(checked, spec.commandLine());
        ConfigFlags.build(checked, spec.commandLine()); // checks the options before anything starts
        Duration duration = Duration.ofSeconds(durationSeconds);
        Duration warmup = Duration.ofSeconds(2);
        Duration drain = Duration.ofSeconds(3);
        if (pipelineHops) return pipelineHops(out, duration);
        if (groups != null) return groupScaling(out);
        if (sweepKilobytes != null) return sweep(out, checkSweep());
        if (compareDelivery) return compareDelivery(out, catalog, duration, warmup);
        out.printf("pipeline benchmark: %s requests (%d B input), %d zero-latency devices, buffer timeout %d ms (after the source %d ms), %d cores%n",
                model, catalog.get(model).input().byteSize(), devices.count(), bufferTimeout.bufferTimeoutMs, bufferTimeout.sourceBufferTimeoutMs, Runtime.getRuntime().availableProcessors());
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
             PipelineRig pipeline = new PipelineRig(broker, "bench", devices.count(), ModelCatalog.builtIn(), model, bufferTimeout.bufferTimeoutMs, delivery,
                     checkpointIntervalMs, Map.of(), this::configure)) {
            // One unmeasured phase of each first: the JIT, the broker's first segments and the job's
            // first checkpoints are not what is being compared.
            out.println("warming up (" + 2 * durationSeconds + " s, not measured) ...");
            new KafkaRoundTrip(broker.bootstrapServers(), "rt-warm-a", "rt-warm-b")
                    .rate(rate).duration(duration).warmup(warmup).recordSizesOf(catalog.get(model)).run();
            pipeline.run(rate, duration, warmup, drain);
            long[] bareP50 = new long[runs], bareP99 = new long[runs], pipeP50 = new long[runs], pipeP99 = new long[runs];
            long[] reportP50 = new long[runs], reportP99 = new long[runs];
            double[] records = new double[runs];
            try (ProgressBar bar = bar("latency runs", runs * 2L)) {
                for (int i = 0; i < runs; i++) {
                    KafkaRoundTrip.Result bare = new KafkaRoundTrip(broker.bootstrapServers(), "rt" + i + "-a", "rt" + i + "-b")
                            .rate(rate).duration(duration).warmup(warmup).recordSizesOf(catalog.get(model)).run();
                    bareP50[i] = bare.p50Micros();
                    bareP99[i] = bare.p99Micros();
                    bar.step();
                    PipelineRig.Phase p = pipeline.run(model, rate, duration, warmup, drain, true);
                    pipeP50[i] = p.p50Micros();
                    pipeP99[i] = p.p99Micros();
                    records[i] = p.recordsPerRequest();
                    reportP50[i] = p.reportDelays().p50Micros();
                    reportP99[i] = p.reportDelays().p99Micros();
                    bar.step();
                    bar.setExtraMessage(String.format("run %d: bare p99 %.1f ms, pipeline p99 %.1f ms", i + 1, bare.p99Micros() / 1e3, p.p99Micros() / 1e3));
                }
            }
            out.printf("%nlatency at %.0f requests/s, %d runs of %d s (medians; per run in brackets)%n", rate, runs, durationSeconds);
            out.printf("  bare Kafka round trip   p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(bareP50) / 1e3, ms(bareP50), median(bareP99) / 1e3, ms(bareP99));
            out.printf("  Kairos pipeline         p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(pipeP50) / 1e3, ms(pipeP50), median(pipeP99) / 1e3, ms(pipeP99));
            out.printf("  ratio pipeline / bare   p50 %7.2f                p99 %7.2f%n", (double) median(pipeP50) / median(bareP50), (double) median(pipeP99) / median(bareP99));
            out.printf(Locale.ROOT, "  pipeline's records per request on the broker %.3f %s (bare round trip: 2); device reports gathered over %s ms, at most %d a record%n",
                    median(records), records3(records), coalescing.intervalMs == 0 ? "0 (off)" : PayloadModels.trim(coalescing.intervalMs), coalescing.maxBatches);
            out.printf("  device report delay (batch end to report read back)  p50 %7.2f ms %s   p99 %7.2f ms %s%n",
                    median(reportP50) / 1e3, ms2(reportP50), median(reportP99) / 1e3, ms2(reportP99));

            if (!skipThroughput) {
                out.printf("%nsustained rate (a rate is kept up with when every request comes back and p99 stays under 1 s)%n");
                out.printf("  %10s %10s %10s %10s %10s %8s %10s%n", "offered/s", "achieved/s", "sent", "received", "p99 ms", "kept up", "records/req");
                double best = 0;
                List<String> lines = new ArrayList<>();
                try (ProgressBar bar = bar("rate search", rates.length)) {
                    for (double r : rates) {
                        PipelineRig.Phase p = pipeline.run(r, duration, warmup, drain);
                        bar.step();
                        lines.add(String.format(Locale.ROOT, "  %10.0f %10.0f %10d %10d %10.1f %8s %10.3f", r, p.offeredPerSecond(), p.sent(), p.received(), p.p99Micros() / 1e3, p.keptUp() ? "yes" : "no", p.recordsPerRequest()));
                        if (p.keptUp()) best = Math.max(best, p.offeredPerSecond());
                        else break;
                    }
                }
                lines.forEach(out::println);
                out.printf("  highest sustained rate: %.0f requests/s%n", best);
            }
        }
        return 0;
    }

    /** {@code --groups}: the highest sustained rate at each number of groups, in a table. */
    private int groupScaling(PrintWriter out) throws Exception {
        int n = devices.count();
        for (int g : groups) {
            if (g < 1 || n % g != 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--groups " + g + ": each count must divide --devices (" + n + ") into equal groups");
            }
        }
        if (schedulerParallelism < 0) throw new CommandLine.ParameterException(spec.commandLine(), "--scheduler-parallelism must not be negative, got " + schedulerParallelism);
        if (trialSeconds < 2) throw new CommandLine.ParameterException(spec.commandLine(), "--trial-seconds must be at least 2, got " + trialSeconds);
        out.printf(Locale.ROOT, "group scaling: %d zero-latency devices, buffer timeout %d ms, %d cores; searches of at most %d trials of %d s%n",
                n, bufferTimeout.bufferTimeoutMs, Runtime.getRuntime().availableProcessors(), searchTrials, trialSeconds);
        out.flush();
        List<GroupScaling.Row> rows = new GroupScaling(n, bufferTimeout.bufferTimeoutMs, Duration.ofSeconds(trialSeconds), searchTrials)
                .run(java.util.Arrays.stream(groups).boxed().toList(), schedulerParallelism);
        double one = rows.get(0).search().sustainedPerSecond();
        out.printf(Locale.ROOT, "%n%-7s %-19s %-12s %-8s %s%n", "groups", "scheduler subtasks", "sustained/s", "vs first", "trials");
        for (GroupScaling.Row r : rows) {
            double top = r.search().sustainedPerSecond();
            out.printf(Locale.ROOT, "%-7d %-19d %-12s %-8s %s%n", r.groups(), r.schedulerSubtasks(),
                    String.format(Locale.ROOT, "%,.0f%s", top, r.search().limitFound() ? "" : "+"),
                    one > 0 ? String.format(Locale.ROOT, "%.2fx", top / one) : "-",
                    String.join("; ", r.search().trials().stream().map(Object::toString).toList()));
        }
        out.println("(+: the ceiling held, no limit found)");
        return 0;
    }

    /** {@code --pipeline-hops}: the pipeline against single requests of the same work, per run and in medians. */
    private int pipelineHops(PrintWriter out, Duration duration) throws Exception {
        out.printf("pipeline hop benchmark: %d simulated devices, buffer timeout %d ms, %.0f requests/s of each kind, %d cores%n",
                devices.count(), bufferTimeout.bufferTimeoutMs, rate, Runtime.getRuntime().availableProcessors());
        if (hopWarmupSeconds != null && hopWarmupSeconds < 0) throw new CommandLine.ParameterException(spec.commandLine(), "--hop-warmup-s must not be negative, got " + hopWarmupSeconds);
        Duration warmup = hopWarmupSeconds == null ? duration : Duration.ofSeconds(hopWarmupSeconds);
        List<PipelineHopBench.Run> runs = new PipelineHopBench(devices.count(), bufferTimeout.bufferTimeoutMs).run(out, rate, warmup, duration, this.runs);
        long[] pipeP50 = runs.stream().mapToLong(PipelineHopBench.Run::pipelineP50).toArray();
        long[] pipeP99 = runs.stream().mapToLong(PipelineHopBench.Run::pipelineP99).toArray();
        long[] singleP50 = runs.stream().mapToLong(PipelineHopBench.Run::singleP50).toArray();
        long[] singleP99 = runs.stream().mapToLong(PipelineHopBench.Run::singleP99).toArray();
        long[] hopP50 = runs.stream().mapToLong(PipelineHopBench.Run::hopP50).toArray();
        long[] hopP99 = runs.stream().mapToLong(PipelineHopBench.Run::hopP99).toArray();
        long[] bareP50 = runs.stream().mapToLong(PipelineHopBench.Run::bareP50).toArray();
        long[] bareP99 = runs.stream().mapToLong(PipelineHopBench.Run::bareP99).toArray();
        long[] addedP50 = new long[runs.size()], addedP99 = new long[runs.size()];
        for (int i = 0; i < runs.size(); i++) {
            addedP50[i] = pipeP50[i] - singleP50[i];
            addedP99[i] = pipeP99[i] - singleP99[i];
            out.printf("  run %d: %d pipeline and %d single results%n", i + 1, runs.get(i).pipelineResults(), runs.get(i).singleResults());
        }
        out.printf("%nlatency from send to receipt, %d runs of %d s (medians; per run in brackets)%n", this.runs, durationSeconds);
        out.printf("  single request (whole, 1 ms)        p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(singleP50) / 1e3, ms2(singleP50), median(singleP99) / 1e3, ms2(singleP99));
        out.printf("  2-stage pipeline (half, half)       p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(pipeP50) / 1e3, ms2(pipeP50), median(pipeP99) / 1e3, ms2(pipeP99));
        out.printf("  added by the hop (pipeline - single) p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(addedP50) / 1e3, ms2(addedP50), median(addedP99) / 1e3, ms2(addedP99));
        out.printf("  hop transit (2nd ingested - 1st result) p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(hopP50) / 1e3, ms2(hopP50), median(hopP99) / 1e3, ms2(hopP99));
        out.printf("  bare Kafka round trip (two hops)     p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(bareP50) / 1e3, ms2(bareP50), median(bareP99) / 1e3, ms2(bareP99));
        return 0;
    }

    /** The sweep's sizes as models, or a usage error naming the option. */
    private PayloadModels checkSweep() {
        CommandLine cl = spec.commandLine();
        if (compareDelivery) throw new CommandLine.ParameterException(cl, "--sweep-kb and --compare-delivery are two benchmarks; choose one");
        if (sweepKilobytes.length == 0) throw new CommandLine.ParameterException(cl, "--sweep-kb needs at least one size in kB");
        if (trialSeconds < 2) throw new CommandLine.ParameterException(cl, "--trial-seconds must be at least 2, got " + trialSeconds);
        if (atMegabytesPerSecond < 0) throw new CommandLine.ParameterException(cl, "--at-mb-per-s must not be negative, got " + atMegabytesPerSecond);
        if (searchTrials < 2) throw new CommandLine.ParameterException(cl, "--search-trials must be at least 2, got " + searchTrials);
        for (String key : consumerProperties.keySet()) {
            if (!org.apache.kafka.clients.consumer.ConsumerConfig.configNames().contains(key)) {
                throw new CommandLine.ParameterException(cl, "--consumer-property: '" + key + "' is not a Kafka consumer setting");
            }
        }
        if (out != null && Files.exists(out) && !Files.isDirectory(out)) throw new CommandLine.ParameterException(cl, "--out: " + out + " is not a folder");
        try {
            return PayloadModels.forKilobytes(sweepKilobytes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--sweep-kb: " + e.getMessage());
        }
    }

    /** Broker settings for the sweep: big records at high rates fill the disk unless old segments go. */
    static final Map<String, String> SWEEP_BROKER = Map.of(
            "log.segment.bytes", Integer.toString(64 << 20),
            "log.retention.ms", "60000",
            "log.retention.check.interval.ms", "5000");

    private int sweep(PrintWriter w, PayloadModels payloads) throws Exception {
        long t0 = System.nanoTime();
        Path dir = out != null ? out : Path.of(System.getProperty("kairos.home", "")).resolve("testbed").resolve("experiments").resolve("bench-sweep");
        List<ModelSpec> models = payloads.models();
        List<Double> sizes = Arrays.stream(sweepKilobytes).boxed().toList();
        w.printf(Locale.ROOT, "device reports and telemetry gathered over %s ms, at most %d a record%n",
                coalescing.intervalMs == 0 ? "0 (off: a record of each per batch)" : PayloadModels.trim(coalescing.intervalMs), coalescing.maxBatches);
        w.printf(Locale.ROOT, "payload sweep: %d zero-latency devices, buffer timeout %d ms, %s; searches of at most %d trials of %d s; latency: %d runs of %d s at half the pipeline's highest rate%n",
                devices.count(), bufferTimeout.bufferTimeoutMs, delivery, searchTrials, trialSeconds, runs, durationSeconds);
        if (!consumerProperties.isEmpty()) w.println("consumer settings of both paths: " + consumerProperties);
        w.printf(Locale.ROOT, "%d cores, max heap %d MB, load average %.2f%n", Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        for (int i = 0; i < models.size(); i++) {
            ModelSpec m = models.get(i);
            w.printf(Locale.ROOT, "  %s kB: %s, input %s (%,d B), request records %,d B, results %,d B%n", PayloadModels.trim(sweepKilobytes[i]), m.name(), m.input(),
                    m.input().byteSize(), KafkaRoundTrip.encodedRequestBytes(m), KafkaRoundTrip.encodedResultBytes(m));
        }
        w.print("starting Kafka broker and Flink mini-cluster ... ");
        w.flush();
        List<PayloadSweep.Row> rows;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(SWEEP_BROKER);
             PipelineRig pipeline = new PipelineRig(broker, "sweep", devices.count(), payloads.catalog(), models.get(0).name(),
                     bufferTimeout.bufferTimeoutMs, delivery, checkpointIntervalMs, consumerProperties, this::configure)) {
            w.println("done");
            w.flush();
            PayloadSweep sweep = new PayloadSweep(broker, pipeline, Duration.ofSeconds(trialSeconds), Duration.ofSeconds(durationSeconds), runs, searchTrials, consumerProperties)
                    .atBytesPerSecond(atMegabytesPerSecond * 1e6);
            rows = sweep.run(sizes, models);
            w.printf(Locale.ROOT, "%nidle, the job started and nothing offered, the process took %.3f cores (all threads but the sender's)%n", sweep.idleCores());
        }
        PayloadSweep.print(rows, w);
        List<Path> files = PayloadSweep.write(rows, dir);
        w.printf(Locale.ROOT, "%nwrote %s%ntotal wall time %.0f s%n", String.join(", ", files.stream().map(Path::toString).toList()), (System.nanoTime() - t0) / 1e9);
        return 0;
    }

    /**
     * At least once against exactly once at each interval, each a pipeline of its own on one broker,
     * all started first and warmed up with one unmeasured run each; then the measured runs go
     * round the pipelines in turn, so that a machine whose load changes over time (other work on
     * it) weighs on each alike. Results arrive at a {@code read_committed} consumer: under
     * exactly-once, when the checkpoint after them completes.
     */
    private int compareDelivery(PrintWriter out, ModelCatalog catalog, Duration duration, Duration warmup) throws Exception {
        out.printf("delivery benchmark: %s requests at %.0f/s, %d zero-latency devices, buffer timeout %d ms, %d runs of %d s, %d cores%n",
                model, rate, devices.count(), bufferTimeout.bufferTimeoutMs, runs, durationSeconds, Runtime.getRuntime().availableProcessors());
        List<ServingConfig.Delivery> deliveries = new ArrayList<>();
        List<Long> intervals = new ArrayList<>();
        deliveries.add(ServingConfig.Delivery.AT_LEAST_ONCE);
        intervals.add(checkpointIntervalMs);
        for (long ms : exactlyOnceIntervalsMs) {
            deliveries.add(ServingConfig.Delivery.EXACTLY_ONCE);
            intervals.add(ms);
        }
        int n = deliveries.size();
        long[][] p50 = new long[n][runs], p99 = new long[n][runs];
        long[] sent = new long[n], received = new long[n];
        List<PipelineRig> pipelines = new ArrayList<>();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
             ProgressBar bar = bar("delivery runs", n * (runs + 1L))) {
            try {
                for (int k = 0; k < n; k++) {
                    String name = "bench-" + (deliveries.get(k) == ServingConfig.Delivery.AT_LEAST_ONCE ? "alo-" : "eo-") + intervals.get(k);
                    PipelineRig pipeline = new PipelineRig(broker, name, devices.count(), model, bufferTimeout.bufferTimeoutMs, deliveries.get(k), intervals.get(k));
                    pipelines.add(pipeline);
                    pipeline.run(rate, duration, warmup, drain(intervals.get(k)));
                    bar.step();
                }
                for (int i = 0; i < runs; i++) {
                    for (int k = 0; k < n; k++) {
                        PipelineRig.Phase p = pipelines.get(k).run(rate, duration, warmup, drain(intervals.get(k)));
                        p50[k][i] = p.p50Micros();
                        p99[k][i] = p.p99Micros();
                        sent[k] += p.sent();
                        received[k] += p.received();
                        bar.step();
                        bar.setExtraMessage(String.format("run %d, %s every %d ms: p99 %.1f ms", i + 1, deliveries.get(k), intervals.get(k), p.p99Micros() / 1e3));
                    }
                }
            } finally {
                for (PipelineRig p : pipelines) p.close();
            }
        }
        out.printf("%nlatency from send to a read_committed receive (medians of the runs; per run in brackets)%n");
        out.printf("  %-14s %13s %9s %-24s %9s %-24s %9s %9s%n", "delivery", "checkpoint ms", "p50 ms", "", "p99 ms", "", "sent", "received");
        for (int k = 0; k < n; k++) {
            out.printf("  %-14s %13d %9.2f %-24s %9.2f %-24s %9d %9d%n", deliveries.get(k) == ServingConfig.Delivery.AT_LEAST_ONCE ? "at least once" : "exactly once",
                    intervals.get(k), median(p50[k]) / 1e3, ms(p50[k]), median(p99[k]) / 1e3, ms(p99[k]), sent[k], received[k]);
        }
        return 0;
    }

    /** Results come in bursts a checkpoint apart under exactly-once: wait longer than that before calling a run over. */
    private static Duration drain(long checkpointIntervalMs) {
        return Duration.ofMillis(Math.max(3_000, 2 * checkpointIntervalMs + 2_000));
    }

    private static ProgressBar bar(String task, long steps) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(steps).setStyle(ProgressBarStyle.ASCII).build();
    }

    static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The job's settings from this command's options over the rig's. */
    private void configure(ServingConfig.Builder config) {
        bufferTimeout.applyTo(config);
        coalescing.applyTo(config, spec.commandLine());
    }

    private static String records3(double[] values) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) s.append(i == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.3f", values[i]));
        return s.append(']').toString();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String ms(long[] micros) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < micros.length; i++) s.append(i == 0 ? "" : " ").append(String.format("%.1f", micros[i] / 1e3));
        return s.append(']').toString();
    }

    /** Milliseconds to two decimals, per run: a hop's cost is below a millisecond. */
    private static String ms2(long[] micros) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < micros.length; i++) s.append(i == 0 ? "" : " ").append(String.format(java.util.Locale.ROOT, "%.2f", micros[i] / 1e3));
        return s.append(']').toString();
    }
}
