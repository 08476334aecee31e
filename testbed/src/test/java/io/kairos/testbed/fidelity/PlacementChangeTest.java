package io.kairos.testbed.fidelity;

import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class PlacementChangeTest {
    private static final Set<String> MODELS = Set.of("resnet50", "mlp");

    @Test
    void parsesTimeAndDevicesIntoTheDecisionTheJobReads() {
        PlacementChange c = PlacementChange.parse("1.5:1=mlp/0=resnet50+mlp", 2, MODELS, 3);
        assertThat(c.atMicros()).isEqualTo(1_500_000);
        assertThat(c.devices()).isEqualTo(Map.of(0, List.of("resnet50", "mlp"), 1, List.of("mlp")));
        ControlDecision d = c.decision(1, 42);
        assertThat(d.getVersion()).isEqualTo(1);
        assertThat(d.getIssuedAtMicros()).isEqualTo(42);
        SetPlacement p = (SetPlacement) d.getAction();
        assertThat(p.getGroup()).isEqualTo("default");
        assertThat(p.getDevices()).extracting(DevicePlacement::getDevice, DevicePlacement::getModels)
                .containsExactly(tuple(0, List.of("resnet50", "mlp")), tuple(1, List.of("mlp")));
    }

    @Test
    void eachMistakeIsNamed() {
        assertThatThrownBy(() -> PlacementChange.parse("0=mlp", 2, MODELS, 3)).hasMessageContaining("expected SECONDS:DEVICE=MODEL+MODEL");
        assertThatThrownBy(() -> PlacementChange.parse("soon:0=mlp", 2, MODELS, 3)).hasMessageContaining("time 'soon' is not a number");
        assertThatThrownBy(() -> PlacementChange.parse("3:0=mlp+resnet50", 2, MODELS, 3)).hasMessageContaining("between 0 and 3 s, got 3.0");
        assertThatThrownBy(() -> PlacementChange.parse("1:2=mlp+resnet50", 2, MODELS, 3)).hasMessageContaining("device 2 does not exist: the run has devices 0..1");
        assertThatThrownBy(() -> PlacementChange.parse("1:0=mlp+vgg", 2, MODELS, 3)).hasMessageContaining("model 'vgg' is not in the workload");
        assertThatThrownBy(() -> PlacementChange.parse("1:0=mlp", 2, MODELS, 3)).hasMessageContaining("no device holds model 'resnet50'");
        assertThatThrownBy(() -> PlacementChange.parse("1:0=mlp/0=resnet50", 2, MODELS, 3)).hasMessageContaining("device 0 is given twice");
        assertThatThrownBy(() -> PlacementChange.parse("1:x=mlp", 2, MODELS, 3)).hasMessageContaining("device 'x' is not a number");
    }
}
