package io.kairos.wire.plan;

import io.kairos.core.model.LatencyEstimator;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.plan.ServingGroups;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.GroupScheduler;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.core.scheduling.learned.AgentPolicy;
import io.kairos.core.scheduling.learned.NetworkAgent;
import io.kairos.core.scheduling.learned.NetworkFiles;
import io.kairos.core.scheduling.learned.StateEncoder;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.SetPolicy;
import io.kairos.schema.SetPolicyNetwork;
import io.kairos.wire.plan.DecisionKey;
import io.kairos.wire.plan.DecisionLedger;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A network delivered by a control decision ({@link SetPolicyNetwork}): its key, the checks with
 * the reason its producer reads, and its way to the group's {@code rl} policy, which decides with
 * it in place of the committed network.
 */
class NetworkDecisionTest {
    private final ServingPlan plan = new ServingPlan(1, Long.MAX_VALUE, "rl", PolicyParams.NONE, ModelCatalog.builtIn());
    private final DecisionLedger ledger = new DecisionLedger(plan);
    private long version;

    private DecisionOutcome decide(Object action) {
        ControlDecision d = ControlDecision.newBuilder().setVersion(++version).setIssuedAtMicros(1).setIssuedBy("trainer").setAction(action).build();
        return ledger.decide(d, 2);
    }

    private static SetPolicyNetwork network(String group, String name, byte[] bytes) {
        return SetPolicyNetwork.newBuilder().setGroup(group).setNetworkName(name).setNetwork(ByteBuffer.wrap(bytes)).build();
    }

    /** Slot 0's choice with 3 requests pending and every flag allowed: {infer?, batch-size index}. */
    private static int[] slotZero(GroupScheduler g) {
        float[] state = new float[StateEncoder.STATE_SIZE];
        state[0] = 3;
        boolean[] mask = new boolean[StateEncoder.MASK_SIZE];
        Arrays.fill(mask, true);
        int[] action = new int[StateEncoder.ACTION_SIZE];
        ((AgentPolicy) g.policy()).agent().act(state, mask, action);
        return new int[] {action[0], action[1]};
    }

    @Test
    void theKeyNamesTheGroup() {
        assertThat(DecisionKey.of(network("vision", "a.krln", NetworkFiles.inferWhenPending()))).isEqualTo("network/vision");
    }

    @Test
    void anAppliedNetworkReachesTheGroupsRlPolicyAndANewOneReplacesIt() {
        ServingGroups groups = new ServingGroups(ModelCatalog.builtIn(), false, LatencyEstimator.Settings.DEFAULT);
        GroupScheduler g = groups.scheduler("default", plan).scheduler();

        // inferWhenPending: infer logit 3 (the pending count) over null 0.5; batch 16 (bias 2) over 2 (bias 1).
        DecisionOutcome o = decide(network("default", "infer.krln", NetworkFiles.inferWhenPending()));
        assertThat(o.getStatus()).as(o.getReason()).isEqualTo(DecisionStatus.APPLIED);
        assertThat(o.getKey()).isEqualTo("network/default");
        assertThat(plan.networkOf("default").name()).isEqualTo("infer.krln");
        assertThat(plan.networkOf("default").toString()).matches("infer\\.krln \\(sha256 [0-9a-f]{12}, " + NetworkFiles.inferWhenPending().length + " bytes\\)");
        groups.update(plan);
        assertThat(slotZero(g)).containsExactly(1, 4);

        // A network that never infers (null bias 10, every other logit 0): the running group takes it.
        float[] bias = new float[StateEncoder.MASK_SIZE];
        bias[0] = 10;
        decide(network("default", "wait.krln", NetworkFiles.linear(new float[StateEncoder.MASK_SIZE][StateEncoder.STATE_SIZE], bias)));
        groups.update(plan);
        assertThat(slotZero(g)[0]).isZero();

        // It stays through a change of parameters, and a copy of the plan (a simulation's) holds it too.
        assertThat(decide(SetPolicy.newBuilder().setGroup("default").setPolicy("rl").setParams(java.util.Map.of("period_ms", "2")).build())
                .getStatus()).isEqualTo(DecisionStatus.APPLIED);
        groups.update(plan);
        assertThat(slotZero(g)[0]).isZero();
        assertThat(plan.copy().networkOf("default").name()).isEqualTo("wait.krln");
    }

    @Test
    void aBadNetworkIsRejectedWithTheReasonAndThePlanKeepsItsNetwork() {
        decide(network("default", "good.krln", NetworkFiles.inferWhenPending()));
        DecisionOutcome version3 = decide(network("default", "v3.krln", new byte[] {'K', 'R', 'L', 'N', 3, 0, 0, 0}));
        assertThat(version3.getStatus()).isEqualTo(DecisionStatus.REJECTED);
        assertThat(version3.getReason()).isEqualTo("network 'v3.krln' of serving group 'default': policy network 'v3.krln': version 3, this reader knows versions 1 and 2");
        DecisionOutcome notOne = decide(network("default", "x.onnx", new byte[] {1, 2, 3, 4, 5}));
        assertThat(notOne.getReason()).isEqualTo("network 'x.onnx' of serving group 'default': policy network 'x.onnx': not a policy network (it does not start with 'KRLN')");
        byte[] good = NetworkFiles.inferWhenPending();
        DecisionOutcome truncated = decide(network("default", "cut.krln", Arrays.copyOf(good, good.length - 3)));
        assertThat(truncated.getReason()).isEqualTo("network 'cut.krln' of serving group 'default': policy network 'cut.krln': ends early, after "
                + (good.length - 3) + " bytes");
        DecisionOutcome unnamed = decide(network("default", " ", good));
        assertThat(unnamed.getReason()).isEqualTo("network ' ' of serving group 'default': network_name is empty");
        assertThat(plan.networkOf("default").name()).isEqualTo("good.krln");
    }

    @Test
    void theCommittedNetworkFitsOneKafkaRecordWithRoomToSpare() throws Exception {
        // Kafka's default record size is 1 MiB; the decision adds a few hundred bytes to the file.
        try (var in = NetworkAgent.class.getClassLoader().getResourceAsStream(NetworkAgent.COMMITTED)) {
            byte[] bytes = in.readAllBytes();
            assertThat(bytes.length).isBetween(10_000, 200_000);
            assertThat(decide(network("default", "committed.krln", bytes)).getStatus()).isEqualTo(DecisionStatus.APPLIED);
        }
    }
}
