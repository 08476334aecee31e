package io.kairos.sim;

import io.kairos.core.device.DeviceView;
import io.kairos.core.scheduling.Dispatch;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One device in virtual time: it runs the batches handed to it one at a time, in order, each for
 * its profiled latency perturbed by the noise, plus a model load when the model is not cached.
 * When a batch ends it corrects the scheduler's view of when the device will be free, which is
 * the feedback a production device gives through its completions.
 */
final class SimulatedGpu {
    static final long IDLE = Long.MAX_VALUE;

    private DeviceView view;
    private final ExecutionNoise noise;
    private final ColdStarts coldStarts;
    private final SplittableRandom random;
    private final Delay dispatchDelay;
    private final ArrayDeque<Dispatch> waiting = new ArrayDeque<>();
    // When each waiting batch reaches the device, in the same order (hand-overs do not overtake).
    private final ArrayDeque<Long> reachesAt = new ArrayDeque<>();
    private long lastReach;
    private final Map<String, Boolean> cache;

    private Dispatch running;
    private long runningStart;
    private long runningEnd = IDLE;
    private boolean runningCold;

    SimulatedGpu(DeviceView view, ExecutionNoise noise, ColdStarts coldStarts, Delay dispatchDelay, SplittableRandom random) {
        this.view = view;
        this.dispatchDelay = dispatchDelay;
        this.noise = noise;
        this.coldStarts = coldStarts;
        this.random = random;
        // An access-ordered map is an LRU cache: the eldest entry is the least recently run model.
        this.cache = coldStarts.enabled() ? new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > coldStarts.capacity();
            }
        } : null;
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

    /** The next instant something happens here: the running batch ends, or, when idle, a batch arrives. */
    long nextEvent() {
        if (running != null) return runningEnd;
        return reachesAt.isEmpty() ? IDLE : reachesAt.peek();
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

    void submit(Dispatch d, long now) {
        lastReach = Math.max(lastReach, now + dispatchDelay.sampleMicros(random));
        waiting.add(d);
        reachesAt.add(lastReach);
        if (running == null) startNext(now);
    }

    /** Ends the running batch at its end time, starts the next; returns the one that ended. */
    Dispatch complete() {
        Dispatch done = running;
        long now = runningEnd;
        running = null;
        runningEnd = IDLE;
        startNext(now);
        reportFreeAt(now);
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
            reportFreeAt(now);
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
        reportFreeAt(now);
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

    // Starts the next batch if it has reached the device by now; otherwise the device idles until it does.
    private void startNext(long now) {
        if (!waiting.isEmpty() && reachesAt.peek() <= now) {
            reachesAt.poll();
            start(waiting.poll(), now);
        }
    }

    private void start(Dispatch d, long now) {
        long latency = noise.actualMicros(d.predictedLatencyMicros(), random);
        runningCold = false;
        if (cache != null && cache.put(d.model(), Boolean.TRUE) == null) {
            runningCold = true;
            latency += coldStarts.loadMicros();
        }
        running = d;
        runningStart = now;
        runningEnd = now + latency;
    }

    // Like a real device, it tells only what it knows when a batch ends: that the device is free
    // now; the batches behind are predicted by their profile, not by the noise drawn for them.
    private void reportFreeAt(long now) {
        long free = now;
        if (running != null) free += running.predictedLatencyMicros();
        for (Dispatch w : waiting) free += w.predictedLatencyMicros();
        view.observeFreeAt(free);
    }
}
