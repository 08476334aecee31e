package io.kairos.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kairos.control.herd.DeviceHosts;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where Flink runs the serving job's devices: its REST API's view of the inference operator
 * ({@code uid inference}, one subtask per device slot), each subtask's TaskManager. The job is
 * the running one with that operator, or the one named.
 */
final class FlinkDeviceHosts {
    /** The inference operator's name in the job graph (ServingJob): a device slot per subtask. */
    static final String INFERENCE = "inference";

    private FlinkDeviceHosts() {}

    /**
     * @param rest  the REST address of the JobManager, e.g. {@code http://jobmanager:8081}
     * @param jobId the job, or null for the only running job with an inference operator
     * @throws IllegalArgumentException in one line: the address does not answer, no such job, or
     *         not every device subtask is running yet
     */
    static DeviceHosts read(String rest, String jobId, Duration timeout) {
        String base = rest.endsWith("/") ? rest.substring(0, rest.length() - 1) : rest;
        HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
        ObjectMapper json = new ObjectMapper();
        String job = jobId;
        JsonNode vertex;
        if (job == null) {
            // Each running job's vertices, read once: the serving one's inference vertex is kept.
            Map<String, JsonNode> serving = new LinkedHashMap<>();
            for (JsonNode j : get(http, json, base, "/jobs/overview", timeout).path("jobs")) {
                if (!"RUNNING".equals(j.path("state").asText())) continue;
                String id = j.path("jid").asText();
                JsonNode v = inference(get(http, json, base, "/jobs/" + id, timeout));
                if (v != null) serving.put(id, v);
            }
            if (serving.isEmpty()) throw new IllegalArgumentException("no running job at " + base + " has an '" + INFERENCE + "' operator: is the serving job running?");
            if (serving.size() > 1) throw new IllegalArgumentException("several running jobs at " + base + " serve (" + String.join(", ", serving.keySet()) + "): name one with --flink-job-id");
            job = serving.keySet().iterator().next();
            vertex = serving.get(job);
        } else {
            vertex = inference(get(http, json, base, "/jobs/" + job, timeout));
            if (vertex == null) throw new IllegalArgumentException("job " + job + " at " + base + " has no '" + INFERENCE + "' operator: it is not a serving job");
        }
        JsonNode details = get(http, json, base, "/jobs/" + job + "/vertices/" + vertex.path("id").asText(), timeout);
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        int running = 0;
        int subtasks = 0;
        for (JsonNode s : details.path("subtasks")) {
            subtasks++;
            String tm = s.path("taskmanager-id").asText("");
            if (!"RUNNING".equals(s.path("status").asText()) || tm.isEmpty() || tm.startsWith("(")) continue;
            running++;
            byHost.computeIfAbsent(tm, k -> new ArrayList<>()).add(s.path("subtask").asInt());
        }
        if (subtasks == 0 || running < subtasks) {
            throw new IllegalArgumentException("job " + job + ": " + running + " of " + subtasks + " device subtasks are running; try again when every one is");
        }
        return new DeviceHosts(byHost);
    }

    /** The job's vertex that holds the inference operator (its name, or one of its chain's " -> " names), or null. */
    private static JsonNode inference(JsonNode job) {
        for (JsonNode v : job.path("vertices")) {
            for (String part : v.path("name").asText().split(" -> ")) {
                if (part.trim().equals(INFERENCE)) return v;
            }
        }
        return null;
    }

    private static JsonNode get(HttpClient http, ObjectMapper json, String base, String path, Duration timeout) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IllegalArgumentException("Flink's REST API at " + base + " answered " + r.statusCode() + " to GET " + path);
            return json.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalArgumentException("Flink's REST API at " + base + " did not answer GET " + path + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException("interrupted reading Flink's REST API at " + base);
        }
    }
}
