package io.kairos.sim.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.DeviceView;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.Agent;
import io.kairos.core.scheduling.learned.AgentPolicy;
import io.kairos.core.scheduling.learned.NetworkAgent;
import io.kairos.core.scheduling.learned.RandomAgent;
import io.kairos.core.scheduling.learned.StateEncoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One decision of the learned policy for one device, as {@code AgentPolicy} makes it every 1 ms:
 * the 25-value state of a group of 48 ResNet50 instances with 1 to 20 requests each (the
 * thesis' training workload), the mask, and the agent's action: the committed network
 * ({@code rl}, plain Java, masked argmax) or the random agent. Sampled, so JMH gives the
 * percentiles (p0.99 is the target, at most 100 us).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class DecisionLatencyBenchmark {
    @Param({"rl", "random"})
    String agent;

    GroupScheduler group;
    DeviceView device;
    Agent chooser;
    final StateEncoder encoder = new StateEncoder();
    final float[] state = new float[StateEncoder.STATE_SIZE];
    final boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
    final int[] action = new int[StateEncoder.ACTION_SIZE];

    @Setup(Level.Trial)
    public void setUp() {
        device = new DeviceView(0, null);
        group = new GroupScheduler("g", ModelCatalog.builtIn(), List.of(device), AgentPolicy.random(), PolicyParams.NONE);
        SplittableRandom r = new SplittableRandom(1);
        long id = 0;
        for (int m = 0; m < 48; m++) {
            String model = ModelCatalog.instanceName("resnet50", m);
            int n = 1 + r.nextInt(20);
            for (int i = 0; i < n; i++) group.admit(new Request(Long.toString(id++), model, 0, 24_000 + r.nextInt(24_000), null));
        }
        device.book(0, 3_000);
        chooser = agent.equals("rl") ? new NetworkAgent(NetworkAgent.committed()) : new RandomAgent(1);
    }

    @Benchmark
    public int decide() {
        encoder.encode(group, device, 1_000, state);
        encoder.mask(mask);
        chooser.act(state, mask, action);
        return action[0] + action[1];
    }
}
