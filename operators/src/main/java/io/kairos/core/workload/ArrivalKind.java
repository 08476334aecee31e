package io.kairos.core.workload;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * The arrival processes a workload spec can name. A process with more parameters than a rate
 * (Gamma with a coefficient of variation, MMPP with phases, replay of a trace) gets its own kind
 * and its parameters in the spec when it is added.
 */
public enum ArrivalKind {
    POISSON(ArrivalProcess::poisson),
    FIXED(ArrivalProcess::fixedRate);

    private final DoubleFunction<ArrivalProcess> atRate;

    ArrivalKind(DoubleFunction<ArrivalProcess> atRate) {
        this.atRate = atRate;
    }

    /** This kind of process with the given mean rate. */
    public ArrivalProcess at(double ratePerSecond) {
        return atRate.apply(ratePerSecond);
    }

    /** Case-insensitive name, e.g. {@code poisson}; the error lists the known kinds. */
    public static ArrivalKind parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown arrival process '" + name + "'; known: "
                    + Arrays.stream(values()).map(k -> k.name().toLowerCase(Locale.ROOT)).toList());
        }
    }
}
