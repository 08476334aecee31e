package io.kairos.jobs.tuner;

import io.kairos.control.tuner.TunerSettings;
import io.kairos.core.device.DeviceSlots;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.pipeline.PipelineSpec;
import io.kairos.schema.AssignGroup;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;
import io.kairos.schema.SetPolicy;
import io.kairos.workload.ArrivalTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The tuner job's plan of a pipeline, and its command's answers to bad input. */
class TunerSetupTest {
    private static final ModelCatalog CATALOG = ModelCatalog.builtIn();
    private static final PipelineSpec PIPELINE = PipelineSpec.parse("""
            {"pipeline": "r", "slo_p99_ms": 1000, "stages": [{"name": "a", "model": "mlp"}], "edges": []}""", "r");
    // One arrival every 10 ms for 10 s: 100 in every 1-s and 5-s window.
    private static final ArrivalTrace EVEN = ArrivalTrace.of(LongStream.range(0, 1_000).map(i -> i * 10_000).toArray());

    /**
     * By hand: mlp takes well under 10 ms at batch 1 on the built-in catalog's device, so one
     * replica carries 100/s: the planner plans one, on the first device; the tuner's sample rates
     * are 100/s at the 1-s and 5-s windows, and the trace's mean (1,000 over its 100 buckets of
     * 100 ms) at the 30-s window, longer than the trace.
     */
    @Test
    void aOneStagePipelineIsPlannedOnOneDeviceWithTheTracesEnvelope() {
        TunerSetup setup = TunerSetup.plan(PIPELINE, EVEN, CATALOG, DeviceSlots.of(4, CATALOG), PIPELINE.sloP99Micros(), 1, TunerSettings.DEFAULT);

        assertThat(setup.plan().plannedReplicas()).containsExactly(1);
        assertThat(setup.placed()).containsExactly(List.of(0));
        assertThat(setup.plan().sampleRate(0)).isEqualTo(100);
        assertThat(setup.plan().sampleRate(1)).isEqualTo(100);
        assertThat(setup.plan().sampleRate(2)).isEqualTo(100);
        assertThat(setup.actions()).hasSize(4);
        assertThat(setup.actions().get(0)).isInstanceOfSatisfying(SetPlacement.class, p -> {
            assertThat(p.getGroup()).isEqualTo("r-a");
            assertThat(p.getDevices()).extracting(DevicePlacement::getDevice).containsExactly(0);
        });
        assertThat(setup.actions().get(1)).isInstanceOf(SetPolicy.class);
        assertThat(setup.actions().get(2)).isInstanceOfSatisfying(AssignGroup.class, a -> assertThat(a.getGroup()).isEqualTo("r-a"));
    }

    @Test
    void badInputIsOneLineWithExitCodeTwo(@TempDir Path dir) throws Exception {
        Path pipeline = Files.writeString(dir.resolve("p.json"), """
                {"pipeline": "r", "slo_p99_ms": 1000, "stages": [{"name": "a", "model": "mlp"}], "edges": []}""");
        Path missing = dir.resolve("none.txt");
        assertThat(run("--pipeline", pipeline.toString(), "--trace", missing.toString()))
                .isEqualTo("2 kairos: --trace " + missing + ": cannot read the arrival trace (" + missing + ")");
        Path trace = Files.writeString(dir.resolve("t.txt"), "0\n10\n20\n");
        assertThat(run("--pipeline", pipeline.toString(), "--trace", trace.toString(), "--tick-ms", "0"))
                .isEqualTo("2 kairos: --tick-ms must be at least 1, got 0");
    }

    /** The exit code and the first line of the error output. */
    private static String run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = TunerJobMain.commandLine();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int rc = cl.execute(args);
        return rc + " " + err.toString().lines().findFirst().orElse("");
    }
}
