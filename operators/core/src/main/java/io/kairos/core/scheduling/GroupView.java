package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.request.RequestQueue;

import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * What a policy sees of its serving group, and what it may do to it: dispatch a batch, and, where
 * the engine allows it, preempt one. Queues are to be read, never changed, by the policy:
 * {@link #dispatch} takes the requests, {@link #preempt} gives them back.
 */
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
     * The pending queues in order of their head request's arrival, ties in the order of
     * {@link #pendingQueues}: FIFO across models. Kept from the first call on; a live view.
     */
    OrderedQueues queuesByHeadArrival();

    /**
     * The pending queues in order of their oldest request's arrival ({@link RequestQueue#oldestArrival}),
     * ties in the order of {@link #pendingQueues}. Kept from the first call on; a live view.
     */
    OrderedQueues queuesByOldestArrival();

    /**
     * The pending queues holding at least {@code n} requests, or a full batch of their model
     * (its largest allowed size) if that is fewer; in no particular order. Kept from the first
     * call on, for one {@code n} at a time; a live view.
     */
    Collection<RequestQueue> queuesHoldingAtLeast(int n);

    /**
     * The pending queues with two requests or more, in no particular order: the only ones whose
     * batch can be larger than one. A live view, like {@link #pendingQueues}.
     */
    Collection<RequestQueue> batchableQueues();

    /**
     * The {@linkplain #batchableQueues batchable queues} in a heap by {@code key}: an index for a
     * policy that would otherwise compute something of every batchable queue on every call.
     * {@code key} must depend on nothing but a queue's head deadline, size and profile: the
     * scheduler computes it again when one of those changes. Kept from the first call on, for one
     * key (the same object) at a time; a live view, to be read, never changed, by the policy.
     */
    QueueHeap batchableQueuesBy(ToLongFunction<RequestQueue> key);

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
     * Whether every device of the group holds every model (none is placed with a model list) and
     * no placement looks at their memory: then the device a policy picks for one model is the one
     * it would pick for any.
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
