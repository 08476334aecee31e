package io.kairos.testbed.bench;

import io.kairos.core.model.ModelSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PayloadModelsTest {

    @Test
    void theIssuesFourSizesAreTheTabularModelTheSmallImageAndARealImageAsBytesAndAsFloats() {
        PayloadModels p = PayloadModels.forKilobytes(0.3, 12, 150, 600);

        assertThat(p.models()).extracting(ModelSpec::name).containsExactly("mlp", "resnet50", "image-uint8", "image-float32");
        assertThat(p.models()).extracting(m -> m.input().byteSize()).containsExactly(256L, 12_288L, 150_528L, 602_112L);
        assertThat(p.models().get(2).input().dtype()).isEqualTo("UINT8");
        assertThat(p.models().get(3).input().shape()).containsExactly(3, 224, 224);
        // The job is given the catalog: the built-in models stay, the image models join them.
        assertThat(p.catalog().names()).containsExactly("resnet50", "googlenet", "bert-tiny", "mlp", "image-uint8", "image-float32");
        // A 600 kB request fits Kafka's default 1 MiB limit, with room for the record's headers.
        assertThat(KafkaRoundTrip.encodedRequestBytes(p.models().get(3))).isBetween(602_112, PayloadModels.MAX_REQUEST_BYTES);
    }

    @Test
    void aSizeFarFromEveryModelGetsAFlatByteTensorOfExactlyThatSize() {
        PayloadModels p = PayloadModels.forKilobytes(50, 50, 1.1);

        assertThat(p.models()).extracting(ModelSpec::name).containsExactly("payload-50000b", "payload-50000b", "payload-1100b");
        assertThat(p.models().get(0).input().byteSize()).isEqualTo(50_000);
        assertThat(p.models().get(2).input().dtype()).isEqualTo("UINT8");
        assertThat(p.catalog().names()).endsWith("payload-50000b", "payload-1100b");
    }

    @Test
    void nearMeansWithinAQuarterEitherWay() {
        // mlp's 256 B: 0.32 kB is 1.25x it, 0.33 kB is more; bert-tiny's 512 B is nearer 0.45.
        assertThat(PayloadModels.forKilobytes(0.32, 0.33, 0.45).models()).extracting(ModelSpec::name)
                .containsExactly("mlp", "payload-330b", "bert-tiny");
    }

    @Test
    void aSizeThatIsNoSizeOrDoesNotFitAKafkaRecordIsRefused() {
        assertThatThrownBy(() -> PayloadModels.forKilobytes(12, 0)).hasMessage("a payload size must be a positive number of kB, got 0.0");
        assertThatThrownBy(() -> PayloadModels.forKilobytes(Double.NaN)).hasMessageContaining("positive number of kB");
        assertThatThrownBy(() -> PayloadModels.forKilobytes(1_040)).hasMessageContaining("over the 1,032,192 bytes a Kafka record may take by default");
    }

    @Test
    void sizesPrintAsTheyWereWritten() {
        assertThat(PayloadModels.trim(0.3)).isEqualTo("0.3");
        assertThat(PayloadModels.trim(150)).isEqualTo("150");
        assertThat(PayloadModels.trim(12.50)).isEqualTo("12.5");
    }
}
