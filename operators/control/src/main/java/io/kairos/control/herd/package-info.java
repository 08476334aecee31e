/**
 * Shepherd's periodic planner, Herd (Zhang et al., "Shepherd: Serving DNNs in the wild",
 * NSDI'23): request streams grouped into serving groups by an ILP that maximises the minimum
 * burst tolerance {@code bt(i) = size_j / n_i} under the cluster's size, the most devices per
 * group, a device's memory and affinity sets.
 *
 * <ul>
 *   <li>{@link io.kairos.control.herd.RequestStream} and {@link io.kairos.control.herd.StreamsFile}:
 *       the streams (model, mean rate, SLO, CV², affinity set) and their JSON file;</li>
 *   <li>{@link io.kairos.control.herd.SingleDeviceGoodput}: {@code T_i}, a stream's most goodput
 *       on one device, measured by the simulator with its own arrival process, cached;</li>
 *   <li>{@link io.kairos.control.herd.HerdProblem}: the checked input, {@code n_i = rate_i / T_i};</li>
 *   <li>{@link io.kairos.control.herd.HerdSolver}: the ILP on OR-Tools, with a time limit, the gap
 *       reached and infeasibility named by its constraint; {@link io.kairos.control.herd.HerdPlan}
 *       its answer (groups' devices disjoint);</li>
 *   <li>{@link io.kairos.control.herd.DeviceHosts}: the job's device slots by TaskManager, and a plan's
 *       groups moved onto as few TaskManagers each as they fit;</li>
 *   <li>{@link io.kairos.control.herd.HerdDecisions}: a plan as the control decisions that serve it.</li>
 * </ul>
 *
 * OR-Tools runs here only, on the command line's classpath: the job jar leaves it out.
 */
package io.kairos.control.herd;
