package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TargetsTest {
    private static final String HEADER = "| experiment | claim | threshold | bounds | source |";

    @Test
    void readsTheTableAfterItsHeaderAndStopsAtItsEnd() {
        Targets t = Targets.parse(List.of("# Targets", "", "prose | with a bar", HEADER, "| --- | --- | ---: | --- | --- |",
                "| bursty | flex-over-clockwork | 18.1 | ratio >= this | Shepherd |", "| herd | herd-over-global | 1.5 | `least ratio` | goal |",
                "", "| later | table | 9 | x | y |"), "T.md");
        assertThat(t.threshold("bursty", "flex-over-clockwork")).isEqualTo(18.1);
        assertThat(t.threshold("herd", "herd-over-global")).isEqualTo(1.5);
        assertThat(t.all()).hasSize(2);
        assertThat(t.all().get(1).bounds()).isEqualTo("least ratio");
        assertThatThrownBy(() -> t.threshold("later", "table")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TARGETS.md has no target for experiment later, claim table");
    }

    @Test
    void aMalformedRowIsRefusedWithTheFileAndLine() {
        assertThatThrownBy(() -> Targets.parse(List.of(HEADER, "| a | b | many | c | d |"), "T.md"))
                .hasMessage("T.md line 2: threshold 'many' is not a number");
        assertThatThrownBy(() -> Targets.parse(List.of(HEADER, "| a | b | 1 | c |"), "T.md"))
                .hasMessage("T.md line 2: a row needs 5 cells [experiment, claim, threshold, bounds, source], found 4");
        assertThatThrownBy(() -> Targets.parse(List.of(HEADER, "| a | b | 1 | c |  |"), "T.md"))
                .hasMessage("T.md line 2: the source cell is empty");
        assertThatThrownBy(() -> Targets.parse(List.of(HEADER, "| a | b | 1 | c | d |", "| a | b | 2 | c | d |"), "T.md"))
                .hasMessage("T.md line 3: experiment a, claim b is given twice");
        assertThatThrownBy(() -> Targets.parse(List.of("no table"), "T.md"))
                .hasMessage("T.md: no table with the header experiment | claim | threshold | bounds | source");
    }
}
