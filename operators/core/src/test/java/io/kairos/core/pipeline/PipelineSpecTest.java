package io.kairos.core.pipeline;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Public, with its pipelines and catalog: the wire module's router test reads them through the test jar. */
public class PipelineSpecTest {

    public static final String CASCADE = """
            {"pipeline": "cascade", "slo_p99_ms": 80,
             "stages": [{"name": "fast", "model": "m1"}, {"name": "slow", "model": "m2", "budget_ms": 40}],
             "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}}]}""";

    // batch-1 latencies: m1 1*1 + 2 = 3 ms, m2 10*1 + 10 = 20 ms, m3 0.5 + 0.5 = 1 ms
    public static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "m1", "input": {"dtype": "FLOAT32", "shape": [4]}, "latency_ms": {"alpha": 1, "beta": 2}},
              {"name": "m2", "input": {"dtype": "FLOAT32", "shape": [4]}, "latency_ms": {"alpha": 10, "beta": 10}},
              {"name": "m3", "input": {"dtype": "FLOAT32", "shape": [4]}, "latency_ms": {"alpha": 0.5, "beta": 0.5}}
            ]}""", "test catalog");

    /** a -> b (0.5), a -> c (0.5), b -> d (1), c -> d (0.4): d is reached along two paths. */
    static final String DIAMOND = """
            {"pipeline": "diamond", "slo_p99_ms": 100,
             "stages": [{"name": "a", "model": "m1"}, {"name": "b", "model": "m2"}, {"name": "c", "model": "m3"}, {"name": "d", "model": "m1"}],
             "edges": [{"from": "a", "to": "b", "probability": 0.5}, {"from": "a", "to": "c", "probability": 0.5},
                       {"from": "b", "to": "d", "probability": 1}, {"from": "c", "to": "d", "probability": 0.4}]}""";

    @Test
    void readsTheCascade() {
        PipelineSpec p = PipelineSpec.parse(CASCADE, "cascade.json");
        assertThat(p.id()).isEqualTo("cascade");
        assertThat(p.sloP99Micros()).isEqualTo(80_000);
        assertThat(p.stages()).containsExactly(new Stage("fast", "m1", 0), new Stage("slow", "m2", 40_000));
        assertThat(p.entry().name()).isEqualTo("fast");
        assertThat(p.outgoing("fast")).containsExactly(new Edge("fast", "slow", 0.3, new StageCondition.OutputMaxBelow(0.8)));
        assertThat(p.outgoing("slow")).isEmpty();
        assertThat(p.scaleFactors()).containsExactly(Map.entry("fast", 1.0), Map.entry("slow", 0.3));
        assertThat(p.validate(CATALOG)).isSameAs(p);
    }

    /** InferLine's cascade as it is meant: the slow model looks at the image the fast one looked at, not at its probabilities. */
    public static final String IMAGE_CASCADE = """
            {"pipeline": "image-cascade", "slo_p99_ms": 80,
             "stages": [{"name": "fast", "model": "m1"}, {"name": "slow", "model": "m2", "input": "request"}],
             "edges": [{"from": "fast", "to": "slow", "probability": 0.3, "when": {"output_max_below": 0.8}}]}""";

    @Test
    void aStageReadsThePreviousOutputUnlessItAsksForTheRequestsInput() {
        PipelineSpec image = PipelineSpec.parse(IMAGE_CASCADE, "image-cascade.json");
        assertThat(image.stages()).containsExactly(new Stage("fast", "m1", 0, false), new Stage("slow", "m2", 0, true));
        assertThat(image.readsRequestInput()).isTrue();
        assertThat(PipelineSpec.parse(CASCADE, "cascade.json").readsRequestInput()).isFalse();
        // "previous" is the default written out: the same spec as without it
        String previous = CASCADE.replace("\"budget_ms\": 40}", "\"budget_ms\": 40, \"input\": \"previous\"}");
        assertThat(previous).isNotEqualTo(CASCADE);
        assertThat(PipelineSpec.parse(previous, "p")).isEqualTo(PipelineSpec.parse(CASCADE, "c"));
        assertThat(image.toJson()).contains("{\"name\":\"slow\",\"model\":\"m2\",\"input\":\"request\"}");
    }

    @Test
    void scaleFactorsAddUpOverEveryIncomingEdge() {
        PipelineSpec p = PipelineSpec.parse(DIAMOND, "diamond.json");
        // s(b) = 1 * 0.5, s(c) = 1 * 0.5, s(d) = 0.5 * 1 + 0.5 * 0.4 = 0.7
        Map<String, Double> s = p.scaleFactors();
        assertThat(s.keySet()).containsExactly("a", "b", "c", "d");
        assertThat(s.get("a")).isEqualTo(1.0);
        assertThat(s.get("b")).isEqualTo(0.5);
        assertThat(s.get("c")).isEqualTo(0.5);
        assertThat(s.get("d")).isCloseTo(0.7, within(1e-12));
        assertThat(p.topologicalOrder()).containsExactly("a", "b", "c", "d");
    }

    @Test
    void theServiceTimeIsTheLongestPathAtBatchOne() {
        PipelineSpec p = PipelineSpec.parse(DIAMOND, "diamond.json");
        // a(m1 3) + b(m2 20) + d(m1 3) = 26 ms against a + c(m3 1) + d = 7 ms
        assertThat(p.longestPathServiceMicros(m -> CATALOG.get(m).latency().latencyMicros(1))).isEqualTo(26_000);
        // A stage where a path ends counts on its own: with x -> y only, and x 5, y 1: 6; with y 10: 15.
        PipelineSpec chain = new PipelineSpec("x", 1000, List.of(new Stage("x", "mx"), new Stage("y", "my")), List.of(new Edge("x", "y", 0.1)));
        assertThat(chain.longestPathServiceMicros(m -> m.equals("mx") ? 5L : 1L)).isEqualTo(6);
        assertThat(chain.longestPathServiceMicros(m -> m.equals("mx") ? 5L : 10L)).isEqualTo(15);
    }

    @Test
    void anSloBelowTheServiceTimeIsRefused() {
        // fast 3 ms + slow 20 ms = 23 ms
        String tight = CASCADE.replace("\"slo_p99_ms\": 80", "\"slo_p99_ms\": 22.5");
        assertThatThrownBy(() -> PipelineSpec.parse(tight, "c.json").validate(CATALOG))
                .isInstanceOf(PipelineException.class)
                .hasMessage("pipeline 'cascade': field 'slo_p99_ms': 22.5 ms is below the pipeline's service time of 23 ms (its longest path at the models' batch-1 latencies)");
        PipelineSpec.parse(CASCADE.replace("\"slo_p99_ms\": 80", "\"slo_p99_ms\": 23"), "c.json").validate(CATALOG);
    }

    @Test
    void anUnknownModelIsRefused() {
        assertThatThrownBy(() -> PipelineSpec.parse(CASCADE.replace("\"m2\"", "\"m9\""), "c.json").validate(CATALOG))
                .hasMessage("pipeline 'cascade': field 'stages[1].model': the job serves no model 'm9'; it serves [m1, m2, m3]");
    }

    @Test
    void eachProblemIsOneLineNamingTheField() {
        Map<String, String> cases = Map.ofEntries(
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1}, {\"from\": \"b\", \"to\": \"c\", \"probability\": 1},"
                                + " {\"from\": \"c\", \"to\": \"b\", \"probability\": 1}"),
                        "p.json: pipeline 'p': field 'edges': the edges form a cycle: b -> c -> b"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"a\", \"probability\": 0.5}"),
                        "p.json: pipeline 'p': field 'edges': the edges form a cycle: a -> a"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1}"),
                        "p.json: pipeline 'p': field 'edges': a pipeline has one entry stage, the one no edge leads to; here 2 are: [a, c]"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"x\", \"probability\": 1}"),
                        "p.json: pipeline 'p': field 'edges[0].to': no stage 'x'; the stages are [a, b, c]"),
                Map.entry(edges("{\"from\": \"y\", \"to\": \"b\", \"probability\": 1}"),
                        "p.json: pipeline 'p': field 'edges[0].from': no stage 'y'; the stages are [a, b, c]"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1.5}, {\"from\": \"a\", \"to\": \"c\", \"probability\": 0}"),
                        "p.json: pipeline 'p': field 'edges[0].probability' must be in [0, 1], got 1.5"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": -0.1}, {\"from\": \"a\", \"to\": \"c\", \"probability\": 0}"),
                        "p.json: pipeline 'p': field 'edges[0].probability' must be in [0, 1], got -0.1"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 0.7}, {\"from\": \"a\", \"to\": \"c\", \"probability\": 0.4}"),
                        "p.json: pipeline 'p': field 'edges': the probabilities of the edges from stage 'a' add up to 1.1, more than 1"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 0.5}, {\"from\": \"a\", \"to\": \"b\", \"probability\": 0.5},"
                                + " {\"from\": \"a\", \"to\": \"c\", \"probability\": 0}"),
                        "p.json: pipeline 'p': field 'edges[1]': a second edge from 'a' to 'b'"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": \"high\"}"),
                        "p.json: field 'edges[0].probability' must be a number in [0, 1]"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1, \"when\": {\"output_max\": 1}}"),
                        "p.json: field 'edges[0].when.output_max' is no condition; a condition is {\"output_max_below\": number} or {\"output_argmax_in\": [class, ...]}"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1, \"when\": {\"output_argmax_in\": [1, -2]}}"),
                        "p.json: field 'edges[0].when.output_argmax_in' must be a non-empty array of class indices (integers from 0)"),
                Map.entry(edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 1, \"if\": {\"output_argmax_in\": [1]}}"),
                        "p.json: field 'edges[0].if' is unknown; known here: from, to, probability, when"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}, {\"name\": \"a\", \"model\": \"m2\"}]}",
                        "p.json: pipeline 'p': field 'stages[1].name': stage 'a' is named twice"),
                Map.entry("{\"pipeline\": \"p/q\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}]}",
                        "p.json: field 'pipeline': the id 'p/q' contains '/'"),
                Map.entry("{\"pipeline\": \"p q\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}]}",
                        "p.json: field 'pipeline': the id 'p q' contains a space or a control character"),
                Map.entry("{\"pipeline\": \"\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}]}",
                        "p.json: field 'pipeline' must be a non-empty string"),
                Map.entry("{\"pipeline\": \"" + "x".repeat(257) + "\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}]}",
                        "p.json: field 'pipeline': the id is longer than 256 bytes"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a/b\", \"model\": \"m1\"}]}",
                        "p.json: pipeline 'p': field 'stages[0].name': the name 'a/b' contains '/'"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 0, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}]}",
                        "p.json: field 'slo_p99_ms' must be a positive number of milliseconds (at most a year)"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\", \"budget\": 3}]}",
                        "p.json: field 'stages[0].budget' is unknown; known here: name, model, budget_ms, input"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10, \"stages\": [{\"name\": \"a\", \"model\": \"m1\", \"input\": \"original\"}]}",
                        "p.json: field 'stages[0].input' must be \"previous\" (the previous stage's output, the default) or \"request\" (the pipeline request's own input), got \"original\""),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10, \"stages\": []}",
                        "p.json: pipeline 'p': field 'stages' must name at least one stage"),
                Map.entry("{\"pipeline\": \"p\", \"slo_p99_ms\": 10}",
                        "p.json: field 'stages' must be an array of {\"name\", \"model\"[, \"budget_ms\", \"input\"]}"),
                Map.entry("{\"pipeline\": \"p\", \"slo\": 10}",
                        "p.json: field 'slo' is unknown; known here: pipeline, slo_p99_ms, stages, edges"),
                Map.entry("[1, 2]",
                        "p.json: a pipeline spec is a JSON object with 'pipeline', 'slo_p99_ms', 'stages' and 'edges'"));
        cases.forEach((json, message) -> assertThatThrownBy(() -> PipelineSpec.parse(json, "p.json"))
                .as(json).isInstanceOf(PipelineException.class).hasMessage(message));
        cases.values().forEach(m -> assertThat(m).doesNotContain("\n"));
    }

    /** Stages a, b, c on m1, m2, m3 with these edges. */
    private static String edges(String edges) {
        return "{\"pipeline\": \"p\", \"slo_p99_ms\": 100, \"stages\": [{\"name\": \"a\", \"model\": \"m1\"}, {\"name\": \"b\", \"model\": \"m2\"},"
                + " {\"name\": \"c\", \"model\": \"m3\"}], \"edges\": [" + edges + "]}";
    }

    @Test
    void aConditionDecidesOnTheStagesOutput() {
        PipelineSpec p = PipelineSpec.parse(CASCADE, "cascade.json");
        // unsure: top probability 0.6 < 0.8, on to the slow model
        assertThat(p.next("fast", new float[] {0.6f, 0.3f, 0.1f}, "r1")).isEqualTo(p.edges().get(0));
        // sure: 0.9, the pipeline ends at fast; no edge without a condition is left to draw
        assertThat(p.next("fast", new float[] {0.05f, 0.9f, 0.05f}, "r1")).isNull();
        assertThat(p.next("fast", new float[] {0.8f, 0.1f, 0.1f}, "r1")).as("0.8 is not below 0.8").isNull();
        assertThat(p.next("fast", new float[] {Float.NaN, 0.1f}, "r1")).as("NaN is below nothing").isNull();
        assertThat(p.next("slow", new float[] {0.1f}, "r1")).as("a leaf").isNull();

        StageCondition argmax = new StageCondition.OutputArgmaxIn(Set.of(1, 3));
        assertThat(argmax.holds(new float[] {0, 5, 2, 1})).isTrue();
        assertThat(argmax.holds(new float[] {0, 5, 2, 7})).isTrue();
        assertThat(argmax.holds(new float[] {9, 5, 2, 7})).isFalse();
        assertThat(argmax.holds(new float[] {1, 1, 0, 0})).as("the first of equal maxima: 0").isFalse();
        assertThat(argmax.holds(new float[0])).isFalse();
    }

    @Test
    void theDrawTakesEachEdgeAtItsProbabilityAndTheSameForAReplay() {
        // a -> b 0.2, a -> c 0.5: ends at a for 0.3 of the requests
        PipelineSpec p = new PipelineSpec("p", 100_000, List.of(new Stage("a", "m1"), new Stage("b", "m2"), new Stage("c", "m3")),
                List.of(new Edge("a", "b", 0.2), new Edge("a", "c", 0.5)));
        int n = 200_000, toB = 0, toC = 0;
        for (int i = 0; i < n; i++) {
            Edge e = p.next("a", new float[] {1}, "request-" + i);
            assertThat(p.next("a", new float[] {1}, "request-" + i)).isEqualTo(e);
            if (e != null && e.to().equals("b")) toB++;
            if (e != null && e.to().equals("c")) toC++;
        }
        // binomial: sd of a share at p = 0.5 over 200 000 is 0.0011; 5 sd
        assertThat(toB / (double) n).isCloseTo(0.2, within(0.006));
        assertThat(toC / (double) n).isCloseTo(0.5, within(0.006));
    }

    @Test
    void besideAConditionTheDrawKeepsEachEdgesShareOfAllRequests() {
        // a -> b when argmax is 0, planned 0.5; a -> c by probability 0.25. Half the outputs have
        // argmax 0 (b), the other half draw c with 0.25 / (1 - 0.5) = 0.5: c gets 0.25 of all.
        PipelineSpec p = new PipelineSpec("p", 100_000, List.of(new Stage("a", "m1"), new Stage("b", "m2"), new Stage("c", "m3")),
                List.of(new Edge("a", "b", 0.5, new StageCondition.OutputArgmaxIn(Set.of(0))), new Edge("a", "c", 0.25)));
        int n = 200_000, toB = 0, toC = 0;
        for (int i = 0; i < n; i++) {
            float[] out = i % 2 == 0 ? new float[] {1, 0} : new float[] {0, 1};
            Edge e = p.next("a", out, "r" + i);
            if (e != null && e.to().equals("b")) toB++;
            if (e != null && e.to().equals("c")) toC++;
        }
        assertThat(toB).isEqualTo(n / 2);
        assertThat(toC / (double) n).isCloseTo(0.25, within(0.006));
    }

    @Test
    void theDrawDependsOnTheStageToo() {
        int same = 0;
        for (int i = 0; i < 10_000; i++) {
            if ((PipelineSpec.draw("r" + i, "a") < 0.5) == (PipelineSpec.draw("r" + i, "b") < 0.5)) same++;
        }
        assertThat(same / 10_000.0).isCloseTo(0.5, within(0.03));
        assertThat(PipelineSpec.draw("r1", "a")).isEqualTo(PipelineSpec.draw("r1", "a")).isBetween(0.0, 1.0);
    }

    @Test
    void writesWhatItReads(@TempDir Path dir) throws Exception {
        for (String json : List.of(CASCADE, DIAMOND, IMAGE_CASCADE,
                edges("{\"from\": \"a\", \"to\": \"b\", \"probability\": 0.4, \"when\": {\"output_argmax_in\": [3, 1]}},"
                        + " {\"from\": \"b\", \"to\": \"c\", \"probability\": 1}"))) {
            PipelineSpec p = PipelineSpec.parse(json, "in");
            assertThat(PipelineSpec.parse(p.toJson(), "out")).isEqualTo(p);
            Path file = dir.resolve(p.id() + ".json");
            Files.writeString(file, p.toJson());
            assertThat(PipelineSpec.load(file)).isEqualTo(p);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(p);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                PipelineSpec back = (PipelineSpec) in.readObject();
                assertThat(back).isEqualTo(p);
                assertThat(back.scaleFactors()).isEqualTo(p.scaleFactors());
            }
        }
        assertThat(PipelineSpec.parse(CASCADE, "c").toJson()).isEqualTo(
                "{\"pipeline\":\"cascade\",\"slo_p99_ms\":80.0,\"stages\":[{\"name\":\"fast\",\"model\":\"m1\"},{\"name\":\"slow\",\"model\":\"m2\",\"budget_ms\":40.0}],"
                        + "\"edges\":[{\"from\":\"fast\",\"to\":\"slow\",\"probability\":0.3,\"when\":{\"output_max_below\":0.8}}]}");
        assertThatThrownBy(() -> PipelineSpec.load(dir.resolve("missing.json"))).hasMessageStartingWith(dir.resolve("missing.json") + ": cannot read the pipeline spec");
    }

    @Test
    void aPipelineHasAtMost64Stages() {
        List<Stage> many = new java.util.ArrayList<>();
        for (int i = 0; i < 65; i++) many.add(new Stage("s" + i, "m1"));
        assertThatThrownBy(() -> new PipelineSpec("long", 1000, many, List.of()))
                .hasMessage("pipeline 'long': field 'stages' has 65 stages, more than the 64 a pipeline may have");
    }

    @Test
    void aSingleStageIsAPipeline() {
        PipelineSpec p = PipelineSpec.parse("{\"pipeline\": \"one\", \"slo_p99_ms\": 5, \"stages\": [{\"name\": \"only\", \"model\": \"m1\"}]}", "one.json");
        assertThat(p.entry().name()).isEqualTo("only");
        assertThat(p.edges()).isEmpty();
        assertThat(p.scaleFactors()).containsExactly(Map.entry("only", 1.0));
        assertThat(p.next("only", new float[] {1}, "r")).isNull();
    }
}
