package io.kairos.sim.learning;

/**
 * The RL thesis' reward functions (its section 3.5 and Fig 5.9), in milliseconds of device time
 * (RF2, RF3) or in requests (RF1).
 *
 * <ul>
 *   <li>{@link #RF1}: sparse: +1 for each request that ends within its SLO, -1 for each that ends
 *       late or is dropped (times out).</li>
 *   <li>{@link #RF2}: the early reward and its correction. Each request a step starts gets
 *       {@code -tau(b)/b} (its share of the batch's time) plus, when the batch is predicted to end
 *       by the request's deadline, {@code +2 tau(1)} (twice its model's smallest-batch time on that
 *       device); each request that ends late or is dropped gets {@code -3 * 2 tau(1)}: three times the
 *       early positive reward it got, or would have got.</li>
 *   <li>{@link #RF3}: RF2 plus the GPU term: each step, {@code -}{@value #GPU_TERM_PER_MS} per ms of
 *       work booked on the device it decided for, after its action.</li>
 * </ul>
 *
 * <p>The GPU term's constant, which the thesis does not give: {@value #GPU_TERM_PER_MS} per ms per
 * step. A step is 1 ms, so work {@code W} booked behind a backlog {@code B} costs about
 * {@code c W (B + W / 2)} while it drains: the constant sets the backlog beyond which booking more
 * no longer pays for itself. With ResNet50 ({@code tau(b) = 0.8 b + 1.9} ms) a request alone earns
 * {@code 2 * 2.7 - 2.7 = 2.7}, which pays behind up to 0.65 ms booked at 0.5; a batch of 4 earns
 * {@code 4 * 5.4 - 5.1 = 16.5}, behind up to 3.9 ms; a full batch of 16, 71.7, behind up to 2.4 ms.
 * So a device stops booking ahead at a few ms, Clockwork's working point (its 5 ms lookahead), and a
 * queue builds into a batch; a backlog of the SLO's size (24 ms: 12 per step) outweighs anything the
 * requests earn, the overload the thesis added the term against. At 0.1, the constant before, a
 * request alone paid behind 8.65 ms and a batch of 4 behind 29.8 ms, past the SLO: booking ahead one
 * request at a time paid, PPO learned to, and one training seed of three stayed below 99 % on the
 * thesis' setup (docs/benchmarks/history.md).
 */
public enum Reward {
    RF1, RF2, RF3;

    /** The GPU term of {@link #RF3}: reward per ms of booked work on the device decided for, per step. */
    public static final double GPU_TERM_PER_MS = 0.5;
    /** The early positive reward per request, in units of its model's smallest-batch time. */
    public static final double EARLY_POSITIVE = 2;
    /** The correction for a request that ends late or is dropped, in units of the early positive reward. */
    public static final double CORRECTION = 3;

    /** By name, any case: {@code rf1}, {@code RF3}. */
    public static Reward parse(String s) {
        for (Reward r : values()) {
            if (r.name().equalsIgnoreCase(s.trim())) return r;
        }
        throw new IllegalArgumentException("reward must be rf1, rf2 or rf3, got '" + s + "'");
    }
}
