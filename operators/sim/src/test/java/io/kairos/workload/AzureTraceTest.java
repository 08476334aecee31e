package io.kairos.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

class AzureTraceTest {

    private static final String HEADER = "HashOwner,HashApp,HashFunction,Trigger,1,2,3,4,5\n";
    private static final String THREE_ROWS = HEADER
            + "o1,a1,f1,http,2,0,1,0,0\n"
            + "o1,a1,f2,timer,1,1,1,1,1\n"
            + "o2,a2,f3,queue,0,0,0,0,300\r\n"
            + "\n";

    private static AzureTrace parse(String csv) throws Exception {
        return AzureTrace.read(new BufferedReader(new StringReader(csv)), "trace.csv");
    }

    @Test
    void readsAThreeRowFile() throws Exception {
        AzureTrace t = parse(THREE_ROWS);

        assertThat(t.functionCount()).isEqualTo(3);
        assertThat(t.minutes()).isEqualTo(5);
        assertThat(t.function(0)).isEqualTo(new AzureTrace.Function("o1", "a1", "f1", "http"));
        assertThat(t.function(2)).isEqualTo(new AzureTrace.Function("o2", "a2", "f3", "queue"));
        assertThat(t.minuteCounts(0)).containsExactly(2, 0, 1, 0, 0);
        assertThat(t.minuteCounts(2)).containsExactly(0, 0, 0, 0, 300);
        assertThat(t.count(1, 3)).isEqualTo(1);
        assertThat(t.invocations(0)).isEqualTo(3);
        assertThat(t.invocations(1)).isEqualTo(5);
        assertThat(t.totalInvocations()).isEqualTo(308);
        assertThat(t.invocations(0, 3)).isEqualTo(6);
        assertThat(t.meanRatePerSecond()).isCloseTo(308 / 300.0, withPercentage(1e-9));
        assertThat(t).hasToString("azure trace: 3 functions x 5 minutes, 308 invocations (1.0/s)");
    }

    @Test
    void badInputIsNamedByFileLineAndColumnInOneLine() {
        assertTraceError("", "trace.csv: empty file; expected the header HashOwner,HashApp,HashFunction,Trigger,1,2,...,1440");
        assertTraceError("HashOwner,HashApp,Function,Trigger,1\n",
                "trace.csv:1: column 3 should be 'HashFunction', got 'Function'; expected the header HashOwner,HashApp,HashFunction,Trigger,1,2,...,1440");
        assertTraceError("HashOwner,HashApp,HashFunction,Trigger\n", "trace.csv:1: no minute columns; expected the header HashOwner,HashApp,HashFunction,Trigger,1,2,...,1440");
        assertTraceError("HashOwner,HashApp,HashFunction,Trigger,1,3\n", "trace.csv:1: column 6 should be minute '2', got '3'");
        assertTraceError(HEADER + "o,a,f,http,1,2,3,4,5\no,a,g,http,1,2,3,4\n",
                "trace.csv:3: expected 9 columns (4 ids and 5 minutes), got 8");
        assertTraceError(HEADER + "o,a,f,http,1,2,3,4,5,6\n", "trace.csv:2: expected 9 columns (4 ids and 5 minutes), got more");
        assertTraceError(HEADER + "o,a,f,http,1,2,x,4,5\n", "trace.csv:2: column 7 (minute 3): count 'x' is not a whole number");
        assertTraceError(HEADER + "o,a,f,http,1,2,3.5,4,5\n", "trace.csv:2: column 7 (minute 3): count '3.5' is not a whole number");
        assertTraceError(HEADER + "o,a,f,http,1,,3,4,5\n", "trace.csv:2: column 6 (minute 2): count '' is not a whole number");
        assertTraceError(HEADER + "o,a,f,http,1,2,3,4,-7\n", "trace.csv:2: column 9 (minute 5): count '-7' is negative");
        assertTraceError(HEADER + "o,a,f,http,1,2,3,4,2147483648\n", "trace.csv:2: column 9 (minute 5): count '2147483648' is too large");
        assertTraceError(HEADER + "o,,f,http,1,2,3,4,5\n", "trace.csv:2: column 2 (HashApp) is empty");
    }

    private static void assertTraceError(String csv, String message) {
        assertThatThrownBy(() -> parse(csv)).isInstanceOf(AzureTrace.TraceException.class).hasMessage(message);
    }

    @Test
    void aMissingOrUnwritableFileIsNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> AzureTrace.read(dir.resolve("missing.csv")))
                .isInstanceOf(AzureTrace.TraceException.class).hasMessageStartingWith(dir.resolve("missing.csv") + ": cannot read trace");
        assertThatThrownBy(() -> AzureTrace.of(List.of(), new int[0][], 5).write(dir.resolve("no/such/dir.csv")))
                .hasMessageStartingWith(dir.resolve("no/such/dir.csv") + ": cannot write trace");
    }

    @Test
    void aWrittenTraceReadsBackTheSame(@TempDir Path dir) throws Exception {
        AzureTrace generated = AzureLikeTrace.of(300, 50, AzureTrace.MINUTES_PER_DAY).generate(4);
        Path file = dir.resolve("generated.csv");

        generated.write(file);
        AzureTrace read = AzureTrace.read(file);

        assertThat(Files.readAllLines(file).get(0)).startsWith("HashOwner,HashApp,HashFunction,Trigger,1,2,3,").endsWith(",1439,1440");
        assertThat(read.functionCount()).isEqualTo(300);
        assertThat(read.minutes()).isEqualTo(1440);
        assertThat(read.totalInvocations()).isEqualTo(generated.totalInvocations()).isPositive();
        for (int f = 0; f < 300; f++) {
            assertThat(read.function(f)).isEqualTo(generated.function(f));
            assertThat(read.minuteCounts(f)).isEqualTo(generated.minuteCounts(f));
        }
        Path again = dir.resolve("again.csv");
        read.write(again);
        assertThat(Files.mismatch(file, again)).isEqualTo(-1L);
    }

    @Test
    void modelInstancesAreNumberedCopiesOfEachModel() {
        List<String> models = IntStream.range(0, 61).mapToObj(i -> i == 0 ? "resnet50" : "model" + i).toList();
        List<String> instances = AzureTrace.modelInstances(models, 66);

        assertThat(instances).hasSize(4026).doesNotHaveDuplicates();
        assertThat(instances.subList(0, 3)).containsExactly("resnet50#0001", "resnet50#0002", "resnet50#0003");
        assertThat(instances.get(65)).isEqualTo("resnet50#0066");
        assertThat(instances.get(66)).isEqualTo("model1#0001");
        assertThat(AzureTrace.baseModel("resnet50#0007")).isEqualTo("resnet50");
        assertThat(AzureTrace.baseModel("mlp")).isEqualTo("mlp");
    }

    @Test
    void eachFunctionBecomesAReplayLoadOnItsInstanceByIndex() throws Exception {
        AzureTrace t = parse(THREE_ROWS);

        Workload w = t.toWorkload(List.of("m#0001", "m#0002"), 100);

        assertThat(w.loads()).extracting(ModelLoad::model).containsExactly("m#0001", "m#0002", "m#0001");
        assertThat(w.loads()).extracting(ModelLoad::tenant).containsExactly("o1", "o1", "o2");
        assertThat(w.loads()).extracting(ModelLoad::sloMs).containsOnly(100.0);
        assertThat(w.loads().get(2).process()).isEqualTo(CountsReplay.of(AzureTrace.MINUTE_MICROS, 0, 0, 0, 0, 300));
        List<Arrival> all = w.arrivalsWithin(1, Long.MAX_VALUE);
        assertThat(all).hasSize(308);
        assertThat(all.get(all.size() - 1).offsetMicros()).isBetween(4 * AzureTrace.MINUTE_MICROS, 5 * AzureTrace.MINUTE_MICROS - 1);
    }

    @Test
    void aWindowStartsAtTimeZeroAndLeavesOutSilentFunctions() throws Exception {
        AzureTrace t = parse(THREE_ROWS);

        Workload w = t.toWorkload(List.of("a", "b", "c"), 50, 1, 1, 3); // minutes 2..4 of the file

        // f1 has 0 and 1 in them, f2 1, 1, 1, f3 nothing: left out.
        assertThat(w.loads()).extracting(ModelLoad::model).containsExactly("a", "b");
        assertThat(w.loads().get(0).process()).isEqualTo(CountsReplay.of(AzureTrace.MINUTE_MICROS, 0, 1, 0));
        List<Arrival> all = w.arrivalsWithin(1, Long.MAX_VALUE);
        assertThat(all).hasSize(4);
        assertThat(all).filteredOn(a -> a.model().equals("a")).singleElement()
                .satisfies(a -> assertThat(a.offsetMicros()).isBetween(AzureTrace.MINUTE_MICROS, 2 * AzureTrace.MINUTE_MICROS - 1));
        assertThatThrownBy(() -> t.toWorkload(List.of("a"), 50, 1, 3, 3))
                .hasMessage("minutes [3, 6) are not a window of the trace's 5 minutes");
        assertThatThrownBy(() -> t.toWorkload(List.of("a"), 50, 1, 0, 0)).hasMessageContaining("are not a window");
        assertThatThrownBy(() -> parse(HEADER + "o,a,f,http,0,0,0,0,0\n").toWorkload(List.of("a"), 50))
                .hasMessage("no function of the trace is invoked in minutes [0, 5)");
    }

    @Test
    void perInstanceTheFunctionsOfAnInstanceAreOneStream() throws Exception {
        AzureTrace t = parse(THREE_ROWS);
        // Instances a and b: f1 and f3 go to a, f2 to b; minutes 2..4.
        Workload w = t.toInstanceWorkload(List.of("a", "b"), 50, 1, 1, 3);
        assertThat(w.loads()).extracting(ModelLoad::model).containsExactly("a", "b");
        assertThat(w.loads()).extracting(ModelLoad::tenant).containsOnly(ModelLoad.DEFAULT_TENANT);
        assertThat(w.loads().get(0).process()).isEqualTo(CountsReplay.of(AzureTrace.MINUTE_MICROS, 0, 1, 0));
        assertThat(w.loads().get(1).process()).isEqualTo(CountsReplay.of(AzureTrace.MINUTE_MICROS, 1, 1, 1));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theReplayReproducesEachInstancesMinuteCounts(boolean perInstance) {
        AzureTrace t = AzureLikeTrace.of(2_000, 200, 30).generate(8);
        List<String> instances = AzureTrace.modelInstances(List.of("resnet50", "bert"), 10);

        Workload w = perInstance ? t.toInstanceWorkload(instances, 100, 1, 10, 15) : t.toWorkload(instances, 100, 1, 10, 15);

        Map<String, int[]> expected = new HashMap<>();
        for (int f = 0; f < t.functionCount(); f++) {
            int[] perMinute = expected.computeIfAbsent(instances.get(f % 20), k -> new int[15]);
            for (int m = 0; m < 15; m++) perMinute[m] += t.count(f, 10 + m);
        }
        Map<String, int[]> seen = new HashMap<>();
        for (Arrival a : w.arrivalsWithin(3, Long.MAX_VALUE)) {
            seen.computeIfAbsent(a.model(), k -> new int[15])[(int) (a.offsetMicros() / AzureTrace.MINUTE_MICROS)]++;
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (String instance : expected.keySet()) assertThat(seen.get(instance)).as(instance).isEqualTo(expected.get(instance));
    }

    @Test
    void aRateScaleTunesTheWindowToATargetRate() {
        AzureTrace t = AzureLikeTrace.of(2_000, 200, 120).generate(5);
        double scale = t.rateScaleFor(950, 30, 60);

        Workload w = t.toWorkload(AzureTrace.modelInstances(List.of("resnet50"), 40), 100, scale, 30, 60);

        assertThat(scale).isCloseTo(950 / t.meanRatePerSecond(30, 60), withPercentage(1e-9));
        assertThat(w.totalRatePerSecond()).isCloseTo(950, withPercentage(1e-6));
        // Rounding each minute's scaled count at random keeps the mean: 3.4 million arrivals, sd under 1,000.
        assertThat((double) w.arrivalsWithin(2, Long.MAX_VALUE).size()).isCloseTo(950 * 3600, withPercentage(0.2));
    }
}
