package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Which queued requests a serving group drops before its policy decides: those that can no longer
 * meet their deadline, and, under overload, the heads that would keep batches small. Both judge a
 * request by when a batch of its model could start ({@link DeviceChoice#earliestReadyMicros}),
 * what dispatch books, so a request is dropped only when no device could serve it in time.
 */
final class Shedding {
    private final String group;
    private final PendingBook book;
    private final DeviceChoice choice;

    Shedding(String group, PendingBook book, DeviceChoice choice) {
        this.group = group;
        this.book = book;
        this.choice = choice;
    }

    /**
     * Drops, per model, the requests at the head of the queue that would miss their deadline even
     * if they ran alone on the device where a batch of the model could start first, its load
     * included; with {@code shedding} off, only those of a model no device holds. Deadlines behind
     * the head are not earlier, so the scan stops at the first request that can still make it.
     * {@code alike}: every device holds every model and none differs for any (one earliest start).
     */
    List<Drop> unreachable(long nowMicros, List<DeviceView> devices, boolean alike, boolean shedding) {
        if (book.pending() == 0) return Collections.emptyList();
        List<Drop> dropped = new ArrayList<>(0);
        QueueOrder active = book.active();
        if (!devices.isEmpty() && alike) {
            if (!shedding) return dropped;
            // One earliest start for every model: the unreachable heads are at the front of the order.
            long start = earliestStart(devices, nowMicros);
            while (!active.isEmpty() && active.first().latestStartAlone() < start) {
                RequestQueue q = active.first();
                book.leave(q);
                dropUnreachable(q, start, dropped);
                if (!q.isEmpty()) book.join(q);
            }
            return dropped;
        }
        for (RequestQueue q : new ArrayList<>(active)) {
            long start = choice.earliestReadyMicros(q, nowMicros);
            if (start == Long.MAX_VALUE) {
                book.leave(q);
                while (!q.isEmpty()) {
                    dropped.add(new Drop(book.poll(q), "no device of serving group '" + group + "' holds model '" + q.model() + "'"));
                }
                book.shrunk(q);
            } else if (shedding && q.latestStartAlone() < start) {
                book.leave(q);
                dropUnreachable(q, start, dropped);
                if (!q.isEmpty()) book.join(q);
            }
        }
        return dropped;
    }

    /**
     * Shedding early, under overload. A queue holding two full batches or more is behind: its
     * devices cannot serve it by the deadlines at the rate it comes. Its head requests are then
     * the ones closest to their deadlines, too close, typically, for a full batch: served anyway,
     * they go in batches of one or two, at a fraction of the device's throughput, and while they
     * run the requests behind them age into the same state, until the group serves nothing but
     * batches of one (a group of two devices at twice its capacity keeps under 40 % of its peak goodput
     * that way). So while the queue holds two full batches, a head that could not finish by its
     * deadline in a full batch started on the earliest-free device that holds the model is
     * dropped, with a reason starting "shed under overload"; the batches that run stay full.
     * Below capacity a queue seldom holds two full batches, and when it does its head has time.
     */
    List<Drop> forFullBatches(long nowMicros, List<DeviceView> devices, boolean alike, List<Drop> dropped) {
        if (!book.anyOverfull()) return dropped;
        long anyStart = alike ? earliestStart(devices, nowMicros) : 0;
        for (RequestQueue q : book.overfull()) {
            LatencyProfile p = q.profile();
            int full = p.maxBatch();
            long start = alike ? anyStart : choice.earliestReadyMicros(q, nowMicros);
            if (start == Long.MAX_VALUE) continue;
            long finish = start + p.latencyAt(p.batchSizeCount() - 1);
            if (finish <= q.headDeadline()) continue;
            if (dropped.isEmpty()) dropped = new ArrayList<>();
            book.leave(q);
            while (q.size() >= 2 * full && finish > q.headDeadline()) {
                Request r = book.poll(q);
                int behind = q.size();
                long late = finish - r.deadlineMicros();
                String model = q.model();
                dropped.add(new Drop(r, () -> "shed under overload: " + behind + " requests of model '" + model + "' wait behind it, and in a full batch of "
                        + full + " on the earliest-free device it would finish " + late + " us late"));
            }
            book.shrunk(q);
            if (!q.isEmpty()) book.join(q);
        }
        return dropped;
    }

    /** Drops the head requests of {@code q}, out of the orders, that would finish late even alone from {@code start}. */
    private void dropUnreachable(RequestQueue q, long start, List<Drop> dropped) {
        long finish = start + q.profile().latencyAt(0);
        while (!q.isEmpty() && finish > q.headDeadline()) {
            Request r = book.poll(q);
            long late = finish - r.deadlineMicros();
            dropped.add(new Drop(r, () -> "deadline unreachable: alone on the earliest-free device it would finish " + late + " us late"));
        }
        book.shrunk(q);
    }

    /**
     * The requests of a preempted batch go back to their queue, except, when {@code shedding},
     * those that could no longer meet their deadline even alone on the earliest-free device: those
     * are returned, dropped with a reason starting "preempted".
     */
    List<Drop> requeuePreempted(Dispatch batch, long nowMicros, boolean shedding) {
        RequestQueue q = book.queue(batch.model());
        long finish = choice.earliestReadyMicros(q, nowMicros) + q.profile().latencyAt(0);
        List<Drop> dropped = List.of();
        for (Request r : batch.requests()) {
            if (shedding && finish > r.deadlineMicros()) {
                if (dropped.isEmpty()) dropped = new ArrayList<>();
                dropped.add(new Drop(r, "preempted on device " + batch.device() + ", and alone on the earliest-free device it would finish "
                        + (finish - r.deadlineMicros()) + " us late"));
            } else {
                book.enqueue(q, r);
            }
        }
        return dropped;
    }

    /** The earliest start on any device: of every model, when the devices are {@linkplain DeviceChoice#devicesAlike alike}. */
    static long earliestStart(List<DeviceView> devices, long nowMicros) {
        long best = Long.MAX_VALUE;
        for (DeviceView d : devices) best = Math.min(best, d.startAtMicros(nowMicros));
        return best;
    }
}
