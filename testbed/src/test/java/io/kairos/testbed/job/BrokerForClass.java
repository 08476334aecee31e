package io.kairos.testbed.job;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * An embedded Kafka broker of a test class's own, shared by its tests: started before the first,
 * closed after the last, like Flink's {@code MiniClusterExtension} beside it. Each test keeps to
 * topics of its own (a prefix of its own, see {@link TestConfigs#onBroker}). For a class whose
 * tests may share the one broker of the whole test run, {@code io.kairos.testbed.SharedBroker}.
 *
 * <pre>{@code @RegisterExtension static final BrokerForClass BROKER = new BrokerForClass();  // then BROKER.get()}</pre>
 */
public final class BrokerForClass implements BeforeAllCallback, AfterAllCallback {
    private final Map<String, String> settings;
    private EmbeddedKafkaBroker broker;

    public BrokerForClass() {
        this(Map.of());
    }

    /** A broker with these server settings over the embedded broker's own. */
    public BrokerForClass(Map<String, String> settings) {
        this.settings = Map.copyOf(settings);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = EmbeddedKafkaBroker.start(settings);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (broker != null) broker.close();
        broker = null;
    }

    /** The running broker; only between the class's first and last test. */
    public EmbeddedKafkaBroker get() {
        if (broker == null) throw new IllegalStateException("the broker runs only while the test class does");
        return broker;
    }
}
