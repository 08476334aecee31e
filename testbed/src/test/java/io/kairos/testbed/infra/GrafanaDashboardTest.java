package io.kairos.testbed.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard ({@code infra/grafana/dashboards/kairos.json}) and its provisioning cannot
 * be started here (no Docker), so this test reads them: the JSON parses, every query names a
 * metric the serving job registers, used as its kind allows (a rate of a counter, a gauge as it
 * is, a histogram by quantile or count), and the compose file, Prometheus and Grafana's
 * provisioning agree on where each finds the other. The job's metrics are read from the code
 * that registers them, the {@code kairos} group of the Flink functions, so a renamed metric
 * fails here rather than as an empty panel.
 */
public class GrafanaDashboardTest {

    private static final Path ROOT = repositoryRoot();
    private static final Path INFRA = ROOT.resolve("infra");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How Flink's Prometheus reporter names an operator metric of the group {@code kairos}. */
    private static final String PREFIX = "flink_taskmanager_job_task_operator_kairos_";

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("infra"))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no infra/ folder above " + Path.of("").toAbsolutePath());
        return p;
    }

    /** Metric name to kind (counter, gauge, histogram, meter), from the Flink functions' sources. */
    public static Map<String, String> registeredMetrics() throws IOException {
        Pattern registration = Pattern.compile("\\.(counter|gauge|histogram|meter)\\(\\s*\"([A-Za-z][A-Za-z0-9]*)\"");
        Map<String, String> metrics = new TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT.resolve("operators/flink/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String source = Files.readString(f);
                if (!source.contains("addGroup(\"kairos\")")) continue;
                Matcher m = registration.matcher(source);
                while (m.find()) metrics.put(m.group(2), m.group(1));
            }
        }
        return metrics;
    }

    private static JsonNode dashboard() throws IOException {
        return JSON.readTree(INFRA.resolve("grafana/dashboards/kairos.json").toFile());
    }

    /** Every panel, those inside rows included. */
    private static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            all.add(p);
            for (JsonNode inner : p.path("panels")) all.add(inner);
        }
        return all;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(Path file) throws IOException {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
    }

    @Test
    void theMetricsOfTheJobAreFoundInItsCode() throws Exception {
        // The derivation itself: metrics the monitoring page documents, one of each kind.
        assertThat(registeredMetrics()).containsEntry("arrivals", "counter").containsEntry("sloAttainment", "gauge")
                .containsEntry("batchSize", "histogram").containsEntry("deviceBusyMicros", "counter")
                .containsEntry("decisionsApplied", "counter").containsEntry("coldStarts", "counter");
    }

    @Test
    void theMonitoringPagesTableOfMetricsNamesEveryMetricTheJobRegisters() throws Exception {
        String page = Files.readString(ROOT.resolve("docs/operations/monitoring.md"));
        int start = page.indexOf("| operator | metrics |");
        assertThat(start).as("docs/operations/monitoring.md's table of metrics").isPositive();
        String table = page.substring(start, page.indexOf("\n\n", start));
        Set<String> documented = new TreeSet<>();
        Matcher m = Pattern.compile("`([a-z][A-Za-z]+)`").matcher(table);
        while (m.find()) documented.add(m.group(1));
        assertThat(documented).isEqualTo(registeredMetrics().keySet());
    }

    @Test
    void everyQueryNamesAMetricTheJobRegistersUsedAsItsKindAllows() throws Exception {
        Map<String, String> registered = registeredMetrics();
        Pattern metric = Pattern.compile("(rate\\(|increase\\()?\\b(flink_[A-Za-z0-9_]+)(\\{[^}]*\\})?");
        List<String> used = new ArrayList<>();
        int queries = 0;
        for (JsonNode panel : panels(dashboard())) {
            if (panel.path("type").asText().equals("row")) continue;
            assertThat(panel.path("targets")).as("panel '%s' has queries", panel.path("title").asText()).isNotEmpty();
            assertThat(panel.path("description").asText()).as("panel '%s' says what it shows", panel.path("title").asText()).isNotBlank();
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                queries++;
                Matcher m = metric.matcher(expr);
                int found = 0;
                while (m.find()) {
                    found++;
                    String full = m.group(2);
                    assertThat(full).as("a metric of the job in '%s'", expr).startsWith(PREFIX);
                    String name = full.substring(PREFIX.length());
                    // A per-model metric sits under the group "model", its name a label: ..._kairos_model_coldStarts{model="mlp"}.
                    if (name.startsWith("model_")) name = name.substring("model_".length());
                    boolean count = name.endsWith("_count");
                    if (count) name = name.substring(0, name.length() - "_count".length());
                    String kind = registered.get(name);
                    assertThat(kind).as("'%s' in '%s' is a metric the job registers (%s)", name, expr, registered.keySet()).isNotNull();
                    boolean rated = m.group(1) != null;
                    String labels = m.group(3) == null ? "" : m.group(3);
                    switch (kind) {
                        case "counter", "meter" -> assertThat(count).as(expr).isFalse();
                        case "gauge" -> assertThat(rated).as("a gauge is not a rate: %s", expr).isFalse();
                        case "histogram" -> assertThat(count ? rated : labels.contains("quantile=")).as("a histogram by quantile, or the rate of its count: %s", expr).isTrue();
                        default -> throw new AssertionError(kind);
                    }
                    used.add(name);
                }
                assertThat(found).as("'%s' names a metric", expr).isPositive();
            }
        }
        assertThat(queries).isGreaterThan(10);
        // What the issue asks the dashboard to show.
        assertThat(used).contains("arrivals", "ok", "sloAttainment", "requestsShed", "droppedOnArrival", "batchSize",
                "deviceBusyMicros", "coldStarts", "decisionsApplied", "decisionsRejected");
    }

    @Test
    void thePanelsUseTheProvisionedDataSourceAndGrafanaLoadsTheDashboardFromWhereComposeMountsIt() throws Exception {
        JsonNode dashboard = dashboard();
        Map<String, Object> datasources = yaml(INFRA.resolve("grafana/provisioning/datasources/prometheus.yml"));
        @SuppressWarnings("unchecked")
        Map<String, Object> prometheus = ((List<Map<String, Object>>) datasources.get("datasources")).get(0);
        for (JsonNode panel : panels(dashboard)) {
            if (panel.path("type").asText().equals("row")) continue;
            assertThat(panel.path("datasource").path("uid").asText()).as("panel '%s'", panel.path("title").asText()).isEqualTo(prometheus.get("uid"));
            for (JsonNode t : panel.path("targets")) assertThat(t.path("datasource").path("uid").asText()).isEqualTo(prometheus.get("uid"));
        }
        assertThat(dashboard.path("uid").asText()).isNotBlank();

        Map<String, Object> compose = yaml(INFRA.resolve("docker-compose.yml"));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        assertThat(services).containsKeys("prometheus", "grafana", "jobmanager", "taskmanager");
        @SuppressWarnings("unchecked")
        List<String> grafanaVolumes = (List<String>) services.get("grafana").get("volumes");
        assertThat(grafanaVolumes).contains("./grafana/provisioning:/etc/grafana/provisioning:ro", "./grafana/dashboards:/var/lib/grafana/dashboards:ro");
        Map<String, Object> providers = yaml(INFRA.resolve("grafana/provisioning/dashboards/kairos.yml"));
        assertThat(providers.toString()).contains("path=/var/lib/grafana/dashboards");
        // The data source's URL is the compose service and Prometheus' port.
        assertThat(prometheus.get("url")).isEqualTo("http://prometheus:9090");

        // Prometheus scrapes the reporter port every Flink process of compose is configured with.
        @SuppressWarnings("unchecked")
        List<String> prometheusVolumes = (List<String>) services.get("prometheus").get("volumes");
        assertThat(prometheusVolumes).contains("./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
        String flinkConfig = String.valueOf(((Map<?, ?>) services.get("jobmanager").get("environment")).get("FLINK_PROPERTIES"));
        Matcher port = Pattern.compile("metrics\\.reporter\\.prom\\.port: (\\d+)").matcher(flinkConfig);
        assertThat(port.find()).as("the compose file's Flink configuration names the reporter's port").isTrue();
        assertThat(yaml(INFRA.resolve("prometheus/prometheus.yml")).toString())
                .contains("jobmanager:" + port.group(1), "taskmanager:" + port.group(1));
    }
}
