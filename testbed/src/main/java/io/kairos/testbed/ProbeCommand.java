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
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * Waits until a serving job answers: one request of one of its models through its requests topic,
 * and its result on its results topic. A job whose tasks all run has not yet read a request: its
 * sources still find their offsets and fetch for the first time, its code runs cold, and requests
 * sent then with a short SLO come out DROPPED, "deadline passed before the request was read". So
 * {@code infra/cluster submit} and {@code resume} return only once this has seen an answer.
 *
 * <p>The probe's id is {@code kairos-probe-<8 hex>-0}, its tenant {@code probe}: a consumer of the
 * results topic that counts every result sees one more per submit.
 */
@Command(name = "probe", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Wait until a serving job answers a request: send one request of a model of its catalog to its requests topic "
                + "and wait for its result (infra/cluster submit and resume do, before they return).")
public class ProbeCommand implements Callable<Integer> {
    /** What a probe's request id starts with. */
    public static final String ID_PREFIX = "kairos-probe-";

    private static final Duration POLL_SLICE = Duration.ofMillis(50);

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "Give up after this long (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds = 120;

    @Option(names = "--model", paramLabel = "MODEL", description = "The model to ask (default: the catalog's first).")
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
        String asked = model != null ? model : catalog.names().iterator().next();
        if (!catalog.names().contains(asked)) {
            throw new CommandLine.ParameterException(cl, "--model: the job's catalog has no model '" + asked + "'; it has " + catalog.names());
        }
        Duration timeout = Duration.ofMillis(Math.round(timeoutSeconds * 1000));
        PrintWriter out = cl.getOut();
        long start = System.nanoTime();
        // The results consumer is placed at the topic's end before the request leaves (ResultConsumer).
        try (ResultConsumer results = new ResultConsumer(KafkaClientProperties.over(ResultConsumer.lowLatencyConfig(config.bootstrapServers),
                config.kafkaProperties), config.resultsTopic, ResultConsumer.StartAt.LATEST);
             RequestProducer producer = new RequestProducer(KafkaClientProperties.over(RequestProducer.lowLatencyConfig(config.bootstrapServers),
                     config.kafkaProperties), config.requestsTopic, catalog)) {
            producer.idPrefix(ID_PREFIX + UUID.randomUUID().toString().substring(0, 8) + "-");
            // Its own result, not any: other clients' results may already be flowing.
            String id = producer.send("probe", asked, timeout.toMillis() * 2.0);
            producer.flush();
            while (!results.seen(id)) {
                long left = timeout.toNanos() - (System.nanoTime() - start);
                if (left <= 0) {
                    cl.getErr().printf(Locale.ROOT, "kairos probe: no result of %s (a request of %s to %s at %s) within %d ms%n",
                            id, asked, config.requestsTopic, config.bootstrapServers, timeout.toMillis());
                    return 1;
                }
                results.poll(Duration.ofNanos(Math.min(left, POLL_SLICE.toNanos())));
            }
        }
        out.printf(Locale.ROOT, "probe: the job answered a request of %s in %.2f s%n", asked, (System.nanoTime() - start) / 1e9);
        out.flush();
        return 0;
    }
}
