package io.kairos.testbed;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** kairos control on a real broker, with no job: what it publishes, and the plan show makes of it. */
class ControlCommandOnBrokerTest {
    static EmbeddedKafkaBroker broker;
    static final String CONTROL = "cmd-control";
    static final String OUTCOMES = "cmd-control-outcomes";

    @BeforeAll
    static void startBroker() {
        broker = SharedBroker.get();
        broker.createTopic(CONTROL, 1, java.util.Map.of("cleanup.policy", "compact"));
        broker.createTopic(OUTCOMES, 1);
        broker.createTopic(CONTROL + "-2", 1, java.util.Map.of("cleanup.policy", "compact"));
    }

    private static CliRun control(String... args) {
        return controlOn(CONTROL, args);
    }

    private static CliRun controlOn(String topic, String... args) {
        List<String> all = new ArrayList<>(List.of("control"));
        all.add(args[0]);
        all.addAll(List.of("--bootstrap-servers", broker.bootstrapServers(), "--control-topic", topic));
        all.addAll(List.of(args).subList(1, args.length));
        return CliRun.checkout(all.toArray(String[]::new));
    }

    @Test
    void decisionsPublishedByTheCommandsMakeThePlanThatShowPrints() {
        // docs/control-plane.md's example, published without waiting (no job reads this topic).
        for (String[] args : List.of(
                new String[] {"set-policy", "--outcomes-topic", OUTCOMES, "--wait-ms", "0", "--group", "default", "--policy", "triton", "--param", "max_batch=8", "--param", "max_queue_delay_ms=2"},
                new String[] {"set-policy", "--outcomes-topic", OUTCOMES, "--wait-ms", "0", "--group", "default", "--model", "resnet50", "--policy", "triton", "--param", "max_batch=2"},
                new String[] {"place", "--outcomes-topic", OUTCOMES, "--wait-ms", "0", "--group", "vision", "--device", "0=resnet50,googlenet", "--device", "1=resnet50"},
                new String[] {"place", "--outcomes-topic", OUTCOMES, "--wait-ms", "0", "--group", "vision", "--device", "0=resnet50", "--device", "5=mlp"},
                new String[] {"assign", "--outcomes-topic", OUTCOMES, "--wait-ms", "0", "--writer", "planner", "--model", "resnet50", "--group", "vision"})) {
            CliRun r = control(args);
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).startsWith("published ");
        }

        CliRun show = control("show", "--devices", "2");

        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).isEqualToNormalizingNewlines("""
                cmd-control: 5 decisions read, 4 applied, 1 rejected, 0 duplicate
                """ + "rejected kairos-control/" + show.out().split("rejected kairos-control/")[1].split(" ")[0]
                + """
                 (placement/vision): device 5 does not exist: the job has devices 0..1
                group default: policy triton {max_batch=8, max_queue_delay_ms=2}, resnet50 {max_batch=2}
                  device 0: every model
                  device 1: every model
                group vision: policy clockwork {}
                  device 0: googlenet, resnet50
                  device 1: resnet50
                routing: resnet50 -> vision; every other model -> default
                """);
    }

    @Test
    void waitingForAnOutcomeThatNeverComesIsAnErrorThatSaysWhatWasPublished() {
        CliRun r = controlOn(CONTROL + "-2", "assign", "--outcomes-topic", OUTCOMES, "--wait-ms", "300", "--model", "mlp", "--group", "g");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).matches("published assign/mlp \\(kairos-control/\\d+\\), but no outcome on " + OUTCOMES
                + " within 300 ms: is the job running\\?");
    }

    @Test
    void aTopicThatDoesNotExistIsAOneLineError() {
        CliRun r = controlOn(CONTROL + "-2", "assign", "--outcomes-topic", "no-such-topic", "--model", "mlp", "--group", "g");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).isEqualTo("kairos control assign: error: topic 'no-such-topic' does not exist");
    }

    @Test
    void theStatusPageOfTopicsThatDoNotExistIsAOneLineError() {
        CliRun r = controlOn(CONTROL, "status", "--outcomes-topic", OUTCOMES, "--results-topic", "no-such-results", "--http", "0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err().strip()).isEqualTo("kairos control status: error: topic 'no-such-results' does not exist");
    }
}
