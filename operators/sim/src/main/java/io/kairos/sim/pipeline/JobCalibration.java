package io.kairos.sim.pipeline;

import io.kairos.core.device.ExecutionNoise;
import io.kairos.sim.Delay;

/**
 * What a serving job adds to a pipeline's stages that no profile or scheduler sees, measured on the
 * job (the fidelity command's pipeline mode measures all three in its warm-ups) so that the
 * estimator predicts that job rather than an ideal one:
 *
 * @param hopOverheadMicros the time before every stage a request visits outside the stages'
 *                          queues and devices (the stage's request crossing Kafka, its admission,
 *                          the result's emission), a constant
 * @param dispatchDelay     each batch's hand-over from the scheduler's dispatch to the device's
 *                          start: inside a stage, unseen by its scheduler, so that batches start
 *                          later than booked (under load its tail is tens of milliseconds)
 * @param noise             each batch's execution beyond its profile
 */
public record JobCalibration(long hopOverheadMicros, Delay dispatchDelay, ExecutionNoise noise) {
    /** The ideal job: the planner's estimates. */
    public static final JobCalibration NONE = new JobCalibration(0, Delay.NONE, ExecutionNoise.none());

    public JobCalibration {
        if (hopOverheadMicros < 0) throw new IllegalArgumentException("the hop overhead must not be negative, got " + hopOverheadMicros + " us");
        if (dispatchDelay == null || noise == null) throw new IllegalArgumentException("a calibration needs a dispatch delay and a noise (Delay.NONE, ExecutionNoise.none())");
    }

    /** A constant overhead per stage visit and nothing else. */
    public static JobCalibration hopOverhead(long micros) {
        return new JobCalibration(micros, Delay.NONE, ExecutionNoise.none());
    }
}
