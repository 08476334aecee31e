package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.onnx.examples.ExampleModels;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code serve --model-repository}: flags, and the catalog a repository gives. */
class ServeCommandModelRepositoryTest {

    private static ServingConfig config(String... args) {
        ServeCommand command = new ServeCommand();
        new CommandLine(command).parseArgs(args);
        return command.config();
    }

    @Test
    void flagsReachTheConfigurationAndExcludeAProfilesFile() {
        ServingConfig c = config("--model-repository", "models", "--device-memory-mb", "64", "--intra-op-threads", "2");
        assertThat(c.modelRepository).isEqualTo(Path.of("models").toAbsolutePath().toString());
        assertThat(c.deviceMemoryMb).isEqualTo(64);
        assertThat(c.intraOpThreads).isEqualTo(2);
        assertThat(c.warmUp).as("devices warm up unless told not to").isTrue();
        assertThat(config("--no-warmup").warmUp).isFalse();
        assertThat(config().modelRepository).isNull();
        assertThatThrownBy(() -> config("--model-repository", "models", "--models", "m.json"))
                .hasMessageContaining("--models and --model-repository exclude each other");
        assertThatThrownBy(() -> config("--device-memory-mb", "0")).hasMessageContaining("--device-memory-mb must be at least 1, got 0");
    }

    @Test
    void theEvictionRuleIsLeastRecentlyUsedUnlessToldAndABadOneIsNamed() {
        assertThat(config().eviction).isEqualTo(io.kairos.core.device.Eviction.LRU);
        assertThat(config("--eviction", "frequency").eviction).isEqualTo(io.kairos.core.device.Eviction.FREQUENCY);
        assertThatThrownBy(() -> config("--eviction", "lfu")).hasMessage("--eviction must be one of lru, frequency, got 'lfu'");
    }

    @Test
    void aRepositoryAtAUriIsKeptAsAUriAndAnUnreadableOneIsAOneLineError() {
        assertThat(config("--model-repository", "s3://bucket/models").modelRepository).isEqualTo("s3://bucket/models");
        assertThatThrownBy(() -> config("--model-repository", "s3://bucket/my models"))
                .hasMessageStartingWith("--model-repository: model repository s3://bucket/my models: not a URI");
        ServingConfig.Builder b = ServingConfig.builder();
        b.modelRepository = "nosuchfs://host/models";
        ServingConfig c = b.build();
        assertThatThrownBy(() -> ServeCommand.catalog(c)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("model repository nosuchfs://host/models: ")
                .hasMessageContaining("'nosuchfs'");
    }

    @Test
    void catalogComesFromTheRepositoryAndABrokenModelIsLeftOutWithOneLine() throws Exception {
        Path repo = ExampleModels.writeRepository(Path.of("target", "serve-command-models").toAbsolutePath());
        Path manifest = repo.resolve("cnn/model.json");
        Files.writeString(manifest, Files.readString(manifest).replace("\"name\": \"logits\"", "\"name\": \"scores\""));
        ServingConfig.Builder b = ServingConfig.builder();
        b.modelRepository = repo.toString();
        ServingConfig c = b.build();
        PrintStream stderr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ModelCatalog catalog;
        try {
            System.setErr(new PrintStream(err, true));
            catalog = ServeCommand.catalog(c);
        } finally {
            System.setErr(stderr);
        }
        assertThat(catalog.names()).containsExactly("mlp", "resnet");
        assertThat(err.toString().strip()).isEqualTo("kairos: model left out: " + manifest
                + ": field 'output.name' is 'scores' but the model's outputs are [logits]");
    }

    @Test
    void aRepositoryWithNoServableModelIsAnError() throws Exception {
        Path empty = Files.createDirectories(Path.of("target", "serve-command-empty").toAbsolutePath());
        ServingConfig.Builder b = ServingConfig.builder();
        b.modelRepository = empty.toString();
        ServingConfig c = b.build();
        assertThatThrownBy(() -> ServeCommand.catalog(c)).hasMessage(empty + ": no model of the repository can be served");
    }
}
