package io.kairos.control.status;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * A line chart as inline SVG, drawn on the server: a title, a y axis with a few labelled ticks, a
 * time axis labelled at whole minutes (UTC), one polyline per line through its defined values (a
 * bucket without a value is skipped, and each value is marked with a dot), horizontal dashed
 * reference lines, and a legend of one row per line with its latest value. {@code status.js}
 * draws the same from {@code /api/status}; a change here is a change there.
 *
 * <p>Every name is escaped: a model whose name is markup shows as text.
 */
final class SvgChart {
    static final int WIDTH = 440;
    private static final int LEFT = 50;
    private static final int RIGHT = 14;
    private static final int TOP = 26;
    private static final int PLOT_HEIGHT = 140;
    private static final int ROW = 15;
    /** Longest name the legend shows whole; a longer one is cut, whole in its tooltip. */
    static final int LEGEND_NAME = 40;
    /** A reference line this many times above the highest value is named in the legend, not drawn. */
    static final double REACH = 4;

    /** Colours of the lines, in the order of the models' names (Tableau 10). */
    static final List<String> COLOURS = List.of("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac");

    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final long MINUTE_MICROS = 60_000_000L;

    /** One line: its name, colour, a value per point (null: none in that bucket) and how its latest value reads. */
    record Line(String name, String colour, List<Double> values, String latest) {}

    /** A horizontal line at {@code value}, named in the legend by {@code label}. */
    record Reference(String label, String colour, double value) {}

    /**
     * The y axis: from {@code floorAtMost} or the lowest value if lower, to {@code fixedMax} or
     * else the highest value (and the references within {@link #REACH} of it), widened to whole
     * ticks.
     */
    record Axis(double floorAtMost, Double fixedMax) {}

    /**
     * @param xs    the time of each point
     * @param from  the left end of the time axis
     * @param to    the right end
     * @param empty what the chart says when no line has a value
     * @param rows  rows of legend to leave room for at least, so that charts side by side are as tall
     */
    static String svg(String id, String title, Axis axis, long from, long to, List<Long> xs, List<Line> lines, List<Reference> references,
                      String empty, int rows) {
        double dataMin = Double.POSITIVE_INFINITY;
        double dataMax = Double.NEGATIVE_INFINITY;
        for (Line l : lines) {
            for (Double v : l.values()) {
                if (v == null) continue;
                dataMin = Math.min(dataMin, v);
                dataMax = Math.max(dataMax, v);
            }
        }
        boolean hasData = dataMax >= dataMin;
        double lo = hasData ? Math.min(axis.floorAtMost(), dataMin) : axis.floorAtMost();
        double hi = hasData ? dataMax : lo;
        if (axis.fixedMax() != null) hi = axis.fixedMax();
        else for (Reference r : references) if (hasData && r.value() <= REACH * dataMax) hi = Math.max(hi, r.value());
        if (hi <= lo) hi = lo + 1;
        double step = niceStep((hi - lo) / 4);
        // Whole steps, forgiving the rounding of a division (0.4 / 0.1 is a little over 4).
        lo = Math.floor(lo / step + 1e-9) * step;
        hi = Math.ceil(hi / step - 1e-9) * step;

        int legendRows = Math.max(rows, lines.size() + references.size());
        int height = TOP + PLOT_HEIGHT + 24 + Math.max(1, legendRows) * ROW + 4;
        int plotWidth = WIDTH - LEFT - RIGHT;
        StringBuilder b = new StringBuilder(4096);
        b.append("<svg class=\"chart\" id=\"").append(esc(id)).append("\" width=\"").append(WIDTH)
                .append("\" height=\"").append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" role=\"img\" aria-label=\"").append(esc(title)).append("\" font-size=\"11\">");
        b.append("<text class=\"title\" x=\"").append(LEFT).append("\" y=\"16\" font-size=\"13\" font-weight=\"bold\" fill=\"#222\">")
                .append(esc(title)).append("</text>");

        // Grid and ticks.
        int decimals = decimals(step);
        b.append("<g class=\"y-axis\" fill=\"#555\" text-anchor=\"end\">");
        for (int i = 0; lo + i * step <= hi + step * 1e-9; i++) {
            double v = lo + i * step;
            String y = num(y(v, lo, hi));
            b.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotWidth).append("\" y1=\"").append(y).append("\" y2=\"")
                    .append(y).append("\" stroke=\"#e6e6e6\"/>");
            b.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(y).append("\" dy=\"4\">")
                    .append(String.format(Locale.ROOT, "%." + decimals + "f", v)).append("</text>");
        }
        b.append("</g><g class=\"x-axis\" fill=\"#555\" text-anchor=\"middle\">");
        for (long t = Math.floorDiv(from, MINUTE_MICROS) * MINUTE_MICROS + MINUTE_MICROS; t <= to; t += MINUTE_MICROS) {
            String x = num(x(t, from, to));
            b.append("<line x1=\"").append(x).append("\" x2=\"").append(x).append("\" y1=\"").append(TOP).append("\" y2=\"")
                    .append(TOP + PLOT_HEIGHT).append("\" stroke=\"#e6e6e6\"/>");
            b.append("<text x=\"").append(x).append("\" y=\"").append(TOP + PLOT_HEIGHT + 14).append("\">")
                    .append(MINUTE.format(Instant.ofEpochMilli(t / 1000))).append("</text>");
        }
        b.append("</g><rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(plotWidth).append("\" height=\"")
                .append(PLOT_HEIGHT).append("\" fill=\"none\" stroke=\"#bbb\"/>");
        if (!hasData) {
            b.append("<text class=\"empty\" x=\"").append(LEFT + plotWidth / 2).append("\" y=\"").append(TOP + PLOT_HEIGHT / 2)
                    .append("\" text-anchor=\"middle\" fill=\"#777\">").append(esc(empty)).append("</text>");
        }

        // References, under the lines.
        for (Reference r : references) {
            if (!hasData || r.value() > hi) continue;
            String y = num(y(r.value(), lo, hi));
            b.append("<line class=\"reference\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotWidth).append("\" y1=\"").append(y)
                    .append("\" y2=\"").append(y).append("\" stroke=\"").append(esc(r.colour())).append("\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>");
        }
        for (Line l : lines) {
            b.append("<g class=\"series\" data-model=\"").append(esc(l.name())).append("\" stroke=\"").append(esc(l.colour()))
                    .append("\" fill=\"").append(esc(l.colour())).append("\">");
            StringBuilder points = new StringBuilder();
            StringBuilder dots = new StringBuilder();
            for (int i = 0; i < l.values().size() && i < xs.size(); i++) {
                Double v = l.values().get(i);
                if (v == null) continue;
                String x = num(x(xs.get(i), from, to));
                String y = num(y(v, lo, hi));
                if (!points.isEmpty()) points.append(' ');
                points.append(x).append(',').append(y);
                dots.append("<circle cx=\"").append(x).append("\" cy=\"").append(y).append("\" r=\"1.8\" stroke=\"none\"/>");
            }
            b.append("<polyline points=\"").append(points).append("\" fill=\"none\" stroke-width=\"2\" stroke-linejoin=\"round\"/>")
                    .append(dots).append("</g>");
        }

        // The legend: a row per line, then per reference.
        b.append("<g class=\"legend\" font-size=\"12\" fill=\"#222\">");
        int y = TOP + PLOT_HEIGHT + 24 + 10;
        for (Line l : lines) {
            legendRow(b, y, l.colour(), null, l.name(), l.latest());
            y += ROW;
        }
        for (Reference r : references) {
            legendRow(b, y, r.colour(), "6 4", r.label(), hasData && r.value() > hi ? "above the chart" : null);
            y += ROW;
        }
        b.append("</g></svg>");
        return b.toString();
    }

    private static void legendRow(StringBuilder b, int y, String colour, String dashes, String name, String note) {
        b.append("<g class=\"entry\"><line x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + 18).append("\" y1=\"").append(y - 4)
                .append("\" y2=\"").append(y - 4).append("\" stroke=\"").append(esc(colour)).append("\" stroke-width=\"").append(dashes == null ? "3" : "1.5")
                .append('"').append(dashes == null ? "" : " stroke-dasharray=\"" + dashes + "\"").append("/>");
        b.append("<text x=\"").append(LEFT + 24).append("\" y=\"").append(y).append("\">");
        if (name.length() > LEGEND_NAME) b.append("<title>").append(esc(name)).append("</title>");
        b.append(esc(shortName(name)));
        if (note != null) b.append("<tspan fill=\"#777\">").append(esc("  " + note)).append("</tspan>");
        b.append("</text></g>");
    }

    static String shortName(String name) {
        return name.length() <= LEGEND_NAME ? name : name.substring(0, LEGEND_NAME - 1) + "\u2026";
    }

    /** A step of 1, 2, 2.5 or 5 times a power of ten, at least {@code raw}. */
    static double niceStep(double raw) {
        int e = (int) Math.floor(Math.log10(raw));
        double f = raw / Math.pow(10, e);
        double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
        return m * Math.pow(10, e);
    }

    /** The decimals that write every multiple of {@code step}. */
    static int decimals(double step) {
        int e = (int) Math.floor(Math.log10(step) + 1e-9);
        double m = step / Math.pow(10, e);
        return Math.max(0, -e + (Math.abs(m - 2.5) < 1e-9 ? 1 : 0));
    }

    private static double x(long t, long from, long to) {
        return LEFT + (to <= from ? 1 : (t - from) / (double) (to - from)) * (WIDTH - LEFT - RIGHT);
    }

    private static double y(double v, double lo, double hi) {
        return TOP + PLOT_HEIGHT - (v - lo) / (hi - lo) * PLOT_HEIGHT;
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String text) {
        return Html.escape(text);
    }
}
