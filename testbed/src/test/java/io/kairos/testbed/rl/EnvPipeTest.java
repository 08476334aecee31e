package io.kairos.testbed.rl;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvPipeTest {

    private static RlCommand.Setup setup(String... args) {
        RlCommand.Setup setup = new RlCommand.Setup();
        new CommandLine(setup).parseArgs(args);
        return setup;
    }

    /** The answers to 'W' for each seed, then 'Q'. */
    private static ByteBuffer ask(RlCommand.Setup setup, long... seeds) throws IOException {
        ByteBuffer commands = ByteBuffer.allocate(seeds.length * 9 + 1).order(ByteOrder.LITTLE_ENDIAN);
        for (long seed : seeds) commands.put((byte) 'W').putLong(seed);
        commands.put((byte) 'Q');
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new EnvPipe(setup.environment(), setup::workload, new ByteArrayInputStream(commands.array()), out).serve();
        return ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void aWorkloadQuestionIsAnsweredWithTheWorkloadTheSeedsEpisodeRuns() throws IOException {
        RlCommand.Setup setup = setup("--models", "12,48", "--rate", "600,1200,2400", "--slo-ms", "6,12,24,48,96");
        long[] seeds = {0, 1, 2, 1003, -7, Long.MAX_VALUE};
        ByteBuffer answers = ask(setup, seeds);
        assertThat(answers.remaining()).isEqualTo(seeds.length * EnvPipe.WORKLOAD_BYTES);
        for (long seed : seeds) {
            RlCommand.Workload w = RlCommand.Workload.draw(seed, setup.models, setup.rate, setup.sloMs);
            assertThat(new double[] {answers.getDouble(), answers.getDouble(), answers.getDouble()})
                    .as("seed %d", seed).containsExactly(w.models(), w.rate(), w.sloMs());
        }
    }

    @Test
    void withOneOfEachEveryAnswerIsThatOne() throws IOException {
        ByteBuffer answers = ask(setup(), 5, 6);
        for (int i = 0; i < 2; i++) {
            assertThat(new double[] {answers.getDouble(), answers.getDouble(), answers.getDouble()}).containsExactly(48, 2400, 24);
        }
    }

    @Test
    void anUnknownCommandIsRefusedNamingTheOnesThereAre() {
        RlCommand.Setup setup = setup();
        assertThatThrownBy(() -> new EnvPipe(setup.environment(), setup::workload, new ByteArrayInputStream(new byte[] {'X'}),
                new ByteArrayOutputStream()).serve())
                .hasMessageContaining("'R'").hasMessageContaining("'W'").hasMessageContaining("'Q'");
    }
}
