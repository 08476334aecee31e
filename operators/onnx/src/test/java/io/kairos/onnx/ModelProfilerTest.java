package io.kairos.onnx;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ModelProfilerTest {

    private static ModelProfiler.BatchStats p50(int b, double ms) {
        return new ModelProfiler.BatchStats(b, ms, ms, ms);
    }

    @Test
    void fitOfPointsOnALineIsThatLineWithRSquaredOne() {
        double[] fit = ModelProfiler.fitLine(List.of(p50(1, 1.5), p50(2, 2.5), p50(4, 4.5), p50(8, 8.5)));
        assertThat(fit[0]).isCloseTo(1.0, within(1e-12));
        assertThat(fit[1]).isCloseTo(0.5, within(1e-12));
        assertThat(fit[2]).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void fitOfScatteredPointsHasTheLeastSquaresLineAndRSquaredBelowOne() {
        // x = 1,2,3; y = 1,3,2: slope 0.5, intercept 1, r = 0.5 so R^2 = 0.25 (worked by hand).
        double[] fit = ModelProfiler.fitLine(List.of(p50(1, 1), p50(2, 3), p50(3, 2)));
        assertThat(fit[0]).isCloseTo(0.5, within(1e-12));
        assertThat(fit[1]).isCloseTo(1.0, within(1e-12));
        assertThat(fit[2]).isCloseTo(0.25, within(1e-12));
    }

    @Test
    void percentileIsNearestRank() {
        double[] sorted = new double[100];
        for (int i = 0; i < 100; i++) sorted[i] = i + 1;
        assertThat(ModelProfiler.percentile(sorted, 0.50)).isEqualTo(50);
        assertThat(ModelProfiler.percentile(sorted, 0.99)).isEqualTo(99);
        assertThat(ModelProfiler.percentile(new double[]{7}, 0.99)).isEqualTo(7);
    }

    @Test
    void profilesTheMlpAtEachBatchSizeAndWritesAProfilesFileTheCatalogReads() throws Exception {
        ModelRepository repo = ModelRepository.readManifests(OnnxTestData.exampleRepository("profiler"));
        List<Integer> progress = new ArrayList<>();
        ModelProfiler.Profile p = new ModelProfiler(new OnnxDevice.Options(Long.MAX_VALUE, 1, -1), 2, 5)
                .profile(repo.get("mlp"), progress::add);
        assertThat(progress).containsExactly(1, 2, 4, 8, 16, 32);
        assertThat(p.batches()).extracting(ModelProfiler.BatchStats::batchSize).containsExactly(1, 2, 4, 8, 16, 32);
        assertThat(p.batches()).allSatisfy(b -> assertThat(b.p50Ms()).isPositive().isLessThanOrEqualTo(b.p99Ms()));
        assertThat(p.coldStartMs()).isPositive();

        ModelCatalog catalog = ModelCatalog.parse(ModelProfiler.profilesJson(repo, List.of(p)), "profiles");
        assertThat(catalog.names()).containsExactly("mlp");
        assertThat(catalog.get("mlp").input()).isEqualTo(repo.get("mlp").input());
        for (ModelProfiler.BatchStats b : p.batches()) {
            // The table holds p99 in ms to 4 decimals; the catalog rounds to microseconds.
            assertThat(catalog.get("mlp").latency().latencyMicros(b.batchSize())).isCloseTo(Math.round(b.p99Ms() * 1000), within(1L));
        }
        // The CPU has no power reading: the energy is unknown, not zero, and the file says nothing of it.
        assertThat(p.batches()).allSatisfy(b -> assertThat(b.powerW()).isNaN());
        assertThat(p.energyKnown()).isFalse();
        assertThat(ModelProfiler.profilesJson(repo, List.of(p))).doesNotContain("energy_mj", "power_w");
        assertThat(catalog.get("mlp").energyKnown()).isFalse();
        assertThat(ModelProfiler.table(p)).contains("energy: unknown");
    }

    @Test
    void aDeviceWhosePowerCanBeReadGetsAnEnergyLineTheCatalogReads() throws Exception {
        ModelRepository repo = ModelRepository.readManifests(OnnxTestData.exampleRepository("profiler-power"));
        // A board that always draws 50 W: a batch's energy is 50 W x its mean latency.
        ModelProfiler.Profile p = new ModelProfiler(new OnnxDevice.Options(Long.MAX_VALUE, 1, -1), 1, 3, () -> java.util.OptionalDouble.of(50))
                .profile(repo.get("mlp"), b -> {});
        assertThat(p.batches()).allSatisfy(b -> {
            assertThat(b.powerW()).isEqualTo(50);
            assertThat(b.energyMj()).isEqualTo(50 * b.meanMs());
        });
        double[] fit = ModelProfiler.fitEnergy(p.batches());
        assertThat(p.energyBetaMj()).isEqualTo(fit[0]).isNotNegative();
        assertThat(p.energyZeta0Mj()).isEqualTo(fit[1]).isNotNegative();
        ModelCatalog catalog = ModelCatalog.parse(ModelProfiler.profilesJson(repo, List.of(p)), "profiles");
        assertThat(catalog.get("mlp").energy().betaMj()).isCloseTo(p.energyBetaMj(), within(1e-4));
        assertThat(catalog.get("mlp").energy().zeta0Mj()).isCloseTo(p.energyZeta0Mj(), within(1e-4));
    }

    @Test
    void fitsTheEnergyLineAndLeavesItUnknownWhenOnePowerIsMissing() {
        // 15 W x 1 ms, 12.5 W x 2 ms, 22.5 W x 2 ms: 15, 25, 45 mJ at sizes 1, 2, 4, on the line 10 b + 5.
        List<ModelProfiler.BatchStats> known = List.of(
                new ModelProfiler.BatchStats(1, 1, 1, 1, 15), new ModelProfiler.BatchStats(2, 2, 2, 2, 12.5),
                new ModelProfiler.BatchStats(4, 2, 2, 2, 22.5));
        assertThat(ModelProfiler.fitEnergy(known)).containsExactly(new double[]{10, 5}, within(1e-9));
        // 10, 30, 60 mJ: the free fit is 115/7 b - 5, below 0 when empty; through the origin
        // beta = sum(b e) / sum(b^2) = (10 + 60 + 240) / (1 + 4 + 16) = 310 / 21.
        List<ModelProfiler.BatchStats> steep = List.of(
                new ModelProfiler.BatchStats(1, 1, 1, 1, 10), new ModelProfiler.BatchStats(2, 1, 1, 1, 30),
                new ModelProfiler.BatchStats(4, 1, 1, 1, 60));
        assertThat(ModelProfiler.fitEnergy(steep)).containsExactly(new double[]{310.0 / 21, 0}, within(1e-9));
        // 30, 20, 25 mJ: the free fit falls with the size (noise on a tiny model); the flat line is their mean.
        List<ModelProfiler.BatchStats> falling = List.of(
                new ModelProfiler.BatchStats(1, 1, 1, 1, 30), new ModelProfiler.BatchStats(2, 1, 1, 1, 20),
                new ModelProfiler.BatchStats(4, 1, 1, 1, 25));
        assertThat(ModelProfiler.fitEnergy(falling)).containsExactly(new double[]{0, 25}, within(1e-9));
        List<ModelProfiler.BatchStats> oneMissing = List.of(known.get(0), new ModelProfiler.BatchStats(2, 1.5, 1.5, 1.5));
        assertThat(ModelProfiler.fitEnergy(oneMissing)).containsOnly(Double.NaN);
    }

    @Test
    void readsNvidiaSmisAnswer() {
        assertThat(PowerMeter.parseWatts("71.45\n")).hasValue(71.45);
        assertThat(PowerMeter.parseWatts("[N/A]\n")).isEmpty();
        assertThat(PowerMeter.parseWatts("")).isEmpty();
        assertThat(PowerMeter.forDevice(-1)).isSameAs(PowerMeter.NONE);
    }

    /** A profile of mlp measured by hand: {@code ms} at each of its batch sizes 1..32, p50 = p99, 7 ms cold. */
    private static ModelProfiler.Profile measured(double... ms) {
        List<ModelProfiler.BatchStats> batches = new ArrayList<>();
        int[] sizes = {1, 2, 4, 8, 16, 32};
        for (int i = 0; i < sizes.length; i++) batches.add(p50(sizes[i], ms[i]));
        return new ModelProfiler.Profile("mlp", 7, batches, 0, 0, 1, Double.NaN, Double.NaN);
    }

    @Test
    void profilesGoIntoAFileAsTheirHardwareTypesProfiles() throws Exception {
        ModelRepository repo = ModelRepository.readManifests(OnnxTestData.exampleRepository("profiler-types"));
        // A new file: its one type is the one measured, at the price given.
        String onCpu = ModelProfiler.profilesJson(repo, List.of(measured(1, 2, 3, 4, 5, 6)), "cpu", 0.1, io.kairos.core.model.HardwareType.Execution.CPU, null, "p.json");
        assertThat(ModelCatalog.parse(onCpu, "p.json").hardwareType("cpu").execution()).as("measured on the CPU").isEqualTo(io.kairos.core.model.HardwareType.Execution.CPU);
        ModelCatalog cpuOnly = ModelCatalog.parse(onCpu, "p.json");
        assertThat(cpuOnly.hardwareTypes()).containsExactly(new io.kairos.core.model.HardwareType("cpu", 0.1, io.kairos.core.model.HardwareType.Execution.CPU));
        assertThat(cpuOnly.get("mlp").latency().latencyMicros(4)).isEqualTo(3_000);

        // Then measured on a T4: the file gains the type, at 0 since no price was given, and mlp its profile there.
        String both = ModelProfiler.profilesJson(repo, List.of(measured(0.5, 0.6, 0.7, 0.8, 0.9, 1.0)), "gpu-t4", null, io.kairos.core.model.HardwareType.Execution.CUDA, onCpu, "p.json");
        assertThat(ModelCatalog.parse(both, "p.json").hardwareType("gpu-t4").execution()).as("a type joining the file, measured on CUDA").isEqualTo(io.kairos.core.model.HardwareType.Execution.CUDA);
        ModelCatalog typed = ModelCatalog.parse(both, "p.json");
        assertThat(typed.hardwareTypes()).extracting(io.kairos.core.model.HardwareType::name).containsExactly("cpu", "gpu-t4");
        assertThat(typed.hardwareType("gpu-t4").pricePerHour()).isZero();
        assertThat(typed.get("mlp").latency().latencyMicros(4)).as("cpu kept").isEqualTo(3_000);
        assertThat(typed.get("mlp").latencyOn("gpu-t4").latencyMicros(4)).isEqualTo(700);
        assertThat(typed.get("mlp").profileOn("gpu-t4").loadMicros()).isEqualTo(7_000);

        // Measured on cpu again, with a price: the cpu profile is replaced, the T4's stays.
        ModelCatalog again = ModelCatalog.parse(ModelProfiler.profilesJson(repo, List.of(measured(2, 3, 4, 5, 6, 7)), "cpu", 0.2, both, "p.json"), "p.json");
        assertThat(again.get("mlp").latency().latencyMicros(4)).isEqualTo(4_000);
        assertThat(again.get("mlp").latencyOn("gpu-t4").latencyMicros(4)).isEqualTo(700);
        assertThat(again.hardwareType("cpu").pricePerHour()).isEqualTo(0.2);
    }

    @Test
    void aFileWhoseProfilesAreOnNoNamedTypeOrLackTheModelIsRefused() throws Exception {
        ModelRepository repo = ModelRepository.readManifests(OnnxTestData.exampleRepository("profiler-refused"));
        String untyped = ModelProfiler.profilesJson(repo, List.of(measured(1, 2, 3, 4, 5, 6)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ModelProfiler.profilesJson(repo, List.of(), "gpu", null, untyped, "old.json"))
                .hasMessageStartingWith("old.json: has no 'hardware' list, so its profiles are on no named type");
        String otherModel = "{\"hardware\": [{\"name\": \"cpu\", \"price_per_hour\": 0}], \"models\": []}";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ModelProfiler.profilesJson(repo, List.of(measured(1, 2, 3, 4, 5, 6)), "gpu", null, otherModel, "p.json"))
                .hasMessage("p.json: has no model 'mlp'; its first profile is on 'cpu', the file's first hardware type: profile it there first");
    }
}
