/**
 * InferLine's high-frequency tuner (Crankshaw et al., SoCC'20, Algorithms 3 and 4): a planned
 * pipeline's replicas follow its arrival envelope, engine-free so that the simulator and the
 * tuner job run the same code.
 *
 * <ul>
 *   <li>{@link io.kairos.control.tuner.ArrivalEnvelope}: the most arrivals per window size (1 s to
 *       5 min), of the recent traffic and of the planning trace;</li>
 *   <li>{@link io.kairos.control.tuner.StageScale} and {@link io.kairos.control.tuner.TunerPlan}:
 *       what the planner's configuration gives the tuner, {@code s_m}, {@code mu_m}, the planned
 *       replicas and the planning trace's rates;</li>
 *   <li>{@link io.kairos.control.tuner.ScaleRule}: Algorithm 3 ({@code r_max}, {@code k_m}, scale
 *       up at once) and Algorithm 4 (scale down no sooner than 15 s after a change);</li>
 *   <li>{@link io.kairos.control.tuner.ReplicaPlacement}: which devices of the pool hold each stage;</li>
 *   <li>{@link io.kairos.control.tuner.Tuner}: the whole loop for one pipeline, arrivals in,
 *       placements out.</li>
 * </ul>
 */
package io.kairos.control.tuner;
