package io.kairos.control.inferline;

import io.kairos.control.TopicConsumers;
import io.kairos.workload.ArrivalTrace;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A sample trace from a topic's own history: the timestamps of the records of every partition
 * of the requests topic between two times, as InferLine's planner re-plans on the recent arrival
 * history. Each partition is read from the first offset at or after the start
 * ({@code offsetsForTimes}) to the first at or after the end, so nothing before the window is
 * read. The times are the records' Kafka timestamps (milliseconds: the producers' send times,
 * or the broker's append times where the topic says so); every record counts, whatever pipeline
 * or model it is for.
 */
public final class TopicTrace {
    private TopicTrace() {}

    /** A window of time, milliseconds since the epoch: {@code [startMillis, endMillis)}. */
    public record Window(long startMillis, long endMillis) {
        public Window {
            if (endMillis <= startMillis) {
                throw new IllegalArgumentException("the window's end (" + Instant.ofEpochMilli(endMillis) + ") is not after its start ("
                        + Instant.ofEpochMilli(startMillis) + ")");
            }
        }

        /**
         * Reads {@code START..END}, each an ISO-8601 instant ({@code 2026-11-25T10:00:00Z}),
         * milliseconds since the epoch, {@code now}, or {@code now-DURATION} with a duration of
         * whole seconds, minutes or hours ({@code now-90s}, {@code now-1h}).
         *
         * @throws IllegalArgumentException in one line naming the part that is wrong
         */
        public static Window parse(String text, long nowMillis) {
            String form = "expected START..END, each an ISO-8601 instant (2026-11-25T10:00:00Z), epoch milliseconds, now or now-1h";
            int dots = text == null ? -1 : text.indexOf("..");
            if (dots < 0) throw new IllegalArgumentException("'" + text + "': " + form);
            return new Window(time(text.substring(0, dots).strip(), nowMillis, form), time(text.substring(dots + 2).strip(), nowMillis, form));
        }

        private static long time(String t, long now, String form) {
            if (t.equals("now")) return now;
            if (t.startsWith("now-")) {
                String d = t.substring(4);
                long unit = d.endsWith("h") ? 3_600_000 : d.endsWith("m") ? 60_000 : d.endsWith("s") ? 1_000 : -1;
                try {
                    long n = unit < 0 ? -1 : Long.parseLong(d.substring(0, d.length() - 1));
                    if (n >= 0) return now - n * unit;
                } catch (NumberFormatException e) {
                    // named below
                }
                throw new IllegalArgumentException("'" + t + "' is no time before now; a duration is whole seconds, minutes or hours: now-90s, now-15m, now-1h");
            }
            if (t.matches("\\d+")) {
                try {
                    return Long.parseLong(t);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + t + "' is too large for epoch milliseconds");
                }
            }
            try {
                return Instant.parse(t).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("'" + t + "' is no time: " + form);
            }
        }

        @Override
        public String toString() {
            return Instant.ofEpochMilli(startMillis) + ".." + Instant.ofEpochMilli(endMillis);
        }
    }

    /**
     * The arrival times of the records of {@code topic} in {@code window}.
     *
     * @throws IllegalArgumentException for a topic that does not exist or has no record in the window
     * @throws IllegalStateException    if the window cannot be read within {@code timeout}
     */
    public static ArrivalTrace read(String bootstrapServers, Map<String, String> clientProperties, String topic, Window window, Duration timeout) {
        Map<String, String> props = new HashMap<>(clientProperties);
        props.putIfAbsent("max.poll.records", "5000");
        long[] times = new long[1024];
        int n = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = TopicConsumers.reader(bootstrapServers, props, timeout)) {
            List<TopicPartition> partitions = TopicConsumers.partitions(consumer, topic);
            Map<TopicPartition, Long> atStart = new HashMap<>();
            Map<TopicPartition, Long> atEnd = new HashMap<>();
            for (TopicPartition p : partitions) {
                atStart.put(p, window.startMillis());
                atEnd.put(p, window.endMillis());
            }
            Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(atStart);
            Map<TopicPartition, OffsetAndTimestamp> to = consumer.offsetsForTimes(atEnd);
            Map<TopicPartition, Long> logEnd = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> until = new HashMap<>();
            for (TopicPartition p : partitions) {
                OffsetAndTimestamp f = from.get(p);
                if (f == null) continue; // nothing at or after the start
                OffsetAndTimestamp t = to.get(p);
                long end = t == null ? logEnd.get(p) : t.offset();
                if (end > f.offset()) until.put(p, end);
            }
            consumer.assign(until.keySet());
            for (TopicPartition p : until.keySet()) consumer.seek(p, from.get(p).offset());
            long deadline = System.nanoTime() + timeout.toNanos();
            while (until.keySet().stream().anyMatch(p -> consumer.position(p) < until.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " from " + window + " within " + timeout.toMillis() + " ms");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Long end = until.get(new TopicPartition(r.topic(), r.partition()));
                    if (end == null || r.offset() >= end) continue;
                    // The log's order is not the timestamps' order: a record sent late may sit after the end's offset, or before.
                    if (r.timestamp() < window.startMillis() || r.timestamp() >= window.endMillis()) continue;
                    if (n == times.length) times = Arrays.copyOf(times, n * 2);
                    times[n++] = r.timestamp() * 1000;
                }
            }
        }
        if (n == 0) throw new IllegalArgumentException(String.format(Locale.ROOT, "topic '%s' has no record between %s", topic, window));
        return ArrivalTrace.of(Arrays.copyOf(times, n));
    }
}
