package io.kairos.control.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.kairos.control.status.Records.assign;
import static io.kairos.control.status.Records.batch;
import static io.kairos.control.status.Records.decision;
import static io.kairos.control.status.Records.outcome;
import static io.kairos.control.status.Records.placement;
import static io.kairos.control.status.Records.policy;
import static io.kairos.control.status.Records.result;
import static org.assertj.core.api.Assertions.assertThat;

class StatusPageTest {
    private static final long S = 1_000_000;
    /** Names are user input: a model, a group and a policy that are markup. */
    private static final String MODEL = "<img src=x onerror=\"document.title='owned'\">";
    private static final String GROUP = "\"><b id=group>g";
    private static final String POLICY = "<script>alert(1)</script>";

    private static StatusSnapshot snapshot() {
        ServingStatus status = new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"),
                new ServingPlan(2, "clockwork", PolicyParams.NONE), 100 * S, 10, 20);
        status.decision(decision("planner", 1, placement(GROUP, 0, List.of(MODEL, "mlp"))), 101 * S);
        status.decision(decision("planner", 2, assign(MODEL, GROUP)), 101 * S);
        status.decision(decision("user", 3, policy("default", null, POLICY, Map.of())), 101 * S);
        status.outcome(outcome("planner", 1, "placement/" + GROUP, DecisionStatus.APPLIED, null, 101 * S), 101 * S);
        status.outcome(outcome("planner", 2, "assign/" + MODEL, DecisionStatus.APPLIED, null, 101 * S), 101 * S);
        status.outcome(outcome("user", 3, "policy/default", DecisionStatus.REJECTED, "unknown scheduling policy '" + POLICY + "'", 101 * S), 101 * S);
        status.result(result(MODEL, ResultStatus.OK, 101 * S, 2_000, 1), 101 * S + 500_000);
        // The placement's load of the markup model on device 0, 0.3 s.
        io.kairos.schema.BatchTelemetry load = batch(0, 0, 101 * S, 101 * S + 300_000, false, null);
        load.setGroup(GROUP);
        load.setModel(MODEL);
        load.setModelAction(io.kairos.schema.ModelAction.LOAD);
        load.setWhy("the placement lists it");
        status.batch(load, 101 * S + 300_000);
        return status.snapshot(102 * S);
    }

    /** Results of the markup model and of mlp over two complete buckets of 5 s (100 to 110 s), taken at 111 s. */
    private static StatusSnapshot withCharts() {
        ServingStatus status = new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"),
                new ServingPlan(2, "clockwork", PolicyParams.NONE), 100 * S, 10, 20);
        status.result(result(MODEL, ResultStatus.OK, 101 * S, 2_000, 1, 50), 101 * S);
        status.result(result("mlp", ResultStatus.OK, 101 * S, 4_000, 1, 50), 101 * S);
        status.result(result(MODEL, ResultStatus.LATE, 106 * S, 60_000, 1, 50), 106 * S);
        status.result(result("mlp", ResultStatus.OK, 106 * S, 8_000, 1, 50), 106 * S);
        return status.snapshot(111 * S);
    }

    @Test
    void thePageDrawsTheLastMinutesAboveTheTables() {
        String html = StatusPage.html(withCharts());

        assertThat(html.indexOf("<section id=\"charts\"><h2>Last 5 minutes, per model</h2>")).isPositive()
                .isLessThan(html.indexOf("<section id=\"groups\">")).isLessThan(html.indexOf("<section id=\"rates\">"));
        String escaped = "&lt;img src=x onerror=&quot;document.title=&#39;owned&#39;&quot;&gt;";
        for (String chart : List.of("chart-attainment", "chart-goodput", "chart-p99")) {
            String svg = html.substring(html.indexOf("<svg class=\"chart\" id=\"" + chart + "\""));
            svg = svg.substring(0, svg.indexOf("</svg>"));
            // A line of two points per model, mlp's in the first colour (its name comes first).
            assertThat(svg).containsPattern("data-model=\"" + java.util.regex.Pattern.quote(escaped) + "\" stroke=\"#4e79a7\"[^>]*><polyline points=\"[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+\"")
                    .containsPattern("data-model=\"mlp\" stroke=\"#f28e2b\"[^>]*><polyline points=\"[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+\"");
            assertThat(svg).contains(">mlp<tspan");
        }
        // The markup model's attainment went from 100 % to 0 % (its second result was late); its name, 44
        // characters, is cut in the legend and whole in its tooltip. Both share one SLO of 50 ms.
        assertThat(html).contains("<title>" + escaped + "</title>&lt;img src=x onerror=&quot;document.title=&#39;own\u2026<tspan fill=\"#777\">  0.0%</tspan>").contains(">SLO 50 ms</text>")
                .contains("<line class=\"reference\"");
        assertThat(html).doesNotContain("<img");
    }

    @Test
    void aLinePerObjectiveNamingItsModels() {
        ServingStatus status = new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"),
                new ServingPlan(2, "clockwork", PolicyParams.NONE), 100 * S, 10, 20);
        status.result(result("a", ResultStatus.OK, 101 * S, 20_000, 1, 30), 101 * S);
        status.result(result("b", ResultStatus.OK, 101 * S, 20_000, 1, 50), 101 * S);
        status.result(result("c", ResultStatus.OK, 101 * S, 20_000, 1, 50), 101 * S);

        String html = StatusPage.html(status.snapshot(106 * S));

        // a's in a's colour, the first; b's and c's in grey.
        assertThat(html).containsPattern("<line class=\"reference\"[^>]*stroke=\"#4e79a7\"")
                .containsPattern("<line class=\"reference\"[^>]*stroke=\"#555\"")
                .contains(">SLO 30 ms: a</text>").contains(">SLO 50 ms: b, c</text>");
    }

    @Test
    void beforeTheFirstBucketIsOverTheChartsSaySo() {
        assertThat(StatusPage.html(snapshot())).contains(">the first 5 s are not over yet</text>");
    }

    @Test
    void theJsonCarriesTheSeriesTheChartsDraw() throws Exception {
        JsonNode root = new ObjectMapper().readTree(StatusJson.of(withCharts()));

        JsonNode series = root.get("series");
        assertThat(series.get("bucketSeconds").asInt()).isEqualTo(5);
        assertThat(series.get("buckets").asInt()).isEqualTo(60);
        assertThat(series.get("endsAtMicros").toString()).isEqualTo("[" + 105 * S + "," + 110 * S + "]");
        JsonNode markup = series.at("/models/0");
        assertThat(markup.get("model").asText()).isEqualTo(MODEL);
        assertThat(markup.get("sloMs").asDouble()).isEqualTo(50.0);
        assertThat(markup.get("sloAttainment").toString()).isEqualTo("[1.0,0.0]");
        assertThat(markup.get("goodputPerSecond").toString()).isEqualTo("[0.2,0.0]");
        assertThat(markup.get("results").toString()).isEqualTo("[1,1]");
        assertThat(markup.at("/p99Ms/1").asDouble()).isBetween(59.9, 60.1);
    }

    @Test
    void everyNameIsEscapedInThePage() {
        String html = StatusPage.html(snapshot());

        assertThat(html).doesNotContain("<img").doesNotContain("<b id=group>").doesNotContain("<script>alert");
        assertThat(html).contains("&lt;img src=x onerror=&quot;document.title=&#39;owned&#39;&quot;&gt;")
                .contains("&quot;&gt;&lt;b id=group&gt;g")
                .contains("unknown scheduling policy &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;");
        // The one script is the page's own.
        assertThat(html.split("<script", -1)).hasSize(2);
    }

    @Test
    void thePageShowsThePlanTheDecisionsAndTheRates() {
        String html = StatusPage.html(snapshot(), "n0nce");

        assertThat(html).contains("<body data-rendered-by=\"server\">")
                .contains("<script nonce=\"n0nce\">const REFRESH_MS = " + StatusPage.REFRESH_MS)
                .contains("<tr data-device=\"0\"><td class=\"n\">0</td><td>&lt;img src=x onerror=&quot;document.title=&#39;owned&#39;&quot;&gt;, mlp</td>")
                .contains("<td class=\"status\">REJECTED</td>")
                .contains("<td>place group &quot;&gt;&lt;b id=group&gt;g: device 0 = &lt;img")
                .contains("<td class=\"n\">100.00%</td>")
                .contains("<section id=\"loads\"><h2>Last model loads</h2>")
                .contains("<td class=\"n\">0</td><td>&lt;img src=x onerror=&quot;document.title=&#39;owned&#39;&quot;&gt;</td><td class=\"status\">load</td>"
                        + "<td class=\"reason\">the placement lists it</td>")
                .contains("<td class=\"n\">1 (&lt;img")
                .contains("as of 00:01:42.000 UTC, plan version 2");
    }

    @Test
    void theJsonHoldsTheNamesAsTheyAreAndNoNumberThatJavaScriptCannotRead() throws Exception {
        String json = StatusJson.of(snapshot());
        JsonNode root = new ObjectMapper().readTree(json);

        assertThat(json).doesNotContain("NaN").doesNotContain("Infinity");
        JsonNode group = root.at("/plan/groups/0");
        assertThat(group.get("name").asText()).isEqualTo(GROUP);
        assertThat(group.at("/devices/0/models/0").asText()).isEqualTo(MODEL);
        assertThat(root.at("/plan/routing").get(MODEL).asText()).isEqualTo(GROUP);
        assertThat(root.at("/decisions/0/status").asText()).isEqualTo("REJECTED");
        assertThat(root.at("/decisions/0/reason").asText()).isEqualTo("unknown scheduling policy '" + POLICY + "'");
        assertThat(root.at("/rates/0/models/0/sloAttainment").asDouble()).isEqualTo(1.0);
        assertThat(root.at("/rates/0/models/0/p99Ms").isNumber()).isTrue();
        assertThat(root.at("/rates/0/all/p99Ms").isNumber()).isTrue();
        assertThat(root.at("/rates/1/seconds").asDouble()).isEqualTo(2.0);
    }

    @Test
    void thePipelinesAreShownWithTheirNamesAsText() throws Exception {
        ServingStatus status = new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"),
                new ServingPlan(2, "clockwork", PolicyParams.NONE), 100 * S, 10, 20);
        assertThat(StatusPage.html(status.snapshot(101 * S))).contains("<section id=\"pipelines\"><h2>Pipelines</h2><p class=\"muted\">none</p></section>");
        io.kairos.core.pipeline.PipelineSpec spec = new io.kairos.core.pipeline.PipelineSpec("cascade", 80_000,
                List.of(new io.kairos.core.pipeline.Stage("fast", "<b>m1</b>"), new io.kairos.core.pipeline.Stage("slow", "m2")),
                List.of(new io.kairos.core.pipeline.Edge("fast", "slow", 0.3)));
        status.decision(decision("user", 1, io.kairos.wire.plan.PipelineActions.action(spec)), 101 * S);
        StatusSnapshot s = status.snapshot(102 * S);

        assertThat(StatusPage.html(s)).contains("<tr data-pipeline=\"cascade\"><td>cascade</td><td class=\"n\">80</td>"
                + "<td>fast (&lt;b&gt;m1&lt;/b&gt;), slow (m2)</td><td>fast -&gt; slow (p 0.3)</td></tr>");
        JsonNode json = new ObjectMapper().readTree(StatusJson.of(s)).get("plan").get("pipelines").get(0);
        assertThat(json.get("id").asText()).isEqualTo("cascade");
        assertThat(json.get("sloP99Ms").asDouble()).isEqualTo(80.0);
        assertThat(json.get("stages").get(0).asText()).isEqualTo("fast (<b>m1</b>)");
    }
}
