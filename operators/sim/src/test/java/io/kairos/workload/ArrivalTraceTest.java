package io.kairos.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArrivalTraceTest {

    @Test
    void readsMillisecondsInAnyOrderFromAnyOrigin() {
        // Epoch milliseconds of a log, one out of order, a comment and a blank line: shifted to the first.
        ArrivalTrace t = ArrivalTrace.parse("""
                # arrivals of 2026-11-25
                1764000000000.5
                1764000000010

                1764000000004.25
                """, "log");
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.times()).containsExactly(0, 3_750, 9_500);
        // 3 arrivals over 9.5 ms.
        assertThat(t.meanRatePerSecond()).isCloseTo(3 / 0.0095, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void aBadLineIsNamedByItsNumber() {
        assertThatThrownBy(() -> ArrivalTrace.parse("1\n2\nthree\n", "trace.txt"))
                .hasMessage("trace.txt: line 3 'three' is not an arrival time (a non-negative number of milliseconds)");
        assertThatThrownBy(() -> ArrivalTrace.parse("1\n-2\n", "trace.txt"))
                .hasMessage("trace.txt: line 2 '-2' is not an arrival time (a non-negative number of milliseconds)");
        assertThatThrownBy(() -> ArrivalTrace.parse("# nothing\n\n", "trace.txt"))
                .hasMessage("trace.txt: no arrival times; expected one time in milliseconds per line");
    }

    @Test
    void generatedFromAProcessKeepsItsRateAndVariability() {
        // Evenly spaced: 10 ms gaps from time 0, so 99 arrivals before 1 s; gaps all equal, CV² 0.
        ArrivalTrace fixed = ArrivalTrace.generate(ArrivalProcess.fixedRate(100), 1_000_000, 1);
        assertThat(fixed.size()).isEqualTo(99);
        assertThat(fixed.at(0)).isEqualTo(10_000);
        assertThat(fixed.cv2()).isZero();
        // Gamma gaps of CV² 4 at 200/s over 10 minutes: the sample's CV² and rate near the asked ones.
        ArrivalTrace gamma = ArrivalTrace.generate(ArrivalProcess.gamma(200, 4), 600_000_000, 5);
        assertThat(gamma.meanRatePerSecond()).isBetween(190.0, 210.0);
        assertThat(gamma.cv2()).isBetween(3.5, 4.5);
        // A replay's counts are kept: 3 in the first second, none in the second, 2 in the third.
        ArrivalTrace replay = ArrivalTrace.generate(CountsReplay.perSecond(3, 0, 2), 10_000_000, 1);
        assertThat(replay.size()).isEqualTo(5);
        assertThat(replay.at(2)).isLessThan(1_000_000);
        assertThat(replay.at(3)).isGreaterThanOrEqualTo(2_000_000);
    }

    @Test
    void writesWhatItReads(@TempDir Path dir) throws Exception {
        ArrivalTrace t = ArrivalTrace.of(0, 1_500, 2_000_001);
        Path file = dir.resolve("trace.txt");
        t.write(file);
        assertThat(Files.readString(file)).isEqualTo("0.000\n1.500\n2000.001\n");
        assertThat(ArrivalTrace.read(file).times()).containsExactly(t.times());
    }
}
