package io.kairos.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core starts no thread, takes no lock and reads no clock ({@link ThreadAndClockUses}, on its
 * compiled classes): its objects are driven by whoever holds them, on that caller's thread and
 * with the time it is handed, a Flink operator or the simulator alike. The one exception is
 * {@code time.WallClock}, the single reader of the wall clock, which the engines call (through
 * {@code Clock.wall()}) and the core's own code never does.
 */
class NoThreadsTest {
    private static final String WALL_CLOCK = "io.kairos.core.time.WallClock#";

    @Test
    void theCoreStartsNoThreadTakesNoLockAndReadsNoClock() {
        List<String> uses = ThreadAndClockUses.in(Path.of("target/classes"));
        assertThat(uses.stream().filter(u -> !u.startsWith(WALL_CLOCK))).as("threads, locks and clocks in the core").isEmpty();
        assertThat(uses).as("the wall clock, read by WallClock alone").anyMatch(u -> u.startsWith(WALL_CLOCK + "nowMicros: wall clock:"));
    }

    /** The check fails on what it guards against, however it is written. */
    @Test
    void theCheckFindsThreadsLocksAndClocks() throws IOException {
        assertThat(uses(StartsAThread.class)).anyMatch(u -> u.endsWith("#run: thread: java.lang.Thread.start"));
        assertThat(uses(HasAnExecutor.class)).anyMatch(u -> u.contains("thread: java.util.concurrent.ScheduledExecutorService"))
                .anyMatch(u -> u.contains("thread: java.util.concurrent.Executors.newSingleThreadScheduledExecutor"));
        assertThat(uses(RunsElsewhere.class)).anyMatch(u -> u.endsWith("#later: thread: CompletableFuture.supplyAsync"));
        assertThat(uses(MakesThreadsByReference.class)).anyMatch(u -> u.contains("thread: java.lang.Thread.<init>"));
        assertThat(uses(Locks.class)).contains(Locks.class.getName() + "#method: lock: synchronized method",
                Locks.class.getName() + "#block: lock: synchronized block",
                Locks.class.getName() + "#explicit: lock: java.util.concurrent.locks.ReentrantLock");
        assertThat(uses(ReadsClocks.class)).contains(ReadsClocks.class.getName() + "#millis: wall clock: System.currentTimeMillis",
                ReadsClocks.class.getName() + "#nanos: wall clock: System.nanoTime",
                ReadsClocks.class.getName() + "#instant: wall clock: Instant.now");
        assertThat(uses(Plain.class)).isEmpty();
    }

    private static List<String> uses(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream("/" + c.getName().replace('.', '/') + ".class")) {
            return ThreadAndClockUses.in(in);
        }
    }

    static final class StartsAThread {
        void run(Runnable r) {
            new Thread(r).start();
        }
    }

    static final class HasAnExecutor {
        private final java.util.concurrent.ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    }

    static final class RunsElsewhere {
        CompletableFuture<String> later() {
            return CompletableFuture.supplyAsync(() -> "done");
        }
    }

    static final class MakesThreadsByReference {
        java.util.function.Function<Runnable, ?> threads() {
            return Thread::new;
        }
    }

    static final class Locks {
        private final ReentrantLock lock = new ReentrantLock();

        synchronized void method() {}

        void block(Object o) {
            synchronized (o) {
                o.notify();
            }
        }

        void explicit() {
            lock.lock();
        }
    }

    static final class ReadsClocks {
        long millis() {
            return System.currentTimeMillis();
        }

        long nanos() {
            return System.nanoTime();
        }

        Supplier<java.time.Instant> instant() {
            return java.time.Instant::now;
        }
    }

    static final class Plain {
        private final java.util.concurrent.ConcurrentHashMap<String, Long> counts = new java.util.concurrent.ConcurrentHashMap<>();

        long add(String key) {
            return counts.merge(key, 1L, Long::sum);
        }
    }
}
