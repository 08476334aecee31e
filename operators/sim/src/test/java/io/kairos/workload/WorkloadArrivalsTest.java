package io.kairos.workload;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The merge of many loads' streams: the documented order, streams that end, and overflow. */
class WorkloadArrivalsTest {

    private static final long SECOND = 1_000_000;

    /**
     * The rule as documented, the simplest way: every load's process started on a split of the
     * seed's source in load order; then, repeatedly, the load with the earliest next arrival,
     * the lowest index on a tie, by a scan over all loads. Ended loads (END) are never picked.
     * Returns (offset, load index) pairs.
     */
    private static List<long[]> byTheRule(List<ModelLoad> loads, long seed, int count) {
        int n = loads.size();
        ArrivalProcess.Gaps[] gaps = new ArrivalProcess.Gaps[n];
        long[] next = new long[n];
        SplittableRandom root = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            gaps[i] = loads.get(i).process().start(root.split());
            next[i] = gaps[i].nextGapMicros();
        }
        List<long[]> out = new ArrayList<>();
        while (out.size() < count) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (next[i] != ArrivalProcess.END && (best < 0 || next[i] < next[best])) best = i;
            }
            if (best < 0) break;
            out.add(new long[] {next[best], best});
            long g = gaps[best].nextGapMicros();
            next[best] = g == ArrivalProcess.END ? ArrivalProcess.END : next[best] + g;
        }
        return out;
    }

    /** 500 loads of every kind: fixed-rate ones at equal rates tie exactly, replays end on the way. */
    private static List<ModelLoad> fiveHundredLoads() {
        List<ModelLoad> loads = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(99);
        for (int i = 0; i < 500; i++) {
            String model = "m" + i;
            ArrivalProcess p = switch (i % 5) {
                case 0 -> ArrivalProcess.fixedRate(100 * (1 + i % 3)); // 100, 200 or 300/s: ties
                case 1 -> ArrivalProcess.poisson(1 + r.nextDouble() * 200);
                case 2 -> ArrivalProcess.gamma(1 + r.nextDouble() * 200, 4);
                case 3 -> ArrivalProcess.mmpp(1 + r.nextDouble() * 200, 8);
                default -> CountsReplay.perSecond(r.nextInt(50), r.nextInt(50), 0, r.nextInt(50)); // ends within 4 s
            };
            loads.add(new ModelLoad("t" + i % 7, model, 10 + i, p));
        }
        return loads;
    }

    @Test
    void theHeapGivesTheSameStreamAsTheDocumentedRuleForFiveHundredLoads() {
        List<ModelLoad> loads = fiveHundredLoads();
        Workload w = new Workload(loads);
        int count = 300_000; // about 6 s: past the end of every replay
        List<long[]> expected = byTheRule(loads, 17, count);

        Workload.Arrivals it = w.arrivals(17);
        int ties = 0;
        for (int k = 0; k < count; k++) {
            long[] e = expected.get(k);
            assertThat(it.hasNext()).isTrue();
            assertThat(it.peekOffsetMicros()).as("arrival %d", k).isEqualTo(e[0]);
            Arrival a = it.next();
            ModelLoad l = loads.get((int) e[1]);
            assertThat(a).as("arrival %d", k).isEqualTo(new Arrival(e[0], l.tenant(), l.model(), l.sloMs()));
            if (k > 0 && expected.get(k - 1)[0] == e[0]) ties++;
        }
        assertThat(ties).as("exact ties exercised").isGreaterThan(1000);
        assertThat(expected.get(count - 1)[0]).isGreaterThan(4 * SECOND);
    }

    @Test
    void nextLoadIndexHandsOutTheSameArrivalsWithoutObjects() {
        List<ModelLoad> loads = fiveHundredLoads();
        List<long[]> expected = byTheRule(loads, 3, 50_000);

        Workload.Arrivals it = new Workload(loads).arrivals(3);
        for (long[] e : expected) {
            assertThat(it.peekOffsetMicros()).isEqualTo(e[0]);
            assertThat(it.nextLoadIndex()).isEqualTo((int) e[1]);
        }
    }

    @Test
    void aWorkloadOfReplaysEndsWithItsLastArrival() {
        Workload w = new Workload(List.of(
                new ModelLoad("a", "resnet50", 25, CountsReplay.perSecond(2, 0, 1)),
                new ModelLoad("b", "mlp", 10, CountsReplay.perSecond(0, 0, 0, 1)),
                new ModelLoad("c", "mlp", 10, CountsReplay.perSecond(0))));

        List<Arrival> all = w.arrivalsWithin(1, Long.MAX_VALUE);
        assertThat(all).extracting(Arrival::tenant).containsExactly("a", "a", "a", "b");

        Workload.Arrivals it = w.arrivals(1);
        for (int i = 0; i < 4; i++) it.next();
        assertThat(it.hasNext()).isFalse();
        assertThat(it.peekOffsetMicros()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(it::nextLoadIndex).isInstanceOf(NoSuchElementException.class)
                .hasMessage("every arrival stream of the workload has ended");
    }

    @Test
    void aReplayThatEndsLeavesTheEndlessLoadsRunning() {
        Workload w = new Workload(List.of(
                new ModelLoad("r", "a", 10, CountsReplay.perSecond(5)),
                ModelLoad.of("p", "b", 100, 10, ArrivalSpec.FIXED)));

        List<Arrival> tenSeconds = w.arrivalsWithin(1, 10 * SECOND);

        assertThat(tenSeconds.stream().filter(a -> a.tenant().equals("r"))).hasSize(5);
        assertThat(tenSeconds.stream().filter(a -> a.tenant().equals("p"))).hasSize(999);
        assertThat(w.arrivals(1).hasNext()).isTrue();
    }

    @Test
    void aTimePastTheEndOfTimeEndsTheStreamInsteadOfOverflowing() {
        long huge = Long.MAX_VALUE - 3;
        ArrivalProcess hugeGaps = new ArrivalProcess() {
            @Override
            public double meanRatePerSecond() {
                return 1e-12;
            }

            @Override
            public Gaps start(SplittableRandom random) {
                long[] gaps = {5, huge, huge};
                int[] i = {0};
                return () -> gaps[Math.min(i[0]++, gaps.length - 1)];
            }
        };
        Workload w = new Workload(List.of(new ModelLoad("t", "m", 1, hugeGaps)));

        Workload.Arrivals it = w.arrivals(1);
        assertThat(it.next().offsetMicros()).isEqualTo(5);
        assertThat(it.hasNext()).as("5 + huge overflows a long: that arrival never comes").isFalse();
    }
}
