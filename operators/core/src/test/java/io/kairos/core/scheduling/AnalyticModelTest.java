package io.kairos.core.scheduling;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The thesis' three formulas (§6.5) on the settings of its Tables 6.1-6.3, in seconds (as
 * microseconds): t5-small, T_CS = 3 s, T_I = T_Iavg = 1 s, one request ahead (n = 1).
 */
class AnalyticModelTest {
    private static final long S = 1_000_000;

    private static AnalyticModel model(long prePost, long network, int n) {
        return new AnalyticModel(3 * S, S, prePost, network, S, prePost, n);
    }

    /**
     * Table 6.1, T_P = 5 s, T_N = 5 s: colocation max(3 + 1 + 5, 1·(1 + 5)) = 9 s; with queuing
     * (1 + 1)·(1 + 5) = 12 s; registry (5 + 1 + 5) + 1·1 = 12 s. ColocationPlacement without queuing wins.
     */
    @Test
    void table61HighPrePostAndNetworkColocationWithoutQueuing() {
        AnalyticModel m = model(5 * S, 5 * S, 1);
        assertThat(m.colocation()).isEqualTo(9 * S);
        assertThat(m.colocationWithQueuing()).isEqualTo(12 * S);
        assertThat(m.registry()).isEqualTo(12 * S);
        assertThat(m.best()).isEqualTo(ColocationPlacement.WITHOUT_QUEUING);
    }

    /**
     * Table 6.2, T_P = 0, T_N = 5 s: colocation max(3 + 1 + 0, 1·1) = 4 s; with queuing 2·1 = 2 s;
     * registry (5 + 1 + 0) + 1 = 7 s. With queuing wins.
     */
    @Test
    void table62NoPrePostHighNetworkColocationWithQueuing() {
        AnalyticModel m = model(0, 5 * S, 1);
        assertThat(m.colocation()).isEqualTo(4 * S);
        assertThat(m.colocationWithQueuing()).isEqualTo(2 * S);
        assertThat(m.registry()).isEqualTo(7 * S);
        assertThat(m.best()).isEqualTo(ColocationPlacement.WITH_QUEUING);
    }

    /**
     * Table 6.3, T_P = 5 s, T_N = 0: colocation max(9, 6) = 9 s; with queuing 2·6 = 12 s; registry
     * (0 + 1 + 5) + 1 = 7 s. The registry wins.
     */
    @Test
    void table63HighPrePostNoNetworkRegistry() {
        AnalyticModel m = model(5 * S, 0, 1);
        assertThat(m.colocation()).isEqualTo(9 * S);
        assertThat(m.colocationWithQueuing()).isEqualTo(12 * S);
        assertThat(m.registry()).isEqualTo(7 * S);
        assertThat(m.best()).isEqualTo(RegistryPlacement.NAME);
    }

    /**
     * Nothing ahead (n = 0), T_P = 5 s, T_N = 0: with queuing 1·6 = 6 s and registry 0 + 1 + 5 = 6 s
     * tie, colocation max(9, 0) = 9 s: the tie goes to the registry, which holds the device 1 s
     * rather than 6.
     */
    @Test
    void aTieGoesToTheRegistryThenToNoLoad() {
        AnalyticModel m = model(5 * S, 0, 0);
        assertThat(m.colocationWithQueuing()).isEqualTo(m.registry()).isEqualTo(6 * S);
        assertThat(m.colocation()).isEqualTo(9 * S);
        assertThat(m.best()).isEqualTo(RegistryPlacement.NAME);
        // No load and no hop at all: T_CS = 0, n = 0: colocation 1 s = queuing 1 s < registry 1 s + T_N.
        assertThat(new AnalyticModel(0, S, 0, S, S, 0, 0).best()).isEqualTo(ColocationPlacement.WITH_QUEUING);
    }

    @Test
    void negativeInputsAreRefused() {
        assertThatThrownBy(() -> new AnalyticModel(-1, S, 0, 0, S, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
