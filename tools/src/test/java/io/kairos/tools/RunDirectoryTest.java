package io.kairos.tools;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class RunDirectoryTest {

    @Test
    void aCheckoutsRunDirectoryIsItsDotKairosFolder() {
        assertThat(RunDirectory.of(Path.of("/src/kairos"))).isEqualTo(Path.of("/src/kairos/.kairos"));
        assertThat(RunDirectory.of(Path.of(""))).isEqualTo(Path.of("").toAbsolutePath().resolve(".kairos"));
    }

    @Test
    void aRelativeOutputGoesUnderTheRunDirectoryAnAbsoluteOneWhereItSays() {
        Path run = Path.of("/src/kairos/.kairos");

        assertThat(RunDirectory.resolve(Path.of("results.csv"), run)).isEqualTo(Path.of("/src/kairos/.kairos/results.csv"));
        assertThat(RunDirectory.resolve(Path.of("runs/a/rows.csv"), run)).isEqualTo(Path.of("/src/kairos/.kairos/runs/a/rows.csv"));
        assertThat(RunDirectory.resolve(Path.of("/tmp/rows.csv"), run)).isEqualTo(Path.of("/tmp/rows.csv"));
        assertThat(RunDirectory.resolve(Path.of("../rows.csv"), run)).isEqualTo(Path.of("/src/kairos/rows.csv"));
    }
}
