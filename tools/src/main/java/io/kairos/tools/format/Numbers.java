package io.kairos.tools.format;

import java.util.Locale;

/** How the testbed writes a number, one way per use, so that two commands never print one figure two ways. */
public final class Numbers {
    private Numbers() {
    }

    /** A whole number without ".0", any other as Java prints it: counts and rates in a command's output. */
    public static String plain(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** Three decimals: the seconds, milliseconds and ratios of a report or a small table. */
    public static String threeDecimals(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /**
     * Up to 10 significant digits without the mantissa's trailing zeros, a whole number without
     * any: the cells of an experiment's CSV, which a later run is compared with byte for byte.
     */
    public static String significant(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        // Trailing zeros of the mantissa only: an exponent such as e-10 keeps its zero.
        String[] parts = String.format(Locale.ROOT, "%.10g", v).split("e", 2);
        String mantissa = parts[0].contains(".") ? parts[0].replaceAll("0+$", "").replaceAll("\\.$", "") : parts[0];
        return parts.length == 2 ? mantissa + "e" + parts[1] : mantissa;
    }
}
