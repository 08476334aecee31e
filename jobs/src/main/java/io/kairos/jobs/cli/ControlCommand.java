package io.kairos.jobs.cli;

import io.kairos.control.ControlTopic;
import io.kairos.control.DecisionPublisher;
import io.kairos.control.status.PlanView;
import io.kairos.core.pipeline.PipelineException;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.PolicyNetwork;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.RemovePipeline;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.DecisionLedger;
import io.kairos.wire.plan.PipelineActions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * {@code kairos control}: publishes control decisions to a running serving job through the one
 * {@link DecisionPublisher}, waits for the job's outcome of each, and shows the plan the control
 * topic makes.
 */
@Command(name = "control", mixinStandardHelpOptions = true,
        description = "Change a running job's plan (policy, placement, routing, pipelines, rl networks) by control decisions, show the plan, and serve a status page.",
        subcommands = {ControlCommand.SetPolicyCommand.class, ControlCommand.PlaceCommand.class,
                ControlCommand.AssignCommand.class, ControlCommand.PipelineCommand.class, ControlCommand.NetworkCommand.class,
                ControlCommand.ShowCommand.class, StatusCommand.class})
public class ControlCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    /** Where the job's control topics are: shared by every control command. */
    static final class Topics {
        @Mixin
        KafkaOptions kafka = new KafkaOptions();

        @Option(names = "--control-topic", description = "default: ${DEFAULT-VALUE}")
        String controlTopic = "kairos-control";

        @Option(names = "--outcomes-topic", description = "default: ${DEFAULT-VALUE}")
        String outcomesTopic = "kairos-control-outcomes";
    }

    /** What a command that publishes a decision shares. */
    static final class Publishing {
        @Mixin
        Topics topics = new Topics();

        @Option(names = "--writer", description = "Writer id of the decision: versions are counted per writer (default: ${DEFAULT-VALUE}).")
        String writer = "kairos-control";

        @Option(names = "--wait-ms", description = "How long to wait for the job's outcome; 0: publish only (default: ${DEFAULT-VALUE}).")
        long waitMs = 10_000;
    }

    /** Publishing options whose writer id defaults to {@code writer} (each producer has its own). */
    static Publishing publishing(String writer) {
        Publishing p = new Publishing();
        p.writer = writer;
        return p;
    }

    /** Publishes {@code action} and reports the job's outcome: 0 if applied (or not waited for), 1 otherwise. */
    static int publish(CommandSpec spec, Publishing options, Object action) {
        try {
            DecisionKey.of(action); // names the target badly: the user's to fix, before anything is sent
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (options.writer.isBlank()) throw new ParameterException(spec.commandLine(), "--writer must not be empty");
        if (options.waitMs < 0) throw new ParameterException(spec.commandLine(), "--wait-ms must not be negative, got " + options.waitMs);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Topics t = options.topics;
        Map<String, String> clientProperties = t.kafka.clientProperties(spec.commandLine());
        try (DecisionPublisher publisher = new DecisionPublisher(t.kafka.bootstrapServers, clientProperties, t.controlTopic, t.outcomesTopic,
                options.writer, WallClock::nowMicros)) {
            DecisionPublisher.Published sent = publisher.publish(action);
            String which = sent.key() + " (" + sent.writer() + "/" + sent.version() + ")";
            if (options.waitMs == 0) {
                out.println("published " + which);
                return 0;
            }
            Optional<DecisionOutcome> outcome = publisher.awaitOutcome(sent, Duration.ofMillis(options.waitMs));
            if (outcome.isEmpty()) {
                err.println("published " + which + ", but no outcome on " + t.outcomesTopic + " within " + options.waitMs
                        + " ms: is the job running?");
                return 1;
            }
            DecisionOutcome o = outcome.get();
            if (o.getStatus() == DecisionStatus.APPLIED) {
                out.println("applied " + which);
                return 0;
            }
            out.println(o.getStatus().name().toLowerCase() + ": " + o.getReason());
            return 1;
        }
    }

    @Command(name = "set-policy", mixinStandardHelpOptions = true,
            description = "Set a serving group's scheduling policy and parameters, or with --model, that model's parameter overrides.")
    static final class SetPolicyCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Publishing options = new Publishing();

        @Option(names = "--group", required = true, description = "Serving group.")
        String group;

        @Option(names = "--model", description = "Override the parameters for this model only (the group keeps its policy).")
        String model;

        @Option(names = "--policy", required = true, description = "One of ${COMPLETION-CANDIDATES}.", completionCandidates = PolicyNames.class)
        String policy;

        @Option(names = "--param", paramLabel = "KEY=VALUE", description = "Policy parameter, repeatable (the policy checks the values).")
        Map<String, String> params = new LinkedHashMap<>();

        @Override
        public Integer call() {
            if (!Policies.names().contains(policy)) {
                throw new ParameterException(spec.commandLine(), "--policy '" + policy + "' is unknown; known: " + Policies.names());
            }
            return publish(spec, options, SetPolicy.newBuilder().setGroup(group).setModel(model).setPolicy(policy).setParams(params).build());
        }
    }

    @Command(name = "place", mixinStandardHelpOptions = true,
            description = "Give a serving group its devices and the models each holds (replaces the group's placement).")
    static final class PlaceCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Publishing options = new Publishing();

        @Option(names = "--group", required = true, description = "Serving group.")
        String group;

        @Option(names = "--device", required = true, paramLabel = "DEVICE=MODEL[,MODEL...]",
                description = "A device slot and the models it holds, repeatable, e.g. 0=resnet50,googlenet.")
        List<String> devices = new ArrayList<>();

        @Override
        public Integer call() {
            return publish(spec, options, SetPlacement.newBuilder().setGroup(group).setDevices(parseDevices(spec, devices)).build());
        }
    }

    /** {@code --device} values as placements; one-line usage errors for a bad one. */
    static List<DevicePlacement> parseDevices(CommandSpec spec, List<String> values) {
        Map<Integer, DevicePlacement> devices = new LinkedHashMap<>();
        for (String value : values) {
            int eq = value.indexOf('=');
            if (eq < 0) throw new ParameterException(spec.commandLine(), "--device '" + value + "': expected DEVICE=MODEL[,MODEL...]");
            int device;
            try {
                device = Integer.parseInt(value.substring(0, eq).strip());
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "--device '" + value + "': the device must be a slot number, got '" + value.substring(0, eq) + "'");
            }
            if (device < 0) throw new ParameterException(spec.commandLine(), "--device '" + value + "': the device must not be negative");
            List<String> models = Arrays.stream(value.substring(eq + 1).split(",")).map(String::strip).filter(m -> !m.isEmpty()).toList();
            if (models.isEmpty()) throw new ParameterException(spec.commandLine(), "--device '" + value + "': no models");
            if (devices.containsKey(device)) throw new ParameterException(spec.commandLine(), "--device " + device + " is given twice");
            devices.put(device, DevicePlacement.newBuilder().setDevice(device).setModels(models).build());
        }
        return new ArrayList<>(devices.values());
    }

    @Command(name = "assign", mixinStandardHelpOptions = true, description = "Route a model's requests to a serving group.")
    static final class AssignCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Publishing options = new Publishing();

        @Option(names = "--model", required = true)
        String model;

        @Option(names = "--group", required = true)
        String group;

        @Override
        public Integer call() {
            return publish(spec, options, AssignGroup.newBuilder().setModel(model).setGroup(group).build());
        }
    }

    @Command(name = "pipeline", mixinStandardHelpOptions = true,
            description = {"Serve a pipeline of models under one end-to-end SLO, from its spec file (replacing the pipeline of its id), or remove one.",
                    "The job checks the spec against its models: see the pipelines page of the documentation."})
    static final class PipelineCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Publishing options = new Publishing();

        @CommandLine.ArgGroup(multiplicity = "1")
        What what;

        static final class What {
            @Option(names = "--spec", paramLabel = "FILE", description = "The pipeline's spec (JSON): its id, SLO, stages and edges.")
            java.nio.file.Path spec;

            @Option(names = "--remove", paramLabel = "ID", description = "Stop serving the pipeline of this id.")
            String remove;
        }

        @Override
        public Integer call() {
            if (what.remove != null) return publish(spec, options, RemovePipeline.newBuilder().setPipeline(what.remove).build());
            PipelineSpec pipeline;
            try {
                pipeline = PipelineSpec.load(what.spec);
            } catch (PipelineException e) {
                throw new ParameterException(spec.commandLine(), "--spec " + e.getMessage());
            }
            return publish(spec, options, PipelineActions.action(pipeline));
        }
    }

    @Command(name = "network", mixinStandardHelpOptions = true,
            description = {"Give a serving group's rl policy a trained network, carried in the decision itself (the job needs no file of its own).",
                    "The file is checked here and again by the job, which refuses a network the rl policy cannot run, with the reason."})
    static final class NetworkCommand implements Callable<Integer> {
        /**
         * The largest file sent: the decision (the file and a few hundred bytes) must fit Kafka's
         * default record size of 1 MiB (the producer's max.request.size, the broker's
         * message.max.bytes); the committed network is 45 kB.
         */
        static final int MAX_BYTES = 1_000_000;

        @Spec
        CommandSpec spec;
        @Mixin
        Publishing options = new Publishing();

        @Option(names = "--group", required = true, description = "Serving group.")
        String group;

        @Option(names = "--file", required = true, paramLabel = "FILE", description = "The network file (.krln, as the trainer writes it).")
        java.nio.file.Path file;

        @Option(names = "--name", description = "The name shown in the plan and on the status page (default: the file's name).")
        String name;

        @Override
        public Integer call() {
            byte[] bytes;
            try {
                bytes = java.nio.file.Files.readAllBytes(file);
            } catch (java.io.IOException e) {
                throw new ParameterException(spec.commandLine(), "--file '" + file + "': cannot read it (" + e.getMessage() + ")");
            }
            if (bytes.length > MAX_BYTES) {
                throw new ParameterException(spec.commandLine(), "--file '" + file + "': " + bytes.length + " bytes, more than the "
                        + MAX_BYTES + " a decision carries within Kafka's default record size");
            }
            try {
                PolicyNetwork.read(bytes, file.toString());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--file " + e.getMessage());
            }
            String shown = name != null ? name : file.getFileName().toString();
            return publish(spec, options, SetPolicyNetwork.newBuilder().setGroup(group).setNetworkName(shown)
                    .setNetwork(java.nio.ByteBuffer.wrap(bytes)).build());
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Read the control topic from the start and print the plan a job started now would hold.")
    static final class ShowCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        Topics topics = new Topics();

        @Mixin
        DevicesOption devices = new DevicesOption();

        @Option(names = "--policy", description = "The job's default policy, as given to serve (default: ${DEFAULT-VALUE}).", completionCandidates = PolicyNames.class)
        String policy = "clockwork";

        @Option(names = "--policy-param", paramLabel = "KEY=VALUE", description = "The job's default policy parameters, as given to serve.")
        Map<String, String> policyParams = new LinkedHashMap<>();

        @Option(names = "--timeout-ms", description = "How long reading the topic may take (default: ${DEFAULT-VALUE}).")
        long timeoutMs = 15_000;

        @Override
        public Integer call() {
            devices.check(spec.commandLine());
            if (!Policies.names().contains(policy)) {
                throw new ParameterException(spec.commandLine(), "--policy '" + policy + "' is unknown; known: " + Policies.names());
            }
            ControlTopic.Contents contents = ControlTopic.read(topics.kafka.bootstrapServers, topics.kafka.clientProperties(spec.commandLine()),
                    topics.controlTopic, Duration.ofMillis(timeoutMs));
            DecisionLedger ledger = new DecisionLedger(devices.planWithoutCatalog(policy, PolicyParams.of(policyParams)));
            Map<DecisionStatus, Integer> counts = new TreeMap<>();
            List<String> rejections = new ArrayList<>();
            long now = WallClock.nowMicros();
            for (ControlDecision d : contents.decisions()) {
                DecisionOutcome o = ledger.decide(d, now);
                counts.merge(o.getStatus(), 1, Integer::sum);
                if (o.getStatus() == DecisionStatus.REJECTED) rejections.add(DecisionLedger.describe(d) + ": " + o.getReason());
            }
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%s: %d decisions read, %d applied, %d rejected, %d duplicate%s%n", topics.controlTopic, contents.decisions().size(),
                    counts.getOrDefault(DecisionStatus.APPLIED, 0), counts.getOrDefault(DecisionStatus.REJECTED, 0),
                    counts.getOrDefault(DecisionStatus.DUPLICATE, 0), contents.skipped() == 0 ? "" : ", " + contents.skipped() + " records skipped");
            for (String r : rejections) out.println("rejected " + r);
            print(out, ledger);
            return 0;
        }
    }

    /** The plan, group by group, then the routing. */
    static void print(PrintWriter out, DecisionLedger ledger) {
        for (String line : PlanView.of(ledger).lines()) out.println(line);
    }

    static final class PolicyNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Policies.names().iterator();
        }
    }
}
