package io.kairos.testbed.job;

import io.kairos.control.DecisionPublisher;
import io.kairos.control.status.ServingHistory;
import io.kairos.core.model.ModelCatalog;
import io.kairos.jobs.config.ServingConfig;
import io.kairos.jobs.ServingJob;
import io.kairos.jobs.cli.Kairos;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DecisionOutcome;
import io.kairos.schema.DecisionStatus;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.SetPlacement;
import io.kairos.testbed.SharedBroker;
import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The status page against the running job, as a browser shows it: {@code kairos control status}
 * serves it while the job runs on the embedded broker and a Flink mini-cluster; a placement that
 * the job applies and one it rejects show up in headless Chromium once the page's script has
 * rendered them from {@code /api/status}, and in the page as the server renders it; a model name
 * that is markup shows as text in both. Results in two buckets of the charts draw a line of two
 * points per model in each chart; a screenshot of the page is left in
 * {@code target/status-page.png}.
 */
class StatusPageIntegrationTest {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    /** A model name that runs a script if the page ever takes it for markup. */
    private static final String HOSTILE_MODEL = "<img src=x onerror=\"document.body.setAttribute('data-owned','yes')\">";
    private static final String NO_DEVICE_7 = "device 7 does not exist: the job has devices 0..1";
    private static final List<String> SERVED = List.of("mlp", "resnet50");
    private static final List<String> CHARTS = List.of("chart-attainment", "chart-goodput", "chart-p99");
    static final Path SCREENSHOT = Path.of("target", "status-page.png");

    @Test
    void aPlacementAndARejectionShowUpOnThePageInABrowser(@TempDir Path profiles) throws Exception {
        HeadlessChromium chromium = HeadlessChromium.find(profiles).orElse(null);
        assumeTrue(chromium != null, "chromium is not installed (apt-get install chromium): the status page is not tested in a browser");

        EmbeddedKafkaBroker broker = SharedBroker.get();
        ServingConfig config = TestConfigs.onBroker(broker, "status-page-", c -> {});
        StringWriter commandOut = new StringWriter();
        StringWriter commandErr = new StringWriter();
        Thread page = new Thread(() -> Kairos.execute(Kairos.commandLine(new PrintWriter(commandOut, true), new PrintWriter(commandErr, true)),
                "control", "status", "--http", "0", "--bootstrap-servers", config.bootstrapServers,
                "--control-topic", config.controlTopic, "--outcomes-topic", config.outcomesTopic,
                "--results-topic", config.resultsTopic, "--telemetry-topic", config.telemetryTopic, "--devices", "2"), "status-page");
        Configuration flink = new Configuration();
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
        JobClient job = ServingJob.onKafka(config, CATALOG).start(StreamExecutionEnvironment.getExecutionEnvironment(flink));
        page.start();
        try (TopicClient kafka = new TopicClient(broker.bootstrapServers());
             DecisionPublisher planner = new DecisionPublisher(config.bootstrapServers, config.controlTopic, config.outcomesTopic, "planner")) {
            String url = "http://127.0.0.1:" + awaitPort(commandOut, commandErr) + "/";

            // The job's plan changes: group "vision" gets device 1, with resnet50 and a model whose name is markup, and resnet50's requests.
            SetPlacement vision = SetPlacement.newBuilder().setGroup("vision").setDevices(List.of(
                    DevicePlacement.newBuilder().setDevice(1).setModels(List.of("resnet50", HOSTILE_MODEL)).build())).build();
            assertThat(decide(planner, vision).getStatus()).isEqualTo(DecisionStatus.APPLIED);
            assertThat(decide(planner, AssignGroup.newBuilder().setModel("resnet50").setGroup("vision").build()).getStatus())
                    .isEqualTo(DecisionStatus.APPLIED);
            // ... and a placement it rejects.
            SetPlacement bad = SetPlacement.newBuilder().setGroup("vision").setDevices(List.of(
                    DevicePlacement.newBuilder().setDevice(7).setModels(List.of("mlp")).build())).build();
            DecisionOutcome rejected = decide(planner, bad);
            assertThat(rejected.getStatus()).isEqualTo(DecisionStatus.REJECTED);
            assertThat(rejected.getReason()).isEqualTo(NO_DEVICE_7);
            // Two waves of requests a bucket of the charts apart: each model has results in two buckets.
            serve(kafka, config, SERVED, 12, "page-1-");
            Thread.sleep((ServingHistory.BUCKET_SECONDS + 1) * 1000L);
            serve(kafka, config, SERVED, 12, "page-2-");

            // With the page's script: rendered in the browser from /api/status (the second bucket is
            // drawn once it is over, up to 5 s after its last result).
            String scripted = awaitDom(chromium, url, dom -> dom.contains("data-rendered-by=\"script\"") && dom.contains(NO_DEVICE_7)
                    && dom.contains("<td>resnet50</td><td class=\"n\">12</td>") && chartsDrawEveryServedModel(dom));
            // A browser's DOM writes the quotes of a text as they are.
            assertShowsThePlanAndTheVerdicts(scripted, HOSTILE_MODEL.replace("<", "&lt;").replace(">", "&gt;"));
            assertThat(scripted).contains("refreshed from /api/status");
            assertDrawsTheCharts(scripted);
            chromium.screenshot(url, 3000, 1440, 1500, SCREENSHOT);
            assertThat(Files.size(SCREENSHOT)).isPositive();
            // The page as served, for a browser without scripts (headless Chromium cannot dump the
            // DOM with scripts off): the same sections, rendered by the server.
            HttpResponse<String> served = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(served.body()).contains("data-rendered-by=\"server\"");
            assertDrawsTheCharts(served.body());
            assertShowsThePlanAndTheVerdicts(served.body(), HOSTILE_MODEL.replace("<", "&lt;").replace(">", "&gt;")
                    .replace("\"", "&quot;").replace("'", "&#39;"));
        } finally {
            page.interrupt();
            page.join(10_000);
            job.cancel().get();
        }
        assertThat(commandOut.toString()).contains("status page stopped");
    }

    private static void assertShowsThePlanAndTheVerdicts(String dom, String hostileModelAsText) {
        // The placement: group vision, device 1, its models (the hostile one as text), resnet50 routed there.
        assertThat(dom).contains("<h3>group vision</h3>")
                .contains("<td class=\"n\">1</td><td>" + hostileModelAsText + ", resnet50</td>")
                .contains("models: resnet50</p>");
        // The verdicts: both applied, and the rejection with its reason.
        assertThat(dom).contains("<td class=\"status\">APPLIED</td>")
                .contains("<td class=\"status\">REJECTED</td><td class=\"reason\">" + NO_DEVICE_7 + "</td>")
                .contains("place group vision: device 7 = mlp");
        // Live figures for both models: since the page started, the 12 results of each.
        assertThat(dom).contains("<td>mlp</td><td class=\"n\">12</td>").contains("<td>resnet50</td><td class=\"n\">12</td>");
        // The markup never became an element.
        assertThat(dom).doesNotContain("<img").doesNotContain("data-owned=");
    }

    /** Each chart draws a line of at least two points for each served model, and names it in its legend. */
    private static void assertDrawsTheCharts(String dom) {
        assertThat(dom).contains("<section id=\"charts\"><h2>Last 5 minutes, per model</h2>");
        for (String chart : CHARTS) {
            String svg = chart(dom, chart);
            assertThat(svg).as(chart).isNotNull();
            for (String model : SERVED) {
                assertThat(points(svg, model)).as(model + " in " + chart).isGreaterThanOrEqualTo(2);
                assertThat(svg).as("the legend of " + chart).contains(">" + model + "<tspan");
            }
        }
        // Every request had an SLO of 5 s: one line, far above the latencies.
        assertThat(chart(dom, "chart-p99")).contains(">SLO 5000 ms<tspan");
    }

    private static boolean chartsDrawEveryServedModel(String dom) {
        for (String chart : CHARTS) {
            String svg = chart(dom, chart);
            if (svg == null) return false;
            for (String model : SERVED) if (points(svg, model) < 2) return false;
        }
        return true;
    }

    /** The SVG of the chart {@code id} in {@code dom}; null if there is none. */
    private static String chart(String dom, String id) {
        int start = dom.indexOf("<svg class=\"chart\" id=\"" + id + "\"");
        return start < 0 ? null : dom.substring(start, dom.indexOf("</svg>", start));
    }

    /** How many points the line of {@code model} has in {@code svg}; -1 without a line. */
    private static int points(String svg, String model) {
        Matcher m = Pattern.compile("data-model=\"" + Pattern.quote(model) + "\"[^>]*><polyline points=\"([^\"]*)\"").matcher(svg);
        return !m.find() ? -1 : m.group(1).isBlank() ? 0 : m.group(1).trim().split(" ").length;
    }

    /** The DOM once {@code done} holds of it, tried for up to 30 s. */
    private static String awaitDom(HeadlessChromium chromium, String url, Predicate<String> done) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String dom = chromium.dumpDom(url, 3000);
        while (!done.test(dom) && System.nanoTime() < until) {
            Thread.sleep(500);
            dom = chromium.dumpDom(url, 3000);
        }
        return dom;
    }

    private static int awaitPort(StringWriter out, StringWriter err) throws InterruptedException {
        Pattern started = Pattern.compile("status page: http://127\\.0\\.0\\.1:(\\d+)/");
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < until) {
            Matcher m = started.matcher(out.toString());
            if (m.find()) return Integer.parseInt(m.group(1));
            if (!err.toString().isEmpty()) throw new AssertionError("kairos control status failed: " + err);
            Thread.sleep(50);
        }
        throw new AssertionError("kairos control status did not start within 30 s: " + out + err);
    }

    private static DecisionOutcome decide(DecisionPublisher publisher, Object action) {
        return publisher.awaitOutcome(publisher.publish(action), Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no outcome for " + action));
    }

    private static void serve(TopicClient kafka, ServingConfig config, List<String> models, int n, String prefix) {
        for (int i = 0; i < n; i++) {
            kafka.send(config.requestsTopic, InferenceRequest.class, ServingJobIntegrationTest.request(prefix + i, models.get(i % models.size()), 5_000));
        }
        kafka.flush();
        assertThat(kafka.readUntil(config.resultsTopic, InferenceResult.class,
                l -> l.stream().filter(r -> r.getRequestId().startsWith(prefix)).count() >= n, Duration.ofSeconds(60))
                .stream().filter(r -> r.getRequestId().startsWith(prefix))).hasSize(n);
    }
}
