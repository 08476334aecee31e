package io.kairos.flink;

import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator on Flink's test harness: a precise wake reaches the key's timer callback through
 * the task's mailbox, after its delay, once, with the wake's millisecond as the timer's time.
 */
class PreciseWakeOperatorHarnessTest {
    private static final MapStateDescriptor<String, String> NOTHING = new MapStateDescriptor<>("nothing", Types.STRING, Types.STRING);
    /** A moment of the function's own clock: the operator reads only the delay from now. */
    private static final long NOW_MICROS = 5_000_000_300L;

    private KeyedBroadcastOperatorTestHarness<String, String, String, String> harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) harness.close();
    }

    /** Asks, for each input "key:delayMicros", a wake of that key that far ahead; writes each callback as "key@ms". */
    static final class Waker extends KeyedBroadcastProcessFunction<String, String, String, String> implements PreciseWakes.Taker {
        private transient PreciseWakes wakes;

        @Override
        public void usePreciseWakes(PreciseWakes wakes) {
            this.wakes = wakes;
        }

        @Override
        public void processElement(String in, ReadOnlyContext ctx, Collector<String> out) {
            wakes.wakeAt(ctx.getCurrentKey(), NOW_MICROS + Long.parseLong(in.split(":")[1]), NOW_MICROS);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) {
            out.collect(ctx.getCurrentKey() + "@" + timestamp);
        }

        @Override
        public void processBroadcastElement(String in, Context ctx, Collector<String> out) {}
    }

    private void open() throws Exception {
        harness = new KeyedBroadcastOperatorTestHarness<>(new PreciseWakeOperator<>(new Waker(), List.<MapStateDescriptor<?, ?>>of(NOTHING)),
                in -> in.split(":")[0], Types.STRING, 1, 1, 0);
        harness.open();
    }

    /** Runs the mails posted within {@code waitMs}, as the task's thread would between records. */
    private int runMails(long waitMs) throws Exception {
        TaskMailbox mailbox = harness.getTaskMailbox();
        long until = System.nanoTime() + waitMs * 1_000_000;
        int ran = 0;
        while (System.nanoTime() < until) {
            Optional<Mail> mail = mailbox.tryTake(TaskMailbox.MIN_PRIORITY);
            if (mail.isPresent()) {
                mail.get().run();
                ran++;
            } else {
                Thread.sleep(1);
            }
        }
        return ran;
    }

    private List<String> output() {
        List<String> out = new ArrayList<>();
        for (Object o : harness.getOutput()) out.add(String.valueOf(((org.apache.flink.streaming.runtime.streamrecord.StreamRecord<?>) o).getValue()));
        return out;
    }

    @Test
    void aWakeCallsItsKeysTimerCallbackThroughTheMailboxAfterItsDelayAtTheWakesMillisecond() throws Exception {
        open();
        // 300 ms ahead: nothing in the mailbox at once; the callback after the delay, told 5,000,300 ms
        // (NOW_MICROS + 300,000 µs = 5,000,300,300 µs, in its millisecond).
        long start = System.nanoTime();
        harness.processElement("g1:300000", 0);
        assertThat(runMails(100)).isZero();
        assertThat(output()).isEmpty();
        assertThat(runMails(600)).isEqualTo(1);
        assertThat(output()).containsExactly("g1@5000300");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300_000_000L);
    }

    @Test
    void aKeyIsWokenOnceAtItsEarliestWakeAndALaterOneWaitsForTheCallbackToAskAgain() throws Exception {
        open();
        // g1 asks 200 ms ahead, then 50 ms ahead: one callback, at the earlier wake's ms; a wake asked
        // later than the one set is not set (the callback asks for its next wake itself). g2 has its own.
        harness.processElement("g1:200000", 0);
        harness.processElement("g1:50000", 0);
        harness.processElement("g1:400000", 0);
        harness.processElement("g2:100000", 0);
        runMails(600);
        assertThat(output()).containsExactly("g1@5000050", "g2@5000100");
    }
}
