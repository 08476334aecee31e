package io.kairos.core.device;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelCacheTest {
    private final List<String> closed = new ArrayList<>();

    private AutoCloseable session(String name) {
        return () -> closed.add(name);
    }

    private void load(ModelCache<AutoCloseable> cache, String model, long bytes) {
        cache.makeRoom(model, bytes);
        cache.install(model, session(model));
    }

    @Test
    void evictsLeastRecentlyUsedFirstAndClosesIt() {
        ModelCache<AutoCloseable> cache = new ModelCache<>(100);
        load(cache, "a", 40);
        load(cache, "b", 40);
        assertThat(cache.get("a")).isNotNull(); // a is now more recent than b
        assertThat(cache.makeRoom("c", 40)).containsExactly("b");
        assertThat(closed).containsExactly("b");
        assertThat(cache.usedBytes()).isEqualTo(80);
        cache.install("c", session("c"));
        assertThat(cache.lruOrder()).containsExactly("a", "c");
        assertThat(cache.makeRoom("d", 100)).containsExactly("a", "c");
        assertThat(cache.evictions()).isEqualTo(3);
    }

    private static final long MIB = 1 << 20;

    /**
     * Frequency with aging, on 3 MiB of 1 MiB models (priority L + uses / 1). a, b, c load (1 each),
     * a is used twice more (3). d: b and c have the lowest, 1; b is the less recently used (order
     * b, a, c): out, L = 1, d = 1 + 1 = 2. e: c (1) out, L = 1, e = 2. f: d and e (2), d the older:
     * out, L = 2, f = 3. g: e (2) out, L = 2, g = 3. h: a, f, g all 3, a the least recently used:
     * out, L = 3. The model used three times outlives four newcomers used once, then ages out.
     * Least recently used first, a would have gone at e's load, the second after its last use.
     */
    @Test
    void frequencyKeepsAModelUsedOftenOverNewcomersUntilItAges() {
        ModelCache<AutoCloseable> cache = new ModelCache<>(3 * MIB, Eviction.FREQUENCY);
        load(cache, "a", MIB);
        load(cache, "b", MIB);
        cache.get("a");
        cache.get("a");
        load(cache, "c", MIB);
        assertThat(cache.makeRoom("d", MIB)).containsExactly("b");
        cache.install("d", session("d"));
        assertThat(cache.makeRoom("e", MIB)).containsExactly("c");
        cache.install("e", session("e"));
        assertThat(cache.makeRoom("f", MIB)).containsExactly("d");
        cache.install("f", session("f"));
        assertThat(cache.makeRoom("g", MIB)).containsExactly("e");
        cache.install("g", session("g"));
        assertThat(cache.makeRoom("h", MIB)).containsExactly("a");
        assertThat(closed).containsExactly("b", "c", "d", "e", "a");

        ModelCache<AutoCloseable> lru = new ModelCache<>(3 * MIB, Eviction.LRU);
        for (String m : List.of("a", "b")) load(lru, m, MIB);
        lru.get("a");
        lru.get("a");
        load(lru, "c", MIB);
        assertThat(lru.makeRoom("d", MIB)).containsExactly("b");
        lru.install("d", session("d"));
        assertThat(lru.makeRoom("e", MIB)).containsExactly("a");
    }

    /**
     * Frequency per byte: on 3 MiB, big (2 MiB) used 3 times has priority 3 / 2 = 1.5, small (1 MiB)
     * used twice 2 / 1 = 2. A new 1 MiB model evicts big, though it was used more and more
     * recently; least recently used first evicts small.
     */
    @Test
    void frequencyWeighsUsesByTheBytesAModelTakes() {
        ModelCache<AutoCloseable> cache = new ModelCache<>(3 * MIB, Eviction.FREQUENCY);
        load(cache, "big", 2 * MIB);
        load(cache, "small", MIB);
        cache.get("small");
        cache.get("big");
        cache.get("big");
        assertThat(cache.makeRoom("new", MIB)).containsExactly("big");
        assertThat(cache.usedBytes()).isEqualTo(2 * MIB);

        ModelCache<AutoCloseable> lru = new ModelCache<>(3 * MIB);
        load(lru, "big", 2 * MIB);
        load(lru, "small", MIB);
        lru.get("small");
        lru.get("big");
        lru.get("big");
        assertThat(lru.makeRoom("new", MIB)).containsExactly("small");
    }

    @Test
    void evictionRulesByName() {
        assertThat(Eviction.parse("LRU")).isEqualTo(Eviction.LRU);
        assertThat(Eviction.parse("frequency")).isEqualTo(Eviction.FREQUENCY);
        assertThatThrownBy(() -> Eviction.parse("lfu")).hasMessage("eviction must be one of lru, frequency, got 'lfu'");
    }

    @Test
    void reservationCountsWhileLoadingAndIsGivenBackOnFailure() {
        ModelCache<AutoCloseable> cache = new ModelCache<>(100);
        cache.makeRoom("a", 70);
        assertThat(cache.isLoading("a")).isTrue();
        assertThat(cache.get("a")).isNull();
        // A model being loaded is not evicted: b gets its room, the budget is exceeded until a's load ends.
        assertThat(cache.makeRoom("b", 50)).isEmpty();
        assertThat(cache.usedBytes()).isEqualTo(120);
        cache.cancel("a");
        assertThat(cache.usedBytes()).isEqualTo(50);
        assertThat(cache.isLoading("a")).isFalse();
    }

    @Test
    void modelLargerThanTheBudgetIsRefused() {
        ModelCache<AutoCloseable> cache = new ModelCache<>(100);
        assertThatThrownBy(() -> cache.makeRoom("big", 101)).hasMessage("model 'big' needs 101 bytes, more than the device's budget of 100");
    }
}
