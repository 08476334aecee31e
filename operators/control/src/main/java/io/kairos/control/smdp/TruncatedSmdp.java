package io.kairos.control.smdp;

/**
 * The finite-state approximation of the batching SMDP (the paper's section IV-A): states
 * {@code 0..s_max} (requests in the system) and the overflow state {@code S_o}, which stands for
 * every state above {@code s_max} and counts as {@code s_max} requests; in {@code S_o} every action
 * pays the abstract cost {@code c_o} per unit time on top ((13)), a penalty that stands for the
 * tail's extra holding cost.
 *
 * <p>State index {@code s_max + 1} is {@code S_o}. Action {@code a} is the batch size, 0 to wait;
 * in state {@code s} the feasible ones are {@code 0..min(s, B_max)}.
 */
public final class TruncatedSmdp {
    private final BatchServiceModel model;
    private final CostWeights weights;
    private final int sMax;
    private final double overflowCost;
    private final double[][] pmfs;
    private final double[][] upperTails;

    public TruncatedSmdp(BatchServiceModel model, CostWeights weights, int sMax, double overflowCost) {
        if (sMax < model.maxBatch()) throw new IllegalArgumentException("s_max must be at least B_max = " + model.maxBatch() + ", got " + sMax);
        if (!(overflowCost >= 0) || !Double.isFinite(overflowCost)) throw new IllegalArgumentException("abstract cost c_o must be a non-negative number, got " + overflowCost);
        if (weights.power() > 0 && !model.energyKnown()) throw new IllegalArgumentException("the model's energy is unknown: only a latency objective (w2 = 0) can be solved");
        this.model = model;
        this.weights = weights;
        this.sMax = sMax;
        this.overflowCost = overflowCost;
        this.pmfs = new double[model.maxBatch() + 1][];
        this.upperTails = new double[model.maxBatch() + 1][];
    }

    public BatchServiceModel model() {
        return model;
    }

    public CostWeights weights() {
        return weights;
    }

    public int sMax() {
        return sMax;
    }

    public double overflowCost() {
        return overflowCost;
    }

    /** {@code s_max + 2}. */
    public int states() {
        return sMax + 2;
    }

    /** The index of {@code S_o}. */
    public int overflowState() {
        return sMax + 1;
    }

    /** Requests in the system in that state; {@code S_o} counts as {@code s_max}. */
    public int requests(int state) {
        return Math.min(state, sMax);
    }

    /** The largest feasible batch: {@code min(s, B_max)}. */
    public int maxAction(int state) {
        return Math.min(requests(state), model.maxBatch());
    }

    /** {@code y(s, a)}: the expected time to the next decision, {@code tau(a)} or {@code 1/lambda} for waiting ((7)). */
    public double sojourn(int state, int action) {
        return action == 0 ? 1 / model.arrivalRate() : model.latencyMs(action);
    }

    /**
     * {@code integral of s(t) dt} until the next decision, in request-milliseconds: the requests
     * already there, plus those that arrive during a batch ({@code lambda tau^2 / 2}). Times
     * {@code w1 / lambda} it is the holding part of {@code c(s, a)} ((9)).
     */
    public double holding(int state, int action) {
        int s = requests(state);
        double lambda = model.arrivalRate();
        if (action == 0) return s / lambda;
        double tau = model.latencyMs(action);
        return s * tau + lambda * tau * tau / 2;
    }

    /** {@code c'(s, a)}: {@code w2 zeta(a) + w1 holding / lambda}, plus {@code c_o y} in {@code S_o} ((9), (13)). */
    public double cost(int state, int action) {
        double c = weights.latency() * holding(state, action) / model.arrivalRate();
        if (action > 0 && weights.power() > 0) c += weights.power() * model.energyMj(action);
        if (state == overflowState()) c += overflowCost * sojourn(state, action);
        return c;
    }

    /** {@code m'(. | s, a)} as a dense row over the {@code s_max + 2} states ((12)). */
    public double[] transitionRow(int state, int action) {
        checkAction(state, action);
        double[] row = new double[states()];
        int o = overflowState();
        if (action == 0) {
            row[state >= sMax ? o : state + 1] = 1;
            return row;
        }
        int left = requests(state) - action;
        double[] p = arrivals(action);
        double[] upper = upperTails(action);
        // k arrivals during the batch lead to left + k, which is S_o once it passes s_max.
        for (int k = 0; left + k <= sMax; k++) row[left + k] = p[k];
        row[o] = upper[sMax - left];
        return row;
    }

    void checkAction(int state, int action) {
        if (state < 0 || state > overflowState()) throw new IllegalArgumentException("no state " + state + " in 0.." + overflowState());
        if (action < 0 || action > maxAction(state)) throw new IllegalArgumentException("action " + action + " is not feasible in state " + state);
    }

    /** {@code p_0..p_{s_max+1}} for a batch of {@code b}. */
    double[] arrivals(int b) {
        if (pmfs[b] == null) pmfs[b] = PoissonCounts.pmf(model.arrivalRate() * model.latencyMs(b), sMax + 1);
        return pmfs[b];
    }

    private double[] upperTails(int b) {
        if (upperTails[b] == null) upperTails[b] = PoissonCounts.upperTails(model.arrivalRate() * model.latencyMs(b), sMax + 1);
        return upperTails[b];
    }

    @Override
    public String toString() {
        return "SMDP(" + model + ", w " + weights.latency() + "/" + weights.power() + ", s_max " + sMax + ", c_o " + overflowCost + ")";
    }
}
