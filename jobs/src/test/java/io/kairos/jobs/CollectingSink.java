package io.kairos.jobs;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A sink that keeps what it is given in memory, for a test on a mini-cluster in the same JVM. The
 * sink itself is serialized with the job graph, so its writers reach the records through a static
 * map, under an id of this sink's own.
 */
final class CollectingSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Queue<Object>> COLLECTED = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    CollectingSink() {
        COLLECTED.put(id, new ConcurrentLinkedQueue<>());
    }

    /** What the writers have been given so far, in no particular order across writers. */
    @SuppressWarnings("unchecked")
    List<T> collected() {
        return (List<T>) List.copyOf(COLLECTED.get(id));
    }

    /** Forgets what was collected. */
    void discard() {
        COLLECTED.remove(id);
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        Queue<Object> into = COLLECTED.get(id);
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context context) {
                into.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
