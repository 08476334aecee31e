package io.kairos.core.model;

/** A model the serving system knows: its input and how long it takes per batch size. */
public record ModelSpec(String name, InputSpec input, LatencyProfile latency) {}
