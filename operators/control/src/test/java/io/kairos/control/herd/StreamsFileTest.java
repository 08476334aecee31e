package io.kairos.control.herd;

import io.kairos.core.model.ModelCatalog;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamsFileTest {
    static final String GOOD = """
            {"streams": [
              {"name": "cameras", "model": "m1", "rate_per_s": 800, "slo_ms": 25, "cv2": 4, "affinity": "vision"},
              {"name": "search", "model": "m2",
               "rate_per_s": 120,
               "slo_ms": 40}
            ]}""";

    @Test
    void readsEveryFieldAndDefaultsCv2ToPoisson() {
        List<RequestStream> streams = StreamsFile.parse(GOOD, "streams.json");
        assertThat(streams).hasSize(2);
        RequestStream c = streams.get(0);
        assertThat(c.name()).isEqualTo("cameras");
        assertThat(c.model()).isEqualTo("m1");
        assertThat(c.ratePerSecond()).isEqualTo(800.0);
        assertThat(c.sloMs()).isEqualTo(25.0);
        assertThat(c.cv2()).isEqualTo(4.0);
        assertThat(c.affinity()).isEqualTo("vision");
        RequestStream s = streams.get(1);
        assertThat(s.cv2()).isEqualTo(1.0);
        assertThat(s.affinity()).isNull();
        // The lines of the fields are kept: slo_ms of the second stream is on line 5.
        assertThat(s.where().field("slo_ms")).isEqualTo("streams.json line 5: stream 2 ('search') field 'slo_ms'");
    }

    @Test
    void aBadValueNamesTheFileLineAndField() {
        assertError(GOOD.replace("\"slo_ms\": 40", "\"slo_ms\": -3"),
                "streams.json line 5: stream 2 ('search') field 'slo_ms': must be a positive number of milliseconds, got -3.0");
        assertError(GOOD.replace("\"rate_per_s\": 120", "\"rate_per_s\": \"fast\""),
                "streams.json line 4: stream 2 ('search') field 'rate_per_s': must be a number, got \"fast\"");
        assertError(GOOD.replace("\"cv2\": 4", "\"cv2\": 0"),
                "streams.json line 2: stream 1 ('cameras') field 'cv2': must be a positive number (1 is Poisson), got 0.0");
        assertError(GOOD.replace("\"name\": \"search\", ", ""),
                "streams.json line 3: stream 2 field 'name': is missing");
        assertError(GOOD.replace("\"model\": \"m2\",", ""),
                "streams.json line 3: stream 2 ('search') field 'model': is missing");
        assertError(GOOD.replace("\"slo_ms\": 40", "\"slo\": 40"),
                "streams.json line 5: stream 2 field 'slo' is unknown; known: [name, model, rate_per_s, slo_ms, cv2, affinity]");
        assertError(GOOD.replace("\"search\"", "\"cameras\""),
                "streams.json line 3: stream 2 ('cameras') field 'name': stream 'cameras' is named twice");
    }

    @Test
    void badJsonNamesItsLine() {
        assertThatThrownBy(() -> StreamsFile.parse(GOOD.replace("\"slo_ms\": 40}", "\"slo_ms\": 40"), "streams.json"))
                .isInstanceOf(StreamsFile.StreamsException.class).hasMessageStartingWith("streams.json line 6: not valid JSON (");
        assertError("{\"streams\": []}", "streams.json: field 'streams' lists no stream");
        assertError("{\"flows\": []}", "streams.json line 1: field 'flows' is unknown; the file has one field, 'streams'");
    }

    @Test
    void checksBeforeSolvingNameTheStreamsField() {
        ModelCatalog catalog = HerdSolverTest.CATALOG;
        List<RequestStream> unknown = StreamsFile.parse(GOOD.replace("\"m2\"", "\"m9\""), "streams.json");
        assertThatThrownBy(() -> HerdProblem.of(unknown, catalog, 4, 2, 16 * HerdSolverTest.GIB, s -> 100.0))
                .hasMessage("streams.json line 3: stream 2 ('search') field 'model': model 'm9' is not in the catalog; it has [m1, m2, m3, big]");
        // m2 takes 1 ms at batch 1: an SLO of 0.5 ms is met by no device, alone.
        List<RequestStream> tight = StreamsFile.parse(GOOD.replace("\"slo_ms\": 40", "\"slo_ms\": 0.5"), "streams.json");
        assertThatThrownBy(() -> HerdProblem.of(tight, catalog, 4, 2, 16 * HerdSolverTest.GIB, s -> 100.0))
                .hasMessage("streams.json line 5: stream 2 ('search') field 'slo_ms': no device meets an SLO of 0.5 ms alone: model 'm2' takes 1 ms at batch 1");
        // big takes 10 GiB, more than an 8 GiB device.
        List<RequestStream> big = StreamsFile.parse(GOOD.replace("\"m1\"", "\"big\""), "streams.json");
        assertThatThrownBy(() -> HerdProblem.of(big, catalog, 4, 2, 8 * HerdSolverTest.GIB, s -> 100.0))
                .hasMessage("streams.json line 2: stream 1 ('cameras') field 'model': model 'big' takes 10240 MB, more than a device's memory of 8192 MB");
        List<RequestStream> split = StreamsFile.parse(GOOD.replace("\"m2\"", "\"m1\""), "streams.json");
        assertThatThrownBy(() -> HerdProblem.of(split, catalog, 4, 2, 16 * HerdSolverTest.GIB, s -> 100.0))
                .hasMessage("streams.json line 3: stream 2 ('search') field 'affinity': stream 'search' of model 'm1' is in affinity set none, "
                        + "stream 'cameras' of the same model in 'vision'; the job routes a model to one group, so its streams share one set");
        List<RequestStream> noRate = StreamsFile.parse(GOOD.replace("\"rate_per_s\": 120,", ""), "streams.json");
        assertThatThrownBy(() -> HerdProblem.of(noRate, catalog, 4, 2, 16 * HerdSolverTest.GIB, s -> 100.0))
                .hasMessage("streams.json line 3: stream 2 ('search') field 'rate_per_s': is missing (or take the rates from the job's telemetry)");
    }

    private static void assertError(String json, String message) {
        assertThatThrownBy(() -> StreamsFile.parse(json, "streams.json")).isInstanceOf(StreamsFile.StreamsException.class).hasMessage(message);
    }
}
