package io.kairos.core.scheduling.policy;

import io.kairos.core.scheduling.ConfiguredPolicy;
import io.kairos.core.scheduling.PerModel;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each policy's parameters, read once into typed fields: the values worked out by hand, and every bad value refused. */
class PolicyConfigurationTest {

    private static ConfiguredPolicy configure(String policy, Map<String, String> group) {
        return Policies.configure("g", policy, PolicyParams.of(group));
    }

    private static ConfiguredPolicy configure(String policy, PolicyParams params) {
        return Policies.configure("g", policy, params);
    }

    // ---- good values ----

    @Test
    void clockworkAndKairosReadLookaheadInMicrosAndEfficiencyGain() {
        LatestStartPolicy clockwork = (LatestStartPolicy) configure("clockwork", Map.of()).policy();
        assertThat(clockwork.lookaheadMicros()).isEqualTo(5_000);
        assertThat(clockwork.efficiencyGain()).isZero();
        LatestStartPolicy set = (LatestStartPolicy) configure("clockwork", Map.of("lookahead_ms", "2.5", "efficiency_gain", "1.5")).policy();
        assertThat(set.name()).isEqualTo("clockwork");
        assertThat(set.lookaheadMicros()).isEqualTo(2_500);
        assertThat(set.efficiencyGain()).isEqualTo(1.5);

        LatestStartPolicy kairos = (LatestStartPolicy) configure("kairos", Map.of()).policy();
        assertThat(kairos.lookaheadMicros()).isZero();
        assertThat(kairos.efficiencyGain()).isEqualTo(1.1);
        LatestStartPolicy off = (LatestStartPolicy) configure("kairos", Map.of("lookahead_ms", " 1 ", "efficiency_gain", "0")).policy();
        assertThat(off.name()).isEqualTo("kairos");
        assertThat(off.lookaheadMicros()).isEqualTo(1_000);
        assertThat(off.efficiencyGain()).isZero();
    }

    @Test
    void reconfiguringFallsBackToTheDefaultsNotToThePreviousValues() {
        // A decision replaces a group's parameters: lookahead_ms left out means 5 ms again.
        LatestStartPolicy ten = (LatestStartPolicy) configure("clockwork", Map.of("lookahead_ms", "10")).policy();
        LatestStartPolicy again = (LatestStartPolicy) ConfiguredPolicy.of("g", ten, PolicyParams.NONE).policy();
        assertThat(again.lookaheadMicros()).isEqualTo(5_000);
    }

    @Test
    void flexReadsLambda() {
        assertThat(((FlexPolicy) configure("flex", Map.of()).policy()).lambda()).isEqualTo(3.03);
        assertThat(((FlexPolicy) configure("flex", Map.of("lambda", "2")).policy()).lambda()).isEqualTo(2.0);
    }

    @Test
    void tritonReadsBatchingPerGroupAndPerModelFallingBackKeyByKey() {
        TritonPolicy defaults = (TritonPolicy) configure("triton", Map.of()).policy();
        assertThat(defaults.batching()).isEqualTo(PerModel.of(new TritonPolicy.Batching(Integer.MAX_VALUE, 1_000)));

        PolicyParams params = PolicyParams.of(Map.of("max_batch", "8", "max_queue_delay_ms", "2"))
                .withModel("resnet50", Map.of("max_batch", "2"))
                .withModel("mlp", Map.of("max_queue_delay_ms", "0.5"));
        TritonPolicy p = (TritonPolicy) configure("triton", params).policy();
        assertThat(p.batching().group()).isEqualTo(new TritonPolicy.Batching(8, 2_000));
        assertThat(p.batching().of("resnet50")).isEqualTo(new TritonPolicy.Batching(2, 2_000));
        assertThat(p.batching().of("mlp")).isEqualTo(new TritonPolicy.Batching(8, 500));
        assertThat(p.batching().of("other")).isEqualTo(new TritonPolicy.Batching(8, 2_000));
    }

    @Test
    void staticReadsItsBatchPerGroupAndPerModel() {
        assertThat(((StaticBatchPolicy) configure("static", Map.of()).policy()).batch()).isEqualTo(PerModel.of(8));
        StaticBatchPolicy p = (StaticBatchPolicy) configure("static", PolicyParams.of(Map.of("batch", "4")).withModel("R", Map.of("batch", "16"))).policy();
        assertThat(p.batch().of("R")).isEqualTo(16);
        assertThat(p.batch().of("R2")).isEqualTo(4);
    }

    @Test
    void shedIsGroupWideForEveryPolicy() {
        for (String name : Policies.names()) {
            assertThat(configure(name, Map.of()).shed()).as(name).isTrue();
            assertThat(configure(name, Map.of("shed", "false")).shed()).as(name).isFalse();
            assertThat(configure(name, Map.of()).shedEarly()).as(name).isTrue();
            assertThat(configure(name, Map.of("shed_early", "false")).shedEarly()).as(name).isFalse();
            assertThat(configure(name, Map.of()).maxPending()).as(name).isEqualTo(ConfiguredPolicy.DEFAULT_MAX_PENDING);
            assertThat(configure(name, Map.of("max_pending", "500")).maxPending()).as(name).isEqualTo(500);
            assertThat(configure(name, Map.of("shed", "TRUE")).shed()).as(name).isTrue();
        }
    }

    @Test
    void fifoEdfAndWorkConservingTakeOnlyShed() {
        for (String name : new String[] {"fifo", "edf", "work-conserving"}) {
            assertThat(configure(name, Map.of("shed", "false")).policy().name()).isEqualTo(name);
            assertThatThrownBy(() -> configure(name, Map.of("max_batch", "4")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("serving group 'g': " + name + " has no parameter 'max_batch' (set to '4'); it knows max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
        }
    }

    // ---- bad values ----

    @ParameterizedTest(name = "{0} {1}={2}")
    @CsvSource(delimiter = '|', value = {
            "clockwork|lookahead_ms|abc|a number of milliseconds, at least 0",
            "clockwork|lookahead_ms|-1|a number of milliseconds, at least 0",
            "clockwork|lookahead_ms|NaN|a number of milliseconds, at least 0",
            "clockwork|efficiency_gain|0.5|0 (off) or at least 1",
            "kairos|lookahead_ms|Infinity|a number of milliseconds, at least 0",
            "kairos|efficiency_gain|x|0 (off) or at least 1",
            "flex|lambda|abc|a number above 1",
            "flex|lambda|1|a number above 1",
            "triton|max_batch|abc|a whole number, at least 1",
            "triton|max_batch|-5|a whole number, at least 1",
            "triton|max_batch|0|a whole number, at least 1",
            "triton|max_batch|2.5|a whole number, at least 1",
            "triton|max_batch|3000000000|a whole number, at least 1",
            "triton|max_queue_delay_ms|-0.5|a number of milliseconds, at least 0",
            "static|batch|0|a whole number, at least 1",
            "static|batch|eight|a whole number, at least 1",
            "fifo|shed|yes|true or false",
            "edf|shed|1|true or false",
            "work-conserving|shed||true or false",
            "clockwork|shed_early|often|true or false",
            "flex|max_pending|0|a whole number, at least 1",
            "triton|max_pending|1e12|a whole number, at least 1",
    })
    void aBadValueIsRefusedNamingGroupKeyAndValue(String policy, String key, String value, String requirement) {
        String v = value == null ? "" : value;
        assertThatThrownBy(() -> configure(policy, Map.of(key, v)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': " + policy + " parameter '" + key + "' must be " + requirement + ", got '" + v + "'");
    }

    @Test
    void aBadPerModelValueNamesTheModel() {
        PolicyParams params = PolicyParams.of(Map.of("max_batch", "8")).withModel("resnet50", Map.of("max_batch", "-5"));
        assertThatThrownBy(() -> configure("triton", params))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g', model 'resnet50': triton parameter 'max_batch' must be a whole number, at least 1, got '-5'");
    }

    @Test
    void aBadGroupValueIsTheGroupsEvenWhenAModelOverridesAnotherKey() {
        PolicyParams params = PolicyParams.of(Map.of("max_queue_delay_ms", "soon")).withModel("resnet50", Map.of("max_batch", "2"));
        assertThatThrownBy(() -> configure("triton", params))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': triton parameter 'max_queue_delay_ms' must be a number of milliseconds, at least 0, got 'soon'");
    }

    @Test
    void anUnknownKeyIsRefusedWithTheKeysThePolicyKnows() {
        assertThatThrownBy(() -> configure("clockwork", Map.of("max_batch", "8")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g': clockwork has no parameter 'max_batch' (set to '8'); it knows efficiency_gain, lookahead_ms, max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
        assertThatThrownBy(() -> configure("triton", Map.of("batch", "8")))
                .hasMessage("serving group 'g': triton has no parameter 'batch' (set to '8'); it knows lookahead_ms, max_batch, max_pending, max_queue_delay_ms, placement, preferred_batch_sizes, queue_timeout_ms, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
        assertThatThrownBy(() -> configure("flex", Map.of("lamda", "2")))
                .hasMessage("serving group 'g': flex has no parameter 'lamda' (set to '2'); it knows lambda, max_pending, placement, shed, shed_early, target_ongoing, window_hold, window_margin_ms");
    }

    @Test
    void aGroupWideKeyCannotBeSetPerModel() {
        assertThatThrownBy(() -> configure("clockwork", PolicyParams.NONE.withModel("R", Map.of("lookahead_ms", "1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("serving group 'g', model 'R': clockwork has no per-model parameter 'lookahead_ms' (set to '1'); per model it knows placement, target_ongoing");
        assertThatThrownBy(() -> configure("triton", PolicyParams.NONE.withModel("R", Map.of("shed", "false"))))
                .hasMessage("serving group 'g', model 'R': triton has no per-model parameter 'shed' (set to 'false'); per model it knows max_batch, max_queue_delay_ms, placement, preferred_batch_sizes, queue_timeout_ms, target_ongoing");
    }

    @Test
    void aDefaultForEveryGroupNamesNoGroup() {
        assertThatThrownBy(() -> Policies.configure(null, "clockwork", PolicyParams.of(Map.of("lookahead_ms", "abc"))))
                .hasMessage("clockwork parameter 'lookahead_ms' must be a number of milliseconds, at least 0, got 'abc'");
    }
}
