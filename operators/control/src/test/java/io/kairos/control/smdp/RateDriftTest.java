package io.kairos.control.smdp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateDriftTest {

    @Test
    void aNewTableIsDueWhenTheRateMovesByMoreThanTheShareEitherWay() {
        RateDrift twentyPercent = new RateDrift(0.2);
        assertThat(twentyPercent.drifted(1_000, 1_000)).isFalse();
        assertThat(twentyPercent.drifted(1_000, 1_200)).isFalse(); // exactly 20 %: not more
        assertThat(twentyPercent.drifted(1_000, 1_201)).isTrue();
        assertThat(twentyPercent.drifted(1_000, 800)).isFalse();
        assertThat(twentyPercent.drifted(1_000, 799)).isTrue();
        assertThat(twentyPercent.drifted(1_000, 0)).isTrue(); // the model went quiet
    }

    @Test
    void badSharesAndRatesAreRefused() {
        assertThatThrownBy(() -> new RateDrift(0)).hasMessage("the drift share must be a positive number, got 0.0");
        assertThatThrownBy(() -> new RateDrift(Double.NaN)).hasMessage("the drift share must be a positive number, got NaN");
        assertThatThrownBy(() -> new RateDrift(0.1).drifted(0, 5)).hasMessage("the rate a table was solved for must be positive, got 0.0");
    }
}
