package io.kairos.wire.result;

import io.kairos.core.result.ResultStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The core's statuses and the wire's are the same constants in the same order, each converted to its namesake. */
class ResultStatusesTest {

    @Test
    void theCoreMirrorsTheWire() {
        assertThat(Arrays.stream(ResultStatus.values()).map(Enum::name))
                .containsExactlyElementsOf(Arrays.stream(io.kairos.schema.ResultStatus.values()).map(Enum::name).toList());
        for (ResultStatus s : ResultStatus.values()) assertThat(ResultStatuses.core(ResultStatuses.wire(s))).isSameAs(s);
    }
}
