package io.kairos.wire.result;

import io.kairos.core.api.Internal;
import io.kairos.core.result.ResultStatus;

/**
 * Between the core's {@link ResultStatus} and the results topic's ({@code io.kairos.schema.ResultStatus}):
 * the same constants, converted by name.
 */
@Internal
public final class ResultStatuses {
    private ResultStatuses() {}

    /** The core's status of a result read from the wire. */
    public static ResultStatus core(io.kairos.schema.ResultStatus status) {
        return ResultStatus.valueOf(status.name());
    }

    /** The wire's status of a request the core judged. */
    public static io.kairos.schema.ResultStatus wire(ResultStatus status) {
        return io.kairos.schema.ResultStatus.valueOf(status.name());
    }
}
