package io.kairos.jobs.config;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A configuration is checked once, when it is built, each refusal naming the field; once built it
 * cannot change, goes back to a builder and over the wire (to the job's tasks) unchanged.
 */
class ServingConfigTest {

    /** What {@link ServingConfig.Builder#build} says of the defaults with {@code change} made. */
    private static ServingConfig.InvalidConfig refused(Consumer<ServingConfig.Builder> change) {
        ServingConfig.Builder b = ServingConfig.builder();
        change.accept(b);
        return catchThrowableOfType(ServingConfig.InvalidConfig.class, b::build);
    }

    private static ServingConfig unusual() {
        ServingConfig.Builder b = ServingConfig.builder().topicsNamed("t-");
        b.kafkaProperties.put("security.protocol", "SASL_SSL");
        b.policy = "triton";
        b.policyParams.put("max_batch", "8");
        b.devices = 3;
        b.deviceTypes = "cpu:2,gpu-t4:1";
        b.registrySchemaIds.add(7);
        b.delivery = ServingConfig.Delivery.EXACTLY_ONCE;
        b.checkpointIntervalMs = 1_000;
        b.restarts = new ServingConfig.Restarts(1, 20, 60_000);
        b.modelRepository = "s3://bucket/models";
        return b.build();
    }

    @Test
    void theDevicesAreAtLeastOneAndTheirTypesAddUpToThem() {
        assertThat(refused(b -> b.devices = 0)).hasMessage("devices must be at least 1, got 0")
                .satisfies(e -> assertThat(e.field()).isEqualTo("devices"));
        assertThat(refused(b -> {
            b.devices = 3;
            b.deviceTypes = "cpu:2";
        })).hasMessage("deviceTypes 'cpu:2' are 2 slots, devices is 3").satisfies(e -> assertThat(e.field()).isEqualTo("deviceTypes"));
        assertThat(refused(b -> b.deviceTypes = "cpu:x")).hasMessage("deviceTypes: devices: part 'cpu:x' has count 'x', which is no integer");
    }

    @Test
    void simulatedDevicesAreNotFasterThanZeroLatency() {
        assertThat(refused(b -> b.simulatedSpeed = -1)).hasMessage("simulatedSpeed must not be negative");
        assertThat(refused(b -> b.simulatedSpeed = Double.NaN)).hasMessage("simulatedSpeed must not be negative");
    }

    @Test
    void thePolicyIsAKnownOneWithParametersItReads() {
        assertThat(refused(b -> b.policy = "fastest")).hasMessageStartingWith("policy 'fastest' is unknown; known: [clockwork,");
        assertThat(refused(b -> {
            b.policy = "triton";
            b.policyParams = Map.of("max_batch", "-5");
        })).hasMessage("policyParams: triton parameter 'max_batch' must be a whole number, at least 1, got '-5'")
                .satisfies(e -> assertThat(e.field()).isEqualTo("policyParams"));
    }

    @Test
    void aModelRepositoryExcludesAProfilesFile() {
        assertThat(refused(b -> {
            b.modelsFile = "m.json";
            b.modelRepository = "models";
        })).hasMessage("modelsFile and modelRepository exclude each other: the repository's manifests are the catalog");
    }

    @Test
    void theDevicesMemoryThreadsAndCapacityAreInRange() {
        assertThat(refused(b -> b.deviceMemoryMb = 0)).hasMessage("deviceMemoryMb must be at least 1, got 0");
        assertThat(refused(b -> b.intraOpThreads = -1)).hasMessage("intraOpThreads must not be negative, got -1");
        assertThat(refused(b -> b.asyncCapacity = 0)).hasMessage("asyncCapacity must be at least 1, got 0");
        assertThat(refused(b -> b.sourceParallelism = 0)).hasMessage("sourceParallelism must be at least 1, got 0");
        assertThat(refused(b -> b.schedulerParallelism = 0)).hasMessage("schedulerParallelism must be at least 1, got 0");
    }

    @Test
    void exactlyOnceNeedsCheckpointsAndTransactionsThatOutliveThem() {
        assertThat(refused(b -> {
            b.delivery = ServingConfig.Delivery.EXACTLY_ONCE;
            b.checkpointIntervalMs = 0;
        })).hasMessage("delivery EXACTLY_ONCE needs checkpoints (checkpointIntervalMs > 0): results are committed when one completes");
        assertThat(refused(b -> {
            b.delivery = ServingConfig.Delivery.EXACTLY_ONCE;
            b.checkpointIntervalMs = 60_000;
            b.transactionTimeoutMs = 60_000;
        })).hasMessage("transactionTimeoutMs (60000) must exceed checkpointIntervalMs (60000): a transaction stays open from one checkpoint to the next");
    }

    @Test
    void reportsAreGatheredForUpToASecondInRecordsOfAtLeastOneBatch() {
        assertThat(refused(b -> b.reportCoalesceMicros = -1)).hasMessage("reportCoalesceMicros must be from 0 to 1000 ms, got -0.001 ms");
        assertThat(refused(b -> b.reportCoalesceMicros = 1_000_001)).hasMessage("reportCoalesceMicros must be from 0 to 1000 ms, got 1000.001 ms");
        assertThat(refused(b -> b.reportCoalesceBatches = 0)).hasMessage("reportCoalesceBatches must be at least 1, got 0");
    }

    @Test
    void registryFramingAndAdmissionLimitsAreOnesTheJobCanKeep() {
        assertThat(refused(b -> b.registrySchemaIds = Set.of(-4))).hasMessage("registrySchemaIds, schemaRegistryUrl: a schema id is not negative, got -4");
        assertThat(refused(b -> b.schemaRegistryUrl = "registry:8081"))
                .hasMessage("registrySchemaIds, schemaRegistryUrl: a schema registry URL is http:// or https:// with a host, got registry:8081");
        assertThat(refused(b -> b.maxIdBytes = 0)).hasMessageStartingWith("maxIdBytes, maxNameBytes, maxSloMs, maxClockSkewMs, the Kafka property max.request.size: the id limit");
        assertThat(refused(b -> b.kafkaProperties.put("max.request.size", "100")))
                .hasMessageStartingWith("maxIdBytes, maxNameBytes, maxSloMs, maxClockSkewMs, the Kafka property max.request.size: a result of at most");
    }

    @Test
    void errorsNameTheFieldsAsTheCallerHasThem() {
        ServingConfig.Builder b = ServingConfig.builder();
        b.delivery = ServingConfig.Delivery.EXACTLY_ONCE;
        b.checkpointIntervalMs = 0;
        assertThatThrownBy(() -> b.build(field -> "<" + field + ">"))
                .hasMessage("<delivery> EXACTLY_ONCE needs checkpoints (<checkpointIntervalMs> > 0): results are committed when one completes");
    }

    @Test
    void aBuiltConfigurationCannotChange() {
        ServingConfig.Builder b = ServingConfig.builder();
        b.kafkaProperties.put("linger.ms", "3");
        b.registrySchemaIds.add(7);
        ServingConfig config = b.build();
        assertThatThrownBy(() -> config.kafkaProperties.put("acks", "1")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.policyParams.put("max_batch", "1")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.registrySchemaIds.add(8)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ServingConfig.DEFAULTS.kafkaProperties.put("acks", "1")).isInstanceOf(UnsupportedOperationException.class);

        b.kafkaProperties.put("acks", "1"); // the builder's maps are its own
        b.registrySchemaIds.add(8);
        assertThat(config.kafkaProperties).containsExactly(Map.entry("linger.ms", "3"));
        assertThat(config.registrySchemaIds).containsExactly(7);
    }

    @Test
    void aConfigurationGoesBackToABuilderAndIsBuiltTheSame() {
        ServingConfig config = unusual();
        assertThat(config.toBuilder().build()).isEqualTo(config).hasSameHashCodeAs(config);
        assertThat(ServingConfig.builder().build()).isEqualTo(ServingConfig.DEFAULTS);
        assertThat(config).isNotEqualTo(ServingConfig.DEFAULTS);

        ServingConfig.Builder other = config.toBuilder();
        other.consumerGroup = "another";
        assertThat(other.build()).isNotEqualTo(config);
        assertThat(config.consumerGroup).isEqualTo("kairos-serving");
    }

    @Test
    void topicsAreNamedByTheBuilder() {
        ServingConfig config = ServingConfig.builder().topicsNamed("x-").build();
        assertThat(config.topics()).containsExactly("x-requests", "x-results", "x-telemetry", "x-control", "x-control-outcomes",
                "x-device-reports", "x-pipeline-hops");
        assertThat(ServingConfig.builder().topicsNamed("x-").topics()).isEqualTo(config.topics());
    }

    @Test
    void aConfigurationIsShippedToTheTasksUnchangedAndStillUnchangeable() throws Exception {
        ServingConfig config = unusual();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(config);
        }
        ServingConfig shipped;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            shipped = (ServingConfig) in.readObject();
        }
        assertThat(shipped).isEqualTo(config);
        assertThat(shipped.kafkaProperties).containsExactly(Map.entry("security.protocol", "SASL_SSL"));
        assertThatThrownBy(() -> shipped.policyParams.put("max_batch", "1")).isInstanceOf(UnsupportedOperationException.class);
    }
}
