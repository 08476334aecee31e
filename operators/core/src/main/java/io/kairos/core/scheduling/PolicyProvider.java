package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;

/**
 * Adds a scheduling policy of one's own, by name: a jar on the job's classpath that lists its
 * provider in {@code META-INF/services/io.kairos.core.scheduling.PolicyProvider} makes the policy
 * selectable wherever Kairos' own are ({@code serve --policy}, a {@code SetPolicy} decision, the
 * simulator), found with Java's {@link java.util.ServiceLoader}. A name Kairos already uses is
 * refused.
 */
@PublicEvolving
public interface PolicyProvider {

    /** The name the policy is selected by. */
    String name();

    /** A new instance with its defaults; {@link SchedulingPolicy#configure} reads its parameters. */
    SchedulingPolicy create();
}
