package io.kairos.jobs;

import io.kairos.core.model.ModelCatalog;
import io.kairos.flink.kafka.ResultsTopicLog;
import io.kairos.jobs.config.ServingConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What each delivery mode wires: the read-back of the results, the transactions, and what serve refuses. */
class DeliveryConfigurationTest {

    private static ServingConfig config(ServingConfig.Delivery delivery, long checkpointIntervalMs) {
        ServingConfig.Builder b = ServingConfig.builder();
        b.delivery = delivery;
        b.checkpointIntervalMs = checkpointIntervalMs;
        b.consumerGroup = "group-a";
        b.resultsTopic = "results-a";
        return b.build();
    }

    private static List<String> operators(ServingConfig config) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        ServingJob.onKafka(config, ModelCatalog.builtIn()).build(env);
        return env.getStreamGraph().getStreamNodes().stream().map(StreamNode::getOperatorName).toList();
    }

    @Test
    void atLeastOnceReadsTheResultsTopicBackAndHoldsBackWhatIsAlreadyOut() {
        ServingConfig c = config(ServingConfig.Delivery.AT_LEAST_ONCE, 10_000);
        ServingJob.Endpoints endpoints = ServingJob.Endpoints.onKafka(c);
        assertThat(endpoints.resultLog()).isInstanceOfSatisfying(ResultsTopicLog.class, log -> assertThat(log.topic()).isEqualTo("results-a"));
        assertThat(operators(c)).contains("results not yet out");
    }

    @Test
    void withoutCheckpointsThereIsNothingToRestoreAndNoStep() {
        assertThat(operators(config(ServingConfig.Delivery.AT_LEAST_ONCE, 0))).doesNotContain("results not yet out");
    }

    @Test
    void exactlyOnceNeedsNoReadBackAndNamesItsTransactionsAfterTheJob() {
        ServingConfig c = config(ServingConfig.Delivery.EXACTLY_ONCE, 1_000);
        assertThat(ServingJob.Endpoints.onKafka(c).resultLog()).isNull();
        assertThat(operators(c)).doesNotContain("results not yet out");
        assertThat(ServingJob.Endpoints.transactionalIdPrefix(c)).isEqualTo("group-a-results-a");
        ServingConfig.Builder other = c.toBuilder();
        other.consumerGroup = "group-b";
        assertThat(ServingJob.Endpoints.transactionalIdPrefix(other.build())).isNotEqualTo(ServingJob.Endpoints.transactionalIdPrefix(c));
        assertThat(c.transactionTimeoutMs).as("at most the brokers' default transaction.max.timeout.ms").isEqualTo(900_000);
    }

    @Test
    void exactlyOnceWithoutCheckpointsIsRefusedByTheConfigurationAndByServe() {
        assertThatThrownBy(() -> config(ServingConfig.Delivery.EXACTLY_ONCE, 0)).isInstanceOf(ServingConfig.InvalidConfig.class)
                .hasMessage("delivery EXACTLY_ONCE needs checkpoints (checkpointIntervalMs > 0): results are committed when one completes");
        assertThat(ServeConfigErrors.of("--delivery", "EXACTLY_ONCE", "--checkpoint-interval-ms", "0"))
                .isEqualTo("kairos: --delivery EXACTLY_ONCE needs checkpoints (--checkpoint-interval-ms > 0): results are committed when one completes");
        assertThat(ServeConfigErrors.of("--delivery", "EXACTLY_ONCE", "--checkpoint-interval-ms", "60000", "--transaction-timeout-ms", "60000"))
                .isEqualTo("kairos: --transaction-timeout-ms (60000) must exceed --checkpoint-interval-ms (60000): a transaction stays open from one checkpoint to the next");
        ServeCommand serve = new ServeCommand();
        CommandLine cl = new CommandLine(serve);
        cl.parseArgs("--delivery", "EXACTLY_ONCE", "--checkpoint-interval-ms", "100", "--transaction-timeout-ms", "60000");
        assertThat(serve.config().transactionTimeoutMs).isEqualTo(60_000);
    }
}
