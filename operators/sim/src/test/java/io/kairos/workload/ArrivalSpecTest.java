package io.kairos.workload;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArrivalSpecTest {

    @Test
    void readsEachProcessAndPrintsItBack() {
        assertThat(ArrivalSpec.parse("poisson")).isEqualTo(ArrivalSpec.POISSON).hasToString("poisson");
        assertThat(ArrivalSpec.parse(" Fixed ")).isEqualTo(ArrivalSpec.FIXED).hasToString("fixed");
        assertThat(ArrivalSpec.parse("gamma:cv2=4")).isEqualTo(ArrivalSpec.gamma(4)).hasToString("gamma:cv2=4");
        assertThat(ArrivalSpec.parse("GAMMA: cv2 = 0.5")).isEqualTo(ArrivalSpec.gamma(0.5)).hasToString("gamma:cv2=0.5");
        assertThat(ArrivalSpec.parse("mmpp:cv2=8")).isEqualTo(ArrivalSpec.mmpp(8)).hasToString("mmpp:cv2=8");
        for (String s : new String[] {"poisson", "fixed", "gamma:cv2=2.5", "mmpp:cv2=1"}) {
            assertThat(ArrivalSpec.parse(ArrivalSpec.parse(s).toString())).isEqualTo(ArrivalSpec.parse(s));
        }
    }

    @Test
    void makesTheProcessAtTheLoadsRate() {
        assertThat(ArrivalSpec.POISSON.at(400)).isEqualTo(new PoissonArrivals(400));
        assertThat(ArrivalSpec.FIXED.at(400)).isEqualTo(new FixedRateArrivals(400));
        assertThat(ArrivalSpec.parse("gamma:cv2=4").at(400)).isEqualTo(new GammaArrivals(400, 4));
        ArrivalProcess mmpp = ArrivalSpec.parse("mmpp:cv2=8").at(400);
        assertThat(mmpp).isInstanceOf(MmppArrivals.class);
        assertThat(((MmppArrivals) mmpp).gapCv2()).isCloseTo(8, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(mmpp.meanRatePerSecond()).isCloseTo(400, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void errorsAreOneLineAndNameTheBadPart() {
        assertSpecError("", "arrival spec is empty; expected one of poisson, fixed, gamma:cv2=N, mmpp:cv2=N");
        assertSpecError("bursty", "arrival spec 'bursty': unknown process 'bursty'; known: poisson, fixed, gamma:cv2=N, mmpp:cv2=N");
        assertSpecError("gamma", "arrival spec 'gamma': gamma needs cv2, e.g. gamma:cv2=4");
        assertSpecError("poisson:cv2=2", "arrival spec 'poisson:cv2=2': poisson takes no parameters");
        assertSpecError("gamma:4", "arrival spec 'gamma:4': parameter '4' is not key=value, e.g. cv2=4");
        assertSpecError("gamma:cv=4", "arrival spec 'gamma:cv=4': unknown parameter 'cv'; gamma takes cv2");
        assertSpecError("gamma:cv2=lots", "arrival spec 'gamma:cv2=lots': cv2 'lots' is not a number");
        assertSpecError("gamma:cv2=0", "arrival spec 'gamma:cv2=0': gamma needs cv2 > 0, got 0");
        assertSpecError("gamma:cv2=NaN", "arrival spec 'gamma:cv2=NaN': gamma needs cv2 > 0, got NaN");
        assertSpecError("gamma:cv2=1:cv2=2", "arrival spec 'gamma:cv2=1:cv2=2': cv2 is given twice");
        assertSpecError("mmpp:cv2=0.5", "arrival spec 'mmpp:cv2=0.5': mmpp needs 1 <= cv2 < 1621, got 0.5");
        assertSpecError("mmpp:cv2=5000", "arrival spec 'mmpp:cv2=5000': mmpp needs 1 <= cv2 < 1621, got 5000");
    }

    private static void assertSpecError(String spec, String message) {
        assertThatThrownBy(() -> ArrivalSpec.parse(spec))
                .isInstanceOf(Workload.SpecException.class)
                .hasMessage(message);
    }
}
