package io.kairos.core.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Public only because another of Kairos' own modules uses it (the simulator, the Flink operators,
 * the jobs, the testbed): not for users to build on, free to change at any time. What users may
 * build on is {@link PublicEvolving}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Internal {}
