package io.kairos.examples.policy;

import io.kairos.core.api.PublicEvolving;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.sim.ArrivalSource;
import io.kairos.sim.Simulation;
import io.kairos.workload.Arrival;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The example policy, selected by name through its provider, on Kairos' simulator (the scheduler
 * the job runs). A takes 10, 12, 16 ms at batches 1, 2, 4; B 10 ms at 1; one device.
 */
class LargestQueueFirstPolicyTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "A", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10, "2": 12, "4": 16}}},
              {"name": "B", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}}
            ]}""", "example-policy-test");

    record Fate(String model, ResultStatus status, long end, int batch) {}

    private static List<Fate> run(String policy, Map<String, String> params, List<Arrival> arrivals) {
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy(policy, params).load(ArrivalSource.replay(arrivals)).duration(1_000_000).build();
        List<Fate> out = new ArrayList<>();
        sim.run((r, status, end, batch) -> out.add(new Fate(r.model(), status, end, batch)));
        return out;
    }

    private static Arrival at(long micros, String model, double sloMs) {
        return new Arrival(micros, "t", model, sloMs);
    }

    @Test
    void theProviderMakesThePolicySelectableByName() {
        assertThat(Policies.names()).contains(LargestQueueFirstPolicy.NAME);
        assertThat(Policies.create(LargestQueueFirstPolicy.NAME)).isInstanceOf(LargestQueueFirstPolicy.class);
    }

    /**
     * Four A and one B at 0, B's deadline the earlier (50 ms against 100). Largest queue first: A's
     * four in one batch, 0 to 16 ms, then B, 16 to 26. Earliest deadline first serves B first, 0 to
     * 10, then A's four, 10 to 26.
     */
    @Test
    void theLargestQueueGoesFirstWhereEarliestDeadlineFirstServesTheUrgentOne() {
        List<Arrival> arrivals = List.of(at(0, "A", 100), at(0, "A", 100), at(0, "A", 100), at(0, "A", 100), at(0, "B", 50));
        assertThat(run(LargestQueueFirstPolicy.NAME, Map.of(), arrivals)).extracting(Fate::model, Fate::end, Fate::batch)
                .containsExactlyInAnyOrder(tuple("A", 16_000L, 4), tuple("A", 16_000L, 4), tuple("A", 16_000L, 4), tuple("A", 16_000L, 4), tuple("B", 26_000L, 1));
        assertThat(run("edf", Map.of(), arrivals)).extracting(Fate::model, Fate::end)
                .contains(tuple("B", 10_000L));
    }

    /**
     * Two A at 0 and two at 20 ms, SLO 100 ms. By default the first two go at once as a batch of 2
     * (0 to 12 ms) and the next two at 20 (20 to 32). With {@code min_batch} 4 the first two wait
     * (their latest start is 90 ms), and all four run at 20, 20 to 36.
     */
    @Test
    void minBatchKeepsASmallQueueWaitingUntilItFillsOrMustGo() {
        List<Arrival> arrivals = List.of(at(0, "A", 100), at(0, "A", 100), at(20_000, "A", 100), at(20_000, "A", 100));
        assertThat(run(LargestQueueFirstPolicy.NAME, Map.of(), arrivals)).extracting(Fate::end, Fate::batch)
                .containsExactlyInAnyOrder(tuple(12_000L, 2), tuple(12_000L, 2), tuple(32_000L, 2), tuple(32_000L, 2));
        assertThat(run(LargestQueueFirstPolicy.NAME, Map.of(LargestQueueFirstPolicy.MIN_BATCH, "4"), arrivals)).extracting(Fate::end, Fate::batch)
                .containsOnly(tuple(36_000L, 4)).hasSize(4);
    }

    /** A lone request under min_batch 4 still goes at its latest start (90 ms), and meets its deadline. */
    @Test
    void aLoneRequestGoesAtItsLatestStart() {
        assertThat(run(LargestQueueFirstPolicy.NAME, Map.of(LargestQueueFirstPolicy.MIN_BATCH, "4"), List.of(at(0, "A", 100))))
                .containsExactly(new Fate("A", ResultStatus.OK, 100_000L, 1));
    }

    /** The example compiles against Kairos' declared types only: every io.kairos import of its sources is public-evolving. */
    @Test
    void theExampleUsesTheDeclaredTypesOnly() throws Exception {
        Pattern imports = Pattern.compile("^import (io\\.kairos\\.[\\w.]+);", Pattern.MULTILINE);
        List<String> undeclared = new ArrayList<>();
        int seen = 0;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                for (Matcher m = imports.matcher(Files.readString(f)); m.find(); ) {
                    String name = m.group(1);
                    if (name.startsWith("io.kairos.examples.")) continue;
                    seen++;
                    if (!Class.forName(name).isAnnotationPresent(PublicEvolving.class)) undeclared.add(f.getFileName() + ": " + name);
                }
            }
        }
        assertThat(seen).isPositive();
        assertThat(undeclared).isEmpty();
    }
}
