package io.kairos.sim;

import io.kairos.core.request.Request;
import io.kairos.workload.Arrival;
import io.kairos.workload.Workload;

import java.util.List;

/**
 * The requests of one simulation run, in time order. An open-loop source ignores what happens to
 * its requests; a closed-loop one sends a client's next request only when its last one has ended.
 */
public interface ArrivalSource {

    /** {@link #peekMicros} once no request will arrive any more. */
    long NONE = Long.MAX_VALUE;

    /** When the next request arrives, or {@link #NONE}. */
    long peekMicros();

    /**
     * The next request; only called when {@link #peekMicros} is not {@link #NONE}. A run names
     * each request by its number in this order, from 0, as its {@link Request#id}: what a source
     * that keeps its own record of its requests finds them by.
     */
    Arrival next();

    /** The fate of a request from this source is decided (served, late or dropped) at {@code nowMicros}. */
    default void ended(Request request, long nowMicros) {}

    /** A description of a load that can start any number of independent, seeded runs. */
    @FunctionalInterface
    interface Load {
        /** A fresh source whose requests arrive before {@code untilMicros}. */
        ArrivalSource start(long seed, long untilMicros);
    }

    /** An open-loop workload: its arrivals depend only on the seed. */
    static Load open(Workload workload) {
        return (seed, until) -> {
            Workload.Arrivals arrivals = workload.arrivals(seed);
            return new ArrivalSource() {
                @Override
                public long peekMicros() {
                    long t = arrivals.peekOffsetMicros();
                    return t < until ? t : NONE;
                }

                @Override
                public Arrival next() {
                    return arrivals.next();
                }
            };
        };
    }

    /** A fixed list of arrivals (a recorded trace), sorted by offset; the seed is not used. */
    static Load replay(List<Arrival> arrivals) {
        for (int i = 1; i < arrivals.size(); i++) {
            if (arrivals.get(i).offsetMicros() < arrivals.get(i - 1).offsetMicros()) {
                throw new IllegalArgumentException("replayed arrivals must be in time order; arrival " + i + " is earlier than the one before");
            }
        }
        List<Arrival> copy = List.copyOf(arrivals);
        return (seed, until) -> new ArrivalSource() {
            private int next;

            @Override
            public long peekMicros() {
                if (next == copy.size()) return NONE;
                long t = copy.get(next).offsetMicros();
                return t < until ? t : NONE;
            }

            @Override
            public Arrival next() {
                return copy.get(next++);
            }
        };
    }
}
