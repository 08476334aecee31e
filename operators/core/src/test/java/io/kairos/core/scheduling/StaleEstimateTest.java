package io.kairos.core.scheduling;

import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.scheduling.policy.LatestStartPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model whose measured latency, during a slow spell of its device, exceeds its SLO: every request
 * of it is shed as unreachable, so no batch of it runs, so no measurement ever brings the estimate
 * back. M takes 10 ms at batch 1 by the catalog; its SLO is 100 ms; a batch measured at 300 ms (a
 * machine starved for CPU) makes the estimate 300 ms, the 99th percentile of the one measurement.
 */
class StaleEstimateTest {
    private static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [{"name": "M", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 10}}}]}""", "stale-estimate-test");
    private static final long MS = 1_000;

    private static Request request(String id, long at) {
        return new Request(id, "M", at, at + 100 * MS, null);
    }

    /** When the slow spell's batch was reported to end. */
    private static final long LAST_REPORT = 300 * MS;

    /** The slow spell: a request at 0, served alone and reported 300 ms long. */
    private static GroupScheduler afterASlowSpell() {
        GroupScheduler g = new GroupScheduler("g", CATALOG, List.of(new DeviceView(0, null)), LatestStartPolicy.kairos(), PolicyParams.of(Map.of()));
        g.admit(request("slow", 0));
        Dispatch d = g.schedule(0).dispatches().get(0);
        g.observe(BatchReport.ran(d, 0, LAST_REPORT, false));
        assertThat(g.profile("M").latencyAt(0)).isEqualTo(300 * MS);
        return g;
    }

    @Test
    void justAfterTheSlowSpellARequestTheEstimateCannotServeIsShed() {
        GroupScheduler g = afterASlowSpell();
        long at = LAST_REPORT + 1_000 * MS;
        g.admit(request("r", at));
        GroupScheduler.Outcome o = g.schedule(at);
        assertThat(o.dispatches()).isEmpty();
        assertThat(o.drops()).extracting(Drop::reason).singleElement().asString().startsWith("deadline unreachable");
    }

    /**
     * Once no batch of the model was measured for {@link LearnedProfiles#STALE_MICROS} while its
     * estimate puts the request out of reach (300 ms against 100) and the catalog's does not (10),
     * the estimate is forgotten: the next request runs, on the catalog's 10 ms, and measures the
     * device again.
     */
    @Test
    void anEstimateNoBatchRefreshedForLongIsForgottenAndTheNextRequestRuns() {
        GroupScheduler g = afterASlowSpell();
        long at = LAST_REPORT + LearnedProfiles.STALE_MICROS + 1;
        g.admit(request("r", at));
        GroupScheduler.Outcome o = g.schedule(at);
        assertThat(o.drops()).isEmpty();
        assertThat(o.dispatches()).singleElement().satisfies(d -> assertThat(d.predictedLatencyMicros()).isEqualTo(10 * MS));
        assertThat(g.profile("M").latencyAt(0)).isEqualTo(10 * MS);
    }

    /** Not before: a request within the stale time after the last report is judged by the estimate, and shed. */
    @Test
    void anEstimateRefreshedRecentlyStands() {
        GroupScheduler g = afterASlowSpell();
        long at = LAST_REPORT + LearnedProfiles.STALE_MICROS - 1;
        g.admit(request("r", at));
        assertThat(g.schedule(at).dispatches()).isEmpty();
    }

    /** An estimate that leaves the request in reach stands, however old: a request with a 1 s SLO runs on the 300 ms estimate. */
    @Test
    void anOldEstimateThatLeavesTheRequestInReachStands() {
        GroupScheduler g = afterASlowSpell();
        long at = LAST_REPORT + 10 * LearnedProfiles.STALE_MICROS;
        g.admit(new Request("r", "M", at, at + 1_000 * MS, null));
        assertThat(g.schedule(at).dispatches()).singleElement().satisfies(d -> assertThat(d.predictedLatencyMicros()).isEqualTo(300 * MS));
    }
}
