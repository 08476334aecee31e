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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    @Parameters(paramLabel = "SERVE_OPTION", description = "The job's own options (serve's, after --): its broker, topics, catalog and Kafka properties.")
    List<String> serveOptions = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (!(timeoutSeconds > 0)) throw new CommandLine.ParameterException(cl, "--timeout must be above 0 s, got " + timeoutSeconds);
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
            while (true) {
                waiting.keySet().removeIf(results::seen);
                if (waiting.isEmpty()) break;
                long left = timeout.toNanos() - (System.nanoTime() - start);
                if (left <= 0) {
                    cl.getErr().printf(Locale.ROOT, "kairos probe: no result within %d ms of %s (requests of %s to %s at %s)%n",
                            timeout.toMillis(), String.join(", ", waiting.keySet()), String.join(", ", waiting.values()),
                            config.requestsTopic, config.bootstrapServers);
                    return 1;
                }
                results.poll(Duration.ofNanos(Math.min(left, POLL_SLICE.toNanos())));
            }
        }
        out.printf(Locale.ROOT, "probe: the job answered a request of %s in %.2f s%n",
                asked.size() == 1 ? asked.get(0) : "each of its " + asked.size() + " models", (System.nanoTime() - start) / 1e9);
        out.flush();
        return 0;
    }
}
