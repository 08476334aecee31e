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
 * for one device at a time, in the group's device order: the {@link StateEncoder}'s state for that
 * device, an {@link Agent}'s action, the batches it chose started there. Nothing waiting, nothing
 * asked (the thesis' "hybrid" invocation): an arrival asks again.
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

    private final String name;
    private final Function<ParamReader, Agent> agents;
    private final Agent agent;
    private final long periodMicros;
    private final StateEncoder encoder = new StateEncoder();
    private final float[] state = new float[StateEncoder.STATE_SIZE];
    private final boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
    private final int[] action = new int[StateEncoder.ACTION_SIZE];
    private final List<Dispatch> started = new ArrayList<>();
    // Made once: a method reference written at the call would be a new object every decision.
    private final java.util.function.Consumer<Dispatch> collect = started::add;
    private long nextDecisionMicros = Long.MIN_VALUE;

    /**
     * A policy named {@code name} whose agent {@code agents} makes from its parameters when it is
     * configured (reading the keys it knows; a bad value throws, naming it).
     */
    public AgentPolicy(String name, Function<ParamReader, Agent> agents) {
        this(name, agents, null, 1000);
    }

    private AgentPolicy(String name, Function<ParamReader, Agent> agents, Agent agent, long periodMicros) {
        this.name = name;
        this.agents = agents;
        this.agent = agent;
        this.periodMicros = periodMicros;
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
        return new AgentPolicy(name, agents, agents.apply(params), Math.max(1, Math.round(ms * 1000)));
    }

    @Override
    public long schedule(long nowMicros, GroupView group) {
        if (agent == null) throw new IllegalStateException("policy '" + name + "' is not configured");
        // Asked on an arrival or a report between two decisions, it waits for its period: the
        // thesis' agent decides on a clock, not on events.
        if (nowMicros < nextDecisionMicros) return nextDecisionMicros;
        nextDecisionMicros = nowMicros + periodMicros;
        boolean any = false;
        for (DeviceView device : group.devices()) {
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

    /** The encoder it decides with, as of its last decision (for tests). */
    StateEncoder encoder() {
        return encoder;
    }
}
