package io.kairos.control.status;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class SvgChartTest {
    private static final long S = 1_000_000;
    private static final String MODEL = "<img src=x onerror=\"document.title='owned'\">";

    @Test
    void ticksAreWholeStepsOfOneTwoTwoAndAHalfOrFive() {
        assertThat(SvgChart.niceStep(0.1)).isEqualTo(0.1);
        assertThat(SvgChart.niceStep(0.3)).isEqualTo(0.5);
        assertThat(SvgChart.niceStep(2.2)).isEqualTo(2.5);
        assertThat(SvgChart.niceStep(15)).isEqualTo(20);
        assertThat(SvgChart.niceStep(60)).isEqualTo(100);
        assertThat(SvgChart.decimals(0.1)).isEqualTo(1);
        assertThat(SvgChart.decimals(0.25)).isEqualTo(2);
        assertThat(SvgChart.decimals(2.5)).isEqualTo(1);
        assertThat(SvgChart.decimals(25)).isZero();
        assertThat(SvgChart.decimals(100)).isZero();
    }

    @Test
    void aLinePerModelThroughItsValuesOnAxesWorkedByHand() {
        // Five minutes from 00:00:00; points at 100 s and 200 s: x = 50 + 376 / 3 and 50 + 2 * 376 / 3.
        // Goodput 0.4 and 0.2: the axis runs 0 to 0.4 in steps of 0.1, over 140 px from y = 166 up to 26.
        String svg = SvgChart.svg("g", "Goodput", new SvgChart.Axis(0, null), 0, 300 * S, List.of(100 * S, 200 * S),
                List.of(new SvgChart.Line("mlp", "#4e79a7", List.of(0.4, 0.2), "0.2/s"),
                        new SvgChart.Line(MODEL, "#f28e2b", Arrays.asList(null, 0.1), "0.1/s")),
                List.of(), "no results", 0);

        assertThat(polyline(svg, "mlp")).isEqualTo("175.3,26.0 300.7,96.0");
        assertThat(polyline(svg, Html.escape(MODEL))).isEqualTo("300.7,131.0");
        assertThat(svg).contains(">0.0</text>").contains(">0.4</text>").doesNotContain(">0.5</text>");
        // The time axis at whole minutes, UTC.
        assertThat(svg).contains(">00:01</text>").contains(">00:05</text>").doesNotContain(">00:00</text>");
        // The legend names each line with its latest value, the markup as text.
        assertThat(svg).contains(">mlp<tspan fill=\"#777\">  0.2/s</tspan>")
                .contains("&lt;img src=x onerror=&quot;document.title=&#39;owned&#39;&quot;&gt;")
                .doesNotContain("<img").doesNotContain("class=\"empty\"");
    }

    @Test
    void aReferenceWithinReachIsDrawnAndOneFarAboveIsNamedOnly() {
        List<SvgChart.Line> p99 = List.of(new SvgChart.Line("mlp", "#4e79a7", List.of(20.0, 30.0), "30.0 ms"));

        String near = SvgChart.svg("p", "p99", new SvgChart.Axis(0, null), 0, 300 * S, List.of(100 * S, 200 * S), p99,
                List.of(new SvgChart.Reference("SLO 50 ms", "#555", 50)), "none", 0);
        // 0 to 50 in steps of 20 is 0 to 60: the SLO at 50 is 140 * 50 / 60 px above the bottom.
        assertThat(near).contains("<line class=\"reference\" x1=\"50\" x2=\"426\" y1=\"49.3\" y2=\"49.3\"")
                .contains(">60</text>").contains(">SLO 50 ms</text>");

        String far = SvgChart.svg("p", "p99", new SvgChart.Axis(0, null), 0, 300 * S, List.of(100 * S, 200 * S), p99,
                List.of(new SvgChart.Reference("SLO 5000 ms", "#555", 5000)), "none", 0);
        assertThat(far).doesNotContain("class=\"reference\"").contains(">SLO 5000 ms<tspan fill=\"#777\">  above the chart</tspan>")
                .contains(">30</text>").doesNotContain(">40</text>");
    }

    @Test
    void attainmentKeepsAtLeastNinetyToAHundred() {
        String high = SvgChart.svg("a", "SLO attainment", new SvgChart.Axis(90, 100.0), 0, 300 * S, List.of(100 * S),
                List.of(new SvgChart.Line("mlp", "#4e79a7", List.of(99.0), "99.0%")), List.of(), "none", 0);
        assertThat(high).contains(">90.0</text>").contains(">92.5</text>").contains(">100.0</text>");

        String low = SvgChart.svg("a", "SLO attainment", new SvgChart.Axis(90, 100.0), 0, 300 * S, List.of(100 * S),
                List.of(new SvgChart.Line("mlp", "#4e79a7", List.of(42.0), "42.0%")), List.of(), "none", 0);
        assertThat(low).contains(">40</text>").contains(">60</text>").contains(">100</text>").doesNotContain(">20</text>");
    }

    @Test
    void withoutValuesTheChartSaysWhy() {
        String svg = SvgChart.svg("a", "t", new SvgChart.Axis(0, null), 0, 300 * S, List.of(), List.of(), List.of(), "no <results>", 0);

        assertThat(svg).contains("<text class=\"empty\"").contains(">no &lt;results&gt;</text>");
    }

    @Test
    void roomForTheLegendOfItsNeighbours() {
        // 26 above the plot, 140 of plot, 24 for the time axis, 3 rows of 15 and 4 below.
        String svg = SvgChart.svg("a", "t", new SvgChart.Axis(0, null), 0, 300 * S, List.of(), List.of(), List.of(), "none", 3);

        assertThat(svg).contains("height=\"239\" viewBox=\"0 0 440 239\"");
    }

    @Test
    void aLongNameIsCutInTheLegendAndWholeInItsTooltip() {
        String name = "m".repeat(60);
        String svg = SvgChart.svg("a", "t", new SvgChart.Axis(0, null), 0, 300 * S, List.of(100 * S),
                List.of(new SvgChart.Line(name, "#4e79a7", List.of(1.0), "1.0/s")), List.of(), "none", 0);

        assertThat(svg).contains("<title>" + name + "</title>" + "m".repeat(39) + "\u2026<tspan");
    }

    private static String polyline(String svg, String escapedModel) {
        Matcher m = Pattern.compile("data-model=\"" + Pattern.quote(escapedModel) + "\"[^>]*><polyline points=\"([^\"]*)\"").matcher(svg);
        assertThat(m.find()).as("a polyline of " + escapedModel).isTrue();
        return m.group(1);
    }
}
