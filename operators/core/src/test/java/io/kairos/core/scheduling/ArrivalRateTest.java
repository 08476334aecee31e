package io.kairos.core.scheduling;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The online arrival-rate estimate: small cases worked by hand, and Poisson streams. */
class ArrivalRateTest {

    @Test
    void twoArrivalsOneWindowApart() {
        // T = 1 s; arrivals at 0 and 1 s. After the first: count 1 (the second), worth T (1 - 1/e) = 0.632 s.
        ArrivalRate r = new ArrivalRate(1_000_000);
        assertThat(r.perSecond(0)).isZero();
        r.arrived(0);
        assertThat(r.perSecond(0)).isZero();
        r.arrived(1_000_000);
        assertThat(r.perSecond(1_000_000)).isCloseTo(1 / (1 - Math.exp(-1)), within(1e-9));
        // One window later with nothing new: the count falls by 1/e, the worth grows to T (1 - 1/e^2).
        assertThat(r.perSecond(2_000_000)).isCloseTo((Math.exp(-1) * (1 + Math.exp(-1)) - Math.exp(-2)) / (1 - Math.exp(-2)), within(1e-9));
    }

    @Test
    void evenArrivalsGiveTheirRateWithinHalfAGapPerWindow() {
        // Every 1 ms for 10 s, T = 1 s: 1 / (T (1 - e^{-d/T})) = 1000.5 per second.
        ArrivalRate r = new ArrivalRate(1_000_000);
        for (long t = 0; t <= 10_000_000; t += 1_000) r.arrived(t);
        assertThat(r.perSecond(10_000_000)).isCloseTo(1 / -Math.expm1(-0.001), within(1e-6));
        assertThat(r.perSecond(10_000_000)).isCloseTo(1000.5, within(0.01));
    }

    @Test
    void poissonStreamsAreEstimatedWithinAFewPercentAndAChangeOfRateIsFollowed() {
        Random random = new Random(7);
        ArrivalRate r = new ArrivalRate(10_000_000);
        double t = 0;
        while (t < 30e6) {
            t += -Math.log(1 - random.nextDouble()) * 1e6 / 500; // 500 per second
            r.arrived((long) t);
        }
        assertThat(r.perSecond((long) t)).isCloseTo(500, within(25.0));
        double at = t;
        while (t < at + 60e6) {
            t += -Math.log(1 - random.nextDouble()) * 1e6 / 2_000; // then 2,000 per second, for six windows
            r.arrived((long) t);
        }
        assertThat(r.perSecond((long) t)).isCloseTo(2_000, within(100.0));
    }

    @Test
    void aWindowBelowOneMicrosecondIsRefused() {
        assertThatThrownBy(() -> new ArrivalRate(0)).hasMessage("the window must be at least 1 us, got 0");
    }
}
