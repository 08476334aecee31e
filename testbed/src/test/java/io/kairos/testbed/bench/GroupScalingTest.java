package io.kairos.testbed.bench;

import io.kairos.core.model.ModelCatalog;
import io.kairos.workload.ModelLoad;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The groups of the scaling bench, worked by hand: 8 devices in 4 groups of 2, each its own instance of mlp, the load split evenly. */
class GroupScalingTest {

    @Test
    void eightDevicesInFourGroupsAreFourSlicesOfTwo() {
        assertThat(GroupScaling.slice(1, 4, 8)).containsExactly(0, 1);
        assertThat(GroupScaling.slice(2, 4, 8)).containsExactly(2, 3);
        assertThat(GroupScaling.slice(4, 4, 8)).containsExactly(6, 7);
        assertThat(GroupScaling.slice(1, 1, 8)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void eachGroupServesAnInstanceOfMlpAndTheLoadIsSplitEvenly() {
        assertThat(GroupScaling.instance(3)).isEqualTo("mlp#0003");
        assertThat(ModelCatalog.builtIn().contains(GroupScaling.instance(3))).as("an instance of a catalog model is served as the model").isTrue();
        List<ModelLoad> loads = GroupScaling.load(4, 1_000).loads();
        assertThat(loads).extracting(ModelLoad::model).containsExactly("mlp#0001", "mlp#0002", "mlp#0003", "mlp#0004");
        assertThat(loads).extracting(ModelLoad::ratePerSecond).containsOnly(250.0);
    }
}
