package io.kairos.flink;

import io.kairos.core.result.ResultLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One read of the results log after a restore, off the task's thread: the ids written since a time
 * ({@link ResultLog#requestIdsSince}) and, beside it on a thread of its own, when the log was last
 * written ({@link ResultLog#latestWriteMillis}). The two run side by side, not one after the
 * other: the question of the latest write takes a consumer and a few round trips of its own, a
 * large share of the read-back on a TaskManager busy restoring its tasks, and the ids, which end
 * every wait, should not wait for it. Each has the whole timeout: one after the other, a first
 * question that stalls for all of it (a partition slow to answer after a second restore) would
 * leave the ids' read no time, and the replays it should hold back would be written again.
 *
 * <p>Every {@link SuppressAnswered} instance of a restore asks the same question (the same log,
 * from the same anchor: union state gives each instance every anchor), and a TaskManager runs
 * several of them (one per device and writer). While a read is in flight in this JVM, an instance
 * that asks the same question joins it instead of reading the topic again: on a restore, when the
 * cores are busiest, one TaskManager reads the tail once, not once per instance. A read that is
 * done is forgotten, so a later restore reads afresh what was written since.
 */
final class ReadBack {
    private static final Logger LOG = LoggerFactory.getLogger(ReadBack.class);

    /** What a read asks: equal logs (the same topic on the same brokers) from the same time. */
    private record Question(ResultLog log, long fromMillis) {
    }

    private static final ConcurrentHashMap<Question, ReadBack> IN_FLIGHT = new ConcurrentHashMap<>();

    /** The log's latest write; {@link Long#MAX_VALUE} when it could not tell. May come after {@link #ids}, or never. */
    final CompletableFuture<Long> latestWrite = new CompletableFuture<>();
    /** The ids written since the question's time, or the reason they could not be read. */
    final CompletableFuture<Set<String>> ids = new CompletableFuture<>();
    private final long startNanos = System.nanoTime();

    private ReadBack() {
    }

    /**
     * The read of {@code log} from {@code fromMillis} in flight in this JVM, or a new one started.
     * A read in flight for longer than {@code timeoutMs} (a log that does not honour its timeout)
     * is not joined: it is left to itself and a new one started in its place.
     */
    static ReadBack of(ResultLog log, long fromMillis, long timeoutMs) {
        Question question = new Question(log, fromMillis);
        boolean[] started = {false};
        ReadBack read = IN_FLIGHT.compute(question, (q, inFlight) -> {
            if (inFlight != null && inFlight.elapsedMs() <= timeoutMs) return inFlight;
            started[0] = true;
            return new ReadBack();
        });
        if (started[0]) read.start(question, timeoutMs);
        return read;
    }

    private void start(Question question, long timeoutMs) {
        daemon("kairos-results-latest-write", () -> {
            try {
                latestWrite.complete(question.log().latestWriteMillis(timeoutMs));
            } catch (Throwable e) {
                latestWrite.complete(Long.MAX_VALUE);
                LOG.info("could not ask the results' log for its latest write ({}): every result of a request sent before the restore waits for the read", e.toString());
            }
        });
        daemon("kairos-results-read-back", () -> {
            Set<String> read = null;
            Throwable failure = null;
            try {
                read = question.log().requestIdsSince(question.fromMillis(), timeoutMs);
            } catch (Throwable t) {
                failure = t;
            }
            // Forgotten before it is done: whoever sees it done and asks again starts a new read.
            IN_FLIGHT.remove(question, this);
            if (failure != null) ids.completeExceptionally(failure);
            else ids.complete(read);
        });
    }

    private static void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Milliseconds since the read began (for a joiner, since the one it joined). */
    long elapsedMs() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
