package io.kairos.core.metrics;

import io.kairos.core.result.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static io.kairos.core.result.ResultStatus.DROPPED;
import static io.kairos.core.result.ResultStatus.FAILED;
import static io.kairos.core.result.ResultStatus.LATE;
import static io.kairos.core.result.ResultStatus.OK;
import static io.kairos.core.result.ResultStatus.REJECTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

/**
 * A small run worked out by hand. Latencies stay below 2048 us, where HdrHistogram with 3
 * significant digits is exact, so percentiles can be compared with equality.
 */
class ResultSummaryTest {
    private static final long T0 = 10_000_000;
    private static final long T1 = T0 + 20_000;

    /** resnet50: 10 results over 9,900 us; mlp: 4 results over 1,400 us (one undecodable, sent = 0). */
    private static void feed(Consumer<Object[]> add) {
        // model, status, sent, latency, batch size
        add.accept(new Object[] {"resnet50", OK, T0, 100L, 2});
        add.accept(new Object[] {"resnet50", OK, T0 + 1000, 200L, 2});
        add.accept(new Object[] {"resnet50", OK, T0 + 2000, 300L, 4});
        add.accept(new Object[] {"resnet50", OK, T0 + 3000, 400L, 4});
        add.accept(new Object[] {"resnet50", OK, T0 + 4000, 500L, 4});
        add.accept(new Object[] {"resnet50", OK, T0 + 5000, 600L, 4});
        add.accept(new Object[] {"resnet50", LATE, T0 + 6000, 1500L, 8});
        add.accept(new Object[] {"resnet50", LATE, T0 + 7000, 1800L, 8});
        add.accept(new Object[] {"resnet50", DROPPED, T0 + 8000, 50L, 0});
        add.accept(new Object[] {"resnet50", FAILED, T0 + 9000, 900L, 8}); // ends the span at T0 + 9900
        add.accept(new Object[] {"mlp", OK, T1, 1000L, 1});
        add.accept(new Object[] {"mlp", OK, T1 + 100, 1100L, 1});
        add.accept(new Object[] {"mlp", OK, T1 + 200, 1200L, 3});
        add.accept(new Object[] {"mlp", REJECTED, 0L, T1 + 50, 0}); // undecodable: no send time
    }

    private static void add(ResultSummary s, Object[] r) {
        long sent = (Long) r[2];
        long latency = (Long) r[3];
        s.add((String) r[0], (ResultStatus) r[1], sent, sent + latency, (Integer) r[4]);
    }

    private static ResultSummary all() {
        ResultSummary s = new ResultSummary();
        feed(r -> add(s, r));
        return s;
    }

    @Test
    void countsEachStatusPerModelAndOverall() {
        ResultSummary s = all();

        assertThat(s.models()).containsExactly("mlp", "resnet50");
        ResultSummary.Stats resnet = s.model("resnet50");
        assertThat(resnet.total()).isEqualTo(10);
        assertThat(resnet.count(OK)).isEqualTo(6);
        assertThat(resnet.count(LATE)).isEqualTo(2);
        assertThat(resnet.count(DROPPED)).isEqualTo(1);
        assertThat(resnet.count(FAILED)).isEqualTo(1);
        assertThat(resnet.count(REJECTED)).isZero();
        assertThat(s.model("mlp").count(REJECTED)).isEqualTo(1);
        assertThat(s.overall().total()).isEqualTo(14);
        assertThat(s.overall().count(OK)).isEqualTo(9);
        assertThat(s.overall().served()).isEqualTo(11);
        assertThat(s.model("bert-tiny").total()).isZero();
    }

    @Test
    void attainmentGoodputAndThroughputOverTheObservedSpan() {
        ResultSummary s = all();
        ResultSummary.Stats resnet = s.model("resnet50");
        ResultSummary.Stats mlp = s.model("mlp");

        assertThat(resnet.sloAttainment()).isEqualTo(0.6);
        assertThat(resnet.spanMicros()).isEqualTo(9_900);
        assertThat(resnet.goodputPerSecond()).isCloseTo(6 / 0.0099, offset(1e-6));
        assertThat(resnet.throughputPerSecond()).isCloseTo(8 / 0.0099, offset(1e-6));
        assertThat(mlp.sloAttainment()).isEqualTo(0.75);
        assertThat(mlp.spanMicros()).isEqualTo(1_400); // the undecodable request does not widen it
        assertThat(mlp.goodputPerSecond()).isCloseTo(3 / 0.0014, offset(1e-6));
        assertThat(s.overall().sloAttainment()).isEqualTo(9.0 / 14);
        assertThat(s.overall().spanMicros()).isEqualTo(21_400);
        assertThat(s.overall().goodputPerSecond()).isCloseTo(9 / 0.0214, offset(1e-6));
        assertThat(new ResultSummary().overall().sloAttainment()).isNaN();
        assertThat(new ResultSummary().overall().goodputPerSecond()).isZero();
    }

    @Test
    void percentilesAreOverServedRequestsOnly() {
        ResultSummary s = all();
        ResultSummary.Stats resnet = s.model("resnet50");

        // served: 100 200 300 400 500 600 1500 1800 (the drop at 50 and the failure at 900 are left out)
        assertThat(resnet.p50Micros()).isEqualTo(400);
        assertThat(resnet.p99Micros()).isEqualTo(1800);
        assertThat(resnet.p999Micros()).isEqualTo(1800);
        assertThat(resnet.latencyMicrosAt(25)).isEqualTo(200);
        assertThat(resnet.meanLatencyMicros()).isEqualTo(675.0);
        assertThat(resnet.maxLatencyMicros()).isEqualTo(1800);
        // overall: 100 200 300 400 500 600 1000 1100 1200 1500 1800
        assertThat(s.overall().p50Micros()).isEqualTo(600);
        assertThat(s.overall().p99Micros()).isEqualTo(1800);
        assertThat(s.model("mlp").p50Micros()).isEqualTo(1100);
    }

    @Test
    void meanBatchSizeIsPerExecutedRequest() {
        ResultSummary s = all();

        assertThat(s.model("resnet50").meanBatchSize()).isCloseTo(44.0 / 9, offset(1e-12)); // failed batch ran too
        assertThat(s.model("mlp").meanBatchSize()).isCloseTo(5.0 / 3, offset(1e-12));
        assertThat(s.overall().meanBatchSize()).isCloseTo(49.0 / 12, offset(1e-12));
    }

    @Test
    void mergingPartsGivesTheSameFiguresAsOneSummary() {
        ResultSummary odd = new ResultSummary();
        ResultSummary even = new ResultSummary();
        int[] i = {0};
        feed(r -> add(i[0]++ % 2 == 0 ? even : odd, r));

        ResultSummary merged = new ResultSummary().merge(even).merge(odd);

        assertThat(merged.csvRows()).isEqualTo(all().csvRows());
        assertThat(merged.table()).isEqualTo(all().table());
        assertThat(even.overall().total()).isEqualTo(7); // a part is left as it was
    }

    @Test
    void anEarlyResultIsServedAndTimedButNotMet() {
        // Two OK (latencies 150, 900), one EARLY (done at 80, before its window): attainment 2/3,
        // served 3, latencies 80, 150, 900 (mean 1130 / 3).
        ResultSummary.Stats s = new ResultSummary.Stats("window");
        s.add(OK, 0, 150, 1);
        s.add(OK, 0, 900, 1);
        s.add(ResultStatus.EARLY, 0, 80, 1);
        assertThat(s.count(ResultStatus.EARLY)).isEqualTo(1);
        assertThat(s.sloAttainment()).isEqualTo(2 / 3.0);
        assertThat(s.served()).isEqualTo(3);
        assertThat(s.meanLatencyMicros()).isCloseTo(1_130 / 3.0, offset(1e-9));
        assertThat(s.p50Micros()).isEqualTo(150);
    }

    @Test
    void statsOnAClockOfAnyOriginWithRatesOverAGivenWindow() {
        // As the simulator counts: times from its start at 0, rates over its measured window.
        ResultSummary.Stats s = new ResultSummary.Stats("sim");
        s.add(OK, 0, 300, 2);          // an arrival at time 0 is timed like any other
        s.add(OK, 100, 300, 2);
        s.add(LATE, 500, 2_500, 1);
        s.add(DROPPED, 700, 700, 0);
        s.addUntimed(REJECTED, 0);

        assertThat(s.total()).isEqualTo(5);
        assertThat(s.sloAttainment()).isEqualTo(0.4);
        assertThat(s.served()).isEqualTo(3);
        // served latencies 300, 200, 2000: the drop and the rejection have none
        assertThat(s.p50Micros()).isEqualTo(300);
        assertThat(s.maxLatencyMicros()).isEqualTo(2_000);
        assertThat(s.meanLatencyMicros()).isCloseTo(2_500 / 3.0, offset(1e-9));
        assertThat(s.meanBatchSize()).isCloseTo(5.0 / 3, offset(1e-12));
        assertThat(s.spanMicros()).isEqualTo(2_500);
        assertThat(s.goodputPerSecond()).isCloseTo(2 / 0.0025, offset(1e-6));
        assertThat(s.goodputPerSecond(1_000_000)).isEqualTo(2.0);
        assertThat(s.throughputPerSecond(1_000_000)).isEqualTo(3.0);
        assertThat(s.goodputPerSecond(0)).isZero();
        assertThat(new ResultSummary.Stats("none").meanBatchSize()).isNaN();
        assertThat(new ResultSummary.Stats("none").p99Micros()).isZero();
    }

    @Test
    void rendersAFixedWidthTableAndCsvRows() {
        ResultSummary s = all();
        List<String> lines = s.table().lines().toList();

        assertThat(lines).hasSize(5); // header, mlp, resnet50, rule, ALL
        assertThat(lines.get(0)).startsWith("model").contains("attain%", "goodput/s", "p99 ms", "p99.9 ms");
        assertThat(lines.stream().filter(l -> !l.startsWith("-")).map(String::length).distinct()).hasSize(1);
        assertThat(lines.get(2)).startsWith("resnet50").contains(" 60.00 ", " 0.40 ", " 1.80 ", " 4.89");
        assertThat(lines.get(4)).startsWith("ALL ");

        assertThat(ResultSummary.csvHeader().split(",")).hasSize(22).startsWith("model", "total", "ok", "late", "dropped", "rejected", "failed", "early")
                .endsWith("energy_mj", "mean_power_w", "energy_per_request_mj", "requests_per_j");
        assertThat(s.csvRows()).hasSize(3);
        // No energy was given: the energy columns are empty, not 0.
        assertThat(s.csvRows().get(1)).isEqualTo(
                "resnet50,10,6,2,1,0,1,0,0.600000,606.061,808.081,0.400,1.800,1.800,0.675,1.800,4.889,0.009900,,,,");
        assertThat(s.csvRows().get(2).split(",", -1)).hasSize(22).startsWith("ALL", "14", "9", "2", "1", "1", "1", "0");
        assertThat(new ResultSummary().table()).contains("(no results)").doesNotContain("ALL");
    }

    /**
     * Three batches of GoogLeNet on a P4, zeta(b) = 19.90 b + 19.60 mJ: sizes 1, 2 and 4 take
     * 39.5, 59.4 and 99.2 mJ, 198.1 mJ for 7 requests over a span of 10 ms (0 to 10,000 us):
     * 19.81 W, 28.3 mJ per request, 7 / 0.1981 J = 35.336... requests per joule.
     */
    @Test
    void energyOfBatchesSharedByTheirRequests() {
        ResultSummary s = new ResultSummary();
        double[] zeta = {0, 39.5, 59.4, 0, 99.2};
        s.add("googlenet", OK, 1, 2_000, 1, zeta[1]);
        for (int i = 0; i < 2; i++) s.add("googlenet", OK, 1_000, 5_000, 2, zeta[2] / 2);
        for (int i = 0; i < 4; i++) s.add("googlenet", i < 3 ? OK : LATE, 3_000, 10_001, 4, zeta[4] / 4);
        s.add("googlenet", DROPPED, 4_000, 4_100, 0, Double.NaN); // never ran: no energy, known or not

        ResultSummary.Stats g = s.model("googlenet");
        assertThat(g.executed()).isEqualTo(7);
        assertThat(g.energyMillijoules()).isCloseTo(198.1, offset(1e-9));
        assertThat(g.meanPowerWatts()).isCloseTo(19.81, offset(1e-9));
        assertThat(g.meanPowerWatts(20_000)).isCloseTo(9.905, offset(1e-9));
        assertThat(g.energyPerRequestMillijoules()).isCloseTo(28.3, offset(1e-9));
        assertThat(g.requestsPerJoule()).isCloseTo(7 / 0.1981, offset(1e-9));
        assertThat(s.csvRows().get(0)).endsWith(",198.100,19.8100,28.3000,35.3357");
        assertThat(s.overall().energyMillijoules()).isCloseTo(198.1, offset(1e-9));
    }

    @Test
    void energyIsUnknownAsSoonAsOneRequestThatRanHasNone() {
        ResultSummary s = new ResultSummary();
        s.add("googlenet", OK, 1, 2_000, 1, 39.5);
        s.add("resnet50", OK, 1, 2_000, 1); // a model without an energy profile
        assertThat(s.model("googlenet").energyMillijoules()).isEqualTo(39.5);
        assertThat(s.model("resnet50").energyMillijoules()).isNaN();
        assertThat(s.overall().energyMillijoules()).isNaN();
        assertThat(s.overall().meanPowerWatts()).isNaN();
        assertThat(s.overall().requestsPerJoule()).isNaN();
        assertThat(s.csvRows().get(2)).endsWith(",,,,");
        // Nothing ran: no figure at all, rather than 0 W.
        ResultSummary none = new ResultSummary();
        none.add("googlenet", DROPPED, 1, 2, 0, Double.NaN);
        assertThat(none.overall().energyMillijoules()).isNaN();
        // Merging keeps what is unknown unknown.
        ResultSummary merged = new ResultSummary();
        merged.add("googlenet", OK, 1, 2_000, 1, 39.5);
        merged.merge(s);
        assertThat(merged.model("googlenet").energyMillijoules()).isEqualTo(79.0);
        assertThat(merged.overall().energyMillijoules()).isNaN();
    }
}
