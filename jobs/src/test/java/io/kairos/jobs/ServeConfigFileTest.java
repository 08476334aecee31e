package io.kairos.jobs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A value that serve's configuration refuses is named as the user gave it: the flag, or the key of the {@code --config} file. */
class ServeConfigFileTest {

    @Test
    void aValueFromTheFileIsNamedByItsKeyAndOneFromTheCommandLineByItsFlag(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("serve.properties");
        Files.writeString(file, "device-memory-mb=0\nscheduler-parallelism=2\n");
        assertThat(ServeConfigErrors.of("--config", file.toString()))
                .isEqualTo("kairos: 'device-memory-mb' in " + file + " must be at least 1, got 0");
        assertThat(ServeConfigErrors.of("--config", file.toString(), "--device-memory-mb", "5", "--scheduler-parallelism", "0"))
                .isEqualTo("kairos: --scheduler-parallelism must be at least 1, got 0");

        // Read before the configuration is checked, and named the same way.
        Files.writeString(file, "devices=0\n");
        assertThat(ServeConfigErrors.of("--config", file.toString())).isEqualTo("kairos: 'devices' in " + file + " must be at least 1, got 0");
        Files.writeString(file, "eviction=lfu\n");
        assertThat(ServeConfigErrors.of("--config", file.toString())).isEqualTo("kairos: 'eviction' in " + file + " must be one of lru, frequency, got 'lfu'");

        Files.writeString(file, "delivery=EXACTLY_ONCE\n");
        assertThat(ServeConfigErrors.of("--config", file.toString(), "--checkpoint-interval-ms", "0"))
                .isEqualTo("kairos: 'delivery' in " + file + " EXACTLY_ONCE needs checkpoints (--checkpoint-interval-ms > 0): results are committed when one completes");
    }
}
