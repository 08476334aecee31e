package io.kairos.tools.progress;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressLineTest {

    /** What the demo shows live, at its widest: five-figure counts. */
    private static final List<String> DEMO = List.of("18/20 s", "SLO 96.08%", "batch 3.41", "p99 1234 ms", "123,456 done", "12,345 dropped");
    private static final List<String> LOADGEN = List.of("3,520/7,800 req", "70.4 req/s", "lag<=46.5 ms");

    @Test
    void loadgensFieldsAreSeparatedAndFitBesideABar() {
        String line = ProgressLine.format("loadgen", 0.4513, LOADGEN, ProgressLine.WIDTH);

        assertThat(line).isEqualTo("loadgen  45% [=========>          ] 3,520/7,800 req | 70.4 req/s | lag<=46.5 ms");
        assertThat(line).hasSize(79).contains("req/s | lag<=");
    }

    @Test
    void theBarGoesFirstWhenTheFieldsNeedItsRoom() {
        String line = ProgressLine.format("serving", 0.9, DEMO, ProgressLine.WIDTH);

        assertThat(line).doesNotContain("[").hasSizeLessThanOrEqualTo(80)
                .startsWith("serving  90% | 18/20 s | SLO 96.08% | batch 3.41 | p99 1234 ms | 123,456 done");
    }

    @Test
    void fieldsAreDroppedWholeFromTheRightNeverCutInTheMiddle() {
        for (int width = 12; width <= 120; width++) {
            String line = ProgressLine.format("serving", 0.5, DEMO, width);

            assertThat(line).as("width %d", width).hasSizeLessThanOrEqualTo(width);
            String[] parts = line.replaceFirst("^serving  50%( \\[[=> ]*\\])?( \\| | )?", "").split(" \\| ");
            List<String> shown = line.endsWith("50%") || line.endsWith("]") ? List.of() : List.of(parts);
            if (!shown.isEmpty()) assertThat(DEMO).as("width %d: %s", width, line).startsWith(shown.toArray(String[]::new));
        }
    }

    @Test
    void everyLineOfARunFitsIn80ColumnsWithSeparators() {
        for (double f = 0; f <= 1.0; f += 0.01) {
            for (List<String> fields : List.of(DEMO, LOADGEN, List.<String>of())) {
                String line = ProgressLine.format("loadgen", f, fields, ProgressLine.WIDTH);

                assertThat(line).hasSizeLessThanOrEqualTo(80);
                assertThat(line).doesNotContainPattern("/s[^ ]").doesNotContain("  |").doesNotContain("||");
                if (fields.size() > 1) assertThat(line).contains(" | ");
            }
        }
    }

    @Test
    void theBarFillsWithTheFraction() {
        assertThat(ProgressLine.format("x", 0, List.of(), 20)).isEqualTo("x   0% [>          ]");
        assertThat(ProgressLine.format("x", 0.5, List.of(), 20)).isEqualTo("x  50% [=====>     ]");
        assertThat(ProgressLine.format("x", 1, List.of(), 20)).isEqualTo("x 100% [===========]");
        assertThat(ProgressLine.format("x", Double.NaN, List.of("a"), 10)).isEqualTo("x   0% | a");
    }

    @Test
    void aBlankFieldTakesNoSeparator() {
        assertThat(ProgressLine.format("collect", 0.25, List.of("5/20 results", "", "1.5 results/s"), 79))
                .endsWith("] 5/20 results | 1.5 results/s");
    }
}
