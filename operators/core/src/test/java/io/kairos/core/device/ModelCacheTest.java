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
