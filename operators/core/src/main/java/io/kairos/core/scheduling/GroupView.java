package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.model.LatencyProfile;

import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a policy sees of its serving group, and what it may do to it: dispatch a batch, and, where
 * the engine allows it, preempt one. Queues are to be read, never changed, by the policy:
 * {@link #dispatch} takes the requests, {@link #preempt} gives them back.
 */
@PublicEvolving
public interface GroupView {

    /** Models with at least one pending request. */
    List<String> modelsWithPending();

    /**
     * The queues with at least one pending request, each with its model and profile, in order of
     * the latest time their head request could start alone (deadline minus smallest-batch
     * latency), so that a scan for urgent work can stop early. A live view: iterate, then
     * dispatch, never both at once.
     */
    Collection<RequestQueue> pendingQueues();

    /**
     * The pending queues of ranks {@code from}, {@code from + 1}, ... in {@link #pendingQueues}'s
     * order, copied into {@code into} (as many as fit); returns how many were copied. For a policy
     * that reads the most urgent queues on every decision without making an iterator each time.
     */
    default int pendingQueues(int from, RequestQueue[] into) {
        int rank = 0;
        int n = 0;
        for (RequestQueue q : pendingQueues()) {
            if (n == into.length) break;
            if (rank++ >= from) into[n++] = q;
        }
        return n;
    }

    /**
     * The pending queues with two requests or more, in no particular order: the only ones whose
     * batch can be larger than one. A live view, like {@link #pendingQueues}.
     */
    Collection<RequestQueue> batchableQueues();

    /**
     * The index of the pending queues of kind {@code kind} with {@code key} (e.g. an order of its
     * own, a subset): made by {@code make} and filled on the first call, then kept up to date by
     * the scheduler as requests come and go; one index of each kind, replaced when asked for with
     * another key (compared with {@code equals}). What a policy that needs its queues in another
     * order brings as a class of its own ({@link QueueIndex}): the queues by arrival
     * ({@link ArrivalOrder}), those holding a batch ({@link HoldingQueues}), the batchable ones in
     * a heap by a key ({@link BatchableHeap}). A live view, to be read, never changed, by the policy.
     */
    <I extends QueueIndex> I index(Class<I> kind, Object key, Supplier<I> make);

    /**
     * The most that any queued model's largest batch takes beyond its smallest: no strategy of a
     * queue must start earlier than its head's latest start alone minus this.
     */
    long largestBatchExtraMicros();

    RequestQueue queue(String model);

    LatencyProfile profile(String model);

    /**
     * The latency profile of {@code q}'s model on {@code device}'s hardware type, as the scheduler
     * now believes it: what a batch sent there is booked with. {@link RequestQueue#profile} where
     * the group's devices are of one type; never faster than it elsewhere.
     *
     * @throws IllegalArgumentException where the device cannot run the model ({@link DeviceView#holds} is false for it)
     */
    LatencyProfile profileOn(RequestQueue q, DeviceView device);

    List<DeviceView> devices();

    /**
     * Which device a batch may go to, and when it could start there, its model's load included:
     * the device choice and feasibility test every policy uses.
     */
    DeviceChoice deviceChoice();

    /**
     * Whether every device of the group holds every model (none is placed with a model list), no
     * placement looks at their memory and no model takes time to load: then the device a policy
     * picks for one model is the one it would pick for any. With load costs a device that does not
     * hold a model is not one its batches may go to ({@link DeviceChoice#admits}).
     */
    boolean everyDeviceHoldsEveryModel();

    /**
     * Starts a batch of the {@code size} earliest-deadline requests of {@code model} on
     * {@code device} after the work already booked there.
     */
    Dispatch dispatch(String model, int size, DeviceView device, long nowMicros);

    /**
     * {@link #dispatch(String, int, DeviceView, long)} from a queue of this group the policy holds
     * ({@link #pendingQueues} and the other orders), without looking its model up by name.
     */
    default Dispatch dispatch(RequestQueue queue, int size, DeviceView device, long nowMicros) {
        return dispatch(queue.model(), size, device, nowMicros);
    }

    /**
     * Drops the {@code count} earliest-deadline requests of {@code model} with {@code reason}: what a
     * policy with a queue policy of its own does with requests it gives up on (Triton's timeout).
     * They get a {@code DROPPED} result like the ones the group sheds.
     */
    void reject(String model, int count, String reason);

    /** {@link #reject(String, int, String)} from a queue of this group the policy holds, without looking its model up by name. */
    default void reject(RequestQueue queue, int count, String reason) {
        reject(queue.model(), count, reason);
    }

    /** Whether the engine can abort a batch on its device, i.e. whether {@link #preempt} may be called. */
    boolean preemptionAllowed();

    /**
     * Aborts the last batch booked on {@code device}, which must be running at {@code now} or not
     * yet started ({@link DeviceView#preemptibleAt} is not null); a batch that has ended cannot be
     * preempted, nor one booked before the last. Its requests go back to their queue, or are
     * dropped if they can no longer meet their deadline, and the device is free from {@code now}
     * (from the batch's predicted start if it had not started). Returns the aborted batch.
     *
     * @throws IllegalStateException if preemption is not allowed or the device has nothing to preempt
     */
    Dispatch preempt(DeviceView device, long nowMicros);
}
