package io.kairos.control.status;

import io.kairos.core.plan.ServingPlan;
import io.kairos.core.scheduling.PolicyParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.kairos.control.status.Records.decision;
import static io.kairos.control.status.Records.placement;
import static org.assertj.core.api.Assertions.assertThat;

class StatusServerTest {
    private final ServingStatus status = new ServingStatus(new ServingStatus.Topics("c", "o", "r", "t"),
            new ServingPlan(2, "clockwork", PolicyParams.NONE), 0, 10, 20);
    private final AtomicInteger snapshots = new AtomicInteger();
    private final HttpClient client = HttpClient.newHttpClient();
    private StatusServer server;

    private HttpResponse<String> request(String method, String path) throws Exception {
        if (server == null) {
            server = new StatusServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), () -> {
                snapshots.incrementAndGet();
                return status.snapshot(5_000_000);
            });
        }
        URI uri = URI.create("http://127.0.0.1:" + server.address().getPort() + path);
        return client.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void servesThePageWithAFreshSnapshotAndAScriptOnlyItsNonceLetsRun() throws Exception {
        HttpResponse<String> first = request("GET", "/");
        status.decision(decision("planner", 1, placement("vision", 1, List.of("mlp"))), 1);
        HttpResponse<String> second = request("GET", "/");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(first.body()).doesNotContain("group vision");
        assertThat(second.body()).contains("<h3>group vision</h3>");
        assertThat(snapshots).hasValue(2);

        String policy = second.headers().firstValue("Content-Security-Policy").orElseThrow();
        Matcher nonce = Pattern.compile("script-src 'nonce-([A-Za-z0-9+/=]{24})'").matcher(policy);
        assertThat(nonce.find()).as(policy).isTrue();
        assertThat(second.body()).contains("<script nonce=\"" + nonce.group(1) + "\">");
        assertThat(first.headers().firstValue("Content-Security-Policy").orElseThrow()).as("a nonce per response").isNotEqualTo(policy);
    }

    @Test
    void servesTheSnapshotAsJson() throws Exception {
        status.decision(decision("planner", 1, placement("vision", 1, List.of("mlp"))), 1);

        HttpResponse<String> r = request("GET", "/api/status");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        assertThat(r.body()).startsWith("{\"takenAtMicros\":5000000,").contains("\"name\":\"vision\"");
    }

    @Test
    void answersWhatItDoesNotServeWithAStatusThatSaysWhy() throws Exception {
        assertThat(request("GET", "/favicon.ico").statusCode()).isEqualTo(404);
        assertThat(request("GET", "/api/status/x").statusCode()).isEqualTo(404);
        HttpResponse<String> post = request("POST", "/api/status");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        HttpResponse<String> head = request("HEAD", "/");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }
}
