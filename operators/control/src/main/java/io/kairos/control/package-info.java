/**
 * The control plane: the algorithms that decide (solvers, planners, tuner maths) and the one
 * publisher through which every producer writes its decisions to the control topic. Runs outside
 * Flink; Flink only applies what it publishes.
 */
package io.kairos.control;
