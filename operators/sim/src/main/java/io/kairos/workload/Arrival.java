package io.kairos.workload;

/** One request to send: when (microseconds from the start of the run), for whom, to which model, with what SLO. */
public record Arrival(long offsetMicros, String tenant, String model, double sloMs) {}
