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
 * step. A step is 1 ms, so work {@code W} booked on an idle device costs about {@code c W^2 / 2}
 * while it drains, and work booked behind a backlog {@code B} costs {@code c W B} more. With ResNet50
 * ({@code tau(b) = 0.8 b + 1.9} ms) a request alone earns {@code 2 * 2.7 - 2.7 = 2.7} and pays
 * {@code 0.1 * 2.7^2 / 2 = 0.36}; a full batch of 16 earns {@code 16 * (5.4 - 0.92) = 71.7} and pays
 * {@code 0.1 * 14.7^2 / 2 = 10.8}: the term is small at Clockwork's working point (a few ms booked,
 * its 5 ms lookahead), so batching still pays; and once a device's backlog reaches about the SLO it
 * outweighs what the requests earn (24 ms booked costs 2.4 per step, where 2,400 requests/s over 6
 * devices' 6,000 steps/s bring 0.4 requests per step, about 1.6 of early reward): the overload the
 * thesis added the term against.
 */
public enum Reward {
    RF1, RF2, RF3;

    /** The GPU term of {@link #RF3}: reward per ms of booked work on the device decided for, per step. */
    public static final double GPU_TERM_PER_MS = 0.1;
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
