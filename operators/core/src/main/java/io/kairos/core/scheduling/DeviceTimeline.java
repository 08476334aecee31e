package io.kairos.core.scheduling;

import java.util.ArrayDeque;

/**
 * The work a {@link DeviceView} has booked on its device, in the order the device runs it, with
 * its predicted times: when the device is free, the last batch booked (the one a policy may
 * preempt), and what a device's report re-bases. Work predicted done is forgotten when more is
 * booked, so that a device that never reports (an open loop) keeps a few entries only. The view
 * keeps the device's placement and memory; this, its time.
 */
final class DeviceTimeline {
    private long freeAtMicros;
    // The last batch booked, ending at freeAtMicros; null when none was, or when it was preempted
    // (a policy may preempt only the batch it sent last).
    private Dispatch lastBooked;
    private ArrayDeque<Booked> booked = new ArrayDeque<>();

    /**
     * Work on the timeline: a batch ({@code batch} null: other work), from when it can start at the
     * earliest; {@code loadOf}: the model other work loads, if it is a load.
     */
    private static final class Booked {
        final Dispatch batch;
        final String loadOf;
        final long readyAtMicros;
        long startMicros;
        long endMicros;

        Booked(Dispatch batch, String loadOf, long readyAtMicros, long startMicros, long endMicros) {
            this.batch = batch;
            this.loadOf = loadOf;
            this.readyAtMicros = readyAtMicros;
            this.startMicros = startMicros;
            this.endMicros = endMicros;
        }

        boolean of(String model) {
            return model.equals(loadOf) || batch != null && batch.model().equals(model);
        }
    }

    long freeAtMicros() {
        return freeAtMicros;
    }

    Dispatch lastBooked() {
        return lastBooked;
    }

    /** The batches booked that are predicted to be running or waiting at {@code now}. */
    int outstandingBatches(long nowMicros) {
        int n = 0;
        for (Booked b : booked) {
            if (b.batch != null && b.endMicros > nowMicros) n++;
        }
        return n;
    }

    /**
     * Books work that is no batch (nothing to preempt) of the given length after the work already
     * there: the load of {@code loadOf}, or other work where it is null. Returns its predicted start.
     */
    long book(String loadOf, long nowMicros, long lengthMicros) {
        long start = Math.max(nowMicros, freeAtMicros);
        forgetDone(nowMicros);
        freeAtMicros = start + lengthMicros;
        booked.add(new Booked(null, loadOf, nowMicros, start, freeAtMicros));
        lastBooked = null;
        return start;
    }

    /** Books a batch sent at {@code now}, whose predicted start the view checked is not before the work already there. */
    void book(Dispatch batch, long nowMicros) {
        forgetDone(nowMicros);
        freeAtMicros = batch.predictedEndMicros();
        booked.add(new Booked(batch, null, Math.min(nowMicros, batch.predictedStartMicros()), batch.predictedStartMicros(), freeAtMicros));
        lastBooked = batch;
    }

    // Work predicted done by now that no report has taken off yet. A report that comes later for
    // it re-bases what is still booked, all of which the device runs after it.
    private void forgetDone(long nowMicros) {
        while (!booked.isEmpty() && booked.peekFirst().endMicros <= nowMicros) booked.pollFirst();
    }

    /**
     * The load of {@code model} failed: where it is the last work booked, it ends now rather than
     * as predicted, so the device is free from now for the work of other models.
     */
    void loadFailed(String model, long nowMicros) {
        Booked last = booked.peekLast();
        if (last != null && model.equals(last.loadOf) && last.endMicros > nowMicros) {
            booked.pollLast();
            freeAtMicros = Math.max(nowMicros, last.startMicros);
            lastBooked = null;
        }
    }

    /** Whether work of {@code model} (a batch of it, or its load) is booked and not predicted done at {@code now}. */
    boolean busyWith(String model, long nowMicros) {
        for (Booked b : booked) {
            if (b.endMicros > nowMicros && b.of(model)) return true;
        }
        return false;
    }

    /** When the load of {@code model} booked is predicted to end; -1 when none is booked and not yet predicted done. */
    long loadEndMicros(String model) {
        for (Booked b : booked) {
            if (model.equals(b.loadOf)) return b.endMicros;
        }
        return -1;
    }

    /**
     * The device reports that {@code batch} ran from {@code startMicros} to {@code endMicros}: the
     * work booked behind it is planned again from that end, each piece starting when the one before
     * it ends, or when it was sent if that is later, and keeping its predicted length. A batch no
     * longer known (forgotten, or preempted after all) re-bases everything still booked, which the
     * device runs after it.
     */
    void observe(Dispatch batch, long startMicros, long endMicros) {
        if (endMicros < startMicros) throw new IllegalArgumentException("a batch cannot end (" + endMicros + ") before it starts (" + startMicros + ")");
        if (isBooked(batch)) {
            // The device runs in order: what was booked before the batch is done too.
            Booked done;
            do {
                done = booked.pollFirst();
            } while (done.batch != batch);
        }
        long end = endMicros;
        for (Booked b : booked) {
            long length = b.endMicros - b.startMicros;
            b.startMicros = Math.max(b.readyAtMicros, end);
            b.endMicros = b.startMicros + length;
            end = b.endMicros;
        }
        freeAtMicros = end;
    }

    private boolean isBooked(Dispatch batch) {
        if (batch == null) return false;
        for (Booked b : booked) {
            if (b.batch == batch) return true;
        }
        return false;
    }

    /** The predicted start of a batch booked and not yet reported; -1 when it is not known. */
    long predictedStartMicros(Dispatch batch) {
        for (Booked b : booked) {
            if (b.batch == batch) return b.startMicros;
        }
        return -1;
    }

    /** The last batch booked, if it is predicted to be running or waiting at {@code now}; else null. */
    Dispatch preemptibleAt(long nowMicros) {
        Booked last = booked.peekLast();
        return lastBooked != null && last != null && last.batch == lastBooked && last.endMicros > nowMicros ? lastBooked : null;
    }

    /**
     * Takes the preemptible batch off: the device is free from {@code now} if it was running, or
     * from its predicted start if it had not started (the work before it stays).
     */
    Dispatch unbookLast(long nowMicros) {
        Dispatch batch = lastBooked;
        freeAtMicros = Math.max(nowMicros, booked.pollLast().startMicros);
        lastBooked = null;
        return batch;
    }

    /** Takes over the work of the timeline this one replaces, where that is booked until later. */
    void inherit(DeviceTimeline previous) {
        if (previous.freeAtMicros >= freeAtMicros) {
            freeAtMicros = previous.freeAtMicros;
            lastBooked = previous.lastBooked;
            booked = previous.booked;
            previous.booked = new ArrayDeque<>();
        }
    }
}
