package io.kairos.testbed.faults;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.StageTimes;
import io.kairos.tools.format.Numbers;
import io.kairos.tools.client.ResultConsumer;
import io.kairos.tools.options.ProgressOption;
import io.kairos.wire.AvroCodec;
import io.kairos.wire.KafkaClientProperties;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code check-results}: reads every result of a fault run from the results topic and checks it
 * against what was sent (each scenario's id prefix and count) and when the faults were injected
 * (a file the fault suite writes). Prints, per scenario, the lost, duplicated and contradictory
 * ids and, per fault, the seconds to the first new result and to SLO attainment back at the
 * target; exits 1 when a hard target fails (a lost id; a duplicate with exactly-once delivery).
 */
@Command(name = "check-results", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Check the results of a fault run: lost, duplicated and contradictory ids, and the recovery after each fault.")
public class CheckResultsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--sent", required = true, paramLabel = "SCENARIO=PREFIX:COUNT",
            description = "What a scenario sent: the ids PREFIX0 .. PREFIX(COUNT-1) (loadgen --id-prefix). Repeat for each scenario.")
    List<String> sent = new ArrayList<>();

    @Option(names = "--faults", paramLabel = "FILE",
            description = "The faults, one a line: SCENARIO EPOCH_MICROS LABEL...; blank lines and lines starting with # are skipped.")
    Path faultsFile;

    @Option(names = "--delivery", description = "The job's delivery mode: EXACTLY_ONCE reads with read_committed and fails on any duplicate "
            + "(default: ${DEFAULT-VALUE}).")
    ServingConfig.Delivery delivery = ServingConfig.Delivery.AT_LEAST_ONCE;

    @Option(names = "--window-ms", paramLabel = "MS", description = "Width of the attainment windows, by send time (default: ${DEFAULT-VALUE}).")
    long windowMs = 1000;

    @Option(names = "--settle-ms", paramLabel = "MS", description = "Measure each fault's attainment recovery only up to this long before the next fault:"
            + " requests sent closer to it may be in flight when it strikes; give the SLO (default: ${DEFAULT-VALUE}).")
    long settleMs = 0;

    @Option(names = "--attainment-target", paramLabel = "FRACTION", description = "SLO attainment that counts as recovered (default: ${DEFAULT-VALUE}).")
    double target = 0.99;

    @Option(names = "--pause-ms", paramLabel = "MS", description = "A gap this long between the results of requests sent after a fault is a pause in service;"
            + " the fault is served again at the end of the longest one (default: ${DEFAULT-VALUE}).")
    long pauseMs = RunLedger.DEFAULT_PAUSE_MICROS / 1000;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS",
            description = "Stop waiting for the missing results when none came for this long (default: ${DEFAULT-VALUE}).")
    double idleTimeoutSeconds = 30;

    @Option(names = "--time-limit", paramLabel = "SECONDS", description = "Stop reading after this long in any case (default: ${DEFAULT-VALUE}).")
    double timeLimitSeconds = 600;

    @Option(names = "--csv", paramLabel = "FILE", description = "Write one row per fault (and per scenario without faults) to FILE.")
    Path csv;

    @CommandLine.Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Option(names = "--topic", description = "Results topic (default: ${DEFAULT-VALUE}).")
    String topic = ServingConfig.DEFAULTS.resultsTopic;

    @CommandLine.Mixin
    ProgressOption progress = new ProgressOption();

    private static final Pattern SENT = Pattern.compile("([A-Za-z0-9_.-]+)=([A-Za-z0-9._:-]*[A-Za-z._:-]):([0-9]{1,10})");

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        List<RunLedger.Sent> sentRanges = new ArrayList<>();
        for (String s : sent) {
            Matcher m = SENT.matcher(s);
            if (!m.matches() || Long.parseLong(m.group(3)) > Integer.MAX_VALUE) {
                throw new ParameterException(cl, "--sent must be SCENARIO=PREFIX:COUNT with a prefix not ending in a digit, got '" + s + "'");
            }
            sentRanges.add(new RunLedger.Sent(m.group(1), m.group(2), Integer.parseInt(m.group(3))));
        }
        if (windowMs <= 0) throw new ParameterException(cl, "--window-ms must be positive, got " + windowMs);
        if (settleMs < 0) throw new ParameterException(cl, "--settle-ms must not be negative, got " + settleMs);
        if (pauseMs <= 0) throw new ParameterException(cl, "--pause-ms must be positive, got " + pauseMs);
        if (!(target > 0 && target <= 1)) throw new ParameterException(cl, "--attainment-target must be in (0, 1], got " + target);
        if (!(idleTimeoutSeconds > 0) || Double.isInfinite(idleTimeoutSeconds)) throw new ParameterException(cl, "--idle-timeout must be a positive number of seconds, got " + idleTimeoutSeconds);
        if (!(timeLimitSeconds > 0) || Double.isInfinite(timeLimitSeconds)) throw new ParameterException(cl, "--time-limit must be a positive number of seconds, got " + timeLimitSeconds);
        List<RunLedger.Fault> faults = faultsFile == null ? List.of() : FaultLog.read(cl, faultsFile);
        RunLedger ledger;
        try {
            ledger = new RunLedger(sentRanges, faults);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, e.getMessage());
        }

        PrintWriter out = cl.getOut();
        boolean committed = delivery == ServingConfig.Delivery.EXACTLY_ONCE;
        long expected = 0;
        for (RunLedger.Sent s : sentRanges) expected += s.count();
        out.printf(Locale.ROOT, "check-results: %d ids in %d scenario(s), %d fault(s); reading %s at %s%s%n", expected, sentRanges.size(),
                faults.size(), topic, kafka.bootstrapServers, committed ? " (read_committed)" : "");
        out.flush();
        read(ledger, committed, cl);

        List<RunLedger.ScenarioReport> reports = new ArrayList<>();
        for (String scenario : ledger.scenarios()) reports.add(ledger.report(scenario, windowMs * 1000, target, settleMs * 1000, pauseMs * 1000));
        out.print(table(reports, target));
        out.printf(Locale.ROOT, "%d results read, %d of ids no scenario sent%n", ledger.results(), ledger.foreign());
        if (csv != null) writeCsv(cl, reports);

        boolean failed = false;
        for (RunLedger.ScenarioReport r : reports) {
            List<String> misses = hardTargetsMissed(r, committed);
            for (String miss : misses) out.printf(Locale.ROOT, "FAIL %s: %s%n", r.scenario(), miss);
            if (misses.isEmpty()) out.printf(Locale.ROOT, "PASS %s: 0 lost%s%n", r.scenario(), committed ? ", 0 duplicated" : "");
            failed |= !misses.isEmpty();
        }
        out.flush();
        return failed ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
    }

    /**
     * Reads the topic from its start: up to its end, and on while some id has no result, until none
     * came for the idle timeout (results of a recovering job still on their way) or the time limit.
     * Then once more up to the end, for the copies that followed the last first result.
     */
    private void read(RunLedger ledger, boolean committed, CommandLine cl) {
        Map<String, Object> config = KafkaClientProperties.over(ResultConsumer.lowLatencyConfig(kafka.bootstrapServers), kafka.clientProperties(cl));
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committed ? "read_committed" : "read_uncommitted");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        AvroCodec<InferenceResult> codec = AvroCodec.of(InferenceResult.class);
        long malformed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic);
            if (infos == null || infos.isEmpty()) throw new ParameterException(cl, "--topic: '" + topic + "' has no partitions on the brokers (does it exist?)");
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : infos) partitions.add(new TopicPartition(topic, p.partition()));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long start = System.nanoTime();
            long lastNew = start;
            long idleNanos = Math.round(idleTimeoutSeconds * 1e9);
            long limitNanos = Math.round(timeLimitSeconds * 1e9);
            boolean finalPass = false;
            try (ProgressBar bar = progress.noProgress ? null : progressBar()) {
                while (true) {
                    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
                    long endTotal = end.values().stream().mapToLong(Long::longValue).sum();
                    if (bar != null) bar.maxHint(endTotal);
                    // Up to the end as it is now.
                    while (!caughtUp(consumer, end)) {
                        int n = 0;
                        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                            n++;
                            InferenceResult r;
                            try {
                                r = codec.decode(record.value());
                            } catch (AvroCodec.MalformedRecordException e) {
                                malformed++;
                                continue;
                            }
                            StageTimes t = r.getTimings();
                            ledger.add(r.getRequestId(), r.getStatus(), t.getSent(), t.getIngested() == null ? Long.MIN_VALUE : t.getIngested(), t.getEmitted());
                        }
                        if (n > 0) lastNew = System.nanoTime();
                        if (bar != null) bar.stepTo(position(consumer, partitions));
                        if (System.nanoTime() - start > limitNanos) return;
                    }
                    if (finalPass) return;
                    long now = System.nanoTime();
                    if (ledger.unanswered() == 0 || now - lastNew > idleNanos || now - start > limitNanos) {
                        finalPass = true;
                        continue;
                    }
                    if (bar != null) bar.setExtraMessage(ledger.unanswered() + " ids without a result");
                    Thread.sleep(500);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (malformed > 0) cl.getOut().printf(Locale.ROOT, "%d records were not results, skipped%n", malformed);
        }
    }

    /** The hard targets a scenario missed: no id lost; with exactly-once delivery, none duplicated. */
    static List<String> hardTargetsMissed(RunLedger.ScenarioReport r, boolean exactlyOnce) {
        List<String> misses = new ArrayList<>();
        if (r.lost() > 0) misses.add(r.lost() + " of " + r.sent() + " ids lost");
        if (exactlyOnce && r.duplicated() > 0) misses.add(r.duplicated() + " ids duplicated with exactly-once delivery");
        return misses;
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) if (consumer.position(e.getKey()) < e.getValue()) return false;
        return true;
    }

    private static long position(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions) {
        long p = 0;
        for (TopicPartition tp : partitions) p += consumer.position(tp);
        return p;
    }

    /** The report as a table: one row per scenario, its faults below it. */
    static String table(List<RunLedger.ScenarioReport> reports, double target) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%-12s %9s %7s %10s %13s %11s%n", "scenario", "sent", "lost", "duplicated", "contradictory", "attain% pre"));
        for (RunLedger.ScenarioReport r : reports) {
            s.append(String.format(Locale.ROOT, "%-12s %9d %7d %10d %13d %11s%n", r.scenario(), r.sent(), r.lost(), r.duplicated(), r.contradictory(),
                    Double.isNaN(r.attainmentBeforeFaults()) ? "-" : String.format(Locale.ROOT, "%.2f", 100 * r.attainmentBeforeFaults())));
            for (RunLedger.FaultReport f : r.faults()) {
                s.append(String.format(Locale.ROOT, "  fault %-40s first new result %s, served again %s, attainment >= %s%% after %s (worst 1 s window %s)%n",
                        f.fault().label(), seconds(f.recoverySeconds()), servedAgain(f), Numbers.plain(100 * target), seconds(f.attainmentRecoverySeconds()),
                        Double.isNaN(f.worstWindowAttainment()) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * f.worstWindowAttainment())));
            }
        }
        return s.toString();
    }

    private void writeCsv(CommandLine cl, List<RunLedger.ScenarioReport> reports) throws IOException {
        Path parent = csv.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        try (BufferedWriter w = Files.newBufferedWriter(csv)) {
            w.write("scenario,sent,lost,duplicated,contradictory,attainment_before,fault,fault_at_us,recovery_s,attainment_recovery_s,worst_window_attainment,"
                    + "served_again_s,pause_s");
            w.newLine();
            for (RunLedger.ScenarioReport r : reports) {
                String head = String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%s", r.scenario(), r.sent(), r.lost(), r.duplicated(), r.contradictory(),
                        Double.isNaN(r.attainmentBeforeFaults()) ? "" : String.format(Locale.ROOT, "%.5f", r.attainmentBeforeFaults()));
                if (r.faults().isEmpty()) {
                    w.write(head + ",,,,,,,");
                    w.newLine();
                }
                for (RunLedger.FaultReport f : r.faults()) {
                    w.write(String.format(Locale.ROOT, "%s,\"%s\",%d,%s,%s,%s,%s,%.3f", head, f.fault().label().replace("\"", "\"\""), f.fault().atMicros(),
                            f.recoverySeconds() == null ? "" : String.format(Locale.ROOT, "%.3f", f.recoverySeconds()),
                            f.attainmentRecoverySeconds() == null ? "" : String.format(Locale.ROOT, "%.0f", f.attainmentRecoverySeconds()),
                            Double.isNaN(f.worstWindowAttainment()) ? "" : String.format(Locale.ROOT, "%.5f", f.worstWindowAttainment()),
                            f.servedAgainSeconds() == null ? "" : String.format(Locale.ROOT, "%.3f", f.servedAgainSeconds()), f.pauseSeconds()));
                    w.newLine();
                }
            }
        }
        cl.getOut().println("rows: " + csv);
    }

    private static String servedAgain(RunLedger.FaultReport f) {
        if (f.pauseSeconds() == 0) return f.servedAgainSeconds() == null ? "never" : "without a pause";
        return String.format(Locale.ROOT, "%s (after a %.2f s pause)", seconds(f.servedAgainSeconds()), f.pauseSeconds());
    }

    private static String seconds(Double s) {
        return s == null ? "never" : String.format(Locale.ROOT, "%.2f s", s);
    }

    private static ProgressBar progressBar() {
        return new ProgressBarBuilder()
                .setTaskName("check-results")
                .setInitialMax(1)
                .setUnit(" results", 1)
                .showSpeed()
                .setUpdateIntervalMillis(500)
                .setStyle(ProgressBarStyle.ASCII)
                .build();
    }
}
