package io.kairos.sim;

import io.kairos.core.scheduling.ModelAction;
import io.kairos.core.device.ExecutionModel;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupScheduler;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * One device in virtual time: it runs the batches handed to it one at a time, in order, each for
 * the time its {@link ExecutionModel} gives (the one model of a device's time that the job's
 * simulated devices use too: profile times speed, noise, and a model load when the model is not
 * in its memory). When a batch ends, the engine reports it to the scheduler, which corrects its
 * view of the device, as the job's devices report theirs. The loads and unloads the scheduler
 * decides come in the same order as its batches: a load occupies the device for its load time,
 * as the scheduler booked it; an unload frees the model's memory when the device reaches it.
 */
final class DiscreteEventDevice {
    static final long IDLE = Long.MAX_VALUE;

    private DeviceView view;
    private final ExecutionModel time;
    private final SplittableRandom random;
    private final Delay dispatchDelay;
    // Batches (Dispatch) and model actions (ModelAction), in the order they were sent.
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    // When each waiting batch reaches the device, in the same order (hand-overs do not overtake).
    private final ArrayDeque<Long> reachesAt = new ArrayDeque<>();
    private long lastReach;

    private Dispatch running;
    // The model whose load the device is busy with, or null.
    private String loading;
    private long runningStart;
    private long runningEnd = IDLE;
    private boolean runningCold;
    private boolean runningFailed;

    /** @param random the source of its hand-over delays; {@code time} draws its noise from the same one */
    DiscreteEventDevice(DeviceView view, ExecutionModel time, Delay dispatchDelay, SplittableRandom random) {
        this.view = view;
        this.dispatchDelay = dispatchDelay;
        this.time = time;
        this.random = random;
    }

    DeviceView view() {
        return view;
    }

    /** The scheduler's picture of this device is now {@code view}: its group got it anew (placement changed). */
    void rebind(DeviceView view) {
        this.view = view;
    }

    /** When the running batch ends, or {@link #IDLE}. */
    long runningEnd() {
        return runningEnd;
    }

    /** The next instant something happens here: the running batch or load ends, or, when idle, work arrives. */
    long nextEvent() {
        if (busy()) return runningEnd;
        return reachesAt.isEmpty() ? IDLE : reachesAt.peek();
    }

    /** Whether it runs a batch or a load. */
    boolean busy() {
        return runningEnd != IDLE;
    }

    /** The model it is loading, or null when it loads none. */
    String loading() {
        return loading;
    }

    Dispatch running() {
        return running;
    }

    long runningStart() {
        return runningStart;
    }

    boolean runningCold() {
        return runningCold;
    }

    /** The running batch could not run (its model does not fit the device's memory): it ends at once, without results. */
    boolean runningFailed() {
        return runningFailed;
    }

    /** A load or unload the scheduler decided, carried out in turn with the batches sent before and after it. */
    void submit(ModelAction action, long now) {
        lastReach = Math.max(lastReach, now + dispatchDelay.sampleMicros(random, now));
        waiting.add(action);
        reachesAt.add(lastReach);
        if (!busy()) startNext(now);
    }

    void submit(Dispatch d, long now) {
        // A batch sent to a device on another machine travels the network first.
        lastReach = Math.max(lastReach, now + dispatchDelay.sampleMicros(random, now) + d.networkMicros());
        waiting.add(d);
        reachesAt.add(lastReach);
        if (!busy()) startNext(now);
    }

    /** Ends the running batch or load at its end time, starts the next; returns the batch that ended, null for a load. */
    Dispatch complete() {
        Dispatch done = running;
        long now = runningEnd;
        running = null;
        loading = null;
        runningEnd = IDLE;
        startNext(now);
        return done;
    }

    /** An idle device's next batch has reached it at {@code now}: it starts. */
    void startArrived(long now) {
        startNext(now);
    }

    /**
     * Takes a batch off the device: aborted if it runs, removed if it waits. Returns the device
     * time it had already spent on it, for nothing.
     */
    long preempt(Dispatch d, long now) {
        if (running == d) {
            long spent = now - runningStart;
            running = null;
            runningEnd = IDLE;
            startNext(now);
            return spent;
        }
        int i = 0;
        for (var it = waiting.iterator(); it.hasNext(); i++) {
            if (it.next() == d) {
                it.remove();
                removeAt(reachesAt, i);
                break;
            }
        }
        return 0;
    }

    private static void removeAt(ArrayDeque<Long> q, int index) {
        int i = 0;
        for (var it = q.iterator(); it.hasNext(); i++) {
            it.next();
            if (i == index) {
                it.remove();
                return;
            }
        }
    }

    // Starts the next work that has reached the device by now; otherwise the device idles until it
    // does. Unloads take no device time; a load of a model already there takes none either.
    private void startNext(long now) {
        while (!waiting.isEmpty() && reachesAt.peek() <= now) {
            reachesAt.poll();
            Object next = waiting.poll();
            if (next instanceof Dispatch d) {
                start(d, now);
                return;
            }
            ModelAction a = (ModelAction) next;
            if (!a.load()) {
                time.unload(a.model());
                continue;
            }
            long load = time.loadAsWork(a.model());
            if (load > 0) {
                loading = a.model();
                runningStart = now;
                runningEnd = now + load;
                return;
            }
        }
    }

    private void start(Dispatch d, long now) {
        ExecutionModel.Run run = time.run(d.model(), d.size(), d.afterMicros() == 0);
        running = d;
        runningStart = now;
        runningEnd = now + run.latencyMicros();
        runningCold = run.coldStart();
        runningFailed = !run.succeeded();
    }
}
