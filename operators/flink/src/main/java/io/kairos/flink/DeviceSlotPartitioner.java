package io.kairos.flink;

import org.apache.flink.api.common.functions.Partitioner;

/** Sends a batch to the inference subtask that owns its device slot: subtask i is device i. */
public final class DeviceSlotPartitioner implements Partitioner<Integer> {
    @Override
    public int partition(Integer slot, int numPartitions) {
        if (slot < 0 || slot >= numPartitions) {
            // The plan only names devices that exist, so this is a bug, not bad input.
            throw new IllegalStateException("batch for device " + slot + " but the job has " + numPartitions + " devices");
        }
        return slot;
    }
}
