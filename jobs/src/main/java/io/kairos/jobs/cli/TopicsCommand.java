package io.kairos.jobs.cli;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.wire.KafkaClientProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * {@code kairos topics}: the serving job's Kafka topics, made as {@code infra/cluster} and
 * {@code infra/k8s/topics.yaml} make them.
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = "The serving job's Kafka topics: create them on a cluster before the job's first start.",
        subcommands = {TopicsCommand.CreateCommand.class})
public class TopicsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    /**
     * One topic as the job wants it: its partitions and the settings that matter to the job.
     * Requests are worthless once their deadline has passed, so an hour is ample; results and
     * telemetry are read by experiments later (a day); control decisions are versioned state, so the
     * control topic is compacted and keeps the latest decision per key forever, in one partition so
     * that every reader applies them in order; the outcome of each decision is read by its producer
     * within seconds (a day for whoever looks later); device reports and pipeline hops feed the job
     * itself and are worthless minutes later.
     */
    record Wanted(String role, String name, int partitions, Map<String, String> configs) {
        String describe(Optional<Short> replication) {
            return partitions + " partition(s), " + replication.map(r -> r + " replica(s)").orElse("the brokers' default replication")
                    + ", " + configs.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Create the serving job's topics that are missing: requests, results, telemetry, control (compacted), "
                    + "control outcomes, device reports, pipeline hops, each with the partitions, compaction and retention its use needs (infra/cluster makes its topics with this command).",
                    "A topic that exists with these settings is reported and left alone; one that exists with other settings is reported "
                    + "in one line on the error stream, left alone too, and the command exits with 1. Topic names are serve's flags, "
                    + "so that the same flags name the same topics."})
    public static final class CreateCommand implements Callable<Integer> {
        @Mixin
        KafkaOptions kafka = new KafkaOptions();

        @Option(names = "--requests-topic", description = "default: ${DEFAULT-VALUE}")
        String requestsTopic = ServingConfig.DEFAULTS.requestsTopic;

        @Option(names = "--results-topic", description = "default: ${DEFAULT-VALUE}")
        String resultsTopic = ServingConfig.DEFAULTS.resultsTopic;

        @Option(names = "--telemetry-topic", description = "default: ${DEFAULT-VALUE}")
        String telemetryTopic = ServingConfig.DEFAULTS.telemetryTopic;

        @Option(names = "--control-topic", description = "Compacted, kept forever, one partition (default: ${DEFAULT-VALUE}).")
        String controlTopic = ServingConfig.DEFAULTS.controlTopic;

        @Option(names = "--outcomes-topic", description = "default: ${DEFAULT-VALUE}")
        String outcomesTopic = ServingConfig.DEFAULTS.outcomesTopic;

        @Option(names = "--device-reports-topic", description = "default: ${DEFAULT-VALUE}")
        String deviceReportsTopic = ServingConfig.DEFAULTS.deviceReportsTopic;

        @Option(names = "--pipeline-hops-topic", description = "default: ${DEFAULT-VALUE}")
        String pipelineHopsTopic = ServingConfig.DEFAULTS.pipelineHopsTopic;

        @Option(names = "--partitions", paramLabel = "N", description = "Partitions of the requests, results and pipeline hops topics; "
                + "the others have one (default: ${DEFAULT-VALUE}).")
        int partitions = 4;

        @Option(names = "--replication-factor", paramLabel = "N", description = "Replicas of each partition (default: the brokers' default.replication.factor).")
        Short replicationFactor;

        @Option(names = "--min-insync-replicas", paramLabel = "N", description = "Replicas a write needs (min.insync.replicas); "
                + "default: with --replication-factor above 1, that less one and at most 2 (3 replicas: 2), else the brokers' default.")
        Integer minInsyncReplicas;

        @Option(names = "--timeout-ms", description = "How long the brokers may take to answer and to elect the new partitions' leaders (default: ${DEFAULT-VALUE}).")
        long timeoutMs = 30_000;

        @Spec
        CommandSpec spec;

        /** The topics in the order they are reported, each with what the job wants of it. */
        List<Wanted> wanted() {
            Map<String, String> common = new LinkedHashMap<>();
            Integer minInsync = minInsyncReplicas;
            if (minInsync == null && replicationFactor != null && replicationFactor > 1) minInsync = Math.min(replicationFactor - 1, 2);
            if (minInsync != null) common.put("min.insync.replicas", String.valueOf(minInsync));
            List<Wanted> topics = new ArrayList<>();
            topics.add(new Wanted("requests", requestsTopic, partitions, with(common, "retention.ms", "3600000")));
            topics.add(new Wanted("results", resultsTopic, partitions, with(common, "retention.ms", "86400000")));
            topics.add(new Wanted("telemetry", telemetryTopic, 1, with(common, "retention.ms", "86400000")));
            Map<String, String> control = with(common, "cleanup.policy", "compact");
            control.put("retention.ms", "-1");
            topics.add(new Wanted("control", controlTopic, 1, control));
            topics.add(new Wanted("outcomes", outcomesTopic, 1, with(common, "retention.ms", "86400000")));
            topics.add(new Wanted("device reports", deviceReportsTopic, 1, with(common, "retention.ms", "600000")));
            topics.add(new Wanted("pipeline hops", pipelineHopsTopic, partitions, with(common, "retention.ms", "600000")));
            return topics;
        }

        private static Map<String, String> with(Map<String, String> common, String key, String value) {
            Map<String, String> out = new LinkedHashMap<>();
            out.put(key, value);
            out.putAll(common);
            return out;
        }

        private void check() {
            CommandLine cl = spec.commandLine();
            if (partitions < 1) throw new ParameterException(cl, "--partitions must be at least 1, got " + partitions);
            if (replicationFactor != null && replicationFactor < 1) throw new ParameterException(cl, "--replication-factor must be at least 1, got " + replicationFactor);
            if (minInsyncReplicas != null && minInsyncReplicas < 1) throw new ParameterException(cl, "--min-insync-replicas must be at least 1, got " + minInsyncReplicas);
            if (minInsyncReplicas != null && replicationFactor != null && minInsyncReplicas > replicationFactor) {
                throw new ParameterException(cl, "--min-insync-replicas " + minInsyncReplicas + " is more than --replication-factor " + replicationFactor
                        + ": no write would ever succeed");
            }
            List<String> names = wanted().stream().map(Wanted::name).toList();
            for (String name : names) {
                if (name.isBlank()) throw new ParameterException(cl, "a topic name is empty");
            }
            if (names.stream().distinct().count() != names.size()) {
                throw new ParameterException(cl, "two roles name the same topic: " + names);
            }
        }

        @Override
        public Integer call() throws Exception {
            check();
            try {
                return createAll();
            } catch (ExecutionException e) { // the broker's own error, in its words
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }

        private int createAll() throws Exception {
            Map<String, String> user = kafka.clientProperties(spec.commandLine());
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Map<String, Object> props = new LinkedHashMap<>();
            props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers);
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "kairos-topics");
            List<Wanted> wanted = wanted();
            int conflicts = 0;
            try (Admin admin = Admin.create(KafkaClientProperties.over(props, user))) {
                Map<String, TopicDescription> existing = describe(admin, wanted.stream().map(Wanted::name).toList());
                List<Wanted> missing = wanted.stream().filter(w -> !existing.containsKey(w.name())).toList();
                List<String> created = create(admin, missing);
                // Another client may have made one between the description and the creation: checked as existing then.
                existing.putAll(describe(admin, missing.stream().map(Wanted::name).filter(n -> !created.contains(n)).toList()));
                awaitLeaders(admin, created);
                Map<String, TopicDescription> made = describe(admin, created);
                Map<String, Config> configs = configs(admin, existing.keySet());
                for (Wanted w : wanted) {
                    if (created.contains(w.name())) {
                        TopicDescription d = made.get(w.name());
                        out.println("created " + w.name() + " (" + w.role() + "): " + w.describe(Optional.of(replicas(d))));
                        continue;
                    }
                    TopicDescription d = existing.get(w.name());
                    List<String> differences = differences(w, d, configs.get(w.name()));
                    if (differences.isEmpty()) {
                        out.println("exists  " + w.name() + " (" + w.role() + "): " + w.describe(Optional.of(replicas(d))));
                    } else {
                        conflicts++;
                        err.println("kairos topics create: " + w.name() + " (" + w.role() + ") exists with other settings, left as it is: "
                                + String.join(", ", differences));
                    }
                }
            }
            out.flush();
            err.flush();
            return conflicts == 0 ? 0 : 1;
        }

        /** How {@code d} differs from what the job wants, each as "what it has (wanted what)"; empty: as wanted. */
        private List<String> differences(Wanted w, TopicDescription d, Config config) {
            List<String> diffs = new ArrayList<>();
            int partitionsNow = d.partitions().size();
            if (partitionsNow != w.partitions()) diffs.add(partitionsNow + " partition(s) (wanted " + w.partitions() + ")");
            if (replicationFactor != null && replicas(d) != replicationFactor) {
                diffs.add(replicas(d) + " replica(s) (wanted " + replicationFactor + ")");
            }
            for (Map.Entry<String, String> e : w.configs().entrySet()) {
                ConfigEntry entry = config == null ? null : config.get(e.getKey());
                String now = entry == null ? null : entry.value();
                if (!e.getValue().equals(now)) diffs.add(e.getKey() + "=" + now + " (wanted " + e.getValue() + ")");
            }
            return diffs;
        }

        private static short replicas(TopicDescription d) {
            return d.partitions().isEmpty() ? 0 : (short) d.partitions().get(0).replicas().size();
        }

        private Map<String, TopicDescription> describe(Admin admin, List<String> names) throws Exception {
            Map<String, TopicDescription> found = new LinkedHashMap<>();
            if (names.isEmpty()) return found;
            Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(names).topicNameValues();
            for (String name : names) {
                try {
                    found.put(name, get(futures.get(name)));
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
                }
            }
            return found;
        }

        /** Creates {@code missing}; the names of those this call created (not those another client made meanwhile). */
        private List<String> create(Admin admin, List<Wanted> missing) throws Exception {
            List<String> created = new ArrayList<>();
            if (missing.isEmpty()) return created;
            List<NewTopic> topics = missing.stream()
                    .map(w -> new NewTopic(w.name(), Optional.of(w.partitions()), Optional.ofNullable(replicationFactor)).configs(w.configs()))
                    .toList();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (true) {
                CreateTopicsResult result = admin.createTopics(topics);
                List<NewTopic> again = new ArrayList<>();
                for (NewTopic t : topics) {
                    try {
                        get(result.values().get(t.name()));
                        created.add(t.name());
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof TopicExistsException) continue;
                        // A broker that has just started answers before it is registered with the controller, which
                        // then counts too few brokers for the replicas: asked again until the timeout.
                        if (!(e.getCause() instanceof InvalidReplicationFactorException) || System.nanoTime() > until) throw e;
                        again.add(t);
                    }
                }
                if (again.isEmpty()) return created;
                topics = again;
                Thread.sleep(500);
            }
        }

        /**
         * The controller answers a creation before the brokers lead the new partitions; a client
         * started right after would find a topic without partitions. Returns once each has a leader.
         */
        private void awaitLeaders(Admin admin, List<String> names) throws Exception {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            List<String> waiting = new ArrayList<>(names);
            while (!waiting.isEmpty()) {
                Map<String, TopicDescription> now = describe(admin, waiting);
                waiting.removeIf(n -> now.containsKey(n) && !now.get(n).partitions().isEmpty()
                        && now.get(n).partitions().stream().map(TopicPartitionInfo::leader).allMatch(l -> l != null && !l.isEmpty()));
                if (waiting.isEmpty()) return;
                if (System.nanoTime() > until) throw new TimeoutException("no leader within " + timeoutMs + " ms for the partitions of " + waiting);
                Thread.sleep(100);
            }
        }

        private Map<String, Config> configs(Admin admin, java.util.Collection<String> names) throws Exception {
            if (names.isEmpty()) return Map.of();
            List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
            Map<ConfigResource, Config> all = get(admin.describeConfigs(resources).all());
            Map<String, Config> byName = new LinkedHashMap<>();
            all.forEach((r, c) -> byName.put(r.name(), c));
            return byName;
        }

        private <T> T get(KafkaFuture<T> future) throws Exception {
            try {
                return future.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new TimeoutException("the brokers at " + kafka.bootstrapServers + " did not answer within " + timeoutMs + " ms");
            }
        }
    }
}
