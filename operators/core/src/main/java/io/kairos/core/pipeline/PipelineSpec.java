package io.kairos.core.pipeline;

import io.kairos.core.api.Internal;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A pipeline of models served under one end-to-end SLO (InferLine): a directed acyclic graph of
 * stages, each served by a model of the catalog, with one entry stage, the one no edge leads to.
 *
 * <pre>{@code
 * {"pipeline": "cascade", "slo_p99_ms": 80,
 *  "stages": [{"name": "fast", "model": "m1"}, {"name": "slow", "model": "m2", "budget_ms": 40}],
 *  "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}}]}
 * }</pre>
 *
 * <p><b>Each request follows one path.</b> It enters at the entry stage; once a stage has its
 * output, at most one of the stage's outgoing edges is taken ({@link #next}): the first edge, in
 * the order written, whose {@link StageCondition} holds on the output; else one of the edges
 * without a condition, by their probabilities, with a draw seeded from the request id and the
 * stage (a replayed request takes the same path); else none, and the pipeline ends at that stage
 * with its output. The probabilities of a stage's outgoing edges add up to at most 1, the rest is
 * the share that ends there. A conditional edge's probability is the share of requests its
 * condition is expected to take, what a planner plans with; the draw among the edges without a
 * condition is made over the requests that no condition took, each edge's chance scaled by
 * {@code 1 / (1 - the conditional edges' probabilities)}, so that every edge's probability stays
 * its share of all requests leaving the stage when the conditions hold as often as planned.
 * A stage may be reached along several paths (a DAG, not only a tree).
 *
 * <p>A stage's input is the previous stage's output, or with {@code "input": "request"} the
 * pipeline request's own input: the slow model of a cascade reads the image the fast one read.
 *
 * <p>The SLO ({@code slo_p99_ms}) is the 99th percentile the pipeline's end-to-end latency is
 * planned for; it must not be below the pipeline's service time ({@link #longestPathServiceMicros}),
 * which {@link #validate} checks with the catalog's batch-1 latencies on each model's fastest hardware type.
 *
 * <p>Every problem is refused with one line naming the field ({@link PipelineException}). Immutable;
 * serializable so that Flink can ship it inside functions.
 */
@Internal
public final class PipelineSpec implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Ids and stage names, in UTF-8 bytes: the request id limit, since a pipeline id is echoed on results. */
    public static final int MAX_NAME_BYTES = 256;
    /** The most stages a pipeline has: every one is a record of its requests' results. */
    public static final int MAX_STAGES = 64;
    /** Slack for probabilities written in decimal (0.1 + 0.2 + 0.7 adds up to 1.0000000000000002). */
    private static final double PROBABILITY_SLACK = 1e-9;

    private final String id;
    private final long sloP99Micros;
    private final List<Stage> stages;
    private final List<Edge> edges;
    private final Map<String, Stage> byName;
    private final Map<String, List<Edge>> outgoing;
    private final List<String> order; // topological, entry first
    private final Stage entry;

    /**
     * @throws PipelineException for a bad id or stage name, an SLO that is not a positive number,
     *         no stage, a stage named twice, an edge from or to an unknown stage or named twice, a
     *         probability outside [0, 1], a stage whose edges' probabilities add up to more than 1,
     *         a cycle, not exactly one entry stage, or more than {@link #MAX_STAGES} stages
     */
    public PipelineSpec(String id, long sloP99Micros, List<Stage> stages, List<Edge> edges) {
        String at = "pipeline '" + id + "': ";
        String bad = badName(id);
        if (bad != null) throw new PipelineException("field 'pipeline': the id " + bad);
        if (sloP99Micros <= 0) throw new PipelineException(at + "field 'slo_p99_ms' must be a positive number of milliseconds, got " + sloP99Micros / 1000.0);
        if (stages.isEmpty()) throw new PipelineException(at + "field 'stages' must name at least one stage");
        if (stages.size() > MAX_STAGES) throw new PipelineException(at + "field 'stages' has " + stages.size() + " stages, more than the " + MAX_STAGES + " a pipeline may have");
        Map<String, Stage> names = new LinkedHashMap<>();
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            bad = badName(s.name());
            if (bad != null) throw new PipelineException(at + "field 'stages[" + i + "].name': the name " + bad);
            if (s.model() == null || s.model().isBlank()) throw new PipelineException(at + "field 'stages[" + i + "].model' must name a model");
            if (names.putIfAbsent(s.name(), s) != null) throw new PipelineException(at + "field 'stages[" + i + "].name': stage '" + s.name() + "' is named twice");
        }
        Map<String, List<Edge>> out = new HashMap<>();
        Set<String> reached = new HashSet<>();
        Set<List<String>> pairs = new HashSet<>();
        for (int i = 0; i < edges.size(); i++) {
            Edge e = edges.get(i);
            String field = "field 'edges[" + i + "]";
            if (!names.containsKey(e.from())) throw new PipelineException(at + field + ".from': no stage '" + e.from() + "'; the stages are " + names.keySet());
            if (!names.containsKey(e.to())) throw new PipelineException(at + field + ".to': no stage '" + e.to() + "'; the stages are " + names.keySet());
            if (!(e.probability() >= 0 && e.probability() <= 1)) {
                throw new PipelineException(at + field + ".probability' must be in [0, 1], got " + e.probability());
            }
            if (!pairs.add(List.of(e.from(), e.to()))) throw new PipelineException(at + field + "': a second edge from '" + e.from() + "' to '" + e.to() + "'");
            out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e);
            reached.add(e.to());
        }
        for (Map.Entry<String, List<Edge>> from : out.entrySet()) {
            double sum = 0;
            for (Edge e : from.getValue()) sum += e.probability();
            if (sum > 1 + PROBABILITY_SLACK) {
                throw new PipelineException(at + "field 'edges': the probabilities of the edges from stage '" + from.getKey() + "' add up to "
                        + round(sum) + ", more than 1");
            }
        }
        List<String> cycle = cycle(names.keySet(), out);
        if (cycle != null) throw new PipelineException(at + "field 'edges': the edges form a cycle: " + String.join(" -> ", cycle));
        List<String> entries = new ArrayList<>();
        for (String s : names.keySet()) if (!reached.contains(s)) entries.add(s);
        // A DAG has at least one stage that no edge reaches; more than one would be requests that enter a pipeline twice.
        if (entries.size() != 1) {
            throw new PipelineException(at + "field 'edges': a pipeline has one entry stage, the one no edge leads to; here " + entries.size()
                    + " are: " + entries);
        }
        this.id = id;
        this.sloP99Micros = sloP99Micros;
        this.stages = List.copyOf(stages);
        this.edges = List.copyOf(edges);
        this.byName = Collections.unmodifiableMap(names);
        Map<String, List<Edge>> frozen = new HashMap<>();
        out.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
        this.outgoing = Collections.unmodifiableMap(frozen);
        this.entry = names.get(entries.get(0));
        this.order = topologicalOrder(entries.get(0), names.keySet(), out);
    }

    /** Why {@code name} cannot name a pipeline or a stage, or null: it goes into decision keys and results. */
    public static String badName(String name) {
        if (name == null || name.isEmpty()) return "is empty";
        if (name.indexOf('/') >= 0) return "'" + name + "' contains '/'";
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) return "'" + name.strip() + "' contains a space or a control character";
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) return "is longer than " + MAX_NAME_BYTES + " bytes";
        return null;
    }

    public String id() {
        return id;
    }

    /** The end-to-end latency, microseconds, that 99 % of the pipeline's requests are planned to stay within. */
    public long sloP99Micros() {
        return sloP99Micros;
    }

    /** The stages in the order written. */
    public List<Stage> stages() {
        return stages;
    }

    /** The edges in the order written, which is the order their conditions are tried in. */
    public List<Edge> edges() {
        return edges;
    }

    /** The stage every request enters at: the one no edge leads to. */
    public Stage entry() {
        return entry;
    }

    /** Whether a stage reads the pipeline request's own input, which its requests then carry from stage to stage. */
    public boolean readsRequestInput() {
        for (Stage s : stages) if (s.readsRequestInput()) return true;
        return false;
    }

    /** The stage of that name, or null. */
    public Stage stage(String name) {
        return byName.get(name);
    }

    /** The edges leaving {@code stage}, in the order written; empty for a stage where every path ends. */
    public List<Edge> outgoing(String stage) {
        return outgoing.getOrDefault(stage, List.of());
    }

    /** The stage names in a topological order: the entry first, every stage before those its edges lead to. */
    public List<String> topologicalOrder() {
        return order;
    }

    /**
     * InferLine's scale factors: the expected number of times a request entering the pipeline
     * visits each stage (here at most once, so a share of the requests): 1 for the entry, and for
     * every other stage the sum over its incoming edges of {@code s(from) * p}. In topological
     * order. E.g. a -> b (0.5), a -> c (0.5), b -> d (1), c -> d (0.4): s = {a 1, b 0.5, c 0.5, d 0.7}.
     */
    public Map<String, Double> scaleFactors() {
        Map<String, Double> s = new LinkedHashMap<>();
        for (String stage : order) s.put(stage, 0.0);
        s.put(entry.name(), 1.0);
        for (String stage : order) {
            for (Edge e : outgoing(stage)) s.merge(e.to(), s.get(stage) * e.probability(), Double::sum);
        }
        return Collections.unmodifiableMap(s);
    }

    /**
     * The pipeline's service time: the largest sum of {@code batch1Micros} of the stages' models
     * over the paths from the entry to a stage with no outgoing edge, the latency of a request
     * alone on the slowest path, queueing aside. No SLO below it can be met. Paths of probability
     * 0 count too: they are paths a request may take.
     */
    public long longestPathServiceMicros(Function<String, Long> batch1Micros) {
        Map<String, Long> upTo = new HashMap<>();
        long longest = 0;
        for (String stage : order) {
            long before = upTo.getOrDefault(stage, 0L);
            long through = before + batch1Micros.apply(byName.get(stage).model());
            if (outgoing(stage).isEmpty()) longest = Math.max(longest, through);
            for (Edge e : outgoing(stage)) upTo.merge(e.to(), through, Math::max);
        }
        return longest;
    }

    /**
     * Checks the spec against the models a job serves: every stage's model is in the catalog, and
     * the SLO is not below the service time with the catalog's batch-1 latencies, each model on its fastest hardware type.
     *
     * @return this, for chaining
     * @throws PipelineException naming the stage's model or the SLO
     */
    public PipelineSpec validate(ModelCatalog catalog) {
        String at = "pipeline '" + id + "': ";
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            if (!catalog.contains(s.model())) {
                throw new PipelineException(at + "field 'stages[" + i + "].model': the job serves no model '" + s.model() + "'; it serves " + catalog.names());
            }
        }
        long service = longestPathServiceMicros(model -> batch1Micros(catalog.get(model)));
        if (sloP99Micros < service) {
            throw new PipelineException(at + "field 'slo_p99_ms': " + ms(sloP99Micros) + " ms is below the pipeline's service time of " + ms(service)
                    + " ms (its longest path at the models' batch-1 latencies)");
        }
        return this;
    }

    /**
     * A model's batch-1 latency on its fastest hardware type: the service time is a lower bound,
     * so a typed catalog's slow first type (a CPU) must not make an SLO that a GPU meets look
     * impossible.
     */
    private static long batch1Micros(ModelSpec model) {
        long fastest = Long.MAX_VALUE;
        for (String type : model.hardwareTypes()) fastest = Math.min(fastest, model.latencyOn(type).latencyMicros(1));
        return fastest;
    }

    /**
     * The edge a request takes after {@code stage} produced {@code output}, or null when its path
     * ends there. The first edge whose condition holds; else, among the edges without a
     * condition, one drawn by its probability with a draw that depends only on the request id and
     * the stage, so that a replayed request takes the same path.
     */
    public Edge next(String stage, float[] output, String requestId) {
        List<Edge> candidates = outgoing(stage);
        if (candidates.isEmpty()) return null;
        double conditionalShare = 0;
        for (Edge e : candidates) {
            if (!e.conditional()) continue;
            if (e.condition().holds(output)) return e;
            conditionalShare += e.probability();
        }
        double rest = 1 - conditionalShare; // the share of requests no condition takes, as planned
        if (rest <= PROBABILITY_SLACK) return null;
        double u = draw(requestId, stage) * rest;
        double cumulative = 0;
        for (Edge e : candidates) {
            if (e.conditional()) continue;
            cumulative += e.probability();
            if (u < cumulative) return e;
        }
        return null;
    }

    /**
     * A number in [0, 1) that depends only on the request id and the stage name: FNV-1a over both,
     * finished with SplitMix64's mixer, so that neighbouring ids draw far apart.
     */
    public static double draw(String requestId, String stage) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < requestId.length(); i++) h = (h ^ requestId.charAt(i)) * 0x100000001b3L;
        h = (h ^ 0xffff) * 0x100000001b3L; // a separator no char of a Java string equals alone
        for (int i = 0; i < stage.length(); i++) h = (h ^ stage.charAt(i)) * 0x100000001b3L;
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        h ^= h >>> 31;
        return (h >>> 11) * 0x1.0p-53;
    }

    // ----- JSON -----

    /** Reads a spec file; problems name the file and the field. */
    public static PipelineSpec load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new PipelineException(file + ": cannot read the pipeline spec (" + e.getMessage() + ")");
        }
        return parse(text, file.toString());
    }

    /** Reads a spec from its JSON; problems name {@code source} and the field. */
    public static PipelineSpec parse(String json, String source) {
        try {
            return read(json);
        } catch (PipelineException e) {
            throw new PipelineException(source + ": " + e.getMessage());
        }
    }

    private static PipelineSpec read(String json) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (IOException e) {
            throw new PipelineException("not valid JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        if (root == null || !root.isObject()) throw new PipelineException("a pipeline spec is a JSON object with 'pipeline', 'slo_p99_ms', 'stages' and 'edges'");
        onlyFields(root, "", "pipeline", "slo_p99_ms", "stages", "edges");
        String id = text(root, "pipeline", "");
        long slo = millis(root, "slo_p99_ms", "", true);
        JsonNode stageList = root.get("stages");
        if (stageList == null || !stageList.isArray()) throw new PipelineException("field 'stages' must be an array of {\"name\", \"model\"[, \"budget_ms\", \"input\"]}");
        List<Stage> stages = new ArrayList<>();
        for (int i = 0; i < stageList.size(); i++) {
            String at = "stages[" + i + "].";
            JsonNode s = stageList.get(i);
            if (!s.isObject()) throw new PipelineException("field 'stages[" + i + "]' must be an object {\"name\", \"model\"[, \"budget_ms\", \"input\"]}");
            onlyFields(s, at, "name", "model", "budget_ms", "input");
            stages.add(new Stage(text(s, "name", at), text(s, "model", at), s.has("budget_ms") ? millis(s, "budget_ms", at, true) : 0,
                    readsRequestInput(s.get("input"), at + "input")));
        }
        JsonNode edgeList = root.get("edges");
        List<Edge> edges = new ArrayList<>();
        if (edgeList != null && !edgeList.isNull()) {
            if (!edgeList.isArray()) throw new PipelineException("field 'edges' must be an array of {\"from\", \"to\", \"probability\"[, \"when\"]}");
            for (int i = 0; i < edgeList.size(); i++) {
                String at = "edges[" + i + "].";
                JsonNode e = edgeList.get(i);
                if (!e.isObject()) throw new PipelineException("field 'edges[" + i + "]' must be an object {\"from\", \"to\", \"probability\"[, \"when\"]}");
                onlyFields(e, at, "from", "to", "probability", "when");
                JsonNode p = e.get("probability");
                if (p == null || !p.isNumber()) throw new PipelineException("field '" + at + "probability' must be a number in [0, 1]");
                edges.add(new Edge(text(e, "from", at), text(e, "to", at), p.asDouble(), condition(e.get("when"), at + "when")));
            }
        }
        return new PipelineSpec(id, slo, stages, edges);
    }

    /** A stage's {@code input}: the previous stage's output (the default) or the pipeline request's own input. */
    private static boolean readsRequestInput(JsonNode input, String at) {
        if (input == null || input.isNull()) return false;
        if (input.isTextual() && input.asText().equals(Stage.REQUEST_INPUT)) return true;
        if (input.isTextual() && input.asText().equals(Stage.PREVIOUS_OUTPUT)) return false;
        throw new PipelineException("field '" + at + "' must be \"" + Stage.PREVIOUS_OUTPUT + "\" (the previous stage's output, the default) or \""
                + Stage.REQUEST_INPUT + "\" (the pipeline request's own input), got " + input);
    }

    private static StageCondition condition(JsonNode when, String at) {
        if (when == null || when.isNull()) return null;
        String form = "{\"output_max_below\": number} or {\"output_argmax_in\": [class, ...]}";
        if (!when.isObject() || when.size() != 1) throw new PipelineException("field '" + at + "' must be one condition: " + form);
        if (when.has("output_max_below")) {
            JsonNode v = when.get("output_max_below");
            if (!v.isNumber() || !Double.isFinite(v.asDouble())) throw new PipelineException("field '" + at + ".output_max_below' must be a number");
            return new StageCondition.OutputMaxBelow(v.asDouble());
        }
        if (when.has("output_argmax_in")) {
            JsonNode v = when.get("output_argmax_in");
            String field = "field '" + at + ".output_argmax_in' must be a non-empty array of class indices (integers from 0)";
            if (!v.isArray() || v.isEmpty()) throw new PipelineException(field);
            Set<Integer> classes = new LinkedHashSet<>();
            for (JsonNode c : v) {
                if (!c.canConvertToInt() || !c.isIntegralNumber() || c.asInt() < 0) throw new PipelineException(field);
                classes.add(c.asInt());
            }
            return new StageCondition.OutputArgmaxIn(classes);
        }
        throw new PipelineException("field '" + at + "." + when.fieldNames().next() + "' is no condition; a condition is " + form);
    }

    private static void onlyFields(JsonNode node, String at, String... allowed) {
        Set<String> known = Set.of(allowed);
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) throw new PipelineException("field '" + at + f + "' is unknown; known here: " + String.join(", ", allowed));
        }
    }

    private static String text(JsonNode node, String field, String at) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) throw new PipelineException("field '" + at + field + "' must be a non-empty string");
        return v.asText();
    }

    /** A positive number of milliseconds, as microseconds. */
    private static long millis(JsonNode node, String field, String at, boolean required) {
        JsonNode v = node.get(field);
        if (v == null && !required) return 0;
        if (v == null || !v.isNumber() || !(v.asDouble() > 0) || v.asDouble() > 365.0 * 24 * 3_600_000) {
            throw new PipelineException("field '" + at + field + "' must be a positive number of milliseconds (at most a year)");
        }
        return Math.max(1, Math.round(v.asDouble() * 1000));
    }

    /** The spec as JSON, in the form {@link #parse} reads: {@code parse(toJson())} equals this spec. */
    public String toJson() {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("pipeline", id);
        root.put("slo_p99_ms", sloP99Micros / 1000.0);
        ArrayNode st = root.putArray("stages");
        for (Stage s : stages) {
            ObjectNode n = st.addObject().put("name", s.name()).put("model", s.model());
            if (s.hasBudget()) n.put("budget_ms", s.budgetMicros() / 1000.0);
            if (s.readsRequestInput()) n.put("input", Stage.REQUEST_INPUT);
        }
        ArrayNode ed = root.putArray("edges");
        for (Edge e : edges) {
            ObjectNode n = ed.addObject().put("from", e.from()).put("to", e.to()).put("probability", e.probability());
            if (e.condition() instanceof StageCondition.OutputMaxBelow c) n.putObject("when").put(c.field(), c.threshold());
            if (e.condition() instanceof StageCondition.OutputArgmaxIn c) {
                ArrayNode classes = n.putObject("when").putArray(c.field());
                c.sortedClasses().forEach(classes::add);
            }
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException("a pipeline spec could not be written as JSON", e);
        }
    }

    // ----- graph -----

    /** A cycle as the stages along it, first repeated at the end; null when there is none. */
    private static List<String> cycle(Set<String> stages, Map<String, List<Edge>> out) {
        Map<String, Integer> state = new HashMap<>(); // absent: unvisited, 1: on the path, 2: done
        for (String start : stages) {
            if (state.containsKey(start)) continue;
            List<String> path = new ArrayList<>();
            List<Iterator<Edge>> its = new ArrayList<>();
            path.add(start);
            its.add(out.getOrDefault(start, List.of()).iterator());
            state.put(start, 1);
            while (!path.isEmpty()) {
                Iterator<Edge> it = its.get(its.size() - 1);
                if (!it.hasNext()) {
                    state.put(path.remove(path.size() - 1), 2);
                    its.remove(its.size() - 1);
                    continue;
                }
                String to = it.next().to();
                Integer s = state.get(to);
                if (s == null) {
                    state.put(to, 1);
                    path.add(to);
                    its.add(out.getOrDefault(to, List.of()).iterator());
                } else if (s == 1) {
                    List<String> cycle = new ArrayList<>(path.subList(path.indexOf(to), path.size()));
                    cycle.add(to);
                    return cycle;
                }
            }
        }
        return null;
    }

    /** Kahn's order from the entry, ties in the order the stages were written. */
    private static List<String> topologicalOrder(String entry, Set<String> stages, Map<String, List<Edge>> out) {
        Map<String, Integer> indegree = new HashMap<>();
        for (List<Edge> es : out.values()) for (Edge e : es) indegree.merge(e.to(), 1, Integer::sum);
        List<String> order = new ArrayList<>();
        List<String> ready = new ArrayList<>(List.of(entry));
        List<String> written = new ArrayList<>(stages);
        while (!ready.isEmpty()) {
            ready.sort((a, b) -> Integer.compare(written.indexOf(a), written.indexOf(b)));
            String s = ready.remove(0);
            order.add(s);
            for (Edge e : out.getOrDefault(s, List.of())) {
                if (indegree.merge(e.to(), -1, Integer::sum) == 0) ready.add(e.to());
            }
        }
        return List.copyOf(order);
    }

    private static String ms(long micros) {
        return round(micros / 1000.0);
    }

    private static String round(double v) {
        String s = String.format(Locale.ROOT, "%.3f", v);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PipelineSpec p && id.equals(p.id) && sloP99Micros == p.sloP99Micros && stages.equals(p.stages) && edges.equals(p.edges);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, sloP99Micros, stages, edges);
    }

    @Override
    public String toString() {
        return toJson();
    }
}
