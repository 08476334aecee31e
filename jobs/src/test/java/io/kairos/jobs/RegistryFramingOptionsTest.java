package io.kairos.jobs;

import io.kairos.jobs.config.ServingConfig;
import io.kairos.wire.RegistryFraming;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code serve --registry-schema-id} and {@code --schema-registry-url}: what the job is given, and one-line errors. */
class RegistryFramingOptionsTest {

    private static ServingConfig configOf(String... args) {
        AtomicReference<ServingConfig> config = new AtomicReference<>();
        CommandLine cl = ServeCommand.commandLine(new ServeCommand() {
            @Override
            public Integer call() {
                config.set(config());
                return 0;
            }
        }, args);
        assertThat(cl.execute(args)).isEqualTo(0);
        return config.get();
    }

    @Test
    void idsAndTheRegistryReachTheJob() {
        ServingConfig c = configOf("--registry-schema-id", "7,3", "--registry-schema-id", "12", "--schema-registry-url", "http://registry:8081/");
        assertThat(c.registryFraming()).isEqualTo(new RegistryFraming(Set.of(3, 7, 12), "http://registry:8081"));
        assertThat(List.copyOf(c.registryFraming().schemaIds())).containsExactly(3, 7, 12);
    }

    @Test
    void withNeitherOnlyPlainAvroIsRead() {
        assertThat(configOf().registryFraming()).isEqualTo(RegistryFraming.NONE);
        assertThat(ServingConfig.DEFAULTS.registryFraming().enabled()).isFalse();
    }

    @Test
    void badValuesAreOneLineErrors() {
        assertThat(ServeConfigErrors.of("--schema-registry-url", "registry:8081"))
                .isEqualTo("kairos: --registry-schema-id, --schema-registry-url: a schema registry URL is http:// or https:// with a host, got registry:8081");
        assertThat(ServeConfigErrors.of("--registry-schema-id", "-4"))
                .isEqualTo("kairos: --registry-schema-id, --schema-registry-url: a schema id is not negative, got -4");
        assertThat(ServeConfigErrors.of("--registry-schema-id", "seven")).startsWith("kairos: Invalid value for option '--registry-schema-id'");
    }
}
