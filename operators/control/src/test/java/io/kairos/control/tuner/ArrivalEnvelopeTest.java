package io.kairos.control.tuner;

import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ArrivalEnvelopeTest {
    private static final long MS = 1_000;
    private static final long S = 1_000_000;

    @Test
    void eachWindowsPeakIsTheMostArrivalsInAWindowEndingInTheLookback() {
        // 100-ms buckets, windows of 1 s and 2 s, look-back 1 s. Arrivals: 5 at 0.05 s (bucket 0),
        // 3 at 0.95 s (bucket 9), 4 at 1.5 s (bucket 15), 2 at 2.3 s (bucket 23). Now 2.35 s: bucket
        // 23; window ends may lie in buckets 14..23.
        // 1 s (10 buckets): ending 15..18 covers b9 and b15: 3 + 4 = 7; ending 23: b15 + b23 = 6. Peak 7/s.
        // 2 s (20 buckets): ending 15..19 covers b0, b9, b15: 5 + 3 + 4 = 12; ending 20..23 has lost b0.
        // Peak 12 / 2 s = 6/s.
        ArrivalEnvelope e = new ArrivalEnvelope(100 * MS, new long[]{S, 2 * S}, S);
        e.record(50 * MS, 5);
        e.record(950 * MS, 3);
        e.record(1_500 * MS, 4);
        e.record(2_300 * MS, 2);
        assertThat(e.peakRates(2_350 * MS)).containsExactly(7.0, 6.0);
        // At 3.45 s (bucket 34) the ends lie in 25..34: 1 s windows 16..25 .. 25..34 hold b23 at most: 2/s;
        // 2 s windows 6..25 .. 15..34 hold b9 (until the end 28), b15 and b23: 3 + 4 + 2 = 9: 4.5/s.
        assertThat(e.peakRates(3_450 * MS)).containsExactly(2.0, 4.5);
        assertThat(e.late()).isZero();
    }

    @Test
    void anArrivalOlderThanTheRingIsLateAndAQuietSpellEmptiesIt() {
        // Ring: 2 s of windows + 1 s of look-back = 30 buckets of 100 ms.
        ArrivalEnvelope e = new ArrivalEnvelope(100 * MS, new long[]{S, 2 * S}, S);
        e.record(10 * S, 7);
        e.record(6 * S); // bucket 60, the ring holds 71..100: late
        assertThat(e.late()).isEqualTo(1);
        assertThat(e.peakRates(10 * S)).containsExactly(7.0, 3.5);
        // 100 s later every bucket has been emptied.
        assertThat(e.peakRates(110 * S)).containsExactly(0.0, 0.0);
        assertThat(new ArrivalEnvelope(100 * MS, new long[]{S}, S).peakRates(5 * S)).containsExactly(0.0);
    }

    @Test
    void theStateRestoresOntoAnEnvelopeOfTheSameSettings() {
        ArrivalEnvelope e = new ArrivalEnvelope(100 * MS, new long[]{S}, S);
        e.record(1_200 * MS, 4);
        ArrivalEnvelope copy = new ArrivalEnvelope(100 * MS, new long[]{S}, S);
        copy.restore(e.counts(), e.newestBucket());
        assertThat(copy.peakRates(1_500 * MS)).containsExactly(e.peakRates(1_500 * MS));
        assertThatThrownBy(() -> new ArrivalEnvelope(100 * MS, new long[]{2 * S}, S).restore(e.counts(), e.newestBucket()))
                .hasMessage("the stored envelope has 20 buckets; these settings keep 30");
    }

    @Test
    void samplesRatesAreThePlanningTracesPeaksPerWindow() {
        // Arrivals at 0, 0.1, 0.2, 1.05, 1.1 and 2.95 s: buckets 0, 1, 2, 10, 11, 29 (30 buckets).
        // 1 s: the windows starting at buckets 0, 1 and 2 hold three arrivals each (0..9: b0-b2;
        // 1..10: b1, b2, b10; 2..11: b2, b10, b11), none holds more: 3/s.
        // 5 s is longer than the trace's 3 s of buckets: its mean, 6 / 3 s = 2/s.
        ArrivalTrace trace = ArrivalTrace.of(0, 100 * MS, 200 * MS, 1_050 * MS, 1_100 * MS, 2_950 * MS);
        double[] rates = ArrivalEnvelope.sampleRates(trace, 100 * MS, new long[]{S, 5 * S});
        assertThat(rates[0]).isEqualTo(3.0);
        assertThat(rates[1]).isCloseTo(2.0, within(1e-12));
    }

    @Test
    void windowsMustBeWholeBucketsAscending() {
        assertThatThrownBy(() -> new ArrivalEnvelope(100 * MS, new long[]{150 * MS}, S))
                .hasMessage("window 150000 us is not a whole number of buckets of 100000 us");
        assertThatThrownBy(() -> new ArrivalEnvelope(100 * MS, new long[]{2 * S, S}, S))
                .hasMessage("the windows must be ascending, got [2000000, 1000000]");
        assertThatThrownBy(() -> new ArrivalEnvelope(100 * MS, new long[]{S}, 50 * MS))
                .hasMessage("the look-back (50000 us) must be a whole number of buckets of 100000 us");
    }
}
