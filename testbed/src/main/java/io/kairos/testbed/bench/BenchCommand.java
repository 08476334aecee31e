package io.kairos.testbed.bench;

import io.kairos.jobs.options.BufferTimeoutOption;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.core.model.ModelCatalog;
import io.kairos.testbed.embedded.EmbeddedKafkaBroker;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench pipeline}: the serving pipeline against a bare Kafka round trip on the same broker,
 * in the same process. With zero-latency simulated devices it measures (1) the added latency at a
 * given rate, pipeline p50/p99 beside the round trip's, over several runs, and (2) the highest
 * offered rate the pipeline keeps up with.
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

    @Option(names = "--skip-throughput", description = "Only the latency runs.")
    boolean skipThroughput;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ModelCatalog catalog = ModelCatalog.builtIn();
        if (!catalog.contains(model)) throw new CommandLine.ParameterException(spec.commandLine(), "--model '" + model + "' is not in the built-in catalog " + catalog.names());
        devices.check(spec.commandLine());
        if (runs < 1 || durationSeconds < 3 || rate <= 0) throw new CommandLine.ParameterException(spec.commandLine(), "--runs must be >= 1, --duration >= 3, --rate > 0");
        Duration duration = Duration.ofSeconds(durationSeconds);
        Duration warmup = Duration.ofSeconds(2);
        Duration drain = Duration.ofSeconds(3);
        out.printf("pipeline benchmark: %s requests (%d B input), %d zero-latency devices, buffer timeout %d ms, %d cores%n",
                model, catalog.get(model).input().byteSize(), devices.devices, bufferTimeout.bufferTimeoutMs, Runtime.getRuntime().availableProcessors());
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start();
             PipelineRig pipeline = new PipelineRig(broker, "bench", devices.devices, model, bufferTimeout.bufferTimeoutMs)) {
            // One unmeasured phase of each first: the JIT, the broker's first segments and the job's
            // first checkpoints are not what is being compared.
            out.println("warming up (" + 2 * durationSeconds + " s, not measured) ...");
            new KafkaRoundTrip(broker.bootstrapServers(), "rt-warm-a", "rt-warm-b")
                    .rate(rate).duration(duration).warmup(warmup).recordSizesOf(catalog.get(model)).run();
            pipeline.run(rate, duration, warmup, drain);
            long[] bareP50 = new long[runs], bareP99 = new long[runs], pipeP50 = new long[runs], pipeP99 = new long[runs];
            try (ProgressBar bar = bar("latency runs", runs * 2L)) {
                for (int i = 0; i < runs; i++) {
                    KafkaRoundTrip.Result bare = new KafkaRoundTrip(broker.bootstrapServers(), "rt" + i + "-a", "rt" + i + "-b")
                            .rate(rate).duration(duration).warmup(warmup).recordSizesOf(catalog.get(model)).run();
                    bareP50[i] = bare.p50Micros();
                    bareP99[i] = bare.p99Micros();
                    bar.step();
                    PipelineRig.Phase p = pipeline.run(rate, duration, warmup, drain);
                    pipeP50[i] = p.p50Micros();
                    pipeP99[i] = p.p99Micros();
                    bar.step();
                    bar.setExtraMessage(String.format("run %d: bare p99 %.1f ms, pipeline p99 %.1f ms", i + 1, bare.p99Micros() / 1e3, p.p99Micros() / 1e3));
                }
            }
            out.printf("%nlatency at %.0f requests/s, %d runs of %d s (medians; per run in brackets)%n", rate, runs, durationSeconds);
            out.printf("  bare Kafka round trip   p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(bareP50) / 1e3, ms(bareP50), median(bareP99) / 1e3, ms(bareP99));
            out.printf("  Kairos pipeline         p50 %7.2f ms %s   p99 %7.2f ms %s%n", median(pipeP50) / 1e3, ms(pipeP50), median(pipeP99) / 1e3, ms(pipeP99));
            out.printf("  ratio pipeline / bare   p50 %7.2f                p99 %7.2f%n", (double) median(pipeP50) / median(bareP50), (double) median(pipeP99) / median(bareP99));

            if (!skipThroughput) {
                out.printf("%nsustained rate (a rate is kept up with when every request comes back and p99 stays under 1 s)%n");
                out.printf("  %10s %10s %10s %10s %10s %8s%n", "offered/s", "achieved/s", "sent", "received", "p99 ms", "kept up");
                double best = 0;
                List<String> lines = new ArrayList<>();
                try (ProgressBar bar = bar("rate search", rates.length)) {
                    for (double r : rates) {
                        PipelineRig.Phase p = pipeline.run(r, duration, warmup, drain);
                        bar.step();
                        lines.add(String.format("  %10.0f %10.0f %10d %10d %10.1f %8s", r, p.offeredPerSecond(), p.sent(), p.received(), p.p99Micros() / 1e3, p.keptUp() ? "yes" : "no"));
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

    private static ProgressBar bar(String task, long steps) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(steps).setStyle(ProgressBarStyle.ASCII).build();
    }

    static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String ms(long[] micros) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < micros.length; i++) s.append(i == 0 ? "" : " ").append(String.format("%.1f", micros[i] / 1e3));
        return s.append(']').toString();
    }
}
