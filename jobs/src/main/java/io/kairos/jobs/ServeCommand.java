package io.kairos.jobs;


import io.kairos.core.device.Eviction;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.RepositorySource;
import io.kairos.flink.RepositoryCopy;
import io.kairos.jobs.options.LearnLatencyOption;
import io.kairos.jobs.options.BufferTimeoutOption;
import io.kairos.jobs.options.ConfigFile;
import io.kairos.jobs.options.ConfigFlags;
import io.kairos.jobs.options.ReportCoalescingOptions;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.jobs.options.ModelsOption;
import io.kairos.jobs.options.SimulatedSpeedOption;
import io.kairos.jobs.options.PolicyOptions;
import io.kairos.jobs.options.RestartOptions;
import io.kairos.wire.Secrets;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code serve}: runs the serving job on the Flink cluster it is submitted to ({@code flink run}),
 * or in a local mini-cluster when started with plain {@code java}. Every flag can also come from a
 * properties file ({@code --config}, {@link ConfigFile}) whose keys are the flag names without
 * dashes, e.g. {@code bootstrap-servers=broker:9092}; flags on the command line win. The flags fill
 * a {@link ServingConfig.Builder}, whose checks are the configuration's ({@link ConfigFlags}).
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run the Kairos serving job: requests topic -> deadline-aware batching -> devices -> results topic.")
public class ServeCommand implements Callable<Integer> {
    private static final ServingConfig DEFAULTS = ServingConfig.DEFAULTS;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with defaults for any flag below.")
    Path configFile;

    @CommandLine.Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Option(names = "--requests-topic", description = "default: ${DEFAULT-VALUE}")
    String requestsTopic = DEFAULTS.requestsTopic;

    @Option(names = "--results-topic", description = "default: ${DEFAULT-VALUE}")
    String resultsTopic = DEFAULTS.resultsTopic;

    @Option(names = "--telemetry-topic", description = "default: ${DEFAULT-VALUE}")
    String telemetryTopic = DEFAULTS.telemetryTopic;

    @Option(names = "--control-topic", description = "default: ${DEFAULT-VALUE}")
    String controlTopic = DEFAULTS.controlTopic;

    @Option(names = "--outcomes-topic", description = "Outcomes of the control decisions (default: ${DEFAULT-VALUE}).")
    String outcomesTopic = DEFAULTS.outcomesTopic;

    @Option(names = "--device-reports-topic", description = "Where the devices report each batch's real start and end back to their schedulers (default: ${DEFAULT-VALUE}).")
    String deviceReportsTopic = DEFAULTS.deviceReportsTopic;

    @Option(names = "--pipeline-hops-topic", description = "Where a pipeline request goes from one stage to the next; the job writes and reads it (default: ${DEFAULT-VALUE}).")
    String pipelineHopsTopic = DEFAULTS.pipelineHopsTopic;

    @Option(names = "--group-id", description = "Kafka consumer group of the job (default: ${DEFAULT-VALUE}).")
    String groupId = DEFAULTS.consumerGroup;

    @Option(names = "--from-earliest", description = "With no committed offsets, read requests from the start of the topic rather than the end.")
    boolean fromEarliest = DEFAULTS.fromEarliest;

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @CommandLine.Mixin
    DevicesOption devices = new DevicesOption();

    @CommandLine.Mixin
    SimulatedSpeedOption speed = new SimulatedSpeedOption();

    @CommandLine.Mixin
    ModelsOption models = new ModelsOption();

    @Option(names = "--model-repository", paramLabel = "DIR|URI", description = "Serve the ONNX models of this model repository with ONNX Runtime devices "
            + "(one folder per model with model.onnx and model.json): a folder every machine has, or a URI that Flink's file systems read "
            + "(s3://, hdfs://, file://), copied to each machine; replaces --models and the simulated devices.")
    String modelRepository;

    @Option(names = "--device-memory-mb", description = "Memory budget of each device for loaded models; evicted beyond it by --eviction (default: ${DEFAULT-VALUE}).")
    long deviceMemoryMb = DEFAULTS.deviceMemoryMb;

    @Option(names = "--eviction", paramLabel = "RULE", description = "Which loaded model a device evicts when one must load that does not fit: lru "
            + "(least recently used first) or frequency (least often used per byte, aged; see docs/placement.md); the scheduler replays it (default: lru).")
    String eviction = DEFAULTS.eviction.id();

    @Option(names = "--intra-op-threads", description = "CPU threads of one ONNX batch; 0 = the cores shared evenly among the devices (default: ${DEFAULT-VALUE}).")
    int intraOpThreads = DEFAULTS.intraOpThreads;

    @Option(names = "--warmup", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Each ONNX device loads the repository's models and runs each at every batch size of its manifest on synthetic inputs "
                    + "before it takes traffic; logged with its duration, metric kairos.warmUpMillis (default: ${DEFAULT-VALUE}).")
    boolean warmUp = DEFAULTS.warmUp;

    @CommandLine.Mixin
    BufferTimeoutOption bufferTimeout = new BufferTimeoutOption();

    @CommandLine.Mixin
    ReportCoalescingOptions coalescing = new ReportCoalescingOptions();

    @Option(names = "--checkpoint-interval-ms", description = "0 disables checkpointing (default: ${DEFAULT-VALUE}).")
    long checkpointIntervalMs = DEFAULTS.checkpointIntervalMs;

    @Option(names = "--delivery", description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ServingConfig.Delivery delivery = DEFAULTS.delivery;

    @Option(names = "--transaction-timeout-ms", paramLabel = "MS",
            description = "EXACTLY_ONCE: the results transactions' timeout, at most the brokers' transaction.max.timeout.ms (default: ${DEFAULT-VALUE}).")
    long transactionTimeoutMs = DEFAULTS.transactionTimeoutMs;

    @CommandLine.Mixin
    RestartOptions restart = new RestartOptions();

    @CommandLine.Mixin
    LearnLatencyOption learn = new LearnLatencyOption();

    @Option(names = "--scheduler-parallelism", paramLabel = "N",
            description = "Subtasks of the group scheduler, each running the serving groups whose keys it owns: several groups' scheduling "
                    + "spreads over threads and TaskManagers; one group is one subtask's (default: ${DEFAULT-VALUE}).")
    int schedulerParallelism = DEFAULTS.schedulerParallelism;

    @Option(names = "--async-timeout-ms", description = "A batch running longer fails (default: ${DEFAULT-VALUE}).")
    long asyncTimeoutMs = DEFAULTS.asyncTimeoutMs;

    @Option(names = "--max-id-bytes", paramLabel = "BYTES", description = "Longest request_id and pipeline_id admitted, in UTF-8 bytes; longer ones are REJECTED (default: ${DEFAULT-VALUE}).")
    int maxIdBytes = DEFAULTS.maxIdBytes;

    @Option(names = "--max-name-bytes", paramLabel = "BYTES", description = "Longest tenant and model name admitted, in UTF-8 bytes (default: ${DEFAULT-VALUE}).")
    int maxNameBytes = DEFAULTS.maxNameBytes;

    @Option(names = "--max-slo-ms", paramLabel = "MS", description = "Longest SLO admitted (default: ${DEFAULT-VALUE}).")
    double maxSloMs = DEFAULTS.maxSloMs;

    @Option(names = "--max-clock-skew-ms", paramLabel = "MS", description = "How far ahead of the job's clock a request's sent_at_micros may be (default: ${DEFAULT-VALUE}).")
    long maxClockSkewMs = DEFAULTS.maxClockSkewMs;

    @Option(names = "--registry-schema-id", paramLabel = "ID", split = ",",
            description = "Also read requests in a schema registry's wire format (magic byte 0, 4-byte schema id; Confluent's serializers) "
                    + "whose schema id is this one, the id Kairos's InferenceRequest schema has in the producers' registry; repeatable.")
    java.util.List<Integer> registrySchemaIds = new java.util.ArrayList<>();

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "Also read framed requests of any id that this schema registry has a schema for that the job can read "
                    + "(looked up once per id; user:password@ in the URL for basic authentication).")
    String schemaRegistryUrl;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * The configuration the flags describe, checked before the job starts; an error names the flag,
     * or the key of the {@code --config} file that gave the value.
     *
     * @throws CommandLine.ParameterException in one line naming what is wrong
     */
    /**
     * A model repository in a folder as an absolute path, since the task managers do not share the
     * client's working directory; a URI as it is. Checked here, where the repository is opened,
     * rather than by the configuration: reading a location needs the ONNX and Flink modules, which
     * the configuration's other users (the tuner's jar) do not carry.
     */
    private static String located(String modelRepository) {
        if (modelRepository == null) return null;
        RepositorySource source = RepositoryCopy.of(modelRepository);
        return source instanceof RepositoryCopy ? modelRepository : source.localRoot().toString();
    }

    public ServingConfig config() {
        CommandLine cl = spec.commandLine();
        devices.check(cl);
        Eviction evictionRule;
        try {
            evictionRule = Eviction.parse(eviction);
        } catch (IllegalArgumentException e) {
            // Eviction names the rule "eviction"; here it is the flag or the file's key.
            throw new CommandLine.ParameterException(cl, ConfigFlags.names(cl).apply("eviction") + e.getMessage().substring("eviction".length()));
        }
        String repository;
        try {
            repository = located(modelRepository);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, ConfigFlags.names(cl).apply("modelRepository") + ": " + Secrets.maskUris(e.getMessage()));
        }
        ServingConfig.Builder c = ServingConfig.builder();
        c.bootstrapServers = kafka.bootstrapServers;
        c.kafkaProperties = kafka.clientProperties(cl);
        c.requestsTopic = requestsTopic;
        c.resultsTopic = resultsTopic;
        c.telemetryTopic = telemetryTopic;
        c.controlTopic = controlTopic;
        c.outcomesTopic = outcomesTopic;
        c.deviceReportsTopic = deviceReportsTopic;
        c.pipelineHopsTopic = pipelineHopsTopic;
        c.consumerGroup = groupId;
        c.fromEarliest = fromEarliest;
        policy.applyTo(c);
        devices.applyTo(c);
        c.simulatedSpeed = speed.simulatedSpeed;
        c.modelsFile = models.modelsFile == null ? null : models.modelsFile.toString();
        c.modelRepository = repository;
        c.deviceMemoryMb = deviceMemoryMb;
        c.eviction = evictionRule;
        c.intraOpThreads = intraOpThreads;
        c.warmUp = warmUp;
        bufferTimeout.applyTo(c);
        coalescing.applyTo(c, cl);
        c.checkpointIntervalMs = checkpointIntervalMs;
        c.delivery = delivery;
        c.transactionTimeoutMs = transactionTimeoutMs;
        c.restarts = restart.restarts(cl);
        c.schedulerParallelism = schedulerParallelism;
        c.asyncTimeoutMs = asyncTimeoutMs;
        c.learnLatency = learn.learnLatency;
        c.maxIdBytes = maxIdBytes;
        c.maxNameBytes = maxNameBytes;
        c.maxSloMs = maxSloMs;
        c.maxClockSkewMs = maxClockSkewMs;
        c.registrySchemaIds = new java.util.TreeSet<>(registrySchemaIds);
        c.schemaRegistryUrl = schemaRegistryUrl;
        return ConfigFlags.build(c, cl);
    }

    /**
     * The catalog of the models served: the model repository's (its problems printed to
     * {@code System.err}, one line per model left out), the profiles file, or the built-in one.
     */
    public static ModelCatalog catalog(ServingConfig config) {
        if (config.modelRepository != null) {
            ModelRepository repository;
            try {
                repository = ModelRepository.load(RepositoryCopy.of(config.modelRepository).localRoot());
            } catch (UncheckedIOException e) { // a repository that cannot be read is the user's to fix, in one line
                throw new IllegalArgumentException(Secrets.maskUris(e.getMessage()), e);
            }
            for (String problem : repository.problems()) System.err.println("kairos: model left out: " + problem);
            if (repository.models().isEmpty()) {
                throw new IllegalArgumentException(Secrets.maskUris(config.modelRepository) + ": no model of the repository can be served");
            }
            return repository.catalog();
        }
        return config.modelsFile == null ? ModelCatalog.builtIn() : ModelCatalog.load(Path.of(config.modelsFile));
    }

    @Override
    public Integer call() throws Exception {
        requireFlink();
        ServingConfig config = config();
        if (!config.kafkaProperties.isEmpty()) { // what the clients will be given, credentials masked
            spec.commandLine().getOut().println("serve: Kafka client properties " + KafkaOptions.describe(config.kafkaProperties));
            spec.commandLine().getOut().flush();
        }
        ModelCatalog catalog = catalog(config);
        devices.slots(spec.commandLine(), catalog); // a type the catalog lacks stops serve here, in one line
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        ServingJob.onKafka(config, catalog).build(env);
        CompiledSubmission.execute(env, "kairos-serving");
        return 0;
    }

    /**
     * Stops {@code serve} in one line where Flink is not on the class path: the binary
     * distribution's command line leaves Flink to the cluster, which runs the job jar.
     */
    static void requireFlink() {
        try {
            Class.forName("org.apache.flink.streaming.api.environment.StreamExecutionEnvironment", false, ServeCommand.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            Path jobs = Path.of(System.getProperty("kairos.home", "."), "job");
            Path jar = jobs.resolve("kairos-jobs-VERSION-job.jar");
            try (var files = Files.list(jobs)) {
                jar = files.filter(f -> f.getFileName().toString().endsWith("-job.jar")).findFirst().orElse(jar);
            } catch (IOException | UncheckedIOException notThere) {
                // named by its pattern then
            }
            throw new IllegalStateException("the job runs in Flink, which is not on this command line's class path: submit it to a Flink cluster "
                    + "with 'flink run " + jar + "' and these flags, or run serve from a checkout");
        }
    }

    /**
     * The configuration serve's {@code options} describe, checked as serve checks them, for a
     * command that takes a job's flags to act on that job (its broker, topics and catalog).
     *
     * @throws CommandLine.ParameterException naming the flag that is wrong
     */
    public static ServingConfig configOf(java.util.List<String> options) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(options.toArray(String[]::new));
        return serve.config();
    }

    /** A command line that reads flag defaults from {@code --config FILE} if given, with one-line errors. */
    public static CommandLine commandLine(Object command, String[] args) {
        CommandLine cl = new CommandLine(command);
        useConfigFile(cl, args);
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("kairos: " + ex.getMessage());
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            if (ex instanceof IllegalArgumentException) { // e.g. a profiles file that names a bad field
                c.getErr().println("kairos: " + ex.getMessage());
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    /** Makes {@code --config FILE} among {@code args} supply the defaults of the serve command {@code cl}. */
    public static void useConfigFile(CommandLine cl, String[] args) {
        Path config = configFileIn(args);
        if (config != null) cl.setDefaultValueProvider(ConfigFile.read(config, cl));
    }

    private static Path configFileIn(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config") && i + 1 < args.length) return Path.of(args[i + 1]);
            if (args[i].startsWith("--config=")) return Path.of(args[i].substring("--config=".length()));
        }
        return null;
    }
}
