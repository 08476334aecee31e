package io.kairos.control.status;

import io.kairos.schema.Preemption;
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
        assertThat(d0.preempted()).isZero();
        DeviceLoads.Load d1 = devices.get(1);
        assertThat(d1.batches()).isEqualTo(1);
        assertThat(d1.requests()).isEqualTo(8);
        assertThat(d1.busyFraction()).isCloseTo(1 / 9.0, offset(1e-12));
        assertThat(d1.preempted()).isEqualTo(1);
    }
}
