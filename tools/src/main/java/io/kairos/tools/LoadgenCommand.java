package io.kairos.tools;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.tools.format.Numbers;
import io.kairos.wire.KafkaClientProperties;
import io.kairos.jobs.options.ModelsOption;
import io.kairos.tools.options.ArrivalsOption;
import io.kairos.tools.options.ProgressOption;
import io.kairos.tools.progress.ProgressLine;
import io.kairos.tools.options.SeedOption;
import io.kairos.core.model.ModelCatalog;
import io.kairos.workload.ArrivalSpec;
import io.kairos.workload.Workload;
import io.kairos.tools.client.RequestProducer;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code loadgen}: sends requests open-loop at the rates of a workload spec for a while, and says
 * how many it sent and how far behind schedule it fell. Every argument is checked, and the models
 * looked up, before it connects to Kafka.
 */
@Command(name = "loadgen", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Send inference requests to the requests topic, open loop, at the rates of a workload spec.")
public class LoadgenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-w", "--workload"}, required = true, paramLabel = "SPEC",
            description = "Comma-separated model:rate:sloMs[:tenant], rate in requests per second, e.g. resnet50:400:25,mlp:2000:10; "
                    + "a window SLO as start-sloMs: resnet50:150:100-1000 wants each answer between 100 and 1,000 ms.")
    String workload;

    @Option(names = {"-d", "--duration"}, paramLabel = "SECONDS", description = "How long to send (default: ${DEFAULT-VALUE}).")
    double durationSeconds = 10;

    @CommandLine.Mixin
    ArrivalsOption arrivals = new ArrivalsOption();

    @CommandLine.Mixin
    SeedOption seed = new SeedOption();

    @CommandLine.Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Option(names = "--topic", description = "Requests topic (default: ${DEFAULT-VALUE}).")
    String topic = ServingConfig.DEFAULTS.requestsTopic;

    @CommandLine.Mixin
    ModelsOption models = new ModelsOption();

    @Option(names = "--id-prefix", paramLabel = "PREFIX",
            description = "Name the requests PREFIX0, PREFIX1, ... in send order, so that a checker can enumerate what was sent "
                    + "(default: 8 random hex digits and a dash).")
    String idPrefix;

    @CommandLine.Mixin
    ProgressOption progress = new ProgressOption();

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (!(durationSeconds > 0) || Double.isInfinite(durationSeconds)) {
            throw new ParameterException(cl, "--duration must be a positive number of seconds, got " + durationSeconds);
        }
        ArrivalSpec arrivalSpec = arrivals.parse(cl);
        Workload load;
        try {
            load = Workload.parse(workload, arrivalSpec);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--workload: " + e.getMessage());
        }
        ModelCatalog catalog;
        try {
            catalog = models.modelsFile == null ? ModelCatalog.builtIn() : ModelCatalog.load(models.modelsFile);
        } catch (ModelCatalog.CatalogException e) {
            throw new ParameterException(cl, "--models: " + e.getMessage());
        }
        for (String model : load.models()) {
            if (!catalog.contains(model)) {
                throw new ParameterException(cl, "--workload: model '" + model + "' is not in "
                        + (models.modelsFile == null ? "the built-in catalog" : models.modelsFile.toString()) + ", which has " + catalog.names());
            }
        }

        if (idPrefix != null && !ID_PREFIX.matcher(idPrefix).matches()) {
            throw new ParameterException(cl, "--id-prefix must be 1 to 64 letters, digits or ._:- characters, got '" + idPrefix + "'");
        }
        Map<String, Object> kafkaConfig = KafkaClientProperties.over(RequestProducer.lowLatencyConfig(kafka.bootstrapServers), kafka.clientProperties(cl));
        Duration duration = Duration.ofNanos(Math.round(durationSeconds * 1e9));
        long expected = load.expectedArrivals(duration.toNanos() / 1_000);
        PrintWriter out = cl.getOut();

        // Outermost, so that on Ctrl-C the JVM waits for the summary below, not just for the run.
        try (ShutdownHook hook = ShutdownHook.install()) {
            RequestProducer.PacingReport report;
            try (RequestProducer producer = new RequestProducer(kafkaConfig, topic, catalog);
                 ProgressBar bar = progress.noProgress ? null : progressBar(expected)) {
                // Printed once connected, right before the first send: a script may time its actions from it.
                out.printf(Locale.ROOT, "loadgen: %s (%s arrivals, seed %d, about %d requests) for %s s to %s at %s%n",
                        load, arrivalSpec, seed.seed, expected, Numbers.plain(durationSeconds), topic, kafka.bootstrapServers);
                out.flush();
                hook.onStop(producer::stop);
                if (idPrefix != null) producer.idPrefix(idPrefix);
                producer.onFailure(failureReport(cl.getErr()));
                long[] shown = {0, 0}; // offset of the last message update, worst lag so far
                RequestProducer.Progress shownProgress = bar == null ? RequestProducer.Progress.NONE : (sent, offsetMicros, behindMicros) -> {
                    bar.stepTo(sent);
                    shown[1] = Math.max(shown[1], behindMicros);
                    if (offsetMicros - shown[0] >= 250_000) { // a few updates a second are enough for a human
                        shown[0] = offsetMicros;
                        bar.setExtraMessage(String.format(Locale.ROOT, "lag<=%.1f ms", shown[1] / 1000.0));
                    }
                };
                report = producer.run(load, seed.seed, duration, shownProgress);
                if (bar != null) bar.maxHint(report.sent()).stepTo(report.sent());
            }

            out.printf(Locale.ROOT, "sent %d requests in %.2f s: %.1f/s offered (%.1f/s planned)%n",
                    report.sent(), report.elapsedMicros() / 1e6, report.offeredRatePerSecond(), load.totalRatePerSecond());
            out.printf(Locale.ROOT, "behind schedule: mean %.3f ms, p99 %.3f ms, max %.3f ms; %d sent more than %.0f ms late%n",
                    report.meanBehindMicros() / 1000.0, report.p99BehindMicros() / 1000.0, report.maxBehindMicros() / 1000.0,
                    report.sentLate(), RequestProducer.LATE_SEND_MICROS / 1000.0);
            if (idPrefix != null) out.printf(Locale.ROOT, "ids %s0 to %s%d%n", idPrefix, idPrefix, report.sent() - 1);
            out.printf("acknowledged %d, failed %d%s%n", report.acked(), report.failed(),
                    report.firstError() == null ? "" : " (first error: " + report.firstError() + ")");
            out.flush();
            return report.failed() > 0 ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
        }
    }

    /**
     * Says on {@code err}, while the load runs, that requests are being lost: the first one given up
     * on at once, then at most a line a second with the count so far. A broker's death costs no
     * request (the producer retries on the partition's new leader), so any such line means a
     * request that will get no result.
     */
    static RequestProducer.FailureListener failureReport(PrintWriter err) {
        // Called on the producer's one I/O thread only: plain fields will do.
        return new RequestProducer.FailureListener() {
            private boolean any;
            private long lastNanos;

            @Override
            public void failed(long failedSoFar, String error) {
                long now = System.nanoTime();
                if (any && now - lastNanos < 1_000_000_000L) return;
                any = true;
                lastNanos = now;
                err.printf(Locale.ROOT, "loadgen: %s not delivered and the producer gave up on %s (%s)%n",
                        failedSoFar == 1 ? "a request was" : failedSoFar + " requests so far were", failedSoFar == 1 ? "it" : "them", error);
                err.flush();
            }
        };
    }

    /** Request ids go into keys, logs and file names: keep the prefix plain. */
    private static final Pattern ID_PREFIX = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    private static ProgressBar progressBar(long expected) {
        return ProgressLine.bar("loadgen", expected, s -> List.of(ProgressLine.count(s, "req"), ProgressLine.rate(s, "req/s")));
    }
}
