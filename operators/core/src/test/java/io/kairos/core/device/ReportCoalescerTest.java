package io.kairos.core.device;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportCoalescerTest {

    /** A batch's record: its group (the key) and its name. */
    record Rec(String group, String name) {
        static Rec of(String name) {
            return new Rec("g", name);
        }
    }

    private final List<List<String>> sent = new ArrayList<>();

    private ReportCoalescer<Rec> coalescer(long intervalMicros, int maxRecords) {
        return new ReportCoalescer<>(intervalMicros, maxRecords, Rec::group, g -> sent.add(g.stream().map(Rec::name).toList()));
    }

    @Test
    void theFirstRecordLeavesAtOnceAndThoseWithinTheIntervalGatherUntilItIsUp() {
        // Interval 2 ms, up to 4 a gathering. a at 0: nothing sent before, so it leaves at once.
        // b at 0.5 and c at 1.5 ms come within 2 ms of a's sending: held, due at 0 + 2 = 2 ms.
        // The timer at 2 ms sends [b, c]; d at 2.5 ms is held until 2 + 2 = 4 ms; e at 7 ms comes
        // after a quiet spell (4 + 2 = 6 <= 7) and leaves at once.
        ReportCoalescer<Rec> c = coalescer(2_000, 4);
        c.add(Rec.of("a"), 0);
        assertThat(sent).containsExactly(List.of("a"));
        assertThat(c.dueMicros()).isEqualTo(ReportCoalescer.NOTHING_DUE);
        c.add(Rec.of("b"), 500);
        c.add(Rec.of("c"), 1_500);
        assertThat(c.held()).isEqualTo(2);
        assertThat(c.dueMicros()).isEqualTo(2_000);
        c.onTime(1_999);
        assertThat(sent).hasSize(1);
        c.onTime(2_000);
        assertThat(sent).containsExactly(List.of("a"), List.of("b", "c"));
        c.add(Rec.of("d"), 2_500);
        assertThat(c.dueMicros()).isEqualTo(4_000);
        c.onTime(4_000);
        c.add(Rec.of("e"), 7_000);
        assertThat(sent).containsExactly(List.of("a"), List.of("b", "c"), List.of("d"), List.of("e"));
        assertThat(c.held()).isZero();
    }

    @Test
    void aFullGatheringLeavesWithoutWaitingForTheInterval() {
        // Up to 3 a gathering: a at 0 leaves alone; b, c, d at 10, 20, 30 us fill one, which leaves
        // with d at 30 us; e at 40 us is held until 30 + 2,000.
        ReportCoalescer<Rec> c = coalescer(2_000, 3);
        for (String n : List.of("a", "b", "c", "d", "e")) c.add(Rec.of(n), 10L * (n.charAt(0) - 'a'));
        assertThat(sent).containsExactly(List.of("a"), List.of("b", "c", "d"));
        assertThat(c.dueMicros()).isEqualTo(2_030);
    }

    @Test
    void aRecordOfAnotherGroupSendsTheHeldOnesFirst() {
        // a (g1) at 0 leaves; b (g1) at 100 is held; c (g2) at 200 sends [b] then is held itself,
        // due 200 + 2,000: one gathering holds one group's records, in the order they came.
        ReportCoalescer<Rec> c = coalescer(2_000, 8);
        c.add(new Rec("g1", "a"), 0);
        c.add(new Rec("g1", "b"), 100);
        c.add(new Rec("g2", "c"), 200);
        assertThat(sent).containsExactly(List.of("a"), List.of("b"));
        assertThat(c.dueMicros()).isEqualTo(2_200);
        c.onTime(2_200);
        assertThat(sent).containsExactly(List.of("a"), List.of("b"), List.of("c"));
    }

    @Test
    void aRecordThatComesAfterTheDueTimeTakesTheHeldOnesWithIt() {
        // The timer of 2 ms has not fired when c comes at 2.1 ms: [b, c] leave together then.
        ReportCoalescer<Rec> c = coalescer(2_000, 8);
        c.add(Rec.of("a"), 0);
        c.add(Rec.of("b"), 100);
        c.add(Rec.of("c"), 2_100);
        assertThat(sent).containsExactly(List.of("a"), List.of("b", "c"));
        assertThat(c.dueMicros()).isEqualTo(ReportCoalescer.NOTHING_DUE);
    }

    @Test
    void flushSendsWhatIsHeldAndNothingWhenNothingIs() {
        ReportCoalescer<Rec> c = coalescer(2_000, 8);
        c.flush();
        assertThat(sent).isEmpty();
        c.add(Rec.of("a"), 0);
        c.add(Rec.of("b"), 10);
        c.flush();
        // The interval still runs from a's sending: c at 1 ms is held.
        c.add(Rec.of("c"), 1_000);
        assertThat(sent).containsExactly(List.of("a"), List.of("b"));
        assertThat(c.held()).isEqualTo(1);
    }

    @Test
    void offEveryRecordLeavesAlone() {
        for (ReportCoalescer<Rec> c : List.of(coalescer(0, 64), coalescer(2_000, 1))) {
            sent.clear();
            assertThat(c.coalesces()).isFalse();
            c.add(Rec.of("a"), 0);
            c.add(Rec.of("b"), 0);
            c.add(Rec.of("c"), 1);
            assertThat(sent).containsExactly(List.of("a"), List.of("b"), List.of("c"));
            assertThat(c.dueMicros()).isEqualTo(ReportCoalescer.NOTHING_DUE);
        }
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> coalescer(-1, 4)).hasMessageContaining("must not be negative");
        assertThatThrownBy(() -> coalescer(1_000, 0)).hasMessageContaining("at least one record");
    }

    @Test
    void everyRecordLeavesExactlyOnceInOrderWithinTheIntervalOnRandomSequences() {
        SplittableRandom random = new SplittableRandom(28);
        for (int run = 0; run < 200; run++) {
            long interval = random.nextInt(0, 5_000);
            int max = random.nextInt(1, 20);
            List<Rec> in = new ArrayList<>();
            List<Long> addedAt = new ArrayList<>();
            List<List<Rec>> out = new ArrayList<>();
            List<Long> sentAt = new ArrayList<>();
            long[] now = {0};
            ReportCoalescer<Rec> c = new ReportCoalescer<>(interval, max, Rec::group, g -> {
                out.add(g);
                sentAt.add(now[0]);
            });
            int n = random.nextInt(1, 300);
            for (int i = 0; i < n; i++) {
                long next = now[0] + (random.nextInt(4) == 0 ? random.nextInt(0, 10_000) : random.nextInt(0, 300));
                // The timer fires at the due time when it comes before the next record.
                long due = c.dueMicros();
                if (due <= next) {
                    now[0] = Math.max(now[0], due);
                    c.onTime(now[0]);
                }
                now[0] = next;
                Rec r = new Rec(random.nextInt(10) == 0 ? "g2" : "g1", Integer.toString(i));
                in.add(r);
                addedAt.add(now[0]);
                c.add(r, now[0]);
            }
            long due = c.dueMicros();
            if (due != ReportCoalescer.NOTHING_DUE) {
                now[0] = Math.max(now[0], due);
                c.onTime(now[0]);
            }
            assertThat(c.held()).isZero();
            List<Rec> all = out.stream().flatMap(List::stream).toList();
            assertThat(all).as("run %d: every record once, in order", run).containsExactlyElementsOf(in);
            int k = 0;
            for (int g = 0; g < out.size(); g++) {
                List<Rec> gathering = out.get(g);
                assertThat(gathering).isNotEmpty().hasSizeLessThanOrEqualTo(max);
                assertThat(gathering.stream().map(Rec::group).distinct()).as("one group per gathering").hasSize(1);
                for (int j = 0; j < gathering.size(); j++, k++) {
                    assertThat(sentAt.get(g) - addedAt.get(k)).as("run %d: record %d waited at most the interval", run, k).isBetween(0L, interval);
                }
            }
        }
    }
}
