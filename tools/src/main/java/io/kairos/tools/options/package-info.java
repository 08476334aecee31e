/**
 * Option groups (picocli mixins) of the testbed's commands, each flag declared once: the load a
 * command offers (seed, arrival process, duration, warm-up) and how it reports. The options they
 * share with {@code serve} are in {@code io.kairos.jobs.options}.
 */
package io.kairos.tools.options;
