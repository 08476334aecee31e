package io.kairos.testbed.experiment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
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

    @Test
    void aGridHasOnePanelPerCombination(@TempDir Path dir) throws Exception {
        Path png = Figures.lines("cv2", "goodput_per_s").numericX().panels("models", "rate").size(300, 200)
                .save(results(), dir.resolve("grid.png"));
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(3 * 300);
        assertThat(image.getHeight()).isEqualTo(2 * 200);
    }

    @Test
    void barsAndCategoricalLinesWithoutPanels(@TempDir Path dir) throws Exception {
        BufferedImage bars = ImageIO.read(Figures.bars("policy", "goodput_per_s").series(null).size(400, 300)
                .save(results(), dir.resolve("bars.png")).toFile());
        assertThat(bars.getWidth()).isEqualTo(400);
        BufferedImage lines = ImageIO.read(Figures.lines("rate", "goodput_per_s").panels(null, "models").size(400, 300)
                .save(results(), dir.resolve("sub/lines.png")).toFile());
        assertThat(lines.getWidth()).isEqualTo(800);
        assertThat(lines.getHeight()).isEqualTo(300);
    }
}
