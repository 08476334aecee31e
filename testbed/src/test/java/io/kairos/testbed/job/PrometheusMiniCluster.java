package io.kairos.testbed.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Flink mini-cluster with the Prometheus reporter that infra/cluster and the containers run, on
 * a free port, and its scrape: for the tests that read the job's metrics as Prometheus does.
 */
final class PrometheusMiniCluster {
    /** The prefix of every Kairos operator metric as the reporter names it. */
    static final String PREFIX = "flink_taskmanager_job_task_operator_kairos_";

    private PrometheusMiniCluster() {}

    /** A mini-cluster of one TaskManager with {@code slots} slots, reporting on {@code port}. */
    static MiniClusterExtension extension(int port, int slots) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(slots)
                        .setConfiguration(Configuration.fromMap(Map.of(
                                "metrics.reporter.prom.factory.class", "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
                                "metrics.reporter.prom.port", Integer.toString(port))))
                        .build());
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The reporter's page on {@code port}; fails the test on any answer but 200. */
    static String scrape(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }
}
