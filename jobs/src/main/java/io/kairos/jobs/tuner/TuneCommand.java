package io.kairos.jobs.tuner;

import io.kairos.control.ControlTopic;
import io.kairos.control.tuner.StageScale;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineException;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.jobs.CompiledSubmission;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.KafkaOptions;
import io.kairos.jobs.options.ModelsOption;
import io.kairos.workload.ArrivalTrace;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code tune}: the tuner job of one pipeline, beside the serving job. It plans the pipeline as
 * {@code kairos plan pipeline} does (the same pipeline, sample trace, catalog, devices and seed
 * give the same configuration), so it starts from the placement that command published, and
 * submits the job: requests topic → envelope and scale rules → control topic. What
 * {@code flink run} of the tuner jar runs ({@link TunerJobMain}).
 */
@Command(name = "tune", mixinStandardHelpOptions = true,
        description = {"Run InferLine's tuner for one pipeline as a Flink job beside the serving job: it plans the pipeline as "
                + "`kairos plan pipeline` does (publish that plan first, with the same --pipeline, --trace, --devices, --models and --seed), "
                + "then follows the pipeline's arrivals on the requests topic and publishes each stage's replicas to the control topic."})
public final class TuneCommand implements Callable<Integer> {

    @CommandLine.Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Option(names = "--requests-topic", description = "default: ${DEFAULT-VALUE}")
    String requestsTopic = ServingConfig.DEFAULTS.requestsTopic;

    @Option(names = "--control-topic", description = "default: ${DEFAULT-VALUE}")
    String controlTopic = ServingConfig.DEFAULTS.controlTopic;

    @Option(names = "--group-id", description = "Kafka consumer group of the tuner job on the requests topic (default: ${DEFAULT-VALUE}).")
    String groupId = "kairos-tuner";

    @Option(names = "--pipeline", paramLabel = "FILE", required = true, description = "The pipeline's spec (JSON), as given to `kairos plan pipeline`.")
    Path pipelineFile;

    @Option(names = "--trace", paramLabel = "FILE", required = true,
            description = "The sample trace the pipeline was planned on: arrival times in milliseconds, one per line (the tuner compares the traffic with it).")
    Path traceFile;

    @Option(names = "--slo-p99", paramLabel = "MS", description = "The end-to-end P99 target, milliseconds (default: the spec's slo_p99_ms).")
    Double sloMs;

    @Option(names = "--seed", description = "Seed of the planner's simulated paths, as given to `kairos plan pipeline` (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @CommandLine.Mixin
    DevicesOption devices = new DevicesOption();

    @CommandLine.Mixin
    ModelsOption models = new ModelsOption();

    @Option(names = "--writer", description = "The writer id of the tuner's decisions on the control topic (default: ${DEFAULT-VALUE}).")
    String writer = "kairos-tuner";

    @Option(names = "--tick-ms", paramLabel = "MS", description = "How often the scale rules run (default: ${DEFAULT-VALUE}).")
    long tickMs = TunerSettings.DEFAULT.tickMicros() / 1000;

    @Option(names = "--checkpoint-interval-ms", paramLabel = "MS", description = "Checkpoints of the tuner's state; 0 disables them (default: ${DEFAULT-VALUE}).")
    long checkpointIntervalMs = 10_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        devices.check(spec.commandLine());
        if (tickMs < 1) throw new ParameterException(spec.commandLine(), "--tick-ms must be at least 1, got " + tickMs);
        if (checkpointIntervalMs < 0) throw new ParameterException(spec.commandLine(), "--checkpoint-interval-ms must not be negative, got " + checkpointIntervalMs);
        if (sloMs != null && (!(sloMs > 0) || Double.isInfinite(sloMs))) {
            throw new ParameterException(spec.commandLine(), "--slo-p99 must be a positive number of milliseconds, got " + sloMs);
        }
        ModelCatalog catalog;
        try {
            catalog = models.modelsFile == null ? ModelCatalog.builtIn() : ModelCatalog.load(models.modelsFile);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--models " + models.modelsFile + ": " + e.getMessage());
        }
        DeviceSlots slots = devices.slots(spec.commandLine(), catalog);
        PipelineSpec pipeline;
        try {
            pipeline = PipelineSpec.load(pipelineFile);
        } catch (PipelineException e) {
            throw new ParameterException(spec.commandLine(), "--pipeline " + e.getMessage());
        }
        ArrivalTrace trace;
        try {
            trace = ArrivalTrace.read(traceFile);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--trace " + e.getMessage());
        }
        long slo = sloMs == null ? pipeline.sloP99Micros() : Math.max(1, Math.round(sloMs * 1000));
        TunerSettings d = TunerSettings.DEFAULT;
        TunerSettings settings = new TunerSettings(d.bucketMicros(), d.windowsMicros(), d.lookbackMicros(), d.scaleDownQuietMicros(), tickMs * 1000);
        // The stages' slots as kairos plan pipeline --publish chose them: on the job's current plan.
        ServingPlan current = ControlTopic.read(kafka.bootstrapServers, kafka.clientProperties(spec.commandLine()), controlTopic, Duration.ofSeconds(30))
                .ledger(new ServingPlan(slots, Long.MAX_VALUE, ServingConfig.DEFAULTS.policy, PolicyParams.NONE, catalog)).plan();
        TunerSetup setup;
        try {
            setup = TunerSetup.plan(pipeline, trace, catalog, slots, slo, seed, settings, current);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--pipeline " + pipelineFile + ": " + e.getMessage());
        }
        for (int s = 0; s < setup.plan().stages().size(); s++) {
            StageScale stage = setup.plan().stages().get(s);
            out.printf(Locale.ROOT, "tune: stage %s (%s) on %s: planned %d replica(s) at devices %s, mu %.4g requests/s, s_m %.3g%n", stage.stage(),
                    stage.model(), stage.hardwareType(), stage.plannedReplicas(), setup.placed().get(s), stage.replicaThroughput(), stage.scaleFactor());
        }
        out.flush();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (checkpointIntervalMs > 0) env.enableCheckpointing(checkpointIntervalMs, CheckpointingMode.AT_LEAST_ONCE);
        TunerJob.onKafka(kafka.bootstrapServers, kafka.clientProperties(spec.commandLine()), requestsTopic, controlTopic, groupId)
                .build(env, setup.function(slots, writer));
        CompiledSubmission.execute(env, "kairos-tuner " + pipeline.id());
        return 0;
    }
}
