package io.kairos.core.scheduling.learned;

import io.kairos.core.api.Internal;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.Dispatch;
import io.kairos.core.scheduling.GroupView;
import io.kairos.core.scheduling.ParamReader;
import io.kairos.core.scheduling.SchedulingPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The RL thesis' scheduler: invoked every {@code period_ms} (1 ms) while requests wait, it decides
 * for one device at a time, the device with the least work booked first ({@code device_order}): the
 * {@link StateEncoder}'s state for that device, an {@link Agent}'s action, the batches it chose
 * started there. Nothing waiting, nothing asked (the thesis' "hybrid" invocation): an arrival asks
 * again.
 *
 * <p>A decision allocates nothing but the batches it starts: the state, mask, action and the
 * network's layers are arrays made once (measured by {@code DecisionLatencyBenchmark} with JMH's
 * allocation profiler).
 *
 * <p>Registered as {@code rl} (a trained network, {@link NetworkAgent}) and {@code random} (the
 * thesis' random agent); a training environment runs it with an agent of its own.
 */
@Internal
public final class AgentPolicy implements SchedulingPolicy {
    public static final String RL = "rl";
    public static final String RANDOM = "random";
    /** Parameter: how often it decides while requests wait, in ms (default 1, the thesis'). */
    public static final String PERIOD_MS = "period_ms";
    /**
     * Parameter: the order in which one decision asks the group's devices: {@value #FREEST} (the
     * default), the least work booked first, or {@value #GROUP_ORDER}, always the group's own
     * order, as a literal reading of the thesis.
     */
    public static final String DEVICE_ORDER = "device_order";
    public static final String FREEST = "freest";
    public static final String GROUP_ORDER = "group";

    private final String name;
    private final Function<ParamReader, Agent> agents;
    private final Agent agent;
    private final long periodMicros;
    private final boolean freestFirst;
    private final StateEncoder encoder = new StateEncoder();
    private final float[] state = new float[StateEncoder.STATE_SIZE];
    private final boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
    private final int[] action = new int[StateEncoder.ACTION_SIZE];
    private final List<Dispatch> started = new ArrayList<>();
    // Made once: a method reference written at the call would be a new object every decision.
    private final java.util.function.Consumer<Dispatch> collect = started::add;
    private long nextDecisionMicros = Long.MIN_VALUE;
    // The devices of one decision round, least work booked first; grown when a group has more.
    private DeviceView[] order = new DeviceView[8];
    private long[] booked = new long[8];

    /**
     * A policy named {@code name} whose agent {@code agents} makes from its parameters when it is
     * configured (reading the keys it knows; a bad value throws, naming it).
     */
    public AgentPolicy(String name, Function<ParamReader, Agent> agents) {
        this(name, agents, null, 1000, true);
    }

    private AgentPolicy(String name, Function<ParamReader, Agent> agents, Agent agent, long periodMicros, boolean freestFirst) {
        this.name = name;
        this.agents = agents;
        this.agent = agent;
        this.periodMicros = periodMicros;
        this.freestFirst = freestFirst;
    }

    /** {@code rl}: the network of parameter {@code network} (a file), or the committed one. */
    public static AgentPolicy rl() {
        return new AgentPolicy(RL, NetworkAgent::configured);
    }

    /** {@code random}: the thesis' random agent, seeded by parameter {@code seed}. */
    public static AgentPolicy random() {
        return new AgentPolicy(RANDOM, RandomAgent::configured);
    }

    /** A policy under {@code name} whose every decision {@code agent} makes, whatever the parameters: a learner's. */
    public static AgentPolicy drivenBy(String name, Agent agent) {
        return new AgentPolicy(name, params -> agent);
    }

    @Override
    public String name() {
        return name;
    }

    /** The agent configured, null before {@link #configure}. */
    public Agent agent() {
        return agent;
    }

    @Override
    public SchedulingPolicy configure(ParamReader params) {
        double ms = params.number(PERIOD_MS, 1, v -> v > 0, "a positive number of milliseconds");
        boolean freest = params.oneOf(DEVICE_ORDER, FREEST, List.of(FREEST, GROUP_ORDER)).equals(FREEST);
        return new AgentPolicy(name, agents, agents.apply(params), Math.max(1, Math.round(ms * 1000)), freest);
    }

    @Override
    public long schedule(long nowMicros, GroupView group) {
        if (agent == null) throw new IllegalStateException("policy '" + name + "' is not configured");
        // Asked on an arrival or a report between two decisions, it waits for its period: the
        // thesis' agent decides on a clock, not on events.
        if (nowMicros < nextDecisionMicros) return nextDecisionMicros;
        nextDecisionMicros = nowMicros + periodMicros;
        boolean any = false;
        int n = orderByBooked(group.devices(), nowMicros);
        for (int d = 0; d < n; d++) {
            DeviceView device = order[d];
            order[d] = null; // no device kept alive by the scratch
            encoder.encode(group, device, nowMicros, state);
            if (encoder.filled() == 0) continue;
            any = true;
            encoder.mask(mask);
            agent.act(state, mask, action);
            String refused = encoder.invalid(action);
            if (refused != null) throw new IllegalArgumentException("policy '" + name + "': the agent's action is not allowed: " + refused);
            started.clear();
            encoder.apply(group, device, nowMicros, action, collect);
            agent.applied(nowMicros, group, device, started);
        }
        return any || !group.pendingQueues().isEmpty() ? nextDecisionMicros : NO_WAKE;
    }

    /**
     * Puts {@code devices} in {@link #order}, the least work booked at {@code nowMicros} first (ties
     * in the group's order; {@value #GROUP_ORDER}: the group's order), and returns how many. The
     * thesis decides for each device apart and leaves the order open; its state tells a device only
     * its own booked work, so in a fixed order the first device takes a request that another, idle
     * one would finish in time (the rule's clone met 64 % at 6 ms over 600 requests/s in the group's
     * order, 100 % freest first). Asked the freest first, a device that infers knows no other would
     * have started sooner, Clockwork's choice of the earliest-free device. Insertion sort: a group
     * has a handful of devices, and nothing is allocated.
     */
    private int orderByBooked(List<DeviceView> devices, long nowMicros) {
        int n = devices.size();
        if (order.length < n) {
            order = new DeviceView[n];
            booked = new long[n];
        }
        for (int i = 0; i < n; i++) {
            DeviceView device = devices.get(i);
            // In the group's order every device counts as equally free: the stable sort keeps it.
            long work = freestFirst ? device.outstandingMicros(nowMicros) : 0;
            int j = i;
            while (j > 0 && booked[j - 1] > work) {
                order[j] = order[j - 1];
                booked[j] = booked[j - 1];
                j--;
            }
            order[j] = device;
            booked[j] = work;
        }
        return n;
    }

    /** The encoder it decides with, as of its last decision (for tests). */
    StateEncoder encoder() {
        return encoder;
    }
}
