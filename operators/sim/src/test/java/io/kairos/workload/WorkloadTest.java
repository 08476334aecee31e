package io.kairos.workload;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkloadTest {

    private static final long SECOND = 1_000_000;

    @Test
    void sameSeedGivesTheSameArrivals() {
        Workload w = Workload.parse("resnet50:400:25,mlp:2000:10:acme");
        List<Arrival> a = w.arrivalsWithin(42, 2 * SECOND);
        List<Arrival> b = w.arrivalsWithin(42, 2 * SECOND);
        List<Arrival> other = w.arrivalsWithin(43, 2 * SECOND);

        assertThat(a).isEqualTo(b).hasSizeGreaterThan(4000);
        assertThat(other).isNotEqualTo(a);
    }

    @Test
    void mergedStreamIsTimeOrderedAndCarriesEachLoadsFields() {
        Workload w = Workload.parse("resnet50:400:25,mlp:2000:10:acme");
        List<Arrival> arrivals = w.arrivalsWithin(7, SECOND);

        for (int i = 1; i < arrivals.size(); i++) {
            assertThat(arrivals.get(i).offsetMicros()).isGreaterThanOrEqualTo(arrivals.get(i - 1).offsetMicros());
        }
        assertThat(arrivals).allSatisfy(a -> {
            assertThat(a.offsetMicros()).isBetween(0L, SECOND - 1);
            if (a.model().equals("resnet50")) {
                assertThat(a.tenant()).isEqualTo("default");
                assertThat(a.sloMs()).isEqualTo(25.0);
            } else {
                assertThat(a.model()).isEqualTo("mlp");
                assertThat(a.tenant()).isEqualTo("acme");
                assertThat(a.sloMs()).isEqualTo(10.0);
            }
        });
    }

    @Test
    void addingALoadLeavesTheEarlierLoadsArrivalsAsTheyWere() {
        List<Arrival> alone = Workload.parse("resnet50:400:25").arrivalsWithin(5, SECOND);
        List<Arrival> withMlp = Workload.parse("resnet50:400:25,mlp:2000:10").arrivalsWithin(5, SECOND).stream()
                .filter(a -> a.model().equals("resnet50")).toList();

        assertThat(withMlp).isEqualTo(alone);
    }

    @Test
    void poissonGapsHaveTheAskedMeanAndAreExponential() {
        ArrivalProcess.Gaps gaps = ArrivalProcess.poisson(1000).start(new SplittableRandom(1));
        int n = 200_000;
        double sum = 0;
        double sumSq = 0;
        for (int i = 0; i < n; i++) {
            long g = gaps.nextGapMicros();
            assertThat(g).isNotNegative();
            sum += g;
            sumSq += (double) g * g;
        }
        double mean = sum / n;
        double cv = Math.sqrt(sumSq / n - mean * mean) / mean;
        // Standard error of the mean is 1000 / sqrt(200000) = 2.2 us; 1 % is 4.5 of them.
        assertThat(mean).isCloseTo(1000.0, org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(cv).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.02)); // exponential: CV = 1
    }

    @Test
    void poissonWorkloadSendsEachModelAtItsRate() {
        List<Arrival> arrivals = Workload.parse("resnet50:400:25,mlp:2000:10").arrivalsWithin(3, 50 * SECOND);

        long resnet = arrivals.stream().filter(a -> a.model().equals("resnet50")).count();
        long mlp = arrivals.size() - resnet;
        // Poisson counts: sd = sqrt(20000) = 141 and sqrt(100000) = 316; 3 % is over 4 sd.
        assertThat((double) resnet).isCloseTo(20_000, org.assertj.core.data.Percentage.withPercentage(3));
        assertThat((double) mlp).isCloseTo(100_000, org.assertj.core.data.Percentage.withPercentage(3));
    }

    @Test
    void fixedRateGapsAreExact() {
        ArrivalProcess.Gaps gaps = ArrivalProcess.fixedRate(400).start(new SplittableRandom(1));
        for (int i = 0; i < 10_000; i++) assertThat(gaps.nextGapMicros()).isEqualTo(2500);
    }

    @Test
    void fixedRateWithAFractionalPeriodDoesNotDrift() {
        // 1e6 / 3 = 333,333.3 us: gaps of 333,333 and 333,334 that land on every whole second.
        ArrivalProcess.Gaps gaps = ArrivalProcess.fixedRate(3).start(new SplittableRandom(1));
        long t = 0;
        for (int second = 1; second <= 3600; second++) {
            for (int k = 0; k < 3; k++) {
                long g = gaps.nextGapMicros();
                assertThat(g).isBetween(333_333L, 333_334L);
                t += g;
            }
            assertThat(t).isEqualTo(second * SECOND);
        }
    }

    @Test
    void fixedRateLoadsBreakTiesByTheirOrderInTheSpec() {
        List<Arrival> arrivals = Workload.parse("a:1000:5,b:1000:5", ArrivalSpec.FIXED).arrivalsWithin(1, 3001);

        assertThat(arrivals).extracting(Arrival::model).containsExactly("a", "b", "a", "b", "a", "b");
        assertThat(arrivals).extracting(Arrival::offsetMicros).containsExactly(1000L, 1000L, 2000L, 2000L, 3000L, 3000L);
    }

    @Test
    void parsesTenantsRatesAndSlosAndPrintsTheSpecBack() {
        Workload w = Workload.parse(" resnet50:400:25 , mlp:2000.5:7.5:acme ");

        assertThat(w.loads()).containsExactly(
                new ModelLoad("default", "resnet50", 25, new PoissonArrivals(400)),
                ModelLoad.of("acme", "mlp", 2000.5, 7.5, ArrivalSpec.POISSON));
        assertThat(w.totalRatePerSecond()).isEqualTo(2400.5);
        assertThat(w.expectedArrivals(10 * SECOND)).isEqualTo(24005);
        assertThat(w.models()).containsExactly("resnet50", "mlp");
        assertThat(w).hasToString("resnet50:400:25,mlp:2000.5:7.5:acme");
        assertThat(Workload.parse(w.toString()).loads()).isEqualTo(w.loads());
    }

    @Test
    void specErrorsAreOneLineAndNameTheBadPart() {
        assertSpecError("", "workload spec is empty");
        assertSpecError("resnet50:400:25,", "workload spec part 2 is empty");
        assertSpecError("resnet50:400", "workload spec part 'resnet50:400': expected model:rate:sloMs[:tenant], got 2 fields");
        assertSpecError("a:1:2:t:extra", "got 5 fields");
        assertSpecError("resnet50:400:25,mlp:fast:10", "workload spec part 'mlp:fast:10': rate 'fast' is not a number");
        assertSpecError("mlp:100:soon", "workload spec part 'mlp:100:soon': sloMs 'soon' is not a number");
        assertSpecError("mlp:0:10", "workload spec part 'mlp:0:10': rate must be positive requests per second, got 0");
        assertSpecError("mlp:-5:10", "rate must be positive");
        assertSpecError("mlp:100:0", "workload spec part 'mlp:100:0': sloMs must be a positive number of milliseconds, got 0");
        assertSpecError("mlp:NaN:10", "rate 'NaN' is not a number");
        assertSpecError(":100:10", "workload spec part ':100:10': model name is empty");
        assertSpecError("mlp:100:10:", "workload spec part 'mlp:100:10:': tenant is empty");
    }

    @Test
    void theArrivalSpecSetsEveryLoadsProcessAtItsRate() {
        Workload w = Workload.parse("resnet50:400:25,mlp:2000:10", ArrivalSpec.parse("gamma:cv2=4"));

        assertThat(w.loads()).extracting(ModelLoad::process)
                .containsExactly(new GammaArrivals(400, 4), new GammaArrivals(2000, 4));
        assertThat(w.loads().get(0).ratePerSecond()).isEqualTo(400);
        assertThatThrownBy(() -> ArrivalProcess.poisson(0)).hasMessageContaining("positive");
        assertThatThrownBy(() -> ModelLoad.of("t", "m", -1, 10, ArrivalSpec.FIXED)).hasMessageContaining("positive");
    }

    private static void assertSpecError(String spec, String message) {
        assertThatThrownBy(() -> Workload.parse(spec))
                .isInstanceOf(Workload.SpecException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
