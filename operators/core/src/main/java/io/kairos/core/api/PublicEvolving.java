package io.kairos.core.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A type a user may implement or call to add a scheduling policy, a placement or a device: the
 * extension point Kairos declares. It may still change between releases, and each change is
 * named in the release's notes. Everything public and not marked so is {@link Internal}: public
 * because another of Kairos' own modules uses it, free to change at any time.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface PublicEvolving {}
