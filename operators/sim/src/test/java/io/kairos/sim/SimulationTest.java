package io.kairos.sim;

import io.kairos.core.device.ExecutionNoise;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.request.Request;
import io.kairos.core.result.ResultStatus;
import io.kairos.core.scheduling.policy.Policies;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class SimulationTest {

    /** R: Clockwork's ResNet50, tau(b) = 0.8 b + 1.9 ms at 1, 2, 4, 8, 16 (2.7, 3.5, 5.1, 8.3, 14.7 ms). */
    static final ModelCatalog CATALOG = ModelCatalog.parse("""
            {"models": [
              {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 4, 8, 16],
               "latency_ms": {"alpha": 0.8, "beta": 1.9}},
              {"name": "B", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
            ]}""", "simulation-test");

    record Fate(String id, ResultStatus status, long end, int batch) {}

    static List<Fate> fates(Simulation sim) {
        List<Fate> out = new ArrayList<>();
        sim.run((r, status, end, batch) -> out.add(new Fate(r.id(), status, end, batch)));
        return out;
    }

    static Arrival at(long micros, String model, double sloMs) {
        return new Arrival(micros, "t", model, sloMs);
    }

    @Test
    void fifoRunsOneAtATimeBackToBack() {
        // r0 at 0 runs 0-2700; r1 (at 1000) waits and runs 2700-5400; r2 (at 2000) runs 5400-8100.
        // SLO 6 ms: r2's deadline is 8000, it can still start at 5400 (5400 + 2700 = 8100 > 8000: no!),
        // so the scheduler sheds r2 at 5300 + 1, the first instant it is unreachable.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 6), at(1000, "R", 6), at(2000, "R", 6))))
                .duration(10_000).build();
        assertThat(fates(sim)).containsExactly(
                new Fate("0", ResultStatus.OK, 2700, 1),
                new Fate("2", ResultStatus.DROPPED, 5301, 0),
                new Fate("1", ResultStatus.OK, 5400, 1));
        SimulationReport r = sim.run();
        assertThat(r.arrivals()).isEqualTo(3);
        assertThat(r.ok()).isEqualTo(2);
        assertThat(r.dropped()).isEqualTo(1);
        assertThat(r.busyMicros()).isEqualTo(5400);
        assertThat(r.batches()).isEqualTo(2);
        assertThat(r.meanBatchSize()).isEqualTo(1.0);
    }

    @Test
    void clockworkBatchesWhatWaits() {
        // One device runs r0 (0-2700). Clockwork tops a device up while it has less than 5 ms
        // booked: r1 at 100 goes at once (2600 us booked), alone, 2700-5400. Now 5300 us are
        // booked, so r2..r5 (200..400) wait until the device is within 5 ms of free: at 5400 -
        // 5000 = 400, strictly less from 401. Then the largest batch that meets r2's deadline
        // (20.2 ms) is all four, 5.1 ms: 5400-10500.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("clockwork")
                .load(ArrivalSource.replay(List.of(at(0, "R", 20), at(100, "R", 20), at(200, "R", 20),
                        at(300, "R", 20), at(400, "R", 20), at(400, "R", 20))))
                .duration(10_000).build();
        assertThat(fates(sim)).containsExactly(
                new Fate("0", ResultStatus.OK, 2700, 1),
                new Fate("1", ResultStatus.OK, 5400, 1),
                new Fate("2", ResultStatus.OK, 10_500, 4),
                new Fate("3", ResultStatus.OK, 10_500, 4),
                new Fate("4", ResultStatus.OK, 10_500, 4),
                new Fate("5", ResultStatus.OK, 10_500, 4));
    }

    @Test
    void periodicInvocationWaitsForTheNextTick() {
        // Invoked every 1 ms: r0 arriving at 300 starts at 1000, ends at 3700.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(300, "R", 10))))
                .invocation(Invocation.every(1000)).duration(10_000).build();
        assertThat(fates(sim)).containsExactly(new Fate("0", ResultStatus.OK, 3700, 1));
    }

    @Test
    void aDispatchDelayPostponesTheStartButNotTheBooking() {
        // Each hand-over takes 500 us. r0 (at 0) reaches the device at 500 and ends at 3200; r1
        // (at 100) was booked behind r0's predicted end 2700 and dispatched at 2700 - FIFO waits
        // for an idle device - it reaches the device at 3200 when r0 has just ended: 3200-5900.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(100, "R", 100))))
                .dispatchDelay(Delay.constant(500)).duration(1000).build();
        assertThat(fates(sim)).extracting(Fate::end).containsExactly(3200L, 5900L);
    }

    @Test
    void flexPreemptsTheRunningBatchForOneLambdaTimesLarger() {
        // r0 (R) runs alone from 0 (until 2700). At 1000 eight requests of R#1, a copy of R, arrive:
        // a batch of 8 (8.3 ms) is at least lambda = 2 times the running 1, so r0 is aborted at
        // 1000 and the 8 run 1000-9300; r0 goes back to its queue and runs 9300-12000. The device
        // was busy 1000 us for nothing, and in the measured 2 ms window busy throughout.
        List<Arrival> arrivals = new ArrayList<>();
        arrivals.add(at(0, "R", 50));
        for (int i = 0; i < 8; i++) arrivals.add(at(1000, "R#1", 50));
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("flex", Map.of("lambda", "2"))
                .load(ArrivalSource.replay(arrivals)).duration(2000).build();
        List<Fate> f = fates(sim);
        assertThat(f).hasSize(9);
        assertThat(f.subList(0, 8)).allSatisfy(x -> assertThat(x).isEqualTo(new Fate(x.id(), ResultStatus.OK, 9300, 8)));
        assertThat(f.get(8)).isEqualTo(new Fate("0", ResultStatus.OK, 12_000, 1));
        SimulationReport r = sim.run();
        assertThat(r.preemptions()).isEqualTo(1);
        assertThat(r.busyMicros()).isEqualTo(2000); // r0's aborted 1000 us, then the batch of 8's first 1000 us
        // Without preemption the 8 wait for r0: 2700-11000.
        List<Fate> kept = fates(Simulation.builder(CATALOG).devices(1).policy("flex", Map.of("lambda", "2"))
                .load(ArrivalSource.replay(arrivals)).duration(2000).preemption(false).build());
        assertThat(kept.get(0)).isEqualTo(new Fate("0", ResultStatus.OK, 2700, 1));
        assertThat(kept.get(1).end()).isEqualTo(11_000);
    }

    @Test
    void coldStartsAreChargedWhenTheCacheMisses() {
        // Capacity 1, load 5 ms: R (cold, 0-7700), B (cold, 7700-13700), R again (cold, 13700-21400).
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(10, "B", 100), at(20, "R", 100))))
                .coldStarts(new ColdStarts(5000, 1)).duration(1000).build();
        assertThat(fates(sim)).extracting(Fate::end).containsExactly(7700L, 13_700L, 21_400L);
        assertThat(sim.run().coldStarts()).isEqualTo(3);
    }

    @Test
    void theSecondBatchRunsAfterTheFirstsColdStart() {
        // The first batch loads its model: it ends at 7700 (the scheduler booked it so); the
        // second request, warm, runs 7700-10400.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(10, "R", 100))))
                .coldStarts(new ColdStarts(5000, 1)).duration(1000).build();
        assertThat(fates(sim)).extracting(Fate::end).containsExactly(7700L, 10_400L);
    }

    @Test
    void aPlacedModelIsLoadedWhenPlacedAndItsFirstBatchRunsWarm() {
        // One device placed with R (load 5 ms): the placement loads R at once, the load booked on
        // the device's timeline and carried out there as work of its own, 0-5000; so the first R
        // runs warm after it, 5000-7700, the second 7700-10400, both by their deadlines (SLO 11 ms),
        // as the scheduler booked them.
        Simulation sim = Simulation.builder(CATALOG).placement(java.util.Arrays.asList(java.util.Set.of("R"))).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 11), at(10, "R", 11))))
                .coldStarts(new ColdStarts(5000, 1)).duration(1000).build();
        assertThat(fates(sim)).containsExactly(
                new Fate("0", ResultStatus.OK, 7700, 1),
                new Fate("1", ResultStatus.OK, 10_400, 1));
        assertThat(sim.run().coldStarts()).isZero();
    }

    @Test
    void theSchedulerBooksTheColdStartsItsDevicesSpend() {
        // Clockwork books work while less than 5 ms is outstanding. The first R is a cold start,
        // booked 0-7700 (2.7 ms + the 5 ms load): the scheduler holds the next two until 2701,
        // when 4999 us are left, and sends them as one batch of 2, warm, 7700-11200. A scheduler
        // blind to the load would have sent the second alone at once.
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("clockwork")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(10, "R", 100), at(20, "R", 100))))
                .coldStarts(new ColdStarts(5000, 1)).duration(1000).build();
        assertThat(fates(sim)).containsExactly(
                new Fate("0", ResultStatus.OK, 7700, 1),
                new Fate("1", ResultStatus.OK, 11_200, 2),
                new Fate("2", ResultStatus.OK, 11_200, 2));
    }

    @Test
    void onDevicesSlowerThanProfiledLearningTheLatencyTurnsLateResultsIntoEarlyDecisions() {
        // Devices 1.5 times slower than the catalog: a scheduler that keeps the catalog's profile
        // sends batches that end late; one that learns from the ends sheds or batches in time.
        Simulation.Builder b = Simulation.builder(CATALOG).devices(2).policy("clockwork")
                .workload(Workload.parse("R:900:8")).duration(2_000_000).speed(1.5).seed(3);
        SimulationReport blind = b.learnLatency(null).build().run();
        SimulationReport learning = b.learnLatency(io.kairos.core.model.LatencyEstimator.Settings.DEFAULT).build().run();
        assertThat(blind.late()).isGreaterThan(100);
        assertThat(learning.late()).isLessThan(blind.late() / 10);
        assertThat(learning.ok()).isGreaterThan(blind.ok());
    }

    @Test
    void closedLoopClientsSendWhenTheirLastRequestEnds() {
        ClosedLoop load = new ClosedLoop(List.of(new ClosedLoop.Clients("t", "R", 2, 50, 1000)));
        Simulation sim = Simulation.builder(CATALOG).devices(1).policy("fifo").load(load).duration(200_000).build();
        List<Request> ended = new ArrayList<>();
        List<Long> endTimes = new ArrayList<>();
        sim.run((r, status, end, batch) -> {
            ended.add(r);
            endTimes.add(end);
        });
        // Two clients, each with one request outstanding: at any end, at most 2 requests have arrived and not ended.
        assertThat(ended).hasSizeGreaterThan(40);
        List<Long> sorted = ended.stream().map(Request::arrivalMicros).sorted().toList();
        for (int i = 0; i < ended.size(); i++) {
            long end = endTimes.get(i);
            long arrivedByEnd = sorted.stream().filter(a -> a <= end).count();
            assertThat(arrivedByEnd - (i + 1)).isLessThanOrEqualTo(2);
        }
        // Each request after the first two arrives exactly one think time after some request ended.
        Set<Long> sendTimes = new java.util.HashSet<>();
        for (long e : endTimes) sendTimes.add(e + 1000);
        assertThat(sorted.subList(2, sorted.size())).allMatch(sendTimes::contains);
    }

    static List<String> policies() {
        return Policies.names();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void everyRequestEndsExactlyOnce(String policy) {
        Workload w = Workload.parse("R:1500:12,B:800:5");
        Simulation sim = Simulation.builder(CATALOG).devices(2).policy(policy).workload(w)
                .noise(ExecutionNoise.lognormal(0.1)).duration(2_000_000).seed(7).build();
        Map<String, Integer> seen = new HashMap<>();
        SimulationReport r = sim.run((req, status, end, batch) -> seen.merge(req.id(), 1, Integer::sum));
        assertThat(seen.values()).allMatch(n -> n == 1);
        assertThat(r.simulatedRequests()).isEqualTo(seen.size());
        assertThat(r.arrivals()).isEqualTo(r.ok() + r.late() + r.dropped()).isEqualTo(seen.size());
        assertThat(r.arrivals()).isBetween(4300L, 4900L); // 2,300/s for 2 s
    }

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnotherOne() {
        Simulation.Builder b = Simulation.builder(CATALOG).devices(2).policy("clockwork")
                .workload(Workload.parse("R:1500:12,B:800:5")).noise(ExecutionNoise.lognormal(0.2)).duration(1_000_000);
        SimulationReport a = b.seed(3).build().run();
        SimulationReport again = b.seed(3).build().run();
        SimulationReport other = b.seed(4).build().run();
        // Every column but the last, the simulation's speed in wall-clock time.
        int n = SimulationReport.CSV_COLUMNS.size() - 1;
        assertThat(again.csvValues().subList(0, n)).isEqualTo(a.csvValues().subList(0, n));
        assertThat(other.csvValues().subList(0, n)).isNotEqualTo(a.csvValues().subList(0, n));
    }

    @Test
    void theWarmUpIsSimulatedButNotCounted() {
        Simulation.Builder b = Simulation.builder(CATALOG).devices(1).policy("fifo")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100), at(50_000, "R", 100)))).duration(100_000);
        assertThat(b.build().run().arrivals()).isEqualTo(2);
        SimulationReport warmed = b.warmup(10_000).build().run();
        assertThat(warmed.arrivals()).isEqualTo(1);
        assertThat(warmed.simulatedRequests()).isEqualTo(2);
        assertThat(warmed.busyMicros()).isEqualTo(2700);
        assertThat(warmed.windowMicros()).isEqualTo(90_000);
    }

    /**
     * G: GoogLeNet on a P4 at sizes 1, 2, 4: tau = 1357, 1662, 2272 us, zeta = 39.5, 59.4, 99.2 mJ.
     * Work-conserving: r0 at 0 runs alone (0-1357); r1, r2 (100, 200) run as a batch of 2
     * (1357-3019); r3..r6 (1500..1800) as a batch of 4 (3019-5291). 198.1 mJ in a window of
     * 10 ms: 19.81 W, 28.3 mJ per request, 7 / 0.1981 requests per joule; mean latency
     * (1357 + 2919 + 2819 + 3791 + 3691 + 3591 + 3491) / 7 = 21,659 / 7 us.
     */
    @Test
    void energyOfThreeBatchesOfKnownSizes() {
        ModelCatalog catalog = ModelCatalog.parse("""
                {"models": [
                  {"name": "G", "input": {"dtype": "FLOAT32", "shape": [1]}, "batch_sizes": [1, 2, 4],
                   "latency_ms": {"alpha": 0.3051, "beta": 1.052}, "energy_mj": {"beta": 19.90, "zeta0": 19.60}},
                  {"name": "R", "input": {"dtype": "FLOAT32", "shape": [1]}, "latency_ms": {"table": {"1": 1}}}
                ]}""", "energy-test");
        List<Arrival> arrivals = new ArrayList<>();
        for (long t : new long[]{0, 100, 200, 1500, 1600, 1700, 1800}) arrivals.add(at(t, "G", 100));
        Simulation sim = Simulation.builder(catalog).devices(1).policy("work-conserving")
                .load(ArrivalSource.replay(arrivals)).duration(10_000).build();
        assertThat(fates(sim)).extracting(Fate::batch).containsExactly(1, 2, 2, 4, 4, 4, 4);

        SimulationReport r = sim.run();
        assertThat(r.energyMillijoules()).isCloseTo(198.1, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.meanPowerWatts()).isCloseTo(19.81, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.energyPerRequestMillijoules()).isCloseTo(28.3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.requestsPerJoule()).isCloseTo(7 / 0.1981, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(r.meanLatencyMs()).isCloseTo(21_659 / 7_000.0, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(r.byModel().model("G").energyMillijoules()).isEqualTo(r.energyMillijoules());
        assertThat(r.toString()).contains("19.81 W", "28.300 mJ per request");
        List<String> columns = SimulationReport.CSV_COLUMNS;
        assertThat(r.csvValues().get(columns.indexOf("mean_power_w"))).isEqualTo("19.8100");
        assertThat(r.csvValues().get(columns.indexOf("energy_mj"))).isEqualTo("198.100");

        // A model without an energy profile: every energy figure unknown, an empty field, never 0.
        SimulationReport unknown = Simulation.builder(catalog).devices(1).policy("work-conserving")
                .load(ArrivalSource.replay(List.of(at(0, "R", 100)))).duration(10_000).build().run();
        assertThat(unknown.energyMillijoules()).isNaN();
        assertThat(unknown.meanPowerWatts()).isNaN();
        assertThat(unknown.requestsPerJoule()).isNaN();
        for (String c : List.of("energy_mj", "mean_power_w", "energy_per_request_mj", "requests_per_j")) {
            assertThat(unknown.csvValues().get(columns.indexOf(c))).as(c).isEmpty();
        }
        assertThat(unknown.toString()).endsWith("energy unknown");
    }
}
