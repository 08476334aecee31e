/**
 * Pipelines of models under one end-to-end SLO (InferLine, SoCC'20): the spec, a DAG of stages
 * each served by a model, with the edges a request may take between them, its conditions on a
 * stage's output and its probabilities ({@link io.kairos.core.pipeline.PipelineSpec}). Engine-free:
 * the job routes requests along it, the simulator and the planner plan with its scale factors and
 * its service time.
 */
package io.kairos.core.pipeline;
