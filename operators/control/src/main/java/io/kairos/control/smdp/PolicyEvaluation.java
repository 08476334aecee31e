package io.kairos.control.smdp;

import io.kairos.core.scheduling.BatchingTable;

/**
 * What a batching table achieves in the truncated model, from the stationary distribution of its
 * embedded chain (the paper's (14), (15)). Time averages: latency by Little's law from the mean
 * number in the system, power as energy per unit time (mJ/ms = W).
 *
 * @param gain                the average cost per unit time {@code g^pi}, abstract cost included (14)
 * @param overflowCost        {@code Delta^pi}: the part of it contributed by {@code S_o} (15)
 * @param overflowProbability the embedded chain's stationary probability of {@code S_o}
 * @param meanLatencyMs       mean response time (waiting and service), ms
 * @param meanPowerW          mean power, W; NaN when the energy is unknown
 * @param throughputPerMs     requests served per ms
 * @param meanBatch           mean size of the batches served
 * @param stable              whether the table keeps up with the arrivals beyond {@code s_max}:
 *                            the batch {@code a} it serves there ({@link BatchingTable#batchSize})
 *                            serves faster than they come, {@code a / tau(a) > lambda}; an unstable
 *                            table's figures describe the truncated model only
 */
public record PolicyEvaluation(double gain, double overflowCost, double overflowProbability, double meanLatencyMs,
                               double meanPowerW, double throughputPerMs, double meanBatch, boolean stable) {

    /** Millijoules per request served. */
    public double energyPerRequestMj() {
        return meanPowerW / throughputPerMs;
    }

    /** Requests served per joule: the paper's energy efficiency. */
    public double requestsPerJoule() {
        return 1000 * throughputPerMs / meanPowerW;
    }
}
