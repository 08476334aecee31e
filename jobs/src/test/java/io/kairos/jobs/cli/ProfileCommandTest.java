package io.kairos.jobs.cli;

import io.kairos.core.model.ModelCatalog;
import io.kairos.onnx.examples.ExampleModels;
import io.kairos.onnx.OnnxDevice;
import io.kairos.jobs.cli.Kairos;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

class ProfileCommandTest {

    private record Run(int code, String out, String err) {}

    private static Run kairos(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Kairos.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void profilesEveryModelAndWritesAProfilesFileThatServeReads() throws Exception {
        Path repo = ExampleModels.writeRepository(Path.of("target", "profile-command-models"));
        Path file = Path.of("target", "profile-command", "profiles.json");
        Files.deleteIfExists(file);
        Run run = kairos("profile", "--model-repository", repo.toString(), "--warmup", "1", "--runs", "3", "--out", file.toString());
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("cnn: cold start").contains("mlp: cold start").contains("resnet: cold start").contains("R^2").contains("wrote " + file);
        ModelCatalog catalog = ModelCatalog.load(file);
        assertThat(catalog.names()).containsExactly("cnn", "mlp", "resnet");
        assertThat(catalog.get("cnn").latency().batchSizes()).containsExactly(1, 2, 4, 8, 16, 32);
        // What the scheduler books for a cold start: the manifest's footprint and the measured load.
        assertThat(catalog.get("resnet").memoryBytes()).isEqualTo(32L << 20);
        assertThat(catalog.get("resnet").loadMicros()).isPositive();
    }

    @Test
    void theProfilesAreTheHardwareTypesAndASecondTypeJoinsTheFile() throws Exception {
        Path repo = ExampleModels.writeRepository(Path.of("target", "profile-command-models"));
        Path file = Path.of("target", "profile-command", "typed-profiles.json");
        Files.deleteIfExists(file);
        Run cpu = kairos("profile", "--model-repository", repo.toString(), "--warmup", "1", "--runs", "3", "--price-per-hour", "0.1", "--out", file.toString());
        assertThat(cpu.code()).as(cpu.err()).isZero();
        assertThat(cpu.out()).contains("the profiles on hardware type cpu").doesNotContain("note:");
        // The same machine standing in for another type: what matters is where the profiles go.
        Run other = kairos("profile", "--model-repository", repo.toString(), "--warmup", "1", "--runs", "3", "--hardware-type", "cpu-small", "--out", file.toString());
        assertThat(other.code()).as(other.err()).isZero();
        assertThat(other.out()).contains("(added to): the profiles on hardware type cpu-small",
                "note: hardware type cpu-small costs 0 per hour in " + file + "; its price is yours to set");
        ModelCatalog catalog = ModelCatalog.load(file);
        assertThat(catalog.hardwareTypes()).extracting(t -> t.name() + " " + t.pricePerHour()).containsExactly("cpu 0.1", "cpu-small 0.0");
        assertThat(catalog.get("cnn").hardwareTypes()).containsExactly("cpu", "cpu-small");
    }

    @Test
    void aFileWhoseProfilesAreOnNoNamedTypeIsRefusedBeforeProfiling() throws Exception {
        Path file = Path.of("target", "profile-command", "untyped.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"models\": []}");
        Run run = kairos("profile", "--hardware-type", "gpu-t4", "--out", file.toString());
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains("--out: " + file + ": has no 'hardware' list");
        assertThat(kairos("profile", "--hardware-type", "GPU").err()).contains("--hardware-type 'GPU'");
    }

    @Test
    void aGpuThatThisProcessCannotUseIsAOneLineUsageError() {
        assumeThat(OnnxDevice.cudaProblem()).as("a machine where CUDA works").isNotNull();
        Run run = kairos("profile", "--gpu", "0");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains("--gpu 0: " + OnnxDevice.cudaProblem());
    }

    @Test
    void badCountsAreAOneLineUsageError() {
        Run run = kairos("profile", "--runs", "0");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains("--runs");
    }
}
