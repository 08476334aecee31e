package io.kairos.testbed.experiment;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The SMDP experiment's figures of analytic and simulated values together: one panel per load
 * (rho, or other columns), two panels a row; each policy in the same colour in every panel; the analytic values as
 * circles (joined by a line where the policy has several), the simulated ones as crosses over
 * them; one legend per figure, in the first panel, where the curves leave room.
 *
 * <pre>{@code
 * SmdpFigures.of(fig6, "latency_ms", "power_w").simulated("sim_latency_ms", "sim_power_w")
 *         .titled("Fig 6: latency vs power", "mean latency (ms)", "mean power (W)").legend(Styler.LegendPosition.InsideNE)
 *         .save(dir.resolve("fig6-latency-power.png"));
 * }</pre>
 */
final class SmdpFigures {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    // Okabe and Ito's palette, which colour-blind readers can tell apart.
    private static final Color[] COLOURS = {new Color(0, 114, 178), new Color(230, 159, 0), new Color(0, 158, 115),
            new Color(204, 121, 167), new Color(213, 94, 0)};

    private final ResultTable t;
    private final String x;
    private final String y;
    private String simX;
    private String simY;
    private String title = "";
    private String xTitle;
    private String yTitle;
    private Styler.LegendPosition legend = Styler.LegendPosition.InsideNE;
    private double scale = 1;
    private List<String> panels = List.of("rho");
    private Double yMin;
    private Double yMax;

    private SmdpFigures(ResultTable t, String x, String y) {
        this.t = t;
        this.x = x;
        this.y = y;
        this.xTitle = x;
        this.yTitle = y;
    }

    /** {@code y} against {@code x} from {@code t}, one panel per {@code rho}, one series per {@code policy}. */
    static SmdpFigures of(ResultTable t, String x, String y) {
        return new SmdpFigures(t, x, y);
    }

    /** The simulated values' columns, drawn as crosses. */
    SmdpFigures simulated(String simX, String simY) {
        this.simX = simX;
        this.simY = simY;
        return this;
    }

    /** What the figure compares (each panel's title begins with it) and the axes' titles. */
    SmdpFigures titled(String what, String xTitle, String yTitle) {
        this.title = what;
        this.xTitle = xTitle;
        this.yTitle = yTitle;
        return this;
    }

    SmdpFigures legend(Styler.LegendPosition position) {
        this.legend = position;
        return this;
    }

    /** One panel per combination of these columns' values (default {@code rho}). */
    SmdpFigures panels(String... columns) {
        this.panels = List.of(columns);
        return this;
    }

    /** Multiplies every y (100 for a share in per cent) and fixes the y axis' range. */
    SmdpFigures y(double scale, Double min, Double max) {
        this.scale = scale;
        this.yMin = min;
        this.yMax = max;
        return this;
    }

    Path save(Path file) throws IOException {
        List<XYChart> charts = new ArrayList<>();
        List<String> policies = t.distinct("policy");
        for (List<String> panel : t.distinct(panels)) {
            Map<String, String> where = new java.util.LinkedHashMap<>();
            StringBuilder name = new StringBuilder(title);
            for (int i = 0; i < panels.size(); i++) {
                where.put(panels.get(i), panel.get(i));
                name.append(", ").append(panels.get(i)).append(" = ").append(panel.get(i));
            }
            XYChart c = new XYChartBuilder().width(560).height(400)
                    .title(name + (simY == null ? "" : " (x: simulated)")).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
            XYStyler st = c.getStyler();
            st.setChartBackgroundColor(Color.WHITE);
            st.setPlotBackgroundColor(Color.WHITE);
            st.setPlotGridLinesColor(new Color(225, 225, 225));
            st.setLegendVisible(charts.isEmpty());
            st.setLegendPosition(legend);
            st.setLegendBorderColor(new Color(200, 200, 200));
            st.setLegendFont(st.getLegendFont().deriveFont(11f));
            st.setChartTitleFont(st.getChartTitleFont().deriveFont(13f));
            if (yMin != null) st.setYAxisMin(yMin);
            if (yMax != null) st.setYAxisMax(yMax);
            for (int i = 0; i < policies.size(); i++) {
                String policy = policies.get(i);
                Color colour = COLOURS[i % COLOURS.length];
                String label = policy.equals(SmdpExperiment.SMDP) && x.equals("latency_ms") ? "SMDP, w2 = 0 .. 500" : policy;
                add(c, where, policy, x, y, label, colour, true);
                if (simY != null) add(c, where, policy, simX, simY, label + " simulated", colour, false);
            }
            charts.add(c);
        }
        int columns = Math.min(2, charts.size());
        BitmapEncoder.saveBitmap(new ArrayList<>(charts), (charts.size() + columns - 1) / columns, columns, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    private void add(XYChart c, Map<String, String> panel, String policy, String xColumn, String yColumn, String label, Color colour, boolean analytic) {
        int xi = t.index(xColumn), yi = t.index(yColumn);
        List<Double> xs = new ArrayList<>(), ys = new ArrayList<>();
        for (List<String> row : t.rows()) {
            Map<String, String> where = new java.util.LinkedHashMap<>(panel);
            where.put("policy", policy);
            if (!t.where(where).test(row) || row.get(xi).isEmpty() || row.get(yi).isEmpty()) continue;
            xs.add(Double.parseDouble(row.get(xi)));
            ys.add(Double.parseDouble(row.get(yi)) * scale);
        }
        if (xs.isEmpty()) return;
        XYSeries s = c.addSeries(label, xs, ys);
        s.setXYSeriesRenderStyle(analytic && xs.size() > 1 ? XYSeries.XYSeriesRenderStyle.Line : XYSeries.XYSeriesRenderStyle.Scatter);
        s.setLineColor(colour);
        s.setMarkerColor(colour);
        s.setMarker(analytic ? SeriesMarkers.CIRCLE : SeriesMarkers.CROSS);
        s.setShowInLegend(analytic);
    }
}
