package io.kairos.tools;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.tools.format.Numbers;
import io.kairos.wire.KafkaClientProperties;
import io.kairos.tools.options.ProgressOption;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.core.metrics.ResultSummary;
import io.kairos.tools.client.ResultConsumer;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collect}: reads the results topic until the expected number of distinct results is in
 * or none has come for a while, writes one CSV row per result and prints the summary table.
 */
@Command(name = "collect", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Read results from the results topic, write them as CSV, and print SLO attainment, goodput and latency per model.")
public class CollectCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--expect"}, paramLabel = "N", description = "Stop after N distinct results; 0: stop only when idle (default: ${DEFAULT-VALUE}).")
    long expect;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", description = "Stop when no new result came for this long (default: ${DEFAULT-VALUE}).")
    double idleTimeoutSeconds = 10;

    @Option(names = "--time-limit", paramLabel = "SECONDS", description = "Stop after this long in any case; 0: no limit (default: ${DEFAULT-VALUE}).")
    double timeLimitSeconds;

    @Option(names = "--csv", paramLabel = "FILE", description = "Write one row per distinct result to FILE; a relative FILE goes under .kairos/ of the checkout, an absolute one where it says.")
    Path csv;

    @Option(names = "--summary-csv", paramLabel = "FILE", description = "Write the summary (one row per model and one for all) to FILE; relative: under .kairos/, as --csv.")
    Path summaryCsv;

    @Option(names = "--from-earliest", description = "Read the topic from its start rather than only results that arrive from now on.")
    boolean fromEarliest;

    @CommandLine.Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Option(names = "--topic", description = "Results topic (default: ${DEFAULT-VALUE}).")
    String topic = ServingConfig.DEFAULTS.resultsTopic;

    @CommandLine.Mixin
    ProgressOption progress = new ProgressOption();

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (expect < 0) throw new ParameterException(cl, "--expect must be 0 or a positive number of results, got " + expect);
        if (!(idleTimeoutSeconds > 0) || Double.isInfinite(idleTimeoutSeconds)) {
            throw new ParameterException(cl, "--idle-timeout must be a positive number of seconds, got " + idleTimeoutSeconds);
        }
        if (!(timeLimitSeconds >= 0) || Double.isInfinite(timeLimitSeconds)) {
            throw new ParameterException(cl, "--time-limit must be 0 (none) or a positive number of seconds, got " + timeLimitSeconds);
        }
        // Results are a run's output, not sources: a relative path lands in .kairos/ (git-ignored).
        if (csv != null) csv = RunDirectory.resolve(csv);
        if (summaryCsv != null) summaryCsv = RunDirectory.resolve(summaryCsv);
        Duration idle = Duration.ofNanos(Math.round(idleTimeoutSeconds * 1e9));
        Duration limit = timeLimitSeconds == 0 ? Duration.ofDays(365) : Duration.ofNanos(Math.round(timeLimitSeconds * 1e9));
        // Outermost, so that on Ctrl-C the JVM waits for the summary and the files, not just for the reading.
        try (ShutdownHook hook = ShutdownHook.install()) {
            return collect(cl, hook, idle, limit);
        }
    }

    private int collect(CommandLine cl, ShutdownHook hook, Duration idle, Duration limit) throws IOException {
        PrintWriter out = cl.getOut();
        ResultConsumer.Outcome outcome;
        ResultConsumer consumer;
        Map<String, Object> kafkaConfig = KafkaClientProperties.over(ResultConsumer.lowLatencyConfig(kafka.bootstrapServers), kafka.clientProperties(cl));
        // Both files are opened first: a path that cannot be written fails before any waiting.
        try (BufferedWriter rows = csv == null ? null : open(cl, csv, "--csv");
             BufferedWriter summaryRows = summaryCsv == null ? null : open(cl, summaryCsv, "--summary-csv")) {
            consumer = new ResultConsumer(kafkaConfig, topic, fromEarliest ? ResultConsumer.StartAt.EARLIEST : ResultConsumer.StartAt.LATEST);
            out.printf(Locale.ROOT, "collect: reading %s at %s from %s, until %s%n", topic, kafka.bootstrapServers,
                    fromEarliest ? "its start" : "now on",
                    (expect > 0 ? expect + " results or " : "") + Numbers.plain(idleTimeoutSeconds) + " s without a new one"
                            + (timeLimitSeconds > 0 ? " or " + Numbers.plain(timeLimitSeconds) + " s in all" : ""));
            if (csv != null) out.println("collect: writing rows to " + csv);
            out.flush();
            try (consumer; ProgressBar bar = progress.noProgress || expect == 0 ? null : progressBar(expect)) {
                hook.onStop(consumer::wakeup);
                if (rows != null) {
                    rows.write(ResultCsv.HEADER);
                    rows.newLine();
                }
                consumer.onResult((r, receivedAt) -> {
                    if (rows != null) writeRow(rows, ResultCsv.row(r, receivedAt));
                    if (bar != null) bar.step();
                });
                outcome = consumer.awaitResults(expect, idle, limit);
            }
            if (summaryRows != null) {
                summaryRows.write(ResultSummary.csvHeader());
                summaryRows.newLine();
                for (String row : consumer.summary().csvRows()) {
                    summaryRows.write(row);
                    summaryRows.newLine();
                }
            }
        }

        out.printf("received %d distinct results (%d duplicates dropped, %d malformed records skipped); stopped: %s%n",
                consumer.distinct(), consumer.duplicates(), consumer.malformed(), describe(outcome));
        out.print(consumer.summary().table());
        if (csv != null) out.println("rows written to " + csv);
        if (summaryCsv != null) out.println("summary written to " + summaryCsv);
        out.flush();
        if (expect > 0 && consumer.distinct() < expect) {
            cl.getErr().printf("collect: expected %d results, got %d%n", expect, consumer.distinct());
            cl.getErr().flush();
            return CommandLine.ExitCode.SOFTWARE;
        }
        return CommandLine.ExitCode.OK;
    }

    private String describe(ResultConsumer.Outcome outcome) {
        return switch (outcome) {
            case EXPECTED -> "all " + expect + " expected results are in";
            case IDLE -> "no new result for " + Numbers.plain(idleTimeoutSeconds) + " s";
            case TIME_LIMIT -> "time limit of " + Numbers.plain(timeLimitSeconds) + " s";
            case WOKEN_UP -> "interrupted";
        };
    }

    private static BufferedWriter open(CommandLine cl, Path file, String option) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            return Files.newBufferedWriter(file);
        } catch (IOException e) {
            throw new ParameterException(cl, option + ": cannot write " + file + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    private static void writeRow(BufferedWriter w, String row) {
        try {
            w.write(row);
            w.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ProgressBar progressBar(long expected) {
        return ProgressLine.bar("collect", expected, s -> List.of(ProgressLine.count(s, "results"), ProgressLine.rate(s, "results/s")));
    }
}
