package io.kairos.control.status;

import io.kairos.schema.BatchTelemetry;
import io.kairos.schema.ModelAction;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The latest model loads and unloads the devices carried out, from their telemetry records, newest
 * first, each with why the scheduler made it and, for a load that failed, why it failed: what an
 * operator reads to see which device got a copy of which model, and why.
 */
public final class ModelActions {
    /**
     * One load or unload.
     *
     * @param endedAtMicros when the device was done with it
     * @param why           why the scheduler sent it (the placement, the device leaving, the
     *                      demand its load planner saw, room for another model); null from a job
     *                      that does not say
     * @param error         why a load failed; null when it did not
     */
    public record Row(long endedAtMicros, String group, int device, String model, boolean load, String why, String error) {
        /** What the page shows in the action's column: {@code load}, {@code unload} or {@code load failed}. */
        public String action() {
            return !load ? "unload" : error == null ? "load" : "load failed";
        }
    }

    private final int rows;
    private final Deque<Row> latest = new ArrayDeque<>();

    /** @param rows how many of the latest to keep */
    public ModelActions(int rows) {
        if (rows < 1) throw new IllegalArgumentException("keep at least one row, got " + rows);
        this.rows = rows;
    }

    /** A telemetry record: kept if it is a load's or an unload's. */
    public void add(BatchTelemetry record) {
        if (record.getModelAction() == null) return;
        latest.addFirst(new Row(record.getExecEndMicros(), record.getGroup(), record.getDevice(), record.getModel(),
                record.getModelAction() == ModelAction.LOAD, record.getWhy(), record.getError()));
        while (latest.size() > rows) latest.removeLast();
    }

    /** The latest, newest first. */
    public List<Row> latest() {
        return new ArrayList<>(latest);
    }
}
