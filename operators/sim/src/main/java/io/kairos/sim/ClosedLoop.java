package io.kairos.sim;

import io.kairos.core.request.Request;
import io.kairos.workload.Arrival;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Closed-loop clients, the RL thesis' first generator: each client has one request outstanding,
 * and sends the next one a think time after the last one ended (answered or dropped). The offered
 * load therefore falls as latency rises, unlike an open loop.
 */
public record ClosedLoop(List<Clients> clients) implements ArrivalSource.Load {

    /** {@code count} clients of one tenant asking one model, with an SLO and a think time. */
    public record Clients(String tenant, String model, int count, double sloMs, long thinkMicros) {
        public Clients {
            if (count < 1) throw new IllegalArgumentException("a closed loop needs at least one client, got " + count);
            if (!(sloMs > 0)) throw new IllegalArgumentException("SLO must be positive, got " + sloMs + " ms");
            if (thinkMicros < 0) throw new IllegalArgumentException("think time must not be negative, got " + thinkMicros + " us");
        }
    }

    public ClosedLoop {
        if (clients.isEmpty()) throw new IllegalArgumentException("a closed loop needs at least one group of clients");
        clients = List.copyOf(clients);
    }

    @Override
    public ArrivalSource start(long seed, long untilMicros) {
        return new Run(seed, untilMicros);
    }

    private final class Run implements ArrivalSource {
        private final long until;
        private final PriorityQueue<Send> sends = new PriorityQueue<>();
        private final Map<Arrival, Clients> outstanding = new IdentityHashMap<>();
        private long sequence;

        Run(long seed, long until) {
            this.until = until;
            SplittableRandom random = new SplittableRandom(seed);
            // Clients start spread over their first think time (at least 1 ms), not all at 0.
            for (Clients c : clients) {
                long spread = Math.max(1000, c.thinkMicros());
                for (int i = 0; i < c.count(); i++) sends.add(new Send(random.nextLong(spread), sequence++, c));
            }
        }

        @Override
        public long peekMicros() {
            Send s = sends.peek();
            return s == null || s.at >= until ? NONE : s.at;
        }

        @Override
        public Arrival next() {
            Send s = sends.poll();
            Arrival a = new Arrival(s.at, s.clients.tenant(), s.clients.model(), s.clients.sloMs());
            outstanding.put(a, s.clients);
            return a;
        }

        @Override
        public void ended(Request request, long nowMicros) {
            Clients c = outstanding.remove(request.<Arrival>payload());
            if (c != null) sends.add(new Send(nowMicros + c.thinkMicros(), sequence++, c));
        }
    }

    // Ties in time go in sequence order, so that a run is fully determined by its seed.
    private record Send(long at, long sequence, Clients clients) implements Comparable<Send> {
        @Override
        public int compareTo(Send o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(sequence, o.sequence);
        }
    }
}
