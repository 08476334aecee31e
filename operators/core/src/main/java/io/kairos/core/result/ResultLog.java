package io.kairos.core.result;

import io.kairos.core.api.Internal;
import java.io.Serializable;
import java.util.Set;

/**
 * Where the job's results were written, read back: which requests already have a result out.
 * The job asks it once after a restore from a checkpoint ({@link AnsweredRequests}); the results
 * topic is the production one, a test may give its own. Serializable, because it travels with the
 * job to the task managers.
 */
@FunctionalInterface
@Internal
public interface ResultLog extends Serializable {

    /**
     * The request ids of every result written at or after {@code fromMillis} (the records' own
     * timestamps, milliseconds since the Unix epoch) up to what is written at the time of the call.
     *
     * @throws Exception when the log cannot be read in {@code timeoutMs}, or at all
     */
    Set<String> requestIdsSince(long fromMillis, long timeoutMs) throws Exception;

    /**
     * When the latest result was written (the records' own timestamps, milliseconds since the Unix
     * epoch), {@link Long#MIN_VALUE} for a log with none: a quick question, asked before the whole
     * read, whose answer bounds which requests can have a result out at all. A log that cannot
     * tell says {@link Long#MAX_VALUE}, which bounds nothing.
     *
     * @throws Exception when the log cannot be asked in {@code timeoutMs}, or at all
     */
    default long latestWriteMillis(long timeoutMs) throws Exception {
        return Long.MAX_VALUE;
    }
}
