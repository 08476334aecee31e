package io.kairos.testbed.experiment;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * PNG figures drawn from an experiment's {@link ResultTable}: a grid of panels, one per
 * combination of up to two point columns, each with one line (or group of bars) per policy. A
 * point's value is the median over its seeds.
 *
 * <pre>{@code
 * Figures.lines("slo_ms", "slo_attainment").scale(100).yAxis("SLO attainment %", 0.0, 100.0)
 *         .panels("models", "rate").save(results, dir.resolve("attainment.png"));
 * Figures.lines("cv2", "goodput_per_s").numericX().save(results, dir.resolve("goodput.png"));
 * Figures.bars("policy", "goodput_per_s").series(null).save(results, dir.resolve("goodput.png"));
 * }</pre>
 */
public final class Figures {
    static {
        // Charts are drawn off screen; no display is needed (and none exists on a server or in CI).
        System.setProperty("java.awt.headless", "true");
    }

    private Figures() {}

    /** Lines of {@code y} over {@code x}, one per policy; x categorical (evenly spaced) unless {@link Plot#numericX}. */
    public static Plot lines(String x, String y) {
        return new Plot(x, y, false);
    }

    /** Bars of {@code y} for each value of {@code x}, one bar per policy within each group. */
    public static Plot bars(String x, String y) {
        return new Plot(x, y, true);
    }

    public static final class Plot {
        private final String x;
        private final String y;
        private final boolean bars;
        private boolean numericX;
        private boolean logX;
        private boolean logY;
        private double scale = 1;
        private boolean zeroIsGap;
        private String xLabel;
        private String yLabel;
        private Double yMin;
        private Double yMax;
        private String series = "policy";
        private String panelRows;
        private String panelColumns;
        private Function<Map<String, String>, String> panelTitle = Plot::defaultTitle;
        private int width = 560;
        private int height = 380;

        private Plot(String x, String y, boolean bars) {
            this.x = x;
            this.y = y;
            this.bars = bars;
            this.xLabel = x;
            this.yLabel = y;
        }

        /** x is a number: points are placed at their value, not evenly. */
        public Plot numericX() {
            this.numericX = true;
            return this;
        }

        /** A numeric x on a logarithmic axis. */
        public Plot logX() {
            this.numericX = true;
            this.logX = true;
            return this;
        }

        /** y on a logarithmic axis (values spanning orders of magnitude; a zero cannot be drawn, see {@link #zeroIsGap}). */
        public Plot logY() {
            this.logY = true;
            return this;
        }

        /** Multiplies every y value (e.g. 100 for a share shown in per cent). */
        public Plot scale(double factor) {
            this.scale = factor;
            return this;
        }

        /** A zero is no value, drawn as a gap: for a mean batch size, 0 means nothing ran. */
        public Plot zeroIsGap() {
            this.zeroIsGap = true;
            return this;
        }

        public Plot xAxis(String label) {
            this.xLabel = label;
            return this;
        }

        /** The y axis' title and range ({@code null}: fitted to the data). */
        public Plot yAxis(String label, Double min, Double max) {
            this.yLabel = label;
            this.yMin = min;
            this.yMax = max;
            return this;
        }

        /** The column with one line per value (default {@code policy}); {@code null}: a single line. */
        public Plot series(String column) {
            this.series = column;
            return this;
        }

        /** One panel per combination of these columns' values, a grid of rows by columns; either may be null. */
        public Plot panels(String rows, String columns) {
            this.panelRows = rows;
            this.panelColumns = columns;
            return this;
        }

        /** The title of a panel from its column values (default {@code models 12, rate 600}). */
        public Plot panelTitle(Function<Map<String, String>, String> title) {
            this.panelTitle = title;
            return this;
        }

        /** Pixels per panel. */
        public Plot size(int panelWidth, int panelHeight) {
            this.width = panelWidth;
            this.height = panelHeight;
            return this;
        }

        /** Draws the grid into {@code file} (PNG) and returns it. */
        public Path save(ResultTable results, Path file) throws IOException {
            List<String> rowValues = panelRows == null ? nullList() : results.distinct(panelRows);
            List<String> columnValues = panelColumns == null ? nullList() : results.distinct(panelColumns);
            List<String> seriesValues = series == null ? nullList() : results.distinct(series);
            List<String> xs = sortedX(results.distinct(x));
            List<Chart<?, ?>> charts = new ArrayList<>();
            for (String r : rowValues) {
                for (String c : columnValues) {
                    Map<String, String> panel = new LinkedHashMap<>();
                    if (panelRows != null) panel.put(panelRows, r);
                    if (panelColumns != null) panel.put(panelColumns, c);
                    charts.add(chart(results, panel, seriesValues, xs));
                }
            }
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            BitmapEncoder.saveBitmap(charts, rowValues.size(), columnValues.size(), file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return file;
        }

        private Chart<?, ?> chart(ResultTable results, Map<String, String> panel, List<String> seriesValues, List<String> xs) {
            String title = panel.isEmpty() ? yLabel : panelTitle.apply(panel);
            if (numericX && !bars) {
                XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
                style(chart.getStyler());
                chart.getStyler().setXAxisLogarithmic(logX);
                chart.getStyler().setYAxisLogarithmic(logY);
                for (String s : seriesValues) {
                    List<Double> px = new ArrayList<>();
                    List<Double> py = new ArrayList<>();
                    for (String xv : xs) {
                        double v = value(results, panel, s, xv);
                        if (Double.isNaN(v)) continue;
                        px.add(Double.parseDouble(xv));
                        py.add(v);
                    }
                    if (px.isEmpty()) continue;
                    XYSeries added = chart.addSeries(seriesName(s), px, py);
                    added.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
                }
                return chart;
            }
            CategoryChart chart = new CategoryChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
            style(chart.getStyler());
            chart.getStyler().setDefaultSeriesRenderStyle(bars ? CategorySeries.CategorySeriesRenderStyle.Bar : CategorySeries.CategorySeriesRenderStyle.Line);
            // Lines share each category's x position; bars stand side by side within it.
            chart.getStyler().setOverlapped(!bars);
            for (String s : seriesValues) {
                List<Double> py = new ArrayList<>();
                // Every series gets every category, so that colours and positions agree between panels;
                // a missing value is a gap.
                for (String xv : xs) {
                    double v = value(results, panel, s, xv);
                    py.add(Double.isNaN(v) ? null : v);
                }
                chart.addSeries(seriesName(s), xs, py);
            }
            return chart;
        }

        private double value(ResultTable results, Map<String, String> panel, String s, String xv) {
            Map<String, String> where = new LinkedHashMap<>(panel);
            if (series != null) where.put(series, s);
            where.put(x, xv);
            double v = results.median(y, where) * scale;
            return zeroIsGap && v == 0 ? Double.NaN : v;
        }

        private String seriesName(String s) {
            return series == null ? yLabel : s;
        }

        private void style(AxesChartStyler st) {
            st.setChartBackgroundColor(Color.WHITE);
            st.setPlotBackgroundColor(Color.WHITE);
            st.setPlotGridLinesColor(new Color(225, 225, 225));
            st.setLegendPosition(Styler.LegendPosition.OutsideS);
            st.setLegendLayout(Styler.LegendLayout.Horizontal);
            st.setLegendBorderColor(Color.WHITE);
            st.setLegendFont(st.getLegendFont().deriveFont(11f));
            st.setLegendVisible(series != null);
            st.setMarkerSize(6);
            if (yMin != null) st.setYAxisMin(yMin);
            if (yMax != null) st.setYAxisMax(yMax);
        }

        private List<String> sortedX(List<String> values) {
            if (bars || !values.stream().allMatch(Plot::isNumber)) return values;
            List<String> sorted = new ArrayList<>(values);
            sorted.sort(Comparator.comparingDouble(Double::parseDouble));
            return sorted;
        }

        private static boolean isNumber(String s) {
            try {
                Double.parseDouble(s);
                return true;
            } catch (NumberFormatException e) {
                return false;
            }
        }

        private static List<String> nullList() {
            List<String> one = new ArrayList<>();
            one.add(null);
            return one;
        }

        private static String defaultTitle(Map<String, String> panel) {
            StringBuilder s = new StringBuilder();
            panel.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
            return s.toString();
        }
    }
}
