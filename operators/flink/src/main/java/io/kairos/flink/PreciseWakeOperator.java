package io.kairos.flink;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Flink's operator for a {@link KeyedBroadcastProcessFunction}, with {@link PreciseWakes} for a
 * function that takes them: a wake is a delay on a timer thread of the operator's own, which then
 * posts the key's timer callback to the task's mailbox, so the callback runs in the task's thread
 * between records, as a Flink timer's does, at the µs asked plus the hand-over, not 0 to 2 ms after.
 * The callback is told the wake's millisecond as its timer's time.
 */
public final class PreciseWakeOperator<KS, IN1, IN2, OUT> extends CoBroadcastWithKeyedOperator<KS, IN1, IN2, OUT> implements PreciseWakes {
    private static final long serialVersionUID = 1L;

    private transient ScheduledThreadPoolExecutor timer;
    private transient MailboxExecutor mailbox;
    // Per key, the earliest wake set and not yet called: read and written in the task's thread only.
    private transient Map<Object, Wake> wakes;
    private transient boolean closed;

    /** A wake set: its moment, µs, and its delay on the timer thread, cancelled when an earlier wake replaces it. */
    private record Wake(long micros, ScheduledFuture<?> delay) {}

    public PreciseWakeOperator(KeyedBroadcastProcessFunction<KS, IN1, IN2, OUT> function, List<MapStateDescriptor<?, ?>> broadcastStates) {
        super(function, broadcastStates);
    }

    @Override
    public void open() throws Exception {
        wakes = new HashMap<>();
        mailbox = getContainingTask().getMailboxExecutorFactory().createExecutor(getOperatorConfig().getChainIndex());
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "kairos precise wakes: " + getOperatorName() + " " + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask());
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        super.open();
        if (userFunction instanceof PreciseWakes.Taker taker) taker.usePreciseWakes(this);
    }

    @Override
    public void wakeAt(Object key, long wakeMicros, long nowMicros) {
        Wake set = wakes.get(key);
        if (set != null && set.micros() <= wakeMicros) return;
        // The later wake would only post a mail that finds itself replaced: it goes from the timer's queue.
        if (set != null) set.delay().cancel(false);
        wakes.put(key, new Wake(wakeMicros, timer.schedule(() -> mailbox.execute(() -> wake(key, wakeMicros), "precise wake"),
                Math.max(0, wakeMicros - nowMicros), TimeUnit.MICROSECONDS)));
    }

    @SuppressWarnings("unchecked")
    private void wake(Object key, long wakeMicros) throws Exception {
        // An earlier wake set since (this one's mail was posted before its cancel came) has been called, or will be.
        Wake set = wakes.get(key);
        if (closed || set == null || set.micros() != wakeMicros) return;
        wakes.remove(key);
        setCurrentKey(key);
        onProcessingTime(new TimerHeapInternalTimer<>(Math.floorDiv(wakeMicros, 1000), (KS) key, VoidNamespace.INSTANCE));
    }

    @Override
    public void close() throws Exception {
        closed = true;
        if (timer != null) timer.shutdownNow();
        super.close();
    }
}
