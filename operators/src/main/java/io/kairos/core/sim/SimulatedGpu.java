package io.kairos.core.sim;

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

    private final DeviceView view;
    private final ExecutionNoise noise;
    private final ColdStarts coldStarts;
    private final SplittableRandom random;
    private final ArrayDeque<Dispatch> waiting = new ArrayDeque<>();
    private final Map<String, Boolean> cache;

    private Dispatch running;
    private long runningStart;
    private long runningEnd = IDLE;
    private boolean runningCold;

    SimulatedGpu(DeviceView view, ExecutionNoise noise, ColdStarts coldStarts, SplittableRandom random) {
        this.view = view;
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

    /** When the running batch ends, or {@link #IDLE}. */
    long runningEnd() {
        return runningEnd;
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
        if (running == null) start(d, now);
        else waiting.add(d);
    }

    /** Ends the running batch at its end time, starts the next; returns the one that ended. */
    Dispatch complete() {
        Dispatch done = running;
        long now = runningEnd;
        running = null;
        runningEnd = IDLE;
        startNext(now);
        return done;
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
        waiting.remove(d);
        reportFreeAt(now);
        return 0;
    }

    private void startNext(long now) {
        Dispatch next = waiting.poll();
        if (next != null) start(next, now);
        reportFreeAt(now);
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
