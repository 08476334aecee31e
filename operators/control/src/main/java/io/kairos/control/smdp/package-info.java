/**
 * Dynamic batching as a semi-Markov decision process, after Xu, Sun, Zhou and Niu ("SMDP-based
 * dynamic batching for efficient inference on GPU-based platforms"): one model's queue on one
 * device, Poisson arrivals, linear batch latency {@code tau(b)} and energy {@code zeta(b)}, and the
 * cost {@code w1 * latency + w2 * power}.
 *
 * <ul>
 *   <li>{@link io.kairos.control.smdp.BatchServiceModel}: the queue (arrival rate, latency and
 *       energy per batch size) and {@link io.kairos.control.smdp.CostWeights};</li>
 *   <li>{@link io.kairos.control.smdp.TruncatedSmdp}: the finite-state approximation with the
 *       overflow state {@code S_o} and its abstract cost {@code c_o} (the paper's (12), (13));</li>
 *   <li>{@link io.kairos.control.smdp.SmdpSolver}: the discretisation (17)–(19) and relative value
 *       iteration (21) with the span stopping rule (22), and the acceptance test that raises
 *       {@code s_max} until {@code Delta < delta};</li>
 *   <li>{@link io.kairos.control.smdp.StationaryAnalysis}: any policy's stationary distribution on
 *       the embedded chain and from it its average cost (14), overflow cost (15), mean latency and
 *       power, so that baselines are evaluated exactly as the solution is;</li>
 *   <li>{@link io.kairos.core.scheduling.BatchingTable} (in the core, where the {@code smdp} policy reads it): the policy, state to wait or batch size, with
 *       its control limit: what a batching policy in the scheduler reads.</li>
 * </ul>
 * Units throughout: milliseconds, millijoules, requests per millisecond, watts (mJ/ms).
 */
package io.kairos.control.smdp;
