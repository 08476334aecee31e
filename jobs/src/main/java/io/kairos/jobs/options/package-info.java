/**
 * Option groups (picocli mixins) that several commands share, each flag declared once with its
 * default in one place: {@link io.kairos.jobs.config.ServingConfig} for what the serving job is configured
 * with. Here because {@code serve} uses them and ships in the job jar; the testbed's commands use
 * them too, with their own groups in {@code io.kairos.tools.options}.
 */
package io.kairos.jobs.options;
