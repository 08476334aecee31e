package io.kairos.jobs.options;

import io.kairos.jobs.ServeCommand;
import io.kairos.jobs.config.ServingConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Which flag of {@code serve} an error of the configuration names: one for every field that serve sets. */
class ConfigFlagsTest {

    /** The fields that serve leaves at their defaults (the restart strategy has three flags, read into one checked value before the configuration). */
    private static final Set<String> NO_FLAG_OF_SERVE = Set.of("asyncCapacity", "sourceParallelism", "closedLoop", "answeredReadBack", "restarts");

    @Test
    void everyFieldServeSetsIsNamedByItsFlag() {
        CommandLine.Model.CommandSpec serve = new CommandLine(new ServeCommand()).getCommandSpec();
        for (Field f : ServingConfig.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) || NO_FLAG_OF_SERVE.contains(f.getName())) continue;
            assertThat(ConfigFlags.optionOf(serve, f.getName())).as("the flag of %s", f.getName()).isNotNull();
        }
        assertThat(Arrays.stream(ServingConfig.class.getFields()).map(Field::getName)).containsAll(NO_FLAG_OF_SERVE);
        assertThat(ConfigFlags.optionOf(serve, "consumerGroup").longestName()).isEqualTo("--group-id");
        assertThat(ConfigFlags.optionOf(serve, "reportCoalesceMicros").longestName()).isEqualTo("--report-coalesce-ms");
        assertThat(ConfigFlags.optionOf(serve, "asyncCapacity")).isNull();
    }

    @Test
    void aFieldWithoutAFlagKeepsItsName() {
        CommandLine cl = new CommandLine(new ServeCommand());
        cl.parseArgs();
        assertThat(ConfigFlags.names(cl).apply("asyncCapacity")).isEqualTo("asyncCapacity");
        assertThat(ConfigFlags.names(cl).apply("deviceMemoryMb")).isEqualTo("--device-memory-mb");
    }
}
