package io.kairos.core.pipeline;

/** A pipeline spec that cannot be served; the message is one line naming the source and the field. */
public final class PipelineException extends IllegalArgumentException {
    public PipelineException(String message) {
        super(message);
    }
}
