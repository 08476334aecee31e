package io.kairos.jobs.tuner;

import io.kairos.control.tuner.StageScale;
import io.kairos.control.tuner.TunerPlan;
import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives {@link TunePipelines} with Flink's keyed harness and its processing-time clock. The plan
 * of {@code TunerTest}: pipeline p, one stage on gpu (s 1, mu 5/s, 2 planned replicas on slots 1
 * and 2 of cpu, gpu, gpu, gpu), one window of 1 s where the planning trace peaked at 10/s;
 * 100-ms buckets, a 1-s look-back, 15 s of quiet before scaling down, a tick every 250 ms.
 */
class TunePipelinesHarnessTest {
    private static final long T0 = 1_700_000_000_000L; // ms; a multiple of the 250-ms tick
    private static final TunerPlan PLAN = new TunerPlan("p", List.of(new StageScale("a", "p-a", "ma", "gpu", 1, 5, 1, 2)), new double[]{10},
            new TunerSettings(100_000, new long[]{1_000_000}, 1_000_000, 15_000_000, 250_000));
    private final List<KeyedOneInputStreamOperatorTestHarness<String, String, ControlDecision>> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var h : opened) h.close();
    }

    private KeyedOneInputStreamOperatorTestHarness<String, String, ControlDecision> harness(OperatorSubtaskState restore, long nowMs) throws Exception {
        TunePipelines f = new TunePipelines(Map.of("p", PLAN), DeviceSlots.of(List.of("cpu", "gpu", "gpu", "gpu")), Map.of("p", List.of(List.of(1, 2))), "tuner-job");
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new KeyedProcessOperator<>(f), (String id) -> id, Types.STRING);
        opened.add(h);
        h.setProcessingTime(nowMs);
        if (restore != null) h.initializeState(restore);
        h.open();
        return h;
    }

    private static void arrive(KeyedOneInputStreamOperatorTestHarness<String, String, ControlDecision> h, long atMs, String pipeline) throws Exception {
        h.setProcessingTime(atMs); // fires the ticks due first
        h.processElement(new StreamRecord<>(pipeline));
    }

    private static List<Integer> devices(ControlDecision d) {
        return ((SetPlacement) d.getAction()).getDevices().stream().map(DevicePlacement::getDevice).toList();
    }

    /**
     * Records that reach the job together after a pause are counted at the time their clients sent
     * them: 2 s of requests at 10/s (as planned), all delivered at once, are 10 per 1-s window, and
     * no replica is added. Counted when they came, the same 20 would be 20 in one window: 20/s,
     * k = ceil(20/5) = 4.
     */
    @Test
    void aBacklogDeliveredAtOnceIsCountedWhenItWasSentNotAsASpike() throws Exception {
        var h = harness(null, T0);
        for (int i = 0; i < 20; i++) h.processElement(new StreamRecord<>("p", T0 - 2_000 + 100L * i));
        h.setProcessingTime(T0 + 1_000); // four ticks
        assertThat(h.extractOutputValues()).isEmpty();
        // A timestamp ahead of the job's clock counts now.
        assertThat(TunePipelines.arrivalMicros(T0 + 5_000, T0)).isEqualTo(T0 * 1000);
        assertThat(TunePipelines.arrivalMicros(null, T0)).isEqualTo(T0 * 1000);
    }

    @Test
    void aRateStepIsPlacedAtTheNextTickAndAQuietSpellGivesBackAfterFifteenSecondsAcrossARestore() throws Exception {
        var h = harness(null, T0);
        // 0..0.9 s: one arrival every 100 ms (buckets 0..9): 10/s, as planned. An arrival of a pipeline with no plan is left alone.
        for (long ms = 0; ms < 1_000; ms += 100) arrive(h, T0 + ms, "p");
        arrive(h, T0 + 950, "other");
        assertThat(h.extractOutputValues()).isEmpty();
        // From 1 s one every 50 ms. The tick at 1.25 s has seen 1.0..1.2 s: 2 + 2 + 1 in buckets 10..12, and the
        // 1-s window of buckets 3..12 holds 7 + 5 = 12 arrivals: 12/s, k = ceil(12/5) = 3, the pool's last free gpu.
        for (long ms = 1_000; ms < 2_000; ms += 50) arrive(h, T0 + ms, "p");
        List<ControlDecision> up = h.extractOutputValues();
        assertThat(up).hasSize(1);
        ControlDecision d = up.get(0);
        assertThat(d.getKey()).isEqualTo("placement/p-a");
        assertThat(d.getIssuedBy()).isEqualTo("tuner-job");
        assertThat(d.getIssuedAtMicros()).isEqualTo((T0 + 1_250) * 1000);
        assertThat(devices(d)).containsExactly(1, 2, 3);

        // A checkpoint at 5 s, a crash, a restore: the tuner comes back with slots 1, 2, 3 and its last change at 1.25 s.
        h.setProcessingTime(T0 + 5_000);
        OperatorSubtaskState snapshot = h.snapshot(1, T0 + 5_000);
        var again = harness(snapshot, T0 + 5_000);
        // Nothing arrives after 2 s. At 16 s, under 15 s after the change, nothing; at 16.25 s, down to slot 1.
        again.setProcessingTime(T0 + 16_000);
        assertThat(again.extractOutputValues()).isEmpty();
        again.setProcessingTime(T0 + 16_250);
        List<ControlDecision> down = again.extractOutputValues();
        assertThat(down).hasSize(1);
        assertThat(devices(down.get(0))).containsExactly(1);
        assertThat(down.get(0).getVersion()).isGreaterThan(d.getVersion());
    }
}
