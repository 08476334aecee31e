package io.kairos.core.scheduling;

import io.kairos.core.model.LatencyProfile;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * A serving group's state as its policy sees it ({@link GroupView}): the pending queues and their
 * indexes, the devices and the models' profiles on them, and what the policy may do: dispatch a
 * batch, reject requests, preempt a batch. {@link GroupScheduler} is the loop around it that the
 * engine drives; this half is what a policy's decision touches.
 */
abstract class GroupState implements GroupView {
    final String group;
    final ModelCatalog catalog;
    // The queued requests by model, and the orders and indexes that find them.
    final PendingBook book = new PendingBook();
    // Which device a batch may go to and when it could start there, load included: what the
    // policies, shedding and dispatch all judge by.
    final DeviceChoice choice = new DeviceChoice(book.specs());
    // Each queue's model's profile on the group's hardware types, learned from the devices' reports.
    final LearnedProfiles profiles;
    // Which requests are dropped before the policy decides, and a preempted batch's.
    final Shedding shed;
    // What the current step decided, handed out in its outcome.
    final StepOutcome step = new StepOutcome();
    private final List<String> pendingModels = new ArrayList<>();
    List<DeviceView> devices;
    // Whether every device holds every model (none placed with a model list): then one earliest
    // start and one idle device serve every model.
    boolean uniform;
    boolean shedding;
    boolean preemption;
    // The most a full batch of some model takes over its batch of one.
    long batchExtra;

    GroupState(String group, ModelCatalog catalog) {
        this.group = group;
        this.catalog = catalog;
        this.profiles = new LearnedProfiles(catalog);
        this.shed = new Shedding(group, book, choice);
    }

    @Override
    public List<String> modelsWithPending() {
        pendingModels.clear();
        for (RequestQueue q : book.active()) pendingModels.add(q.model());
        return pendingModels;
    }

    @Override
    public long largestBatchExtraMicros() {
        return batchExtra;
    }

    @Override
    public Collection<RequestQueue> pendingQueues() {
        return book.active();
    }

    @Override
    public int pendingQueues(int from, RequestQueue[] into) {
        return book.active().copy(from, into);
    }

    @Override
    public Collection<RequestQueue> batchableQueues() {
        return book.batchable();
    }

    @Override
    public <I extends QueueIndex> I index(Class<I> kind, Object key, Supplier<I> make) {
        return book.index(kind, key, make);
    }

    @Override
    public RequestQueue queue(String model) {
        return book.queue(model);
    }

    /**
     * The model's latency profile as the scheduler now believes it: the catalog's, corrected by what
     * was measured; on the group's devices, the slowest of their types at each size.
     */
    @Override
    public LatencyProfile profile(String model) {
        RequestQueue q = book.queue(model);
        if (q != null) return q.profile();
        return profiles.of(catalog.get(model));
    }

    @Override
    public LatencyProfile profileOn(RequestQueue q, DeviceView device) {
        if (profiles.types().size() == 1) return q.profile();
        checkOwn(q);
        LatencyProfile p = profiles.on(q.number(), device.typeIndex());
        if (p == null) throw new IllegalArgumentException(device + " cannot run model '" + q.model() + "': it has no profile on hardware type '" + device.resolvedHardwareType() + "'");
        return p;
    }

    /** The hardware types of the group's devices, each once, in the order of the devices. */
    public List<String> hardwareTypes() {
        return profiles.types();
    }

    @Override
    public List<DeviceView> devices() {
        return devices;
    }

    @Override
    public Dispatch dispatch(String model, int size, DeviceView device, long nowMicros) {
        if (!device.holds(model)) throw new IllegalArgumentException(device + " does not hold " + model);
        return dispatch(book.queue(model), size, device, nowMicros);
    }

    @Override
    public Dispatch dispatch(RequestQueue q, int size, DeviceView device, long nowMicros) {
        String model = q.model();
        if (!device.holds(model)) throw new IllegalArgumentException(device + " does not hold " + model);
        checkOwn(q);
        // On a device of one of several types, the batch takes that type's time.
        LatencyProfile p = profiles.types().size() == 1 ? q.profile() : profiles.on(q.number(), device.typeIndex());
        Dispatch d = choice.book(q, book.take(q, size), p, device, nowMicros);
        step.dispatched(d);
        return d;
    }

    @Override
    public void reject(String model, int count, String reason) {
        RequestQueue q = book.queue(model);
        if (q == null) throw new IllegalArgumentException("cannot reject " + count + " of 0 requests of model '" + model + "'");
        reject(q, count, reason);
    }

    @Override
    public void reject(RequestQueue q, int count, String reason) {
        String model = q.model();
        checkOwn(q);
        if (count < 1 || count > q.size()) {
            throw new IllegalArgumentException("cannot reject " + count + " of " + (q == null ? 0 : q.size()) + " requests of model '" + model + "'");
        }
        for (Request r : book.take(q, count)) step.rejected(new Drop(r, reason));
    }

    // A queue a policy hands back must be one of this group's, found without a lookup by name.
    void checkOwn(RequestQueue q) {
        if (!book.owns(q)) {
            throw new IllegalArgumentException("the queue of model '" + q.model() + "' is not one of serving group '" + group + "'");
        }
    }

    @Override
    public boolean preemptionAllowed() {
        return preemption;
    }

    /**
     * Aborts the last batch booked on {@code device}, which must be predicted to be running at
     * {@code now} or not to have started ({@link DeviceView#preemptibleAt}); the device is then free
     * from {@code now} (from the batch's start if it had not started). Its requests go back to their
     * queue, except, when shedding, those that could no longer meet their deadline even alone on the
     * earliest-free device: they are dropped with a reason starting "preempted". The batch appears in
     * the outcome's {@code preempted}, unless it was dispatched in this same call: then it is simply
     * taken out of the outcome's dispatches, as the engine has not seen it.
     */
    @Override
    public Dispatch preempt(DeviceView device, long nowMicros) {
        if (!preemption) throw new IllegalStateException("preemption is not allowed in serving group '" + group + "'");
        if (!devices.contains(device)) throw new IllegalArgumentException(device + " is not a device of serving group '" + group + "'");
        Dispatch d = device.unbookLast(nowMicros);
        step.preempted(d);
        for (Drop drop : shed.requeuePreempted(d, nowMicros, shedding)) step.droppedByPreemption(drop);
        return d;
    }

    @Override
    public boolean everyDeviceHoldsEveryModel() {
        // With load costs a device that does not hold a model is no longer one a batch may go to.
        return uniform && choice.devicesAlike();
    }

    @Override
    public DeviceChoice deviceChoice() {
        return choice;
    }

}
