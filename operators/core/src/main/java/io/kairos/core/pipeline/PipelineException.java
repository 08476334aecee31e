package io.kairos.core.pipeline;

import io.kairos.core.api.Internal;

/** A pipeline spec that cannot be served; the message is one line naming the source and the field. */
@Internal
public final class PipelineException extends IllegalArgumentException {
    public PipelineException(String message) {
        super(message);
    }
}
