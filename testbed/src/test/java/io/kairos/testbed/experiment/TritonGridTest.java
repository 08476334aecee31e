package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.policy.TritonPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TritonGridTest {

    private static final List<String> COLUMNS = List.of("load", "seed", "setting", "policy", "goodput_per_s");

    private static ResultTable table(String... rows) {
        ResultTable t = new ResultTable(COLUMNS);
        for (String r : rows) t.add(List.of(r.split(",", -1)));
        return t;
    }

    @Test
    void theGridIsDelaysTimesPreferredSizesTimesTheQueueTimeoutWithCsvSafeLabels() {
        List<TritonGrid.Setting> settings = TritonGrid.settings();
        assertThat(settings).hasSize(TritonGrid.DELAYS_MS.length * TritonGrid.PREFERRED.length * TritonGrid.TIMEOUTS.length).hasSize(30);
        // Triton's own defaults first: no delay, no preferred sizes, no queue timeout.
        assertThat(settings.get(0)).isEqualTo(TritonGrid.DEFAULTS);
        assertThat(settings.get(0).label()).isEqualTo("delay=0ms timeout=none");
        assertThat(settings.get(0).params()).containsOnly(Map.entry(TritonPolicy.MAX_QUEUE_DELAY_MS, "0"), Map.entry(TritonPolicy.QUEUE_TIMEOUT_MS, "0"));
        assertThat(settings.get(1).label()).isEqualTo("delay=0ms timeout=slo");
        assertThat(settings.get(9).label()).isEqualTo("delay=1ms preferred=4 timeout=slo");
        assertThat(settings.get(9).params()).containsEntry(TritonPolicy.PREFERRED_BATCH_SIZES, "4").containsEntry(TritonPolicy.QUEUE_TIMEOUT_MS, "slo");
        assertThat(settings).allSatisfy(s -> assertThat(s.label()).doesNotContain(",").doesNotContain("\""));
        assertThat(settings.stream().map(TritonGrid.Setting::label).distinct()).hasSameSizeAs(settings);
        assertThat(TritonGrid.setting("delay=1ms preferred=4 timeout=slo")).isEqualTo(settings.get(9));
        assertThatThrownBy(() -> TritonGrid.setting("delay=3ms")).hasMessage("no setting 'delay=3ms' in Triton's grid");
        // Kairos' own knob is tuned the same way; policies without a knob their users set have no grid.
        assertThat(TritonGrid.settings("kairos")).extracting(TritonGrid.Setting::label)
                .containsExactly("efficiency_gain=1.05", "efficiency_gain=1.1", "efficiency_gain=1.25", "efficiency_gain=1.5", "efficiency_gain=2",
                        "efficiency_gain=3", "efficiency_gain=5", "efficiency_gain=0", "efficiency_gain=1");
        assertThat(TritonGrid.setting("kairos", "efficiency_gain=1.5").params()).containsExactly(Map.entry("efficiency_gain", "1.5"));
        assertThat(TritonGrid.settings("clockwork")).isEmpty();
        assertThatThrownBy(() -> TritonGrid.setting("kairos", "efficiency_gain=4")).hasMessage("no setting 'efficiency_gain=4' in kairos's grid");
    }

    @Test
    void keepsAtEachPointTheSettingWithTheHighestMedianGoodput() {
        // load 0.5: A's goodputs 10, 30, 20 (median 20), B's 25, 0, 21 (median 21): B, with all its seeds.
        // load 1.0: A's median 50, B's 40: A. Other policies' rows stay; order is kept.
        ResultTable all = table(
                "0.5,1,,kairos,99",
                "0.5,1,A,triton,10", "0.5,2,A,triton,30", "0.5,3,A,triton,20",
                "0.5,1,B,triton,25", "0.5,2,B,triton,0", "0.5,3,B,triton,21",
                "1.0,1,A,triton,50", "1.0,1,B,triton,40",
                "1.0,1,,kairos,98");
        ResultTable best = TritonGrid.best(all, List.of("load"));
        assertThat(best.rows()).extracting(r -> String.join(",", r)).containsExactly(
                "0.5,1,,kairos,99",
                "0.5,1,B,triton,25", "0.5,2,B,triton,0", "0.5,3,B,triton,21",
                "1.0,1,A,triton,50",
                "1.0,1,,kairos,98");
    }

    @Test
    void aTieGoesToTheFirstSettingInGridOrder() {
        ResultTable best = TritonGrid.best(table("1,1,A,triton,5", "1,1,B,triton,5"), List.of("load"));
        assertThat(best.rows()).extracting(r -> r.get(2)).containsExactly("A");
    }

    @Test
    void resultsWithoutTheSettingColumnAreLeftAsTheyAre() {
        ResultTable old = new ResultTable(List.of("load", "policy", "goodput_per_s"));
        old.add(List.of("1", "triton", "5"));
        assertThat(TritonGrid.best(old, List.of("load"))).isSameAs(old);
    }
}
