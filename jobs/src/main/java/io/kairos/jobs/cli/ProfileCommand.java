package io.kairos.jobs.cli;

import ai.onnxruntime.OrtEnvironment;
import io.kairos.core.model.HardwareType;
import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.onnx.ModelProfiler;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.OnnxDevice;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code profile}: runs every model of a model repository at each of its batch sizes on one ONNX
 * Runtime device, as the serving path runs it, and writes the profiles file that {@code serve
 * --models}, the simulator and the experiments read, as the models' profiles on the hardware type
 * measured ({@code --hardware-type}); into an existing file with typed profiles, beside its other
 * types'.
 */
@Command(name = "profile", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Profile the ONNX models of a model repository: latency per batch size (p50, p99), tau(b) = alpha*b + beta with R^2, cold start; writes a profiles file.")
public class ProfileCommand implements Callable<Integer> {

    /**
     * The command on its own, for a machine that has ONNX Runtime but no Flink or Kafka on its
     * classpath (a GPU box the profile is taken on): the operators and testbed classes, ONNX
     * Runtime, Jackson, Avro, protobuf, picocli and progressbar suffice.
     */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new ProfileCommand());
        cl.setParameterExceptionHandler((ex, ignored) -> {
            ex.getCommandLine().getErr().println("profile: " + ex.getMessage() + " (see 'profile --help')");
            return CommandLine.ExitCode.USAGE;
        });
        System.exit(cl.execute(args));
    }

    @Option(names = "--model-repository", paramLabel = "DIR", description = "Models to profile (default: the example models, generated into .kairos/models).")
    Path repository;

    @Option(names = "--warmup", description = "Untimed runs per batch size (default: ${DEFAULT-VALUE}).")
    int warmup = 50;

    @Option(names = "--runs", description = "Timed runs per batch size (default: ${DEFAULT-VALUE}).")
    int runs = 1000;

    @Option(names = "--intra-op-threads", description = "CPU threads of one batch, as a serving device would have (default: ${DEFAULT-VALUE}).")
    int intraOpThreads = 1;

    @Option(names = "--gpu", paramLabel = "INDEX", description = "Profile on this GPU with ONNX Runtime's CUDA execution provider (the build of mvn -Pcuda) instead of the CPU.")
    Integer gpu;

    @Option(names = "--hardware-type", paramLabel = "NAME",
            description = "The hardware type the profiles are measured on, as the catalog names it (default: cpu, or gpu with --gpu).")
    String hardwareType;

    @Option(names = "--price-per-hour", paramLabel = "PRICE",
            description = "What one device of the hardware type costs per hour, for the catalog's hardware list (default: the price the file lists, else 0).")
    Double pricePerHour;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Profiles file to write; one that exists and lists its hardware types gets these profiles as the type's, "
                    + "keeping its other types and models (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("profiles.json");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter console = spec.commandLine().getOut();
        if (warmup < 0 || runs < 1 || intraOpThreads < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--warmup must be >= 0, --runs and --intra-op-threads >= 1");
        }
        if (gpu != null && gpu < 0) throw new CommandLine.ParameterException(spec.commandLine(), "--gpu " + gpu + ": a GPU index is 0 or more");
        if (gpu != null && OnnxDevice.cudaProblem() != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--gpu " + gpu + ": " + OnnxDevice.cudaProblem());
        }
        if (hardwareType == null) hardwareType = gpu == null ? "cpu" : "gpu";
        if (!HardwareType.validName(hardwareType)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--hardware-type '" + hardwareType + "': lower-case letters, digits, '-', '.' or '_'");
        }
        if (pricePerHour != null && !(pricePerHour >= 0 && Double.isFinite(pricePerHour))) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--price-per-hour must be a non-negative number, got " + pricePerHour);
        }
        String existing = Files.exists(out) ? Files.readString(out) : null;
        try { // a file this cannot add to stops the command before the profiling, not after
            if (existing != null) ModelProfiler.profilesJson(null, List.of(), hardwareType, pricePerHour, existing, out.toString());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--out: " + e.getMessage());
        }
        if (repository == null) repository = ExampleModels.writeRepository(Path.of(System.getProperty("kairos.home", "."), ".kairos", "models"));
        ModelRepository models = ModelRepository.load(repository);
        for (String problem : models.problems()) console.println("left out: " + problem);
        if (models.models().isEmpty()) throw new CommandLine.ParameterException(spec.commandLine(), repository + ": no model to profile");
        ModelProfiler profiler = new ModelProfiler(new OnnxDevice.Options(Long.MAX_VALUE, intraOpThreads, gpu == null ? -1 : gpu), warmup, runs);
        int steps = models.models().values().stream().mapToInt(m -> m.batchSizes().length).sum();
        List<ModelProfiler.Profile> profiles = new ArrayList<>();
        try (ProgressBar bar = new ProgressBarBuilder().setTaskName("profiling").setInitialMax(steps)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(200).build()) {
            for (ModelRepository.OnnxModel m : models.models().values()) {
                bar.setExtraMessage(m.name());
                profiles.add(profiler.profile(m, b -> bar.step()));
            }
        }
        for (ModelProfiler.Profile p : profiles) console.println(ModelProfiler.table(p));
        String json;
        try {
            json = ModelProfiler.profilesJson(models, profiles, hardwareType, pricePerHour,
                    gpu == null ? HardwareType.Execution.CPU : HardwareType.Execution.CUDA, existing, out.toString());
            ModelCatalog.parse(json, out.toString()); // what serve --models will read must parse
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--out: " + e.getMessage());
        }
        HardwareType type = ModelCatalog.parse(json, out.toString()).hardwareType(hardwareType);
        if (out.getParent() != null) Files.createDirectories(out.getParent());
        Files.writeString(out, json);
        console.println("device: " + (gpu == null ? "CPU, " + intraOpThreads + " intra-op thread(s)" : "GPU " + gpu + " (CUDA execution provider)")
                + ", ONNX Runtime " + OrtEnvironment.getEnvironment().getVersion());
        console.println("wrote " + out + (existing == null ? "" : " (added to)") + ": the profiles on hardware type " + hardwareType
                + " (serve --models " + out + ", or copy a model's latency_ms into its model.json)");
        if (type.pricePerHour() == 0 && pricePerHour == null) {
            console.println("note: hardware type " + hardwareType + " costs 0 per hour in " + out + "; its price is yours to set (--price-per-hour, or the file's hardware list)");
        }
        return 0;
    }
}
