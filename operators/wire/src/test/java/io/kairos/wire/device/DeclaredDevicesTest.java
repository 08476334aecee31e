package io.kairos.wire.device;

import io.kairos.core.api.DeclaredApiTest;
import io.kairos.core.api.PublicEvolving;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device is part of the declared extension point, as the core's types are
 * ({@link DeclaredApiTest}): public-evolving, and showing users only declared types.
 */
class DeclaredDevicesTest {

    @Test
    void theDeviceAndItsFactoryAreDeclared() {
        for (Class<?> type : List.of(Device.class, DeviceFactory.class)) {
            assertThat(type.isAnnotationPresent(PublicEvolving.class)).as(type.getName()).isTrue();
            assertThat(DeclaredApiTest.internalsShown(type)).as(type.getName()).isEmpty();
        }
    }
}
