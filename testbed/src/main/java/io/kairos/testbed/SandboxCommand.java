package io.kairos.testbed;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.testbed.client.RequestProducer;
import io.kairos.testbed.client.ResultConsumer;
import io.kairos.testbed.embedded.EmbeddedKafkaBroker;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code sandbox}: a Kafka broker (in-process, KRaft) and the serving job on a Flink mini-cluster,
 * kept up for clients of any language to talk to, with no load of its own: what a client's tests
 * run against. It prints {@code bootstrap.servers=HOST:PORT} once the broker is up and
 * {@code serving} once the job has answered a first request, then runs until it is interrupted
 * (or, with {@code --exit-on-stdin-close}, its standard input closes: so that it never outlives a
 * test process that started it).
 * Options after {@code --} are {@code serve}'s (e.g. {@code -- --registry-schema-id 1 --devices 2}).
 */
@Command(name = "sandbox", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run an embedded Kafka broker and the serving job on a Flink mini-cluster for clients to use, until Ctrl-C.")
public class SandboxCommand implements Callable<Integer> {

    @Option(names = "--onnx", description = "Serve the example ONNX models (mlp, cnn, resnet; generated into .kairos/models if missing) on ONNX Runtime CPU devices, "
            + "so that results carry real outputs; else simulated devices with the built-in profiles (no outputs).")
    boolean onnx;

    @Option(names = "--exit-on-stdin-close", description = "Also stop when standard input closes: a test that starts the sandbox as a child "
            + "with a pipe on its stdin never leaves it running, whatever way the test ends.")
    boolean exitOnStdinClose;

    @Parameters(paramLabel = "SERVE_OPTION", description = "serve's options, after --; --bootstrap-servers is the sandbox's broker.")
    List<String> serveOptions = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ServingConfig config = serveConfig();
        if (onnx && config.modelRepository == null) {
            config.modelRepository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"))
                    .toAbsolutePath().toString();
        }
        ModelCatalog catalog = ServeCommand.catalog(config);
        // Requests sent while the job starts wait in the topic rather than being skipped.
        config.fromEarliest = true;
        CountDownLatch stop = new CountDownLatch(1);
        try (ShutdownHook hook = ShutdownHook.install();
             EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            hook.onStop(stop::countDown); // Ctrl-C or SIGTERM: wind down (job, then broker) before the JVM exits
            config.bootstrapServers = broker.bootstrapServers();
            for (String topic : config.topics()) broker.createTopic(topic, 1);
            out.println("bootstrap.servers=" + broker.bootstrapServers());
            out.println("topics: requests " + config.requestsTopic + ", results " + config.resultsTopic + ", control " + config.controlTopic
                    + ", outcomes " + config.outcomesTopic + ", telemetry " + config.telemetryTopic);
            out.println("models: " + catalog.names());
            out.flush();
            Configuration flink = new Configuration();
            flink.set(RestOptions.BIND_PORT, "0");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(config.devices, flink);
            JobClient job = ServingJob.onKafka(config, catalog).start(env);
            try {
                try (RequestProducer producer = new RequestProducer(broker.bootstrapServers(), config.requestsTopic, catalog);
                     ResultConsumer results = new ResultConsumer(broker.bootstrapServers(), config.resultsTopic, ResultConsumer.StartAt.EARLIEST)) {
                    producer.idPrefix("sandbox-warm-up-");
                    results.awaitServing(producer, catalog.names().iterator().next(), Duration.ofSeconds(90));
                }
                out.println("serving (job " + job.getJobID() + "); " + (exitOnStdinClose ? "close stdin or " : "") + "press Ctrl-C to stop");
                out.flush();
                if (exitOnStdinClose) awaitEndOfInput(stop);
                stop.await();
            } finally {
                job.cancel().get();
            }
        }
        return 0;
    }

    /** serve's configuration from the options after {@code --}, checked as serve checks them. */
    private ServingConfig serveConfig() {
        ServeCommand serve = new ServeCommand();
        CommandLine cl = new CommandLine(serve);
        try {
            cl.parseArgs(serveOptions.toArray(String[]::new));
            return serve.config();
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "serve option: " + e.getMessage());
        }
    }

    /** Counts {@code stop} down when standard input reaches its end (or breaks). */
    private static void awaitEndOfInput(CountDownLatch stop) {
        Thread stdin = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // anything written is ignored; only the end counts
                }
            } catch (IOException e) {
                // a broken stdin ends the sandbox too
            }
            stop.countDown();
        }, "sandbox-stdin");
        stdin.setDaemon(true);
        stdin.start();
    }
}
