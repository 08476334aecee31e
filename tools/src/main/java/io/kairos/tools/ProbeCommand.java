package io.kairos.tools;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.tools.client.RequestProducer;
import io.kairos.tools.client.ResultConsumer;
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
 * Waits until a serving job answers, then until its path is warm. First one request of each of its
 * models through its requests topic, and their results on its results topic: a job whose tasks all
 * run has not yet read a request (its sources still find their offsets and fetch for the first
 * time), and each model's group is made and its devices load it now rather than on a client's
 * first request. Then the warm-up: requests of the asked models through the whole path, a fixed
 * number in flight, each sent as one comes back, until the rate they go through at has settled.
 * An answering job is not yet a fast one: its code runs interpreted until the JIT has compiled it,
 * in every hop (the source's fetches and decoding, the schedulers, the devices' operators, the
 * results' producers), and a burst sent then at a rate the warm job holds overruns it, requests
 * wait in front of each hop past their SLOs and come out LATE or DROPPED. In a closed loop the rate
 * rises as the code compiles and stops rising once it is compiled: that is what the warm-up waits
 * for. So {@code infra/cluster submit} and {@code resume} return only once this has returned.
 *
 * <p>The probes' and the warm-up's ids are {@code kairos-probe-<8 hex>-<n>}, their tenant
 * {@code probe}: their results are on the results topic, and a consumer of it that counts every
 * result sees one more per model and submit, and the warm-up's (the line printed says how many).
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Wait until a serving job answers and its path is warm: send one request of each model of its catalog to its "
                + "requests topic and wait for their results, then warm the path until the rate its requests go through at has "
                + "settled (infra/cluster submit and resume do, before they return).")
public class ProbeCommand implements Callable<Integer> {
    /** What a probe's request id starts with. */
    public static final String ID_PREFIX = "kairos-probe-";

    /** The --warm-up value that warms until the rate has settled. */
    public static final String SETTLE = "settle";

    private static final Duration POLL_SLICE = Duration.ofMillis(50);

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Give up after this long (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds = 120;

    @Option(names = "--model", paramLabel = "MODEL", description = "Ask only this model (default: one request of each model of the job's catalog).")
    String model;

    @Option(names = "--warm-up", paramLabel = "settle|SECONDS", description = "Then warm the job's path with requests of the asked models, "
            + "--warm-up-in-flight of them at a time, each sent as one comes back, and every one answered before the command returns: "
            + "'settle' until the rate they are answered at has settled (three half-seconds in a row within 15 %% of each other, "
            + "and at least 1,000 answered), "
            + "at most --warm-up-max; a number of seconds: for that long; 0: no warm-up (default: ${DEFAULT-VALUE}).")
    String warmUp = SETTLE;

    @Option(names = "--warm-up-max", paramLabel = "SECONDS", description = "The longest a 'settle' warm-up sends for: then the command "
            + "returns (exit 0), saying that the rate had not settled (default: ${DEFAULT-VALUE}).")
    double warmUpMaxSeconds = 30;

    @Option(names = "--warm-up-in-flight", paramLabel = "N", description = "Warm-up requests in flight at once: the job never holds a queue "
            + "of them, whatever its devices' speed (default: ${DEFAULT-VALUE}).")
    int warmUpInFlight = 64;

    @Parameters(paramLabel = "SERVE_OPTION", description = "The job's own options (serve's, after --): its broker, topics, catalog and Kafka properties.")
    List<String> serveOptions = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (!(timeoutSeconds > 0)) throw new CommandLine.ParameterException(cl, "--timeout must be above 0 s, got " + timeoutSeconds);
        boolean settle = SETTLE.equals(warmUp);
        double warmUpSeconds;
        if (settle) {
            warmUpSeconds = warmUpMaxSeconds;
        } else {
            try {
                warmUpSeconds = Double.parseDouble(warmUp);
            } catch (NumberFormatException e) {
                throw new CommandLine.ParameterException(cl, "--warm-up must be 'settle' or a number of seconds, got '" + warmUp + "'");
            }
            if (!(warmUpSeconds >= 0) || Double.isInfinite(warmUpSeconds)) {
                throw new CommandLine.ParameterException(cl, "--warm-up must be 0 s or more, got " + warmUpSeconds);
            }
        }
        if (!(warmUpMaxSeconds > 0)) throw new CommandLine.ParameterException(cl, "--warm-up-max must be above 0 s, got " + warmUpMaxSeconds);
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
            if (!awaitResults(results, producer, waiting.keySet(), start, timeout, () -> {})) {
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
                WarmUp w = new WarmUp(producer, results, asked, timeout.toMillis() * 2.0);
                if (!w.run(Duration.ofMillis(Math.round(warmUpSeconds * 1000)), settle, warmUpInFlight, start, timeout)) {
                    cl.getErr().printf(Locale.ROOT, "kairos probe: %s, but %d of its %d warm-up requests had no result within %d ms of the start%n",
                            answered, w.unanswered(), w.sent(), timeout.toMillis());
                    return 1;
                }
                String how = !settle ? "" : w.settled() ? ", its rate settled" : String.format(Locale.ROOT, ", its rate not settled at --warm-up-max %s s",
                        format(warmUpMaxSeconds));
                out.printf(Locale.ROOT, "probe: %s; warmed up with %d requests in %.2f s%s (%s)%n", answered, w.sent(), w.seconds(), how, w.describe());
            }
        }
        out.flush();
        return 0;
    }

    private static String format(double seconds) {
        return seconds == Math.rint(seconds) ? String.valueOf((long) seconds) : String.valueOf(seconds);
    }

    /**
     * Polls until every request of {@code waiting} has its result (each removed as it is seen) or
     * {@code timeout} from {@code start} has passed; false then. What a poll's listener sent goes out
     * after it; {@code afterPoll} runs after each poll.
     */
    private static boolean awaitResults(ResultConsumer results, RequestProducer producer, Set<String> waiting, long start, Duration timeout,
                                        Runnable afterPoll) {
        while (true) {
            waiting.removeIf(results::seen);
            if (waiting.isEmpty()) return true;
            long left = timeout.toNanos() - (System.nanoTime() - start);
            if (left <= 0) return false;
            results.poll(Duration.ofNanos(Math.min(left, POLL_SLICE.toNanos())));
            producer.flush();
            afterPoll.run();
        }
    }

    /**
     * Requests of the asked models through the whole path, a fixed number in flight, each sent as
     * one comes back: the JIT compiles the job's code, its Kafka clients and its devices run hot,
     * before a client's first request. Closed loop, so that slow devices never leave a queue of
     * warm-up requests behind for the clients' requests to wait behind, and so that the rate the
     * results come back at is what the path holds with that many in flight: it rises while the code
     * compiles, and a warm-up to settle stops sending once {@link #SETTLED_WINDOWS} half-seconds in
     * a row had as many results within {@link #SETTLED_SPREAD} of each other, and at least
     * {@link #SETTLED_MIN_RESULTS} came back: by then every method a request runs through has been
     * called often enough to be compiled (a JVM's first compiler takes a method after some
     * hundreds of calls), so that a loop held back by the whole machine's load at first, flat
     * because nothing had been compiled yet, is not taken for a warm one.
     */
    public static final class WarmUp {
        /** The rate is counted per half-second of results. */
        static final long WINDOW_NANOS = 500_000_000L;
        /** This many windows in a row, ... */
        static final int SETTLED_WINDOWS = 3;
        /** ... the fewest results of them at least this much less than the most. */
        static final double SETTLED_SPREAD = 0.15;
        /** And at least this many results in all. */
        static final int SETTLED_MIN_RESULTS = 1_000;

        private final RequestProducer producer;
        private final ResultConsumer results;
        private final List<String> models;
        private final double sloMs;
        private final Set<String> waiting = new HashSet<>();
        /** Each result's latency from its send, ms, with the second of the warm-up it came in. */
        private final List<double[]> latencies = new ArrayList<>();
        /** Results per window of the warm-up, from its start. */
        private final List<Integer> perWindow = new ArrayList<>();
        private int sent;
        private long begin;
        private long until;
        private long end;
        private boolean settled;

        WarmUp(RequestProducer producer, ResultConsumer results, List<String> models, double sloMs) {
            this.producer = producer;
            this.results = results;
            this.models = models;
            this.sloMs = sloMs;
        }

        /**
         * Sends for {@code length}, or to settle for at most that long; false when some warm-up
         * request had no result by {@code start + timeout}.
         */
        boolean run(Duration length, boolean toSettle, int inFlight, long start, Duration timeout) {
            begin = System.nanoTime();
            until = begin + length.toNanos();
            results.onResult((r, receivedAtMicros) -> {
                if (!waiting.remove(r.getRequestId())) return;
                long now = System.nanoTime();
                latencies.add(new double[] {(now - begin) / 1e9, (receivedAtMicros - r.getTimings().getSent()) / 1e3});
                int window = (int) ((now - begin) / WINDOW_NANOS);
                while (perWindow.size() <= window) perWindow.add(0);
                perWindow.set(window, perWindow.get(window) + 1);
                if (now < until) send();
            });
            for (int i = 0; i < inFlight; i++) send();
            producer.flush();
            Runnable check = !toSettle ? () -> {} : () -> {
                if (!settled && latencies.size() >= SETTLED_MIN_RESULTS && settledBy(perWindow, (int) ((System.nanoTime() - begin) / WINDOW_NANOS))) {
                    settled = true;
                    until = System.nanoTime();
                }
            };
            if (!awaitResults(results, producer, waiting, start, timeout, check)) return false;
            end = System.nanoTime();
            return true;
        }

        /**
         * Whether the windows before {@code current} (the one under way, not yet counted whole)
         * end in {@link #SETTLED_WINDOWS} whose counts lie within {@link #SETTLED_SPREAD} of their
         * largest. The first window is never one of them: it holds the loop's start.
         */
        public static boolean settledBy(List<Integer> perWindow, int current) {
            int last = current - 1; // a window with no result is in the list only if a later one had some: 0 then
            if (last - SETTLED_WINDOWS + 1 < 1) return false;
            int min = Integer.MAX_VALUE, max = 0;
            for (int i = last - SETTLED_WINDOWS + 1; i <= last; i++) {
                int n = i < perWindow.size() ? perWindow.get(i) : 0;
                min = Math.min(min, n);
                max = Math.max(max, n);
            }
            return max > 0 && min >= (1 - SETTLED_SPREAD) * max;
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

        boolean settled() {
            return settled;
        }

        double seconds() {
            return (end - begin) / 1e9;
        }

        /** The rate and the median latency of the warm-up's first whole second and of its last. */
        String describe() {
            double last = latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1)[0];
            double from = Math.max(0, last - 1);
            return String.format(Locale.ROOT, "%d/s and p50 %.1f ms in its first second, %d/s and %.1f ms in its last",
                    count(0, 1), median(0, 1), count(from, last), median(from, last));
        }

        private long count(double fromSecond, double toSecond) {
            return latencies.stream().filter(l -> l[0] >= fromSecond && l[0] <= toSecond).count();
        }

        private double median(double fromSecond, double toSecond) {
            double[] in = latencies.stream().filter(l -> l[0] >= fromSecond && l[0] <= toSecond).mapToDouble(l -> l[1]).sorted().toArray();
            return in.length == 0 ? Double.NaN : in[in.length / 2];
        }
    }
}
