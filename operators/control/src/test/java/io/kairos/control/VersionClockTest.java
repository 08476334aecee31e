package io.kairos.control;

import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class VersionClockTest {

    @Test
    void versionsFollowTheClockAndRiseWhenItStandsStillOrGoesBack() {
        Iterator<Long> readings = List.of(1_000L, 1_000L, 1_000L, 990L, 2_000L, 1_500L).iterator();
        VersionClock clock = new VersionClock(readings::next);
        assertThat(List.of(clock.next(), clock.next(), clock.next(), clock.next(), clock.next(), clock.next()))
                .containsExactly(1_000L, 1_001L, 1_002L, 1_003L, 2_000L, 2_001L);
    }

    @Test
    void aRestartedWriterStartsAboveItsLastVersionWhenTheClockMovedOn() {
        long[] now = {5_000};
        VersionClock first = new VersionClock(() -> now[0]);
        first.next();
        long last = first.next(); // 5_001: two in one microsecond
        now[0] = 5_002; // the restart took longer than the guard was ahead
        assertThat(new VersionClock(() -> now[0]).next()).isGreaterThan(last);
    }
}
