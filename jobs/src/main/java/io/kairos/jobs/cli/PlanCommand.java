package io.kairos.jobs.cli;

import io.kairos.control.TelemetryRates;
import io.kairos.control.smdp.CostWeights;
import io.kairos.control.smdp.TablePlanner;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.options.ModelsOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code kairos plan}: the planners of the control plane, run on demand; each publishes its
 * decisions through the one publisher, as {@code kairos control} does, and waits for the job's
 * outcome.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Compute a plan for a running job and publish it as control decisions.",
        subcommands = {PlanCommand.SmdpCommand.class})
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

        @Option(names = "--telemetry-topic", description = "Where the job's batches report the group's rate estimates, read when --rate is not given (default: ${DEFAULT-VALUE}).")
        String telemetryTopic = "kairos-telemetry";

        @Option(names = "--telemetry-tail", paramLabel = "N", description = "How many of the last records of each partition of the telemetry topic to look through (default: ${DEFAULT-VALUE}).")
        int telemetryTail = 10_000;

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
            if (telemetryTail < 1) throw new ParameterException(spec.commandLine(), "--telemetry-tail must be at least 1, got " + telemetryTail);
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
                        telemetryTopic, group, model, telemetryTail, Duration.ofSeconds(15));
                if (estimate.isEmpty() || !(estimate.get().perSecond() > 0)) {
                    spec.commandLine().getErr().println("no rate estimate of model '" + model + "' in serving group '" + group + "' in the last "
                            + telemetryTail + " records of " + telemetryTopic + ": give --rate");
                    return 1;
                }
                solveFor = estimate.get().perSecond();
                spec.commandLine().getOut().printf(java.util.Locale.ROOT, "rate %.6g requests/s: the job's estimate on batch %s in %s%n",
                        solveFor, estimate.get().batchId(), telemetryTopic);
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
}
