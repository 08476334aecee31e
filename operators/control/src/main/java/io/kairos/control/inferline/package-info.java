/**
 * InferLine's low-frequency planner (Crankshaw et al., "InferLine: latency-aware provisioning and
 * scaling for prediction serving pipelines", SoCC'20): per stage of a pipeline, the hardware type,
 * max batch and replicas that meet the end-to-end P99 SLO on a sample trace at low cost.
 *
 * <ul>
 *   <li>{@link io.kairos.control.inferline.InferLinePlanner}: Algorithm 1 (a feasible start:
 *       fastest hardware, batch 1, a replica added to the bottleneck until the estimator finds the
 *       P99 within the SLO) and Algorithm 2 (greedy moves that lower the cost: cheaper hardware,
 *       a larger batch, one replica fewer);</li>
 *   <li>the estimator it asks, {@link io.kairos.sim.pipeline.PipelineEstimator}, simulates the
 *       pipeline with the job's own scheduler on the trace;</li>
 *   <li>{@link io.kairos.control.inferline.PipelineDecisions}: a plan as the control decisions
 *       that serve it;</li>
 *   <li>{@link io.kairos.control.inferline.TopicTrace}: a sample trace from the requests topic's
 *       history between two times.</li>
 * </ul>
 */
package io.kairos.control.inferline;
