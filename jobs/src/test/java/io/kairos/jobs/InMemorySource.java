package io.kairos.jobs;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A source of the given records for a test: its first reader emits them in order, then the source
 * stays open, with nothing more to read, until the job is cancelled, as a topic does. Unbounded on
 * purpose: at the end of a bounded input Flink drops pending processing-time timers, and the
 * scheduler's timers are what release requests it holds.
 *
 * <p>No checkpoints: a restored reader would read the records again.
 */
final class InMemorySource<T> implements Source<T, InMemorySource.NoSplit, Void>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    private final ArrayList<T> records;
    private final TypeInformation<T> type;

    /** @param records serializable, as they travel with the job graph (Avro records are) */
    InMemorySource(List<T> records, TypeInformation<T> type) {
        this.records = new ArrayList<>(records);
        this.type = type;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return type;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, NoSplit> createReader(SourceReaderContext context) {
        return new Reader<>(context.getIndexOfSubtask() == 0 ? records : List.of());
    }

    @Override
    public SplitEnumerator<NoSplit, Void> createEnumerator(SplitEnumeratorContext<NoSplit> context) {
        return new NoSplits();
    }

    @Override
    public SplitEnumerator<NoSplit, Void> restoreEnumerator(SplitEnumeratorContext<NoSplit> context, Void checkpoint) {
        return new NoSplits();
    }

    @Override
    public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
        return new Nothing<>();
    }

    @Override
    public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
        return new Nothing<>();
    }

    /** The records are the reader's from the start: no split is ever assigned. */
    static final class NoSplit implements SourceSplit {
        @Override
        public String splitId() {
            return "none";
        }
    }

    private static final class Reader<T> implements SourceReader<T, NoSplit> {
        private final List<T> records;
        private final CompletableFuture<Void> never = new CompletableFuture<>();
        private int next;

        Reader(List<T> records) {
            this.records = records;
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) {
            if (next < records.size()) output.collect(records.get(next++));
            return next < records.size() ? InputStatus.MORE_AVAILABLE : InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return next < records.size() ? CompletableFuture.completedFuture(null) : never;
        }

        @Override
        public List<NoSplit> snapshotState(long checkpointId) {
            return List.of();
        }

        @Override
        public void addSplits(List<NoSplit> splits) {}

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }

    private static final class NoSplits implements SplitEnumerator<NoSplit, Void> {
        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {}

        @Override
        public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public Void snapshotState(long checkpointId) {
            return null;
        }

        @Override
        public void close() {}
    }

    private static final class Nothing<E> implements SimpleVersionedSerializer<E> {
        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(E e) {
            return new byte[0];
        }

        @Override
        public E deserialize(int version, byte[] bytes) {
            return null;
        }
    }
}
