package io.kairos.testbed.rl;

import io.kairos.core.scheduling.learned.StateEncoder;
import io.kairos.sim.learning.SchedulingEnvironment;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongFunction;

/**
 * The environment spoken over a pipe, so that a learner in another process (the Python trainer)
 * resets and steps it. Binary and fixed-size, little-endian; one message answers each command:
 *
 * <pre>
 * command (learner to environment):
 *   'R' int32 steps, int64 seed   reset: a new episode of at most that many steps
 *   'W' int64 seed                workload: which one an episode of that seed runs (between episodes)
 *   'S' uint8[24] action          step: per slot infer (0/1), batch-size index (0-4)
 *   'Q'                           quit
 * answer (environment to learner), after 'R' and 'S':
 *   uint8 kind                    0: a step is wanted; 1: the episode has ended
 *   float32 reward                accrued since the previous step (0 after 'R')
 *   float32[25] state             the state (at the end: the one the next step would have seen)
 *   uint8[84] mask                the allowed choices (all 0 at the end)
 *   at the end only: int32 steps, float64 total reward, int64 met, int64 late, int64 dropped
 * answer after 'W':
 *   float64 models, float64 rate (requests/s), float64 SLO (ms)
 * </pre>
 *
 * 'W' lets a learner tell its critic the workload that an episode's seed draws (the actor never
 * sees it: a scheduler in service is not told its load). A 'R', 'W' or 'Q' in the middle of an
 * episode abandons it. An action the mask forbids ends the
 * environment with the reason on standard error and exit status 1.
 */
final class EnvPipe {
    static final int STEP_BYTES = 1 + 4 + 4 * StateEncoder.STATE_SIZE + StateEncoder.MASK_SIZE;
    static final int END_BYTES = STEP_BYTES + 4 + 8 + 3 * 8;
    static final int WORKLOAD_BYTES = 3 * 8;

    private final SchedulingEnvironment env;
    private final LongFunction<RlCommand.Workload> workloads;
    private final DataInputStream in;
    private final OutputStream out;
    private final ByteBuffer message = ByteBuffer.allocate(END_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] action = new byte[StateEncoder.ACTION_SIZE];
    private final byte[] header = new byte[12];

    /** Serves {@code env}, whose episode of seed s runs {@code workloads.apply(s)}. */
    EnvPipe(SchedulingEnvironment env, LongFunction<RlCommand.Workload> workloads, InputStream in, OutputStream out) {
        this.env = env;
        this.workloads = workloads;
        this.in = new DataInputStream(in);
        this.out = out;
    }

    /** Serves commands until 'Q' or the end of the input. */
    void serve() throws IOException {
        int command = in.read();
        while (command != -1 && command != 'Q') {
            if (command == 'W') {
                in.readFully(header, 0, 8);
                RlCommand.Workload w = workloads.apply(ByteBuffer.wrap(header, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong());
                message.clear();
                message.putDouble(w.models()).putDouble(w.rate()).putDouble(w.sloMs());
                send();
                command = in.read();
                continue;
            }
            if (command != 'R') throw new IllegalArgumentException("expected a reset ('R'), a workload ('W') or quit ('Q'), got byte " + command);
            in.readFully(header);
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
            int steps = h.getInt();
            long seed = h.getLong();
            try {
                SchedulingEnvironment.Episode e = env.run(seed, steps, this::step);
                message.clear();
                put(1, e.finalReward(), e.finalState(), null);
                message.putInt(e.steps()).putDouble(e.totalReward()).putLong(e.ok()).putLong(e.late()).putLong(e.dropped());
                send();
                command = in.read();
            } catch (Abandoned a) {
                command = a.command;
            } catch (UncheckedIOException x) {
                if (x.getCause() instanceof EOFException) return;
                throw x.getCause();
            }
        }
    }

    private void step(float[] state, boolean[] mask, double reward, int[] chosen) {
        try {
            message.clear();
            put(0, reward, state, mask);
            send();
            int command = in.read();
            if (command != 'S') throw new Abandoned(command);
            in.readFully(action);
            for (int i = 0; i < chosen.length; i++) chosen[i] = action[i];
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    private void put(int kind, double reward, float[] state, boolean[] mask) {
        message.put((byte) kind).putFloat((float) reward);
        for (float v : state) message.putFloat(v);
        for (int i = 0; i < StateEncoder.MASK_SIZE; i++) message.put((byte) (mask != null && mask[i] ? 1 : 0));
    }

    private void send() throws IOException {
        out.write(message.array(), 0, message.position());
        out.flush();
    }

    /** A command other than a step in the middle of an episode: the episode is dropped, the command served next. */
    private static final class Abandoned extends RuntimeException {
        final int command;

        Abandoned(int command) {
            super(null, null, false, false);
            this.command = command;
        }
    }
}
