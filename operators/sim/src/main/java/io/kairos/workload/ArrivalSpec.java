package io.kairos.workload;

import java.util.Locale;

/**
 * How the requests of a load are spaced, as the command line names it, without the rate: the
 * rate comes from each load, and {@link #at} makes the process.
 *
 * <pre>
 *   poisson         independent arrivals, exponential gaps (CV² 1)
 *   fixed           evenly spaced arrivals (CV² 0)
 *   gamma:cv2=4     independent Gamma gaps with this CV² (&gt; 0), see {@link GammaArrivals}
 *   mmpp:cv2=8      bursts: a two-state MMPP whose gaps have this CV² (1 up to {@link MmppArrivals#MAX_CV2}), see {@link MmppArrivals#withCv2}
 * </pre>
 *
 * Names are case-insensitive. Every spec has a {@code cv2}, the squared coefficient of variation
 * of its gaps: 1 for Poisson, 0 for fixed.
 */
public record ArrivalSpec(Kind kind, double cv2) {

    public enum Kind { POISSON, FIXED, GAMMA, MMPP }

    public static final ArrivalSpec POISSON = new ArrivalSpec(Kind.POISSON, 1);
    public static final ArrivalSpec FIXED = new ArrivalSpec(Kind.FIXED, 0);

    private static final String KNOWN = "poisson, fixed, gamma:cv2=N, mmpp:cv2=N";

    public ArrivalSpec {
        if (kind == null) throw new IllegalArgumentException("arrival kind must be given");
        String problem = cv2Problem(kind, cv2);
        if (problem != null) throw new IllegalArgumentException(problem);
    }

    public static ArrivalSpec gamma(double cv2) {
        return new ArrivalSpec(Kind.GAMMA, cv2);
    }

    public static ArrivalSpec mmpp(double cv2) {
        return new ArrivalSpec(Kind.MMPP, cv2);
    }

    /** Why {@code cv2} does not suit {@code kind}, or null. */
    private static String cv2Problem(Kind kind, double cv2) {
        return switch (kind) {
            case POISSON -> cv2 == 1 ? null : "poisson arrivals have cv2 1, got " + cv2;
            case FIXED -> cv2 == 0 ? null : "fixed arrivals have cv2 0, got " + cv2;
            case GAMMA -> cv2 > 0 && Double.isFinite(cv2) ? null : "gamma needs cv2 > 0, got " + plain(cv2);
            case MMPP -> cv2 >= 1 && cv2 < MmppArrivals.MAX_CV2 ? null
                    : "mmpp needs 1 <= cv2 < " + plain(Math.round(MmppArrivals.MAX_CV2 * 1e6) / 1e6) + ", got " + plain(cv2);
        };
    }

    /**
     * Reads a spec such as {@code poisson} or {@code gamma:cv2=4}. A problem is reported in one
     * line that quotes the spec and names the bad part.
     */
    public static ArrivalSpec parse(String spec) {
        if (spec == null || spec.isBlank()) throw new Workload.SpecException("arrival spec is empty; expected one of " + KNOWN);
        String at = "arrival spec '" + spec.trim() + "': ";
        String[] parts = spec.trim().split(":", -1);
        Kind kind;
        try {
            kind = Kind.valueOf(parts[0].trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new Workload.SpecException(at + "unknown process '" + parts[0].trim() + "'; known: " + KNOWN);
        }
        String name = kind.name().toLowerCase(Locale.ROOT);
        boolean takesCv2 = kind == Kind.GAMMA || kind == Kind.MMPP;
        if (!takesCv2 && parts.length > 1) throw new Workload.SpecException(at + name + " takes no parameters");
        Double cv2 = null;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq < 0) throw new Workload.SpecException(at + "parameter '" + p + "' is not key=value, e.g. cv2=4");
            String key = p.substring(0, eq).trim();
            String value = p.substring(eq + 1).trim();
            if (!key.equalsIgnoreCase("cv2")) throw new Workload.SpecException(at + "unknown parameter '" + key + "'; " + name + " takes cv2");
            if (cv2 != null) throw new Workload.SpecException(at + "cv2 is given twice");
            try {
                cv2 = Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new Workload.SpecException(at + "cv2 '" + value + "' is not a number");
            }
        }
        if (!takesCv2) return kind == Kind.POISSON ? POISSON : FIXED;
        if (cv2 == null) throw new Workload.SpecException(at + name + " needs cv2, e.g. " + name + ":cv2=4");
        String problem = cv2Problem(kind, cv2);
        if (problem != null) throw new Workload.SpecException(at + problem);
        return new ArrivalSpec(kind, cv2);
    }

    /** The process this spec names, with this mean rate. */
    public ArrivalProcess at(double ratePerSecond) {
        return switch (kind) {
            case POISSON -> ArrivalProcess.poisson(ratePerSecond);
            case FIXED -> ArrivalProcess.fixedRate(ratePerSecond);
            case GAMMA -> ArrivalProcess.gamma(ratePerSecond, cv2);
            case MMPP -> ArrivalProcess.mmpp(ratePerSecond, cv2);
        };
    }

    /** The spec form, which {@link #parse} reads back: {@code poisson}, {@code gamma:cv2=4}. */
    @Override
    public String toString() {
        String name = kind.name().toLowerCase(Locale.ROOT);
        return kind == Kind.GAMMA || kind == Kind.MMPP ? name + ":cv2=" + plain(cv2) : name;
    }

    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
