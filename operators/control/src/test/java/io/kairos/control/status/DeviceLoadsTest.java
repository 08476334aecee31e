package io.kairos.control.status;

import io.kairos.schema.ModelAction;
import io.kairos.schema.Preemption;

import java.util.List;
import org.junit.jupiter.api.Test;

import static io.kairos.control.status.Records.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

class DeviceLoadsTest {
    private static final long S = 1_000_000;

    @Test
    void batchesBusyTimeAndColdStartsPerDeviceOverTheWindow() {
        DeviceLoads loads = new DeviceLoads(0, 10);
        loads.add(batch(0, 3, 100_000, 400_000, false, null), 500_000);            // second 0: before the window
        loads.add(batch(0, 4, S, S + 500_000, false, null), 2 * S);                 // 0.5 s busy
        loads.add(batch(0, 2, 3 * S, 3 * S + 250_000, true, null), 3 * S + 500_000); // 0.25 s busy, a cold start
        loads.add(batch(1, 8, 4 * S, 4 * S + 100, false, Preemption.CANCELLED), 4 * S); // preempted: no batch served
        loads.add(batch(1, 8, 5 * S, 6 * S, false, null), 6 * S + 200_000);          // 1 s busy

        // The window at 10.0 s: the seconds 1 to 10, 9 s.
        var devices = loads.upTo(10 * S);

        assertThat(devices).hasSize(2);
        DeviceLoads.Load d0 = devices.get(0);
        assertThat(d0.device()).isZero();
        assertThat(d0.batches()).isEqualTo(2);
        assertThat(d0.requests()).isEqualTo(6);
        assertThat(d0.busyFraction()).isCloseTo(0.75 / 9, offset(1e-12));
        assertThat(d0.coldStarts()).isEqualTo(1);
        assertThat(d0.coldStartsByModel()).containsExactly(org.assertj.core.api.Assertions.entry("mlp", 1L));
        assertThat(d0.coldStartsText()).isEqualTo("1 (mlp 1)");
        assertThat(d0.preempted()).isZero();
        DeviceLoads.Load d1 = devices.get(1);
        assertThat(d1.batches()).isEqualTo(1);
        assertThat(d1.requests()).isEqualTo(8);
        assertThat(d1.busyFraction()).isCloseTo(1 / 9.0, offset(1e-12));
        assertThat(d1.preempted()).isEqualTo(1);
        assertThat(d1.coldStartsText()).isEqualTo("0");
    }

    @Test
    void coldStartsAreCountedByModelOnEachDevice() {
        // Device 0 loads the mlp twice (evicted between) and the resnet once, device 1 the resnet
        // once; a warm batch counts nothing: "3 (mlp 2, resnet 1)" and "1 (resnet 1)".
        DeviceLoads loads = new DeviceLoads(0, 10);
        loads.add(model(Records.batch(0, 1, S, S + 10, true, null), "mlp"), S);
        loads.add(model(Records.batch(0, 1, 2 * S, 2 * S + 10, true, null), "resnet"), 2 * S);
        loads.add(model(Records.batch(0, 1, 3 * S, 3 * S + 10, true, null), "mlp"), 3 * S);
        loads.add(model(Records.batch(0, 1, 4 * S, 4 * S + 10, false, null), "mlp"), 4 * S);
        loads.add(model(Records.batch(1, 1, 5 * S, 5 * S + 10, true, null), "resnet"), 5 * S);

        var devices = loads.upTo(9 * S);

        assertThat(devices.get(0).coldStarts()).isEqualTo(3);
        assertThat(devices.get(0).coldStartsText()).isEqualTo("3 (mlp 2, resnet 1)");
        assertThat(devices.get(1).coldStartsText()).isEqualTo("1 (resnet 1)");
    }

    /**
     * A load's or unload's record is no batch: device 0 loads H twice (0.3 s each) and unloads C
     * once (10 ms), device 1 fails to load H (50 ms): "2 (H 2)" loads, 1 unload, 0.61 s busy on
     * device 0 of the 9 s window; "0, 1 failed" on device 1; no batch, request or cold start.
     * The list of the latest names them newest first, with why.
     */
    @Test
    void loadsAndUnloadsAreCountedApartFromBatchesAndListedWithWhy() {
        DeviceLoads loads = new DeviceLoads(0, 10);
        ModelActions latest = new ModelActions(3);
        List<io.kairos.schema.BatchTelemetry> records = List.of(
                action(0, "C", ModelAction.UNLOAD, S, S + 10_000, "room for 'H': an idle copy its model can spare", null),
                action(0, "H", ModelAction.LOAD, S + 10_000, S + 310_000, "demand", null),
                action(1, "H", ModelAction.LOAD, 2 * S, 2 * S + 50_000, "demand", "device 1 could not load model 'H': no such file"),
                action(0, "H", ModelAction.LOAD, 3 * S, 3 * S + 300_000, "the placement lists it", null));
        for (var r : records) {
            loads.add(r, r.getExecEndMicros());
            latest.add(r);
        }
        latest.add(Records.batch(0, 4, 4 * S, 4 * S + 10, false, null)); // a batch: not listed

        var devices = loads.upTo(10 * S);
        DeviceLoads.Load d0 = devices.get(0), d1 = devices.get(1);
        assertThat(d0.loadsText()).isEqualTo("2 (H 2)");
        assertThat(d0.unloads()).isEqualTo(1);
        assertThat(d0.busyFraction()).isCloseTo(0.61 / 9, offset(1e-12));
        assertThat(d0.batches()).isZero();
        assertThat(d0.requests()).isZero();
        assertThat(d0.coldStarts()).isZero();
        assertThat(d1.loadsText()).isEqualTo("0, 1 failed");
        assertThat(d1.loadsFailed()).isEqualTo(1);
        assertThat(latest.latest()).extracting(ModelActions.Row::device, ModelActions.Row::model, ModelActions.Row::action, ModelActions.Row::why)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, "H", "load", "the placement lists it"),
                        org.assertj.core.groups.Tuple.tuple(1, "H", "load failed", "demand"),
                        org.assertj.core.groups.Tuple.tuple(0, "H", "load", "demand"));
        assertThat(latest.latest().get(1).error()).isEqualTo("device 1 could not load model 'H': no such file");
    }

    private static io.kairos.schema.BatchTelemetry action(int device, String model, ModelAction action, long start, long end, String why, String error) {
        io.kairos.schema.BatchTelemetry b = Records.batch(device, 0, start, end, false, null);
        b.setModel(model);
        b.setModelAction(action);
        b.setWhy(why);
        b.setError(error);
        return b;
    }

    private static io.kairos.schema.BatchTelemetry model(io.kairos.schema.BatchTelemetry b, String model) {
        b.setModel(model);
        return b;
    }
}
