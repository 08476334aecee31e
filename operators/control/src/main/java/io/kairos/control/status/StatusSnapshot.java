package io.kairos.control.status;

import java.util.List;

/**
 * What the status page shows at one moment: the plan the job holds, its last verdicts on control
 * decisions, how each model is served and how busy each device is. Plain data, the same for the
 * page rendered on the server and for {@code /api/status}.
 *
 * @param warnings  what makes the rest doubtful (the reader cannot read a topic; it decided a
 *                  decision otherwise than the job did), newest first
 * @param rates     the recent window, then since start
 * @param series    the figures per model bucket by bucket over the last minutes, for the charts
 * @param devices   each device with telemetry in the last {@code deviceWindowSeconds}, in slot order
 * @param modelActions the latest model loads and unloads the devices carried out, newest first, with why
 * @param sources   what was read from each topic
 */
public record StatusSnapshot(long takenAtMicros, long startedAtMicros, PlanView plan, List<DecisionHistory.Row> decisions,
                             List<String> warnings, List<ServingRates.Window> rates, ServingHistory.Series series, int deviceWindowSeconds,
                             List<DeviceLoads.Load> devices, List<ModelActions.Row> modelActions, List<Source> sources) {

    /**
     * One topic read: what it holds for the page, how many records were read, how many of them
     * were skipped (not decodable), and when the last was read (null: none yet). A topic that
     * stops moving while the job runs is a reader that lost its broker.
     */
    public record Source(String role, String topic, long records, long skipped, Long lastReadAtMicros) {}
}
