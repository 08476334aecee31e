package io.kairos.testbed.experiment;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.internal.series.MarkerSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
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
 * point's value is the median over its seeds. The figure has a title above the panels that says
 * what is compared, and one legend below them, outside every panel, wrapped to the figure's width;
 * a series has the same colour and marker in every panel.
 *
 * <pre>{@code
 * Figures.lines("slo_ms", "slo_attainment").scale(100).yAxis("SLO attainment %", 0.0, 100.0)
 *         .panels("models", "rate").title("SLO attainment of each policy as the SLO doubles")
 *         .save(results, dir.resolve("attainment.png"));
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

    /** Ten colours told apart on screen and in print (matplotlib's tab10), one per series in order. */
    static final Color[] COLOURS = {
            new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
            new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)};
    static final Marker[] MARKERS = {SeriesMarkers.CIRCLE, SeriesMarkers.DIAMOND, SeriesMarkers.SQUARE, SeriesMarkers.TRIANGLE_UP,
            SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS, SeriesMarkers.OVAL};

    private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 16);
    private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final int MARGIN = 12;
    private static final int SAMPLE = 30;
    private static final int ENTRY_GAP = 22;
    private static final int LEGEND_ROW = 22;

    /** A series in the legend: its name, colour and marker. */
    record LegendEntry(String name, Color colour, Marker marker) {}

    /** Where the legend's entries go: rows of entries, each row no wider than {@code width}. */
    static List<List<LegendEntry>> legendRows(List<LegendEntry> entries, FontMetrics font, int width) {
        List<List<LegendEntry>> rows = new ArrayList<>();
        List<LegendEntry> row = new ArrayList<>();
        int used = 0;
        for (LegendEntry e : entries) {
            int w = entryWidth(e, font);
            if (!row.isEmpty() && used + ENTRY_GAP + w > width) {
                rows.add(row);
                row = new ArrayList<>();
                used = 0;
            }
            used += (row.isEmpty() ? 0 : ENTRY_GAP) + w;
            row.add(e);
        }
        if (!row.isEmpty()) rows.add(row);
        return rows;
    }

    static int entryWidth(LegendEntry e, FontMetrics font) {
        return SAMPLE + 6 + font.stringWidth(e.name());
    }

    /** Lines of {@code text} no wider than {@code width}, broken at spaces. */
    static List<String> wrap(String text, FontMetrics font, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && font.stringWidth(line + " " + word) > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) line.append(' ');
            line.append(word);
        }
        if (line.length() > 0) lines.add(line.toString());
        return lines;
    }

    /**
     * The figure: its title, the panels in a grid of {@code columns}, and one legend below them,
     * all on white. The panels keep their size; the title and the legend wrap to the grid's width.
     */
    static BufferedImage compose(String title, List<BufferedImage> panels, int columns, List<LegendEntry> legend, boolean bars) {
        int panelWidth = panels.get(0).getWidth();
        int panelHeight = panels.get(0).getHeight();
        int rows = (panels.size() + columns - 1) / columns;
        int width = columns * panelWidth;
        Graphics2D probe = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        FontMetrics titleFont = probe.getFontMetrics(TITLE_FONT);
        FontMetrics legendFont = probe.getFontMetrics(LEGEND_FONT);
        probe.dispose();
        List<String> titleLines = title == null || title.isBlank() ? List.of() : wrap(title, titleFont, width - 2 * MARGIN);
        List<List<LegendEntry>> legendRows = legendRows(legend, legendFont, width - 2 * MARGIN);
        int titleHeight = titleLines.isEmpty() ? 0 : MARGIN + titleLines.size() * titleFont.getHeight();
        int legendHeight = legendRows.isEmpty() ? 0 : legendRows.size() * LEGEND_ROW + MARGIN;
        int height = titleHeight + rows * panelHeight + legendHeight;

        BufferedImage figure = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = figure.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(TITLE_FONT);
            int y = MARGIN;
            for (String line : titleLines) {
                g.drawString(line, (width - titleFont.stringWidth(line)) / 2, y + titleFont.getAscent());
                y += titleFont.getHeight();
            }
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(panels.get(i), (i % columns) * panelWidth, titleHeight + (i / columns) * panelHeight, null);
            }
            g.setFont(LEGEND_FONT);
            y = titleHeight + rows * panelHeight;
            for (List<LegendEntry> row : legendRows) {
                int rowWidth = row.stream().mapToInt(e -> entryWidth(e, legendFont)).sum() + ENTRY_GAP * (row.size() - 1);
                int x = (width - rowWidth) / 2;
                int mid = y + LEGEND_ROW / 2;
                for (LegendEntry e : row) {
                    g.setColor(e.colour());
                    if (bars) {
                        g.fillRect(x + 6, mid - 6, SAMPLE - 12, 12);
                    } else {
                        g.setStroke(new BasicStroke(2f));
                        g.drawLine(x, mid, x + SAMPLE, mid);
                        e.marker().paint(g, x + SAMPLE / 2.0, mid, 8);
                    }
                    g.setColor(Color.BLACK);
                    g.drawString(e.name(), x + SAMPLE + 6, mid + legendFont.getAscent() / 2 - 1);
                    x += entryWidth(e, legendFont) + ENTRY_GAP;
                }
                y += LEGEND_ROW;
            }
        } finally {
            g.dispose();
        }
        return figure;
    }

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
        private String title;
        private boolean markers = true;

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

        /**
         * The figure's title, above the panels: what is compared, over what (default: the y axis
         * against the x axis, per series).
         */
        public Plot title(String title) {
            this.title = title;
            return this;
        }

        /** Lines without a marker at every point: for curves of many points (a CDF). */
        public Plot noMarkers() {
            this.markers = false;
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
            boolean onePanel = panelRows == null && panelColumns == null;
            List<BufferedImage> panels = new ArrayList<>();
            for (String r : rowValues) {
                for (String c : columnValues) {
                    Map<String, String> panel = new LinkedHashMap<>();
                    if (panelRows != null) panel.put(panelRows, r);
                    if (panelColumns != null) panel.put(panelColumns, c);
                    Chart<?, ?> chart = chart(results, panel, seriesValues, xs);
                    chart.getStyler().setChartTitleVisible(!onePanel);
                    panels.add(BitmapEncoder.getBufferedImage(chart));
                }
            }
            List<LegendEntry> legend = new ArrayList<>();
            if (series != null) {
                for (int i = 0; i < seriesValues.size(); i++) legend.add(new LegendEntry(seriesValues.get(i), COLOURS[i % COLOURS.length], marker(i)));
            }
            BufferedImage figure = compose(figureTitle(), panels, columnValues.size(), legend, bars);
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            ImageIO.write(figure, "png", file.toFile());
            return file;
        }

        private String figureTitle() {
            if (title != null) return title;
            return yLabel + " against " + xLabel + (series == null ? "" : ", per " + series);
        }

        private Chart<?, ?> chart(ResultTable results, Map<String, String> panel, List<String> seriesValues, List<String> xs) {
            String title = panel.isEmpty() ? "" : panelTitle.apply(panel);
            if (numericX && !bars) {
                XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
                style(chart.getStyler());
                chart.getStyler().setXAxisLogarithmic(logX);
                chart.getStyler().setYAxisLogarithmic(logY);
                for (int i = 0; i < seriesValues.size(); i++) {
                    String s = seriesValues.get(i);
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
                    paint(added, i);
                }
                return chart;
            }
            CategoryChart chart = new CategoryChartBuilder().width(width).height(height).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
            style(chart.getStyler());
            chart.getStyler().setDefaultSeriesRenderStyle(bars ? CategorySeries.CategorySeriesRenderStyle.Bar : CategorySeries.CategorySeriesRenderStyle.Line);
            // Lines share each category's x position; bars stand side by side within it.
            chart.getStyler().setOverlapped(!bars);
            for (int i = 0; i < seriesValues.size(); i++) {
                String s = seriesValues.get(i);
                List<Double> py = new ArrayList<>();
                // Every series gets every category, so that colours and positions agree between panels;
                // a missing value is a gap.
                for (String xv : xs) {
                    double v = value(results, panel, s, xv);
                    py.add(Double.isNaN(v) ? null : v);
                }
                paint(chart.addSeries(seriesName(s), xs, py), i);
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

        /** The i-th series' colour and marker, the same in every panel and in the legend. */
        private void paint(MarkerSeries s, int i) {
            Color colour = COLOURS[i % COLOURS.length];
            s.setLineColor(colour);
            s.setMarkerColor(colour);
            s.setFillColor(colour);
            s.setMarker(marker(i));
            s.setLineWidth(2f);
        }

        private Marker marker(int i) {
            return markers && !bars ? MARKERS[i % MARKERS.length] : SeriesMarkers.NONE;
        }

        private void style(AxesChartStyler st) {
            st.setChartBackgroundColor(Color.WHITE);
            st.setPlotBackgroundColor(Color.WHITE);
            st.setPlotGridLinesColor(new Color(225, 225, 225));
            // One legend for the whole figure, drawn below the panels (compose).
            st.setLegendVisible(false);
            st.setChartTitleFont(st.getChartTitleFont().deriveFont(Font.BOLD, 13f));
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
