package io.kairos.jobs.cli;

import io.kairos.control.status.ServingStatus;
import io.kairos.control.status.StatusFeed;
import io.kairos.control.status.StatusServer;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.PolicyOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code kairos control status}: serves a status page of a running job over HTTP, from its topics,
 * until stopped (Ctrl-C).
 */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serve a status page of the running job: its serving groups, devices and the models on each, policies and routing, "
                + "the last control decisions with the job's verdicts, and live SLO attainment, goodput and batch sizes per model.",
                "The plan is rebuilt from the control topic as the job decides it: give the job's --devices, --policy and --policy-param."})
final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--http", paramLabel = "PORT", description = "Port of the page; 0: any free port (default: ${DEFAULT-VALUE}).")
    int port = 8089;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "Address to serve on; 0.0.0.0 for every interface (default: ${DEFAULT-VALUE}, this host only).")
    String bind = "127.0.0.1";

    @Mixin
    ControlCommand.Topics topics = new ControlCommand.Topics();

    @Option(names = "--results-topic", description = "default: ${DEFAULT-VALUE}")
    String resultsTopic = ServingConfig.DEFAULTS.resultsTopic;

    @Option(names = "--telemetry-topic", description = "default: ${DEFAULT-VALUE}")
    String telemetryTopic = ServingConfig.DEFAULTS.telemetryTopic;

    @Mixin
    DevicesOption devices = new DevicesOption();

    @Mixin
    PolicyOptions policy = new PolicyOptions();

    @Option(names = "--window", paramLabel = "SECONDS", description = "The recent window of the live figures (default: ${DEFAULT-VALUE}).")
    int windowSeconds = 10;

    @Option(names = "--decisions", paramLabel = "N", description = "How many of the last decisions to show (default: ${DEFAULT-VALUE}).")
    int decisionRows = 20;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (port < 0 || port > 65535) throw new ParameterException(cl, "--http must be a port from 0 to 65535, got " + port);
        if (windowSeconds < 1) throw new ParameterException(cl, "--window must be at least 1 second, got " + windowSeconds);
        if (decisionRows < 1) throw new ParameterException(cl, "--decisions must be at least 1, got " + decisionRows);
        devices.check(cl);
        policy.check(cl);
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new ParameterException(cl, "--bind '" + bind + "' is not an address of this host");
        }
        var clientProperties = topics.kafka.clientProperties(cl);

        ServingStatus.Topics names = new ServingStatus.Topics(topics.controlTopic, topics.outcomesTopic, resultsTopic, telemetryTopic);
        ServingStatus status = new ServingStatus(names, devices.planWithoutCatalog(policy.policy, PolicyParams.of(policy.params)),
                WallClock.nowMicros(), windowSeconds, decisionRows);
        PrintWriter out = cl.getOut();
        // The address first: one that cannot be served is the user's to fix, before any waiting for Kafka.
        try (StatusServer server = serve(cl, new InetSocketAddress(address, port), status);
             StatusFeed feed = new StatusFeed(topics.kafka.bootstrapServers, clientProperties, names, status, WallClock::nowMicros)) {
            InetSocketAddress at = server.address();
            String host = at.getAddress().isAnyLocalAddress() ? "localhost" : at.getAddress().getHostAddress();
            if (host.contains(":")) host = "[" + host + "]";
            out.printf("status page: http://%s:%d/ (JSON: /api/status), from %s at %s; Ctrl-C to stop%n", host, at.getPort(),
                    String.join(", ", names.control(), names.outcomes(), names.results(), names.telemetry()), topics.kafka.bootstrapServers);
            out.flush();
            // Serves until Ctrl-C (the JVM's shutdown lets the server and the feed close) or, in
            // process, until the thread is interrupted.
            CountDownLatch stop = new CountDownLatch(1);
            Thread hook = new Thread(stop::countDown, "kairos-status-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                stop.await();
            } catch (InterruptedException e) {
                out.println("status page stopped");
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is what stopped us
                }
            }
        }
        return 0;
    }

    private StatusServer serve(CommandLine cl, InetSocketAddress address, ServingStatus status) {
        try {
            return new StatusServer(address, () -> status.snapshot(WallClock.nowMicros()));
        } catch (IOException e) {
            throw new ParameterException(cl, "--http " + address.getPort() + " --bind " + bind + ": cannot serve there ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }
}
