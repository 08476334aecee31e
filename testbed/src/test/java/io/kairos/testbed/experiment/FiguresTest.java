package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FiguresTest {

    static ResultTable results() {
        ResultTable t = new ResultTable(List.of("models", "rate", "cv2", "policy", "seed", "goodput_per_s"));
        for (String models : List.of("12", "48")) {
            for (String rate : List.of("600", "1200", "2400")) {
                for (String cv2 : List.of("1", "4", "8")) {
                    for (String policy : List.of("clockwork", "fifo")) {
                        for (String seed : List.of("1", "2")) {
                            t.add(List.of(models, rate, cv2, policy, seed, Double.toString(Double.parseDouble(rate) / Double.parseDouble(cv2))));
                        }
                    }
                }
            }
        }
        return t;
    }

    private static final FontMetrics LEGEND = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics()
            .getFontMetrics(new Font(Font.SANS_SERIF, Font.PLAIN, 13));

    /** Rows of the image that hold anything but white. */
    private static int inkedRows(BufferedImage image, int fromY, int toY) {
        int n = 0;
        for (int y = fromY; y < toY; y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) != 0xffffff) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    @Test
    void aGridHasOnePanelPerCombinationUnderItsTitleAndOneLegendBelowThemAll(@TempDir Path dir) throws Exception {
        Path png = Figures.lines("cv2", "goodput_per_s").numericX().panels("models", "rate").size(300, 200)
                .title("Goodput per policy").save(results(), dir.resolve("grid.png"));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(3 * 300);
        // Title band, two rows of panels, then one legend row (two short names fit in 900 pixels).
        int panelsTop = image.getHeight() - 2 * 200 - 22 - 12;
        assertThat(panelsTop).isBetween(20, 40);
        assertThat(inkedRows(image, 0, panelsTop)).as("the title").isPositive();
        assertThat(inkedRows(image, panelsTop + 2 * 200, image.getHeight())).as("the legend").isPositive();
    }

    @Test
    void barsAndCategoricalLinesWithoutPanels(@TempDir Path dir) throws Exception {
        BufferedImage bars = ImageIO.read(Figures.bars("policy", "goodput_per_s").series(null).size(400, 300)
                .save(results(), dir.resolve("bars.png")).toFile());
        assertThat(bars.getWidth()).isEqualTo(400);
        BufferedImage lines = ImageIO.read(Figures.lines("rate", "goodput_per_s").panels(null, "models").size(400, 300)
                .save(results(), dir.resolve("sub/lines.png")).toFile());
        assertThat(lines.getWidth()).isEqualTo(800);
        assertThat(lines.getHeight()).isGreaterThan(300);
    }

    @Test
    void theLegendWrapsToTheFiguresWidthWithEverySeriesOnceAndNoneCut() {
        List<Figures.LegendEntry> entries = new java.util.ArrayList<>();
        for (String name : List.of("clockwork", "edf", "fifo", "flex", "kairos", "static", "triton", "work-conserving")) {
            entries.add(new Figures.LegendEntry(name, Color.BLACK, SeriesMarkers.CIRCLE));
        }
        for (int width : List.of(300, 560, 1680)) {
            List<List<Figures.LegendEntry>> rows = Figures.legendRows(entries, LEGEND, width);

            assertThat(rows.stream().flatMap(List::stream).map(Figures.LegendEntry::name).toList())
                    .as("width %d", width).containsExactlyElementsOf(entries.stream().map(Figures.LegendEntry::name).toList());
            for (List<Figures.LegendEntry> row : rows) {
                int used = row.stream().mapToInt(e -> Figures.entryWidth(e, LEGEND)).sum() + 22 * (row.size() - 1);
                assertThat(used).as("a row of the legend at width %d", width).isLessThanOrEqualTo(width);
            }
        }
        assertThat(Figures.legendRows(entries, LEGEND, 1680)).as("one row where there is room").hasSize(1);
        assertThat(Figures.legendRows(entries, LEGEND, 300)).hasSizeGreaterThan(2);
    }

    @Test
    void aLongTitleBreaksBetweenWordsWithinTheWidth() {
        String title = "SLO attainment of each policy as the SLO doubles: 6 simulated devices, ResNet50 instances, Poisson arrivals";
        List<String> lines = Figures.wrap(title, LEGEND, 400);

        assertThat(lines).hasSizeGreaterThan(1);
        assertThat(String.join(" ", lines)).isEqualTo(title);
        for (String line : lines) assertThat(LEGEND.stringWidth(line)).isLessThanOrEqualTo(400);
    }
}
