package io.kairos.testbed;

import io.kairos.tools.KairosCli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every flag of the command line and its default, as docs/reference/cli.md documents them: the option groups
 * that several commands share declare each flag once, and this pins that the commands still offer
 * the same flags with the same defaults.
 */
class CommandOptionsTest {

    /** "command --flag=default" of every command under {@code kairos} and {@code kairos-lab}. */
    private static List<String> flags() {
        List<CommandLine> commands = new ArrayList<>(KairosCli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())).getSubcommands().values());
        commands.addAll(KairosLab.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())).getSubcommands().values());
        List<String> flags = new ArrayList<>();
        for (CommandLine command : commands) addFlags(command, flags);
        return flags;
    }

    /** {@code command}'s flags, then its subcommands', each under its name below the root (e.g. "experiment low-slo --seeds=null"). */
    private static void addFlags(CommandLine command, List<String> into) {
        String name = command.getCommandSpec().qualifiedName(" ").replaceFirst("^\\S+ ", "");
        for (CommandLine.Model.OptionSpec o : command.getCommandSpec().options()) {
            Object initial = o.initialValue();
            into.add(name + " " + o.longestName() + "=" + (o.defaultValue() != null ? o.defaultValue() : String.valueOf(initial)));
        }
        for (CommandLine sub : command.getSubcommands().values()) addFlags(sub, into);
    }

    @Test
    void everyCommandKeepsItsFlagsAndDefaults() {
        assertThat(flags()).contains(
                "serve --async-timeout-ms=30000",
                "serve --bootstrap-servers=127.0.0.1:9092",
                "serve --buffer-timeout-ms=0",
                "serve --checkpoint-interval-ms=10000",
                "serve --config=null",
                "serve --control-topic=kairos-control",
                "serve --delivery=AT_LEAST_ONCE",
                "serve --device-memory-mb=1024",
                "serve --devices=4",
                "serve --from-earliest=false",
                "serve --group-id=kairos-serving",
                "serve --intra-op-threads=0",
                "serve --kafka-config=null",
                "serve --kafka-property=[]",
                "serve --max-clock-skew-ms=3600000",
                "serve --max-id-bytes=256",
                "serve --max-name-bytes=256",
                "serve --max-slo-ms=3600000.0",
                "serve --model-repository=null",
                "serve --models=null",
                "serve --policy=clockwork",
                "serve --policy-param={}",
                "serve --requests-topic=kairos-requests",
                "serve --results-topic=kairos-results",
                "serve --simulated-speed=1.0",
                "serve --warmup=true",
                "serve --telemetry-topic=kairos-telemetry",
                "profile --gpu=null",
                "profile --intra-op-threads=1",
                "profile --model-repository=null",
                "profile --out=profiles.json",
                "profile --runs=1000",
                "profile --warmup=50",
                "demo --arrivals=poisson",
                "demo --devices=2",
                "demo --duration=20",
                "demo --model-repository=null",
                "demo --onnx=false",
                "demo --policy=kairos",
                "demo --policy-param={}",
                "demo --seed=1",
                "demo --simulated-speed=1.0",
                "demo --warmup=10",
                "demo --workload=null",
                "loadgen --arrivals=poisson",
                "loadgen --bootstrap-servers=127.0.0.1:9092",
                "loadgen --kafka-config=null",
                "loadgen --kafka-property=[]",
                "loadgen --models=null",
                "loadgen --no-progress=false",
                "loadgen --seed=1",
                "loadgen --topic=kairos-requests",
                "loadgen --duration=10.0",
                "loadgen --workload=null",
                "collect --bootstrap-servers=127.0.0.1:9092",
                "collect --kafka-config=null",
                "collect --kafka-property=[]",
                "collect --csv=null",
                "collect --from-earliest=false",
                "collect --idle-timeout=10.0",
                "collect --no-progress=false",
                "collect --summary-csv=null",
                "collect --time-limit=0.0",
                "collect --topic=kairos-results",
                "collect --expect=0",
                "bench --buffer-timeout-ms=0",
                "bench --devices=2",
                "bench --duration=15",
                "bench --model=mlp",
                "bench --rate=5000.0",
                "bench --runs=3",
                "bench --skip-throughput=false",
                "bench --sweep-kb=null",
                "bench --trial-seconds=4",
                "bench --search-trials=12",
                "bench --consumer-property={}",
                "fidelity --devices=2",
                "fidelity --duration=60",
                "fidelity --handover-keep=99.0",
                "fidelity --out=null",
                "fidelity --policy=clockwork",
                "fidelity --policy-param={}",
                "fidelity --seed=1",
                "fidelity --warmup=10",
                "fidelity --workload=resnet50:250:40,googlenet:400:25,mlp:300:20",
                "experiment low-slo --duration-s=null",
                "experiment low-slo --invocation=null",
                "experiment low-slo --no-progress=false",
                "experiment low-slo --out=null",
                "experiment low-slo --policies=null",
                "experiment low-slo --redraw=false",
                "experiment low-slo --seeds=null",
                "experiment low-slo --warmup-s=null",
                "efficiency --batch=16",
                "efficiency --batches=3000",
                "efficiency --intra-op-threads=1",
                "efficiency --model=resnet",
                "efficiency --warmup=true");
    }

    @Test
    void sharedFlagsTakeTheirDefaultsFromOnePlace() {
        // The serving job's defaults (ServingConfig) are what every command that shares a flag starts from.
        var defaults = io.kairos.jobs.config.ServingConfig.DEFAULTS;
        assertThat(flags()).contains(
                "serve --bootstrap-servers=" + defaults.bootstrapServers,
                "loadgen --bootstrap-servers=" + defaults.bootstrapServers,
                "collect --bootstrap-servers=" + defaults.bootstrapServers,
                "loadgen --topic=" + defaults.requestsTopic,
                "collect --topic=" + defaults.resultsTopic,
                "serve --policy=" + defaults.policy,
                "fidelity --policy=" + defaults.policy,
                "serve --buffer-timeout-ms=" + defaults.bufferTimeoutMs,
                "bench --buffer-timeout-ms=" + defaults.bufferTimeoutMs,
                "serve --source-buffer-timeout-ms=" + defaults.sourceBufferTimeoutMs,
                "bench --source-buffer-timeout-ms=" + defaults.sourceBufferTimeoutMs,
                "serve --simulated-speed=" + defaults.simulatedSpeed,
                "demo --simulated-speed=" + defaults.simulatedSpeed,
                "serve --devices=" + defaults.devices);
        // The one exception, on purpose: the demo shows Kairos' own policy (DemoCommand.DEFAULT_POLICY).
        assertThat(flags()).contains("demo --policy=" + io.kairos.tools.demo.DemoCommand.DEFAULT_POLICY).doesNotContain("demo --policy=" + defaults.policy);
    }
}
