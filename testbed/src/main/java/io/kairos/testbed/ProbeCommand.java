package io.kairos.testbed;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.testbed.client.RequestProducer;
import io.kairos.testbed.client.ResultConsumer;
import io.kairos.wire.KafkaClientProperties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Waits until a serving job answers: one request of each of its models through its requests topic,
 * and their results on its results topic. A job whose tasks all run has not yet read a request: its
 * sources still find their offsets and fetch for the first time, its code runs cold, and requests
 * sent then with a short SLO come out DROPPED, "deadline passed before the request was read". So
 * {@code infra/cluster submit} and {@code resume} return only once this has seen an answer.
 *
 * <p>The probes' ids are {@code kairos-probe-<8 hex>-<n>}, their tenant {@code probe}: a consumer of
 * the results topic that counts every result sees one more per model and submit.
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Wait until a serving job answers: send one request of each model of its catalog to its requests topic "
                + "and wait for their results (infra/cluster submit and resume do, before they return).")
public class ProbeCommand implements Callable<Integer> {
    /** What a probe's request id starts with. */
    public static final String ID_PREFIX = "kairos-probe-";

    private static final Duration POLL_SLICE = Duration.ofMillis(50);

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Give up after this long (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds = 120;

    @Option(names = "--model", paramLabel = "MODEL", description = "Ask only this model (default: one request of each model of the job's catalog).")
    String model;

    @Option(names = "--warm-up", paramLabel = "SECONDS", description = "Then warm the job's path for this long: requests of the asked models, "
            + "--warm-up-in-flight of them at a time, each sent as one comes back, and every one answered before the command returns (default: ${DEFAULT-VALUE}).")
    double warmUpSeconds = 0;

    @Option(names = "--warm-up-in-flight", paramLabel = "N", description = "Warm-up requests in flight at once: the job never holds a queue "
            + "of them, whatever its devices' speed (default: ${DEFAULT-VALUE}).")
    int warmUpInFlight = 16;

    @Parameters(paramLabel = "SERVE_OPTION", description = "The job's own options (serve's, after --): its broker, topics, catalog and Kafka properties.")
    List<String> serveOptions = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (!(timeoutSeconds > 0)) throw new CommandLine.ParameterException(cl, "--timeout must be above 0 s, got " + timeoutSeconds);
        if (!(warmUpSeconds >= 0)) throw new CommandLine.ParameterException(cl, "--warm-up must be 0 s or more, got " + warmUpSeconds);
        if (warmUpInFlight < 1) throw new CommandLine.ParameterException(cl, "--warm-up-in-flight must be at least 1, got " + warmUpInFlight);
        ServingConfig config;
        try {
            config = ServeCommand.configOf(serveOptions);
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(cl, "serve option: " + e.getMessage());
        }
        ModelCatalog catalog = ServeCommand.catalog(config);
        if (model != null && !catalog.names().contains(model)) {
            throw new CommandLine.ParameterException(cl, "--model: the job's catalog has no model '" + model + "'; it has " + catalog.names());
        }
        List<String> asked = model != null ? List.of(model) : List.copyOf(catalog.names());
        Duration timeout = Duration.ofMillis(Math.round(timeoutSeconds * 1000));
        PrintWriter out = cl.getOut();
        long start = System.nanoTime();
        // The results consumer is placed at the topic's end before the requests leave (ResultConsumer).
        try (ResultConsumer results = new ResultConsumer(KafkaClientProperties.over(ResultConsumer.lowLatencyConfig(config.bootstrapServers),
                config.kafkaProperties), config.resultsTopic, ResultConsumer.StartAt.LATEST);
             RequestProducer producer = new RequestProducer(KafkaClientProperties.over(RequestProducer.lowLatencyConfig(config.bootstrapServers),
                     config.kafkaProperties), config.requestsTopic, catalog)) {
            producer.idPrefix(ID_PREFIX + UUID.randomUUID().toString().substring(0, 8) + "-");
            // One request of each model: each model's group is made, and its devices load it, now
            // rather than on a client's first request. Its own results, not any: other clients'
            // results may already be flowing.
            Map<String, String> waiting = new LinkedHashMap<>(); // request id -> model
            for (String m : asked) waiting.put(producer.send("probe", m, timeout.toMillis() * 2.0), m);
            producer.flush();
            if (!awaitResults(results, producer, waiting.keySet(), start, timeout)) {
                cl.getErr().printf(Locale.ROOT, "kairos probe: no result within %d ms of %s (requests of %s to %s at %s)%n",
                        timeout.toMillis(), String.join(", ", waiting.keySet()), String.join(", ", waiting.values()),
                        config.requestsTopic, config.bootstrapServers);
                return 1;
            }
            String answered = String.format(Locale.ROOT, "the job answered a request of %s in %.2f s",
                    asked.size() == 1 ? asked.get(0) : "each of its " + asked.size() + " models", (System.nanoTime() - start) / 1e9);
            if (warmUpSeconds == 0) {
                out.println("probe: " + answered);
            } else {
                WarmUp warmUp = new WarmUp(producer, results, asked, timeout.toMillis() * 2.0);
                if (!warmUp.run(Duration.ofMillis(Math.round(warmUpSeconds * 1000)), warmUpInFlight, start, timeout)) {
                    cl.getErr().printf(Locale.ROOT, "kairos probe: %s, but %d of its %d warm-up requests had no result within %d ms of the start%n",
                            answered, warmUp.unanswered(), warmUp.sent(), timeout.toMillis());
                    return 1;
                }
                out.printf(Locale.ROOT, "probe: %s; warmed up with %d requests in %.2f s (%s)%n", answered, warmUp.sent(), warmUp.seconds(), warmUp.latencies());
            }
        }
        out.flush();
        return 0;
    }

    /**
     * Polls until every request of {@code waiting} has its result (each removed as it is seen) or
     * {@code timeout} from {@code start} has passed; false then. What a poll's listener sent goes out
     * after it.
     */
    private static boolean awaitResults(ResultConsumer results, RequestProducer producer, Set<String> waiting, long start, Duration timeout) {
        while (true) {
            waiting.removeIf(results::seen);
            if (waiting.isEmpty()) return true;
            long left = timeout.toNanos() - (System.nanoTime() - start);
            if (left <= 0) return false;
            results.poll(Duration.ofNanos(Math.min(left, POLL_SLICE.toNanos())));
            producer.flush();
        }
    }

    /**
     * Requests of the asked models through the whole path, a fixed number in flight, each sent as
     * one comes back: the JIT compiles the job's code, its Kafka clients and its devices run hot,
     * before a client's first request. Closed loop, so that slow devices never leave a queue of
     * warm-up requests behind for the clients' requests to wait behind.
     */
    private static final class WarmUp {
        private final RequestProducer producer;
        private final ResultConsumer results;
        private final List<String> models;
        private final double sloMs;
        private final Set<String> waiting = new HashSet<>();
        /** Each result's latency from its send, ms, with the second of the warm-up it came in. */
        private final List<double[]> latencies = new ArrayList<>();
        private int sent;
        private long begin;
        private long end;

        WarmUp(RequestProducer producer, ResultConsumer results, List<String> models, double sloMs) {
            this.producer = producer;
            this.results = results;
            this.models = models;
            this.sloMs = sloMs;
        }

        /** False when some warm-up request had no result by {@code start + timeout}. */
        boolean run(Duration length, int inFlight, long start, Duration timeout) {
            begin = System.nanoTime();
            long until = begin + length.toNanos();
            results.onResult((r, receivedAtMicros) -> {
                if (!waiting.remove(r.getRequestId())) return;
                latencies.add(new double[] {(System.nanoTime() - begin) / 1e9, (receivedAtMicros - r.getTimings().getSent()) / 1e3});
                if (System.nanoTime() < until) send();
            });
            for (int i = 0; i < inFlight; i++) send();
            producer.flush();
            if (!awaitResults(results, producer, waiting, start, timeout)) return false;
            end = System.nanoTime();
            return true;
        }

        private void send() {
            waiting.add(producer.send("probe", models.get(sent % models.size()), sloMs));
            sent++;
        }

        int sent() {
            return sent;
        }

        int unanswered() {
            return waiting.size();
        }

        double seconds() {
            return (end - begin) / 1e9;
        }

        /** The median latency of the results of the warm-up's first second and of its last. */
        String latencies() {
            double last = latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1)[0];
            return String.format(Locale.ROOT, "p50 %.1f ms in its first second, %.1f ms in its last", median(0, 1), median(last - 1, last));
        }

        private double median(double fromSecond, double toSecond) {
            double[] in = latencies.stream().filter(l -> l[0] >= fromSecond && l[0] <= toSecond).mapToDouble(l -> l[1]).sorted().toArray();
            return in.length == 0 ? Double.NaN : in[in.length / 2];
        }
    }
}
