package io.kairos.core.result;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AnsweredRequestsTest {
    // A checkpoint triggered at 1,000,000 ms; the job restored from it 30 s later.
    private static final long CHECKPOINT_MS = 1_000_000;
    private static final long RESTORED_US = 1_030_000_000L;
    /** 2 s of margin, 5 s to read, kept 60 s. */
    private static final AnsweredRequests.Settings SETTINGS = new AnsweredRequests.Settings(2_000, 5_000, 60_000);
    private final AnsweredRequests answered = AnsweredRequests.restored(Set.of("a", "b"), CHECKPOINT_MS, RESTORED_US, SETTINGS);

    @Test
    void theReadBackStartsTheMarginBeforeTheCheckpoint() {
        assertThat(AnsweredRequests.readFromMillis(CHECKPOINT_MS, SETTINGS)).isEqualTo(998_000);
        assertThat(AnsweredRequests.readFromMillis(1_500, SETTINGS)).isZero();
    }

    @Test
    void aReplayedRequestThatWasAnsweredIsHeldBackAndOneThatWasNotIsWritten() {
        long sentBeforeTheCrash = 1_020_000_000L;
        long now = RESTORED_US + 1_000_000;
        assertThat(answered.alreadyAnswered("a", sentBeforeTheCrash, now)).isTrue();
        assertThat(answered.alreadyAnswered("b", 0, now)).as("a record that could not be decoded has no send time").isTrue();
        assertThat(answered.alreadyAnswered("c", sentBeforeTheCrash, now)).isFalse();
    }

    @Test
    void aRequestSentAfterTheRestoreIsNeverLookedUp() {
        long now = RESTORED_US + 10_000_000;
        // Within the margin of the restore: a client's clock may be ahead of the job's.
        assertThat(answered.alreadyAnswered("a", RESTORED_US + 1_999_999, now)).isTrue();
        // Beyond it: a new request that reuses an id is answered.
        assertThat(answered.alreadyAnswered("a", RESTORED_US + 2_000_000, now)).isFalse();
    }

    @Test
    void theSetIsDroppedAtTheHorizon() {
        long horizon = RESTORED_US + 60_000_000;
        assertThat(answered.expired(horizon - 1)).isFalse();
        assertThat(answered.alreadyAnswered("a", 0, horizon - 1)).isTrue();
        assertThat(answered.expired(horizon)).isTrue();
        assertThat(answered.alreadyAnswered("a", 0, horizon)).isFalse();
    }

    @Test
    void aCheckpointWhileTheSetIsInForceKeepsTheOlderAnchorAndAfterwardsItsOwn() {
        long laterCheckpointMs = 1_040_000;
        assertThat(answered.anchorFor(laterCheckpointMs, RESTORED_US + 10_000_000)).isEqualTo(CHECKPOINT_MS);
        assertThat(answered.anchorFor(laterCheckpointMs, RESTORED_US + 60_000_000)).isEqualTo(laterCheckpointMs);
    }

    @Test
    void theOlderAnchorIsKeptOnlyWhileTheSourcesCatchUpNotForTheWholeHorizon() {
        // Horizon 60 s, catch-up 20 s: a checkpoint 19.999 s after the restore keeps the old anchor,
        // one at 20 s its own, while the set itself is still in force until 60 s.
        AnsweredRequests set = AnsweredRequests.restored(Set.of("a"), CHECKPOINT_MS, RESTORED_US, new AnsweredRequests.Settings(2_000, 5_000, 60_000, 20_000));
        assertThat(set.anchorFor(1_040_000, RESTORED_US + 19_999_999)).isEqualTo(CHECKPOINT_MS);
        assertThat(set.anchorFor(1_040_000, RESTORED_US + 20_000_000)).isEqualTo(1_040_000);
        assertThat(set.alreadyAnswered("a", RESTORED_US - 1, RESTORED_US + 20_000_000)).isTrue();
        assertThatThrownBy(() -> new AnsweredRequests.Settings(0, 1, 10, 11)).hasMessage("the catch-up must lie between 0 and the horizon of 10 ms, got 11");
    }

    @Test
    void aFailedReadHoldsNothingBackButStillCarriesTheAnchor() {
        AnsweredRequests unread = AnsweredRequests.restored(Set.of(), CHECKPOINT_MS, RESTORED_US, SETTINGS);
        assertThat(unread.alreadyAnswered("a", 0, RESTORED_US)).isFalse();
        assertThat(unread.anchorFor(1_040_000, RESTORED_US + 1)).isEqualTo(CHECKPOINT_MS);
    }

    @Test
    void whileTheSetIsReadOnlyResultsOfRequestsSentBeforeTheRestoreAreLookedUpAndTheIdsReadKeepItsTimes() {
        AnsweredRequests reading = AnsweredRequests.restored(Set.of(), CHECKPOINT_MS, RESTORED_US, SETTINGS);
        assertThat(reading.consults(RESTORED_US + 1_999_999, RESTORED_US + 5_000_000)).isTrue();
        assertThat(reading.consults(RESTORED_US + 2_000_000, RESTORED_US + 5_000_000)).isFalse();
        assertThat(reading.consults(0, RESTORED_US + 60_000_000)).as("past the horizon").isFalse();

        AnsweredRequests read = reading.withIds(Set.of("a"));
        assertThat(read.size()).isEqualTo(1);
        assertThat(read.alreadyAnswered("a", RESTORED_US, RESTORED_US + 59_999_999)).isTrue();
        assertThat(read.expired(RESTORED_US + 60_000_000)).isTrue();
        assertThat(read.anchorFor(1_040_000, RESTORED_US + 1)).isEqualTo(CHECKPOINT_MS);
    }

    @Test
    void theLatestWriteBeforeTheRestoreBoundsWhichRequestsCanHaveBeenAnswered() {
        // The log was last written 10 s before the restore (about when the job crashed).
        AnsweredRequests bounded = answered.withLatestWrite(RESTORED_US / 1000 - 10_000);
        assertThat(bounded.alreadyAnswered("a", RESTORED_US - 8_000_001, RESTORED_US)).isTrue();
        assertThat(bounded.alreadyAnswered("a", RESTORED_US - 8_000_000, RESTORED_US)).as("sent after the latest write and its margin").isFalse();
        assertThat(bounded.consults(RESTORED_US - 8_000_000, RESTORED_US)).isFalse();
        assertThat(answered.withLatestWrite(RESTORED_US / 1000 + 10_000).alreadyAnswered("a", RESTORED_US + 1_999_999, RESTORED_US))
                .as("a write after the restore bounds nothing the restore does not").isTrue();
        assertThat(answered.withLatestWrite(Long.MAX_VALUE).consults(RESTORED_US + 1_999_999, RESTORED_US)).as("a log that cannot tell").isTrue();
        assertThat(answered.withLatestWrite(Long.MIN_VALUE).consults(0, RESTORED_US)).as("a log with no result: nothing was answered").isFalse();
    }

    @Test
    void aFreshStartHoldsNothingBackAndAnchorsEachCheckpointAtItself() {
        AnsweredRequests none = AnsweredRequests.none();
        assertThat(none.alreadyAnswered("a", 0, Long.MIN_VALUE + 1)).isFalse();
        assertThat(none.expired(0)).isTrue();
        assertThat(none.anchorFor(1_040_000, 0)).isEqualTo(1_040_000);
        assertThat(none.size()).isZero();
    }

    @Test
    void aHorizonBeyondTheEndOfTimeSaturates() {
        AnsweredRequests forever = AnsweredRequests.restored(Set.of("a"), CHECKPOINT_MS, Long.MAX_VALUE - 5, new AnsweredRequests.Settings(0, 1, Long.MAX_VALUE / 1000));
        assertThat(forever.expired(Long.MAX_VALUE - 1)).isFalse();
        assertThat(forever.alreadyAnswered("a", 0, Long.MAX_VALUE - 1)).isTrue();
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> new AnsweredRequests.Settings(-1, 5_000, 60_000)).hasMessage("the read-back margin must not be negative, got -1 ms");
        assertThatThrownBy(() -> new AnsweredRequests.Settings(0, 0, 60_000)).hasMessage("the read-back timeout must be at least 1 ms, got 0");
        assertThatThrownBy(() -> new AnsweredRequests.Settings(0, 1, 0)).hasMessage("the answered requests must be kept at least 1 ms, got 0");
    }
}
