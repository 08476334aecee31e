package io.kairos.jobs.cli;

import io.kairos.control.ControlTopic;
import io.kairos.control.DecisionPublisher;
import io.kairos.control.TelemetryRates;
import io.kairos.control.herd.DeviceHosts;
import io.kairos.control.herd.HerdDecisions;
import io.kairos.control.herd.HerdDryRun;
import io.kairos.control.herd.HerdPlan;
import io.kairos.control.herd.HerdProblem;
import io.kairos.control.herd.HerdSolver;
import io.kairos.control.herd.RequestStream;
import io.kairos.control.herd.SingleDeviceGoodput;
import io.kairos.control.herd.StreamsFile;
import io.kairos.control.inferline.InferLinePlanner;
import io.kairos.control.inferline.PipelineDecisions;
import io.kairos.control.inferline.TopicTrace;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.TablePlanner;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineException;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.core.time.WallClock;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.options.DevicesOption;
import io.kairos.jobs.options.ModelsOption;
import io.kairos.jobs.options.TelemetryReadOptions;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.sim.SimulationReport;
import io.kairos.sim.pipeline.PipelineConfig;
import io.kairos.sim.pipeline.PipelineEstimate;
import io.kairos.sim.pipeline.PipelineEstimator;
import io.kairos.sim.pipeline.StageConfig;
import io.kairos.wire.HttpUrls;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.DecisionLedger;
import io.kairos.workload.ArrivalTrace;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code kairos plan}: the planners of the control plane, run on demand; each publishes its
 * decisions through the one publisher, as {@code kairos control} does, and waits for the job's
 * outcome.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Compute a plan for a running job and publish it as control decisions.",
        subcommands = {PlanCommand.SmdpCommand.class, PlanCommand.PipelineCommand.class, PlanCommand.HerdCommand.class})
public class PlanCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: one of " + spec.subcommands().keySet());
    }

    @Command(name = "smdp", mixinStandardHelpOptions = true,
            description = {"Solve a model's SMDP-optimal batching table for its arrival rate and the cost w1 * latency (ms) + w2 * power (W), "
                    + "and publish it to its serving group (a SetBatchingTable decision, key batching/<group>/<model>), which serves from it "
                    + "under the smdp policy (kairos control set-policy --policy smdp)."})
    static final class SmdpCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        ControlCommand.Publishing options = ControlCommand.publishing("kairos-plan-smdp");
        @Mixin
        ModelsOption models = new ModelsOption();

        @Option(names = "--group", description = "Serving group the model is routed to (default: ${DEFAULT-VALUE}).")
        String group = "default";

        @Option(names = "--model", required = true, description = "The model, as the catalog names it.")
        String model;

        @Option(names = "--rate", paramLabel = "REQUESTS_PER_S",
                description = "The model's arrival rate, requests per second; default: the job's own estimate on the model's latest batch in --telemetry-topic.")
        Double rate;

        @Mixin
        TelemetryReadOptions telemetry = new TelemetryReadOptions();

        @Option(names = "--devices", description = "How many devices of the group share the model's requests: the table is solved for rate / devices (default: ${DEFAULT-VALUE}).")
        int devices = 1;

        @Option(names = "--w1", description = "Weight of the mean latency, ms (default: ${DEFAULT-VALUE}).")
        double w1 = 1;

        @Option(names = "--w2", description = "Weight of the mean power, W; needs the model's energy_mj in the catalog (default: ${DEFAULT-VALUE}).")
        double w2 = 0;

        @Option(names = "--dry-run", description = "Print the table and publish nothing.")
        boolean dryRun;

        @Override
        public Integer call() {
            if (rate != null && (!(rate > 0) || Double.isInfinite(rate))) {
                throw new ParameterException(spec.commandLine(), "--rate must be a positive number of requests per second, got " + rate);
            }
            telemetry.check(spec.commandLine());
            if (devices < 1) throw new ParameterException(spec.commandLine(), "--devices must be at least 1, got " + devices);
            CostWeights weights;
            try {
                weights = CostWeights.of(w1, w2);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--w1 " + w1 + " --w2 " + w2 + ": " + e.getMessage());
            }
            ModelCatalog catalog;
            try {
                catalog = models.modelsFile == null ? ModelCatalog.builtIn() : ModelCatalog.load(models.modelsFile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--models " + models.modelsFile + ": " + e.getMessage());
            }
            if (!catalog.contains(model)) throw new ParameterException(spec.commandLine(), "--model '" + model + "' is not in the catalog; it has " + catalog.names());
            double solveFor;
            if (rate != null) {
                solveFor = rate;
            } else {
                ControlCommand.Topics t = options.topics;
                Optional<TelemetryRates.Estimate> estimate = TelemetryRates.latest(t.kafka.bootstrapServers, t.kafka.clientProperties(spec.commandLine()),
                        telemetry.topic, group, model, telemetry.tail, Duration.ofSeconds(15));
                if (estimate.isEmpty() || !(estimate.get().perSecond() > 0)) {
                    spec.commandLine().getErr().println("no rate estimate of model '" + model + "' in serving group '" + group + "' in the last "
                            + telemetry.tail + " records of " + telemetry.topic + ": give --rate");
                    return 1;
                }
                solveFor = estimate.get().perSecond();
                spec.commandLine().getOut().printf(java.util.Locale.ROOT, "rate %.6g requests/s: the job's estimate on batch %s in %s%n",
                        solveFor, estimate.get().batchId(), telemetry.topic);
            }
            TablePlanner.Plan plan;
            try {
                plan = new TablePlanner().plan(group, catalog.get(model), solveFor, devices, weights);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            spec.commandLine().getOut().println(plan.describe());
            if (!plan.accepted().accepted()) {
                spec.commandLine().getErr().println("the truncation is not acceptable (Delta not below " + TablePlanner.DELTA + " up to s_max "
                        + TablePlanner.S_MAX_LIMIT + "): nothing published");
                return 1;
            }
            if (dryRun) return 0;
            return ControlCommand.publish(spec, options, plan.decision());
        }
    }

    @Command(name = "pipeline", mixinStandardHelpOptions = true,
            description = {"Plan a pipeline with InferLine's planner: per stage the hardware type, max batch and replicas that meet its "
                    + "end-to-end P99 SLO on a sample trace at the lowest cost found (Algorithm 1, then Algorithm 2's greedy moves, each "
                    + "configuration checked by simulating the trace through the pipeline with the job's scheduler). Prints the configuration, "
                    + "its cost per hour and estimated P99; with --publish, serves it: per stage a serving group <pipeline>-<stage> "
                    + "(SetPlacement on the job's devices of the stage's type, SetPolicy triton with its max batch, AssignGroup), then the "
                    + "pipeline (SetPipeline)."})
    static final class PipelineCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        ControlCommand.Publishing options = ControlCommand.publishing("kairos-plan-pipeline");
        @Mixin
        ModelsOption models = new ModelsOption();
        @Mixin
        DevicesOption devices = new DevicesOption();

        @Option(names = "--pipeline", paramLabel = "FILE", required = true, description = "The pipeline's spec (JSON): its id, SLO, stages and edges.")
        Path pipelineFile;

        @ArgGroup(multiplicity = "1")
        TraceSource trace;

        static final class TraceSource {
            @Option(names = "--trace", paramLabel = "FILE", description = "A sample trace: arrival times in milliseconds, one per line, any origin and order.")
            Path file;

            @Option(names = "--trace-from-topic", paramLabel = "START..END",
                    description = "The requests topic's own history between two times as the sample trace: ISO-8601 instants, epoch milliseconds, now or now-1h (e.g. now-1h..now).")
            String window;
        }

        @Option(names = "--requests-topic", description = "The topic --trace-from-topic reads (default: ${DEFAULT-VALUE}).")
        String requestsTopic = ServingConfig.DEFAULTS.requestsTopic;

        @Option(names = "--trace-timeout-ms", description = "How long reading the topic's history may take (default: ${DEFAULT-VALUE}).")
        long traceTimeoutMs = 120_000;

        @Option(names = "--slo-p99", paramLabel = "MS", description = "The end-to-end P99 target, milliseconds (default: the spec's slo_p99_ms).")
        Double sloMs;

        @Option(names = "--seed", description = "Seed of the requests' paths through the pipeline (default: ${DEFAULT-VALUE}).")
        long seed = 1;

        @Option(names = "--steps", description = "Print every step of the search.")
        boolean steps;

        @Option(names = "--timeout-ms", description = "With --publish: how long reading the control topic for the job's current plan may take (default: ${DEFAULT-VALUE}).")
        long timeoutMs = 15_000;

        @ArgGroup
        Mode mode = new Mode();

        static final class Mode {
            @Option(names = "--dry-run", description = "Print the plan and publish nothing (the default).")
            boolean dryRun;

            @Option(names = "--publish", description = "Publish the plan's decisions and wait for the job's outcome of each.")
            boolean publish;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            devices.check(spec.commandLine());
            if (sloMs != null && (!(sloMs > 0) || Double.isInfinite(sloMs))) {
                throw new ParameterException(spec.commandLine(), "--slo-p99 must be a positive number of milliseconds, got " + sloMs);
            }
            if (traceTimeoutMs < 1) throw new ParameterException(spec.commandLine(), "--trace-timeout-ms must be at least 1, got " + traceTimeoutMs);
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
            long slo = sloMs == null ? pipeline.sloP99Micros() : Math.max(1, Math.round(sloMs * 1000));
            ArrivalTrace sample = trace(out);
            PipelineEstimator estimator;
            try {
                estimator = new PipelineEstimator(catalog, pipeline, sample, seed);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--pipeline " + pipelineFile + ": " + e.getMessage());
            }
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long started = System.nanoTime();
            long cpuStarted = threads.getCurrentThreadCpuTime();
            InferLinePlanner planner = new InferLinePlanner(estimator, slo, sample.meanRatePerSecond(), slots.distinctTypes());
            InferLinePlanner.Plan plan = planner.plan();
            double seconds = (System.nanoTime() - started) / 1e9;
            double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStarted) / 1e9;
            if (steps) {
                for (InferLinePlanner.Step step : plan.steps()) out.println("  " + step.text());
            }
            if (!plan.feasible()) {
                spec.commandLine().getErr().println(plan.infeasibility());
                return 1;
            }
            List<PipelineDecisions.StageDevices> placed = null;
            String lacking = null;
            ServingPlan current = null;
            try {
                placed = PipelineDecisions.devices(pipeline, plan.config(), slots);
                if (mode.publish) {
                    // Publishing, the stages take slots no other group of the job's current plan holds.
                    current = currentPlan(options.topics, spec, slots, Long.MAX_VALUE, ServingConfig.DEFAULTS.policy, catalog, timeoutMs).plan();
                    placed = PipelineDecisions.devices(pipeline, plan.config(), slots, current);
                }
            } catch (IllegalArgumentException e) {
                lacking = e.getMessage();
            }
            describe(out, pipeline, plan, slo, catalog, placed);
            out.printf(Locale.ROOT, "planned in %.1f s (%.1f s of CPU): %d configurations estimated, %d stage simulations, %,d stage visits simulated%n",
                    seconds, cpuSeconds, plan.estimates(), estimator.simulations(), estimator.simulatedRequests());
            if (!mode.publish) {
                if (lacking != null) out.println("not publishable: " + lacking);
                return 0;
            }
            if (lacking != null) {
                spec.commandLine().getErr().println("nothing published: " + lacking);
                return 1;
            }
            return publishAll(spec, options, PipelineDecisions.actions(pipeline, plan.config(), slots, slo, current));
        }

        /** The sample trace from the file or the topic; problems in one line naming the option. */
        private ArrivalTrace trace(PrintWriter out) {
            ArrivalTrace sample;
            if (trace.file != null) {
                try {
                    sample = ArrivalTrace.read(trace.file);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--trace " + e.getMessage());
                }
                out.printf(Locale.ROOT, "trace %s: %s%n", trace.file, describe(sample));
                return sample;
            }
            TopicTrace.Window window;
            try {
                window = TopicTrace.Window.parse(trace.window, System.currentTimeMillis());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--trace-from-topic " + e.getMessage());
            }
            ControlCommand.Topics t = options.topics;
            try {
                sample = TopicTrace.read(t.kafka.bootstrapServers, t.kafka.clientProperties(spec.commandLine()), requestsTopic, window,
                        Duration.ofMillis(traceTimeoutMs));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--trace-from-topic " + e.getMessage());
            }
            out.printf(Locale.ROOT, "trace %s %s: %s%n", requestsTopic, window, describe(sample));
            return sample;
        }

        private static String describe(ArrivalTrace t) {
            return String.format(Locale.ROOT, "%,d arrivals over %.3f s, %.4g requests/s, CV² %.3g", t.size(), t.spanMicros() / 1e6,
                    t.meanRatePerSecond(), t.cv2());
        }

        private static void describe(PrintWriter out, PipelineSpec pipeline, InferLinePlanner.Plan plan, long slo, ModelCatalog catalog,
                                     List<PipelineDecisions.StageDevices> placed) {
            PipelineConfig c = plan.config();
            PipelineEstimate e = plan.estimate();
            out.printf(Locale.ROOT, "pipeline %s: P99 SLO %s ms%n", pipeline.id(), plain(slo / 1000.0));
            Map<String, Double> scale = pipeline.scaleFactors();
            out.printf(Locale.ROOT, "%-16s %-16s %-10s %9s %8s %6s  %s%n", "stage", "model", "hardware", "max batch", "replicas", "s_m", "devices");
            int i = 0;
            for (Map.Entry<String, StageConfig> s : c.stages().entrySet()) {
                StageConfig sc = s.getValue();
                String devices = placed == null ? "-" : String.join(",", placed.get(i).slots().stream().map(String::valueOf).toList());
                out.printf(Locale.ROOT, "%-16s %-16s %-10s %9d %8d %6.3f  %s%n", s.getKey(), pipeline.stage(s.getKey()).model(), sc.hardwareType(),
                        sc.maxBatch(), sc.replicas(), scale.get(s.getKey()), devices);
                i++;
            }
            out.printf(Locale.ROOT, "cost %s per hour (%s); estimated P99 %s ms, %,d of %,d requests over the SLO (%.3f %%)%n",
                    plain(plan.costPerHour()), String.join(", ", c.devicesByType().entrySet().stream().map(d -> d.getKey() + " x" + d.getValue()).toList()),
                    plain(e.p99Micros() / 1000.0), e.misses(), e.requests(), 100 * e.missRate());
        }

        private static String plain(double v) {
            String s = String.format(Locale.ROOT, "%.4f", v).replaceAll("0+$", "");
            return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        }
    }

    @Command(name = "herd", mixinStandardHelpOptions = true,
            description = {"Group request streams into serving groups with Shepherd's Herd planner: an ILP (OR-Tools) that maximises the "
                    + "minimum burst tolerance bt(i) = devices of stream i's group / n_i, with n_i = rate_i / T_i and T_i the stream's most "
                    + "goodput on one device (simulated with its own arrivals), under the cluster's size, the most devices per group, a "
                    + "device's memory and affinity sets. Prints the groups (streams, models, devices, bt per stream, the minimum); "
                    + "--dry-run also simulates the job's current plan and the new one on the same arrivals; --publish sends the plan "
                    + "(SetPlacement, SetPolicy, AssignGroup) through the decision publisher and waits for the job's outcome of each."})
    static final class HerdCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        ControlCommand.Publishing options = ControlCommand.publishing("kairos-plan-herd");
        @Mixin
        ModelsOption models = new ModelsOption();
        @Mixin
        DevicesOption devices = new DevicesOption();

        @Option(names = "--streams", paramLabel = "FILE", required = true,
                description = "The request streams (JSON): per stream name, model, rate_per_s, slo_ms, cv2 (default 1) and affinity (optional).")
        Path streamsFile;

        @Option(names = "--max-group", paramLabel = "G", required = true, description = "The most devices a serving group may have (its scheduler's scalability limit).")
        int maxGroup;

        @Option(names = "--device-memory-mb", description = "A device's memory for models, as given to serve; a group's models must fit it (default: ${DEFAULT-VALUE}).")
        long deviceMemoryMb = ServingConfig.DEFAULTS.deviceMemoryMb;

        @Option(names = "--policy", description = "The scheduling policy of every Herd group, and the one T_i is measured under (default: ${DEFAULT-VALUE}).",
                completionCandidates = ControlCommand.PolicyNames.class)
        String policy = "kairos";

        @Option(names = "--job-policy", description = "The job's default policy, as given to serve: what the current plan is rebuilt with (default: ${DEFAULT-VALUE}).",
                completionCandidates = ControlCommand.PolicyNames.class)
        String jobPolicy = ServingConfig.DEFAULTS.policy;

        @Option(names = "--time-limit-s", description = "How long the solver may search; the best plan found by then is printed with its gap (default: ${DEFAULT-VALUE}).")
        double timeLimitS = 10;

        @Option(names = "--solver", description = "The ILP backend: CP_SAT or SCIP (default: ${DEFAULT-VALUE}).")
        String solver = "CP_SAT";

        @Option(names = "--rates-from-telemetry",
                description = "Take each model's rate from the running job's own estimate (its latest batch in --telemetry-topic), split over the model's streams as the file's rates are (equally where the file gives none).")
        boolean ratesFromTelemetry;

        @Mixin
        TelemetryReadOptions telemetry = new TelemetryReadOptions();

        @Option(names = "--simulated-s", description = "How long --dry-run simulates each plan, seconds of arrivals (default: ${DEFAULT-VALUE}).")
        double simulatedS = 30;

        @Option(names = "--seed", description = "Seed of the simulated arrivals (default: ${DEFAULT-VALUE}).")
        long seed = 1;

        @Option(names = "--timeout-ms", description = "How long reading the control topic may take (default: ${DEFAULT-VALUE}).")
        long timeoutMs = 15_000;

        @Option(names = "--taskmanagers-from", paramLabel = "URL",
                description = "The REST address of the job's Flink cluster (e.g. http://jobmanager:8081): each group's devices are taken from as few "
                        + "TaskManagers as they fit, as Flink placed the job's device slots (best fit, largest group first), so that with --max-group "
                        + "at most the GPUs of a TaskManager every group runs in one.")
        String taskManagersFrom;

        @Option(names = "--flink-job-id", paramLabel = "ID", description = "With --taskmanagers-from: the serving job, where the cluster runs several (default: the only running job with an inference operator).")
        String flinkJobId;

        @ArgGroup
        Mode mode = new Mode();

        static final class Mode {
            @Option(names = "--dry-run", description = "Also simulate the job's current plan (read from the control topic) and the new one on the same arrivals, and print both predicted attainments; publish nothing.")
            boolean dryRun;

            @Option(names = "--publish", description = "Publish the plan's decisions and wait for the job's outcome of each.")
            boolean publish;
        }

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            devices.check(spec.commandLine());
            if (maxGroup < 1) throw new ParameterException(spec.commandLine(), "--max-group must be at least 1, got " + maxGroup);
            if (deviceMemoryMb < 1) throw new ParameterException(spec.commandLine(), "--device-memory-mb must be at least 1, got " + deviceMemoryMb);
            if (!(timeLimitS > 0) || Double.isInfinite(timeLimitS)) throw new ParameterException(spec.commandLine(), "--time-limit-s must be a positive number, got " + timeLimitS);
            if (!(simulatedS > 0) || Double.isInfinite(simulatedS)) throw new ParameterException(spec.commandLine(), "--simulated-s must be a positive number, got " + simulatedS);
            telemetry.check(spec.commandLine());
            if (taskManagersFrom != null) {
                boolean ok;
                try {
                    ok = HttpUrls.withHost(taskManagersFrom);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--taskmanagers-from: " + e.getMessage());
                }
                if (!ok) throw new ParameterException(spec.commandLine(), "--taskmanagers-from must be http:// or https:// with a host, got " + taskManagersFrom);
            }
            if (flinkJobId != null && taskManagersFrom == null) throw new ParameterException(spec.commandLine(), "--flink-job-id needs --taskmanagers-from");
            if (!Policies.names().contains(policy)) throw new ParameterException(spec.commandLine(), "--policy '" + policy + "' is unknown; known: " + Policies.names());
            if (!Policies.names().contains(jobPolicy)) throw new ParameterException(spec.commandLine(), "--job-policy '" + jobPolicy + "' is unknown; known: " + Policies.names());
            HerdSolver.Settings settings;
            try {
                settings = new HerdSolver.Settings(Duration.ofMillis(Math.max(1, Math.round(timeLimitS * 1000))), solver, 2);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--solver: " + e.getMessage());
            }
            ModelCatalog catalog;
            try {
                catalog = models.modelsFile == null ? ModelCatalog.builtIn() : ModelCatalog.load(models.modelsFile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--models " + models.modelsFile + ": " + e.getMessage());
            }
            var slots = devices.slots(spec.commandLine(), catalog);
            if (slots.distinctTypes().size() > 1) {
                throw new ParameterException(spec.commandLine(), "--devices " + devices.spec + ": Herd plans devices of one hardware type, got " + slots.distinctTypes());
            }
            long memoryBytes = Math.multiplyExact(deviceMemoryMb, 1024L * 1024L);
            List<RequestStream> streams;
            try {
                streams = StreamsFile.load(streamsFile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--streams " + e.getMessage());
            }
            // The job's plan as its control topic holds it: for the rates' groups, the dry run and the publication.
            DecisionLedger current = null;
            if (mode.dryRun || mode.publish || ratesFromTelemetry) current = currentPlan(options.topics, spec, slots, memoryBytes, jobPolicy, catalog, timeoutMs);
            if (ratesFromTelemetry) {
                streams = ratesFromTelemetry(streams, current.plan(), catalog);
                if (streams == null) return 1;
            }
            SingleDeviceGoodput goodput = new SingleDeviceGoodput(catalog, policy);
            HerdProblem problem;
            try {
                problem = HerdProblem.of(streams, catalog, slots.count(), maxGroup, memoryBytes, s -> {
                    int before = goodput.simulations();
                    SingleDeviceGoodput.Measured m = goodput.of(s);
                    if (goodput.simulations() > before) {
                        out.printf(Locale.ROOT, "T of %s at SLO %s ms, CV² %s: %.1f requests/s on one device (%d simulations)%n", s.model(), plain(s.sloMs()),
                                plain(s.cv2()), m.perSecond(), m.simulations());
                        out.flush();
                    }
                    return m.perSecond();
                });
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--streams " + e.getMessage());
            }
            HerdPlan plan = new HerdSolver(settings).solve(problem);
            if (!plan.feasible()) {
                spec.commandLine().getErr().println(plan.infeasibility());
                return 1;
            }
            DeviceHosts hosts = null;
            if (taskManagersFrom != null) {
                try {
                    hosts = FlinkDeviceHosts.read(taskManagersFrom, flinkJobId, Duration.ofMillis(timeoutMs));
                    plan = hosts.place(plan);
                } catch (IllegalArgumentException e) {
                    spec.commandLine().getErr().println("--taskmanagers-from " + taskManagersFrom + ": " + e.getMessage());
                    return 1;
                }
            }
            for (String line : plan.lines()) out.println(line);
            if (hosts != null) {
                for (Map.Entry<String, List<String>> e : hosts.hostsOf(plan).entrySet()) {
                    out.println("group " + e.getKey() + " on TaskManager" + (e.getValue().size() > 1 ? "s " : " ") + String.join(", ", e.getValue()));
                }
            }
            if (!mode.dryRun && !mode.publish) return 0;
            List<Object> actions;
            try {
                actions = HerdDecisions.actions(plan, current, policy, catalog.names());
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("not publishable: " + e.getMessage());
                return 1;
            }
            if (mode.dryRun) {
                HerdDryRun.Result r;
                try {
                    r = HerdDryRun.run(catalog, current.plan(), actions, streams, Math.round(simulatedS * 1e6), seed);
                } catch (IllegalArgumentException e) {
                    spec.commandLine().getErr().println("not publishable: " + e.getMessage());
                    return 1;
                }
                out.printf(Locale.ROOT, "simulated %s s of the streams' arrivals (seed %d) on each plan:%n", plain(simulatedS), seed);
                out.println("  current plan: " + predicted(r.current()));
                out.println("  Herd plan:    " + predicted(r.herd()));
                return 0;
            }
            return publishAll(spec, options, actions);
        }

        private static String predicted(SimulationReport r) {
            return String.format(Locale.ROOT, "attainment %.2f %%, goodput %.1f requests/s, p99 %.1f ms, %,d requests", 100 * r.sloAttainment(),
                    r.goodputPerSecond(), r.p99Micros() / 1000.0, r.arrivals());
        }

        /** The streams at the job's own rates: each model's estimate in its group now, split over its streams; null after saying what is missing. */
        private List<RequestStream> ratesFromTelemetry(List<RequestStream> streams, ServingPlan plan, ModelCatalog catalog) {
            ControlCommand.Topics t = options.topics;
            Map<String, Double> measured = new java.util.LinkedHashMap<>();
            Map<String, Double> written = new java.util.HashMap<>();
            Map<String, Integer> count = new java.util.HashMap<>();
            for (RequestStream s : streams) {
                written.merge(s.model(), s.ratePerSecond() == null ? 0 : s.ratePerSecond(), Double::sum);
                count.merge(s.model(), 1, Integer::sum);
                if (measured.containsKey(s.model())) continue;
                String group = plan.groupOf(s.model());
                Optional<TelemetryRates.Estimate> e = TelemetryRates.latest(t.kafka.bootstrapServers, t.kafka.clientProperties(spec.commandLine()),
                        telemetry.topic, group, s.model(), telemetry.tail, Duration.ofSeconds(15));
                if (e.isEmpty() || !(e.get().perSecond() > 0)) {
                    spec.commandLine().getErr().println(s.where().field("rate_per_s") + ": no rate estimate of model '" + s.model() + "' in serving group '"
                            + group + "' in the last " + telemetry.tail + " records of " + telemetry.topic + ": give rate_per_s and leave out --rates-from-telemetry");
                    return null;
                }
                measured.put(s.model(), e.get().perSecond());
                spec.commandLine().getOut().printf(Locale.ROOT, "rate of %s: %.1f requests/s, the job's estimate on batch %s%n", s.model(), e.get().perSecond(), e.get().batchId());
            }
            List<RequestStream> out = new java.util.ArrayList<>();
            for (RequestStream s : streams) {
                double total = measured.get(s.model());
                double share = written.get(s.model()) > 0 ? (s.ratePerSecond() == null ? 0 : s.ratePerSecond()) / written.get(s.model()) : 1.0 / count.get(s.model());
                out.add(s.withRate(Math.max(total * share, 1e-9)));
            }
            return out;
        }

        private static String plain(double v) {
            String s = String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "");
            return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
        }
    }

    /**
     * Publishes {@code actions} in order through one publisher, waiting for the job's outcome of
     * each before the next; stops at the first that is not applied. 0 if all were applied (or not
     * waited for), 1 otherwise.
     */
    static int publishAll(CommandSpec spec, ControlCommand.Publishing options, List<Object> actions) {
        for (Object action : actions) {
            try {
                DecisionKey.of(action);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        if (options.writer.isBlank()) throw new ParameterException(spec.commandLine(), "--writer must not be empty");
        if (options.waitMs < 0) throw new ParameterException(spec.commandLine(), "--wait-ms must not be negative, got " + options.waitMs);
        PrintWriter out = spec.commandLine().getOut();
        ControlCommand.Topics t = options.topics;
        try (DecisionPublisher publisher = new DecisionPublisher(t.kafka.bootstrapServers, t.kafka.clientProperties(spec.commandLine()),
                t.controlTopic, t.outcomesTopic, options.writer, WallClock::nowMicros)) {
            PipelineDecisions.Refusal refused = PipelineDecisions.publish(publisher, actions, Duration.ofMillis(options.waitMs), out::println);
            if (refused != null) {
                (refused.noOutcome() ? spec.commandLine().getErr() : out).println(refused.noOutcome()
                        ? refused.line().replace(", but no outcome within", ", but no outcome on " + t.outcomesTopic + " within") : refused.line());
                return 1;
            }
        }
        return 0;
    }

    /**
     * The job's plan as its control topic holds it: every decision there decided again, in order,
     * on the plan of a job with these devices that has decided nothing.
     */
    static DecisionLedger currentPlan(ControlCommand.Topics t, CommandSpec spec, DeviceSlots slots, long memoryBytes, String jobPolicy, ModelCatalog catalog,
                                      long timeoutMs) {
        return ControlTopic.read(t.kafka.bootstrapServers, t.kafka.clientProperties(spec.commandLine()), t.controlTopic, Duration.ofMillis(timeoutMs))
                .ledger(new ServingPlan(slots, memoryBytes, jobPolicy, PolicyParams.NONE, catalog));
    }
}
