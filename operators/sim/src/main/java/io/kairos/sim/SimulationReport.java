package io.kairos.sim;

import io.kairos.core.metrics.ResultSummary;
import io.kairos.core.result.ResultStatus;

import java.util.List;
import java.util.Locale;

/**
 * What one simulation run measured, over the requests that arrived in its measured window (after
 * the warm-up). The requests' figures are {@link ResultSummary.Stats}, the definitions every tool
 * shares, with latency from arrival to batch end and rates over the measured window. Goodput counts
 * requests that finished by their deadline; GPU-seconds per 1,000 good
 * requests is the cost side of the papers: {@code busy} counts the time devices spent executing
 * (bigger batches cost less), {@code provisioned} the devices held for the whole window.
 *
 * <p>{@code costPerHour} is what the devices cost per hour together, the sum of their hardware
 * types' prices in the catalog (0 on a catalog without prices); {@link #cost} is that over the
 * measured window, the devices being held for all of it: the money beside the provisioned
 * GPU-seconds.
 *
 * <p>Energy is the other cost, the SMDP paper's: each batch that ran takes its model's
 * {@code zeta(b)} ({@code energy_mj} in the catalog), shared by its requests; mean power is that
 * energy over the measured window (mJ/ms = W), with energy per request and energy efficiency
 * (requests per joule). A model without an energy profile makes them unknown: NaN here, an empty
 * field in the CSV, never 0. {@code byModel} has the same figures per model.
 */
public record SimulationReport(
        String policy,
        int devices,
        double costPerHour,
        long windowMicros,
        ResultSummary.Stats results,
        ResultSummary byModel,
        long batches,
        long busyMicros,
        long coldStarts,
        long preemptions,
        long simulatedRequests,
        long wallNanos) {

    /**
     * This report with {@code loads} more cold starts: the loads the scheduler decided
     * ({@link FateListener#onLoad}: a placement's, the load planner's), for a figure that counts
     * every load of a model onto a device, whether a batch carried it or not.
     */
    public SimulationReport withDecidedLoads(long loads) {
        return new SimulationReport(policy, devices, costPerHour, windowMicros, results, byModel, batches, busyMicros, coldStarts + loads, preemptions,
                simulatedRequests, wallNanos);
    }

    public long arrivals() {
        return results.total();
    }

    public long ok() {
        return results.count(ResultStatus.OK);
    }

    public long late() {
        return results.count(ResultStatus.LATE);
    }

    /** Done before their window start (requests with a window SLO only): a miss. */
    public long early() {
        return results.count(ResultStatus.EARLY);
    }

    /** Shed by the scheduler, or still queued when the run ended. */
    public long dropped() {
        return results.count(ResultStatus.DROPPED);
    }

    public long p50Micros() {
        return results.p50Micros();
    }

    public long p99Micros() {
        return results.p99Micros();
    }

    public long p999Micros() {
        return results.p999Micros();
    }

    /** Per executed request; 0 when none ran (the figures draw a 0 as a gap). */
    public double meanBatchSize() {
        double mean = results.meanBatchSize();
        return Double.isNaN(mean) ? 0 : mean;
    }

    /** Mean latency of the served requests (arrival to batch end), ms; NaN when none was served. */
    public double meanLatencyMs() {
        return results.meanLatencyMicros() / 1000;
    }

    /** Millijoules of the batches that ran for the window's requests; NaN when unknown. */
    public double energyMillijoules() {
        return results.energyMillijoules();
    }

    /** Mean power over the measured window, W; NaN when the energy is unknown. */
    public double meanPowerWatts() {
        return results.meanPowerWatts(windowMicros);
    }

    public double energyPerRequestMillijoules() {
        return results.energyPerRequestMillijoules();
    }

    /** Energy efficiency: requests that ran per joule; NaN when the energy is unknown. */
    public double requestsPerJoule() {
        return results.requestsPerJoule();
    }

    /** A model's mean power over the measured window, W; NaN when unknown. */
    public double meanPowerWatts(String model) {
        return byModel.model(model).meanPowerWatts(windowMicros);
    }

    public double sloAttainment() {
        return results.sloAttainment();
    }

    public double goodputPerSecond() {
        return results.goodputPerSecond(windowMicros);
    }

    public double throughputPerSecond() {
        return results.throughputPerSecond(windowMicros);
    }

    /** Share of the devices' time in the window spent executing batches. */
    public double utilisation() {
        return (double) busyMicros / ((double) devices * windowMicros);
    }

    public double busyGpuSeconds() {
        return busyMicros / 1e6;
    }

    public double provisionedGpuSeconds() {
        return devices * (windowMicros / 1e6);
    }

    public double busyGpuSecondsPer1000Good() {
        return ok() == 0 ? Double.POSITIVE_INFINITY : busyGpuSeconds() * 1000 / ok();
    }

    public double provisionedGpuSecondsPer1000Good() {
        return ok() == 0 ? Double.POSITIVE_INFINITY : provisionedGpuSeconds() * 1000 / ok();
    }

    /** What the devices cost over the measured window: their price per hour times the window's hours. */
    public double cost() {
        return costPerHour * (windowMicros / 3.6e9);
    }

    /** {@link #cost} per 1,000 requests served by their deadline; infinite when none was. */
    public double costPer1000Good() {
        return ok() == 0 ? Double.POSITIVE_INFINITY : cost() * 1000 / ok();
    }

    /** Simulation speed: requests simulated (warm-up included) per second of wall-clock time. */
    public double simulatedRequestsPerWallSecond() {
        return wallNanos == 0 ? 0 : simulatedRequests * 1e9 / wallNanos;
    }

    public static final List<String> CSV_COLUMNS = List.of(
            "policy", "devices", "window_s", "arrivals", "ok", "late", "dropped", "slo_attainment",
            "goodput_per_s", "throughput_per_s", "p50_ms", "p99_ms", "p999_ms", "mean_batch", "batches",
            "utilisation", "cold_starts", "preemptions", "busy_gpu_s_per_1000_good",
            "provisioned_gpu_s_per_1000_good", "mean_latency_ms", "energy_mj", "mean_power_w",
            "energy_per_request_mj", "requests_per_j", "cost_per_hour", "cost", "cost_per_1000_good", "sim_requests_per_wall_s");

    public List<String> csvValues() {
        return List.of(policy, Integer.toString(devices), num(windowMicros / 1e6), Long.toString(arrivals()),
                Long.toString(ok()), Long.toString(late()), Long.toString(dropped()), num(sloAttainment()),
                num(goodputPerSecond()), num(throughputPerSecond()), ms(p50Micros()), ms(p99Micros()), ms(p999Micros()),
                num(meanBatchSize()), Long.toString(batches), num(utilisation()), Long.toString(coldStarts),
                Long.toString(preemptions), num(busyGpuSecondsPer1000Good()), num(provisionedGpuSecondsPer1000Good()),
                num(meanLatencyMs()), num(energyMillijoules()), num(meanPowerWatts()), num(energyPerRequestMillijoules()),
                num(requestsPerJoule()), num(costPerHour), num(cost()), num(costPer1000Good()), num(simulatedRequestsPerWallSecond()));
    }

    @Override
    public String toString() {
        String s = String.format(Locale.ROOT,
                "%s: %.2f%% of %d within SLO (goodput %.1f/s, %d late, %d dropped), mean %.2f ms, p50 %.2f ms, p99 %.2f ms, "
                        + "batch %.2f, utilisation %.1f%%, %.3f busy GPU-s per 1000 good",
                policy, 100 * sloAttainment(), arrivals(), goodputPerSecond(), late(), dropped(), meanLatencyMs(),
                p50Micros() / 1000.0, p99Micros() / 1000.0, meanBatchSize(), 100 * utilisation(), busyGpuSecondsPer1000Good());
        if (early() > 0) s += String.format(Locale.ROOT, ", %d early", early());
        s += Double.isNaN(energyMillijoules()) ? ", energy unknown" : String.format(Locale.ROOT, ", %.2f W, %.3f mJ per request, %.2f requests/J",
                meanPowerWatts(), energyPerRequestMillijoules(), requestsPerJoule());
        // Priced devices only: a catalog without prices has nothing to say about money.
        if (costPerHour > 0) s += String.format(Locale.ROOT, ", devices %.4g per hour, %.4g for the run", costPerHour, cost());
        return s;
    }

    private static String num(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "";
    }

    private static String ms(long micros) {
        return String.format(Locale.ROOT, "%.3f", micros / 1000.0);
    }
}
