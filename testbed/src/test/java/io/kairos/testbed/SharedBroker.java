package io.kairos.testbed;

import io.kairos.tools.embedded.EmbeddedKafkaBroker;

/** One embedded broker for all testbed tests of a JVM: starting one takes seconds. */
public final class SharedBroker {
    private static EmbeddedKafkaBroker shared;

    private SharedBroker() {}

    public static synchronized EmbeddedKafkaBroker get() {
        if (shared == null) {
            shared = EmbeddedKafkaBroker.start();
            EmbeddedKafkaBroker broker = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "shared-broker-stop"));
        }
        return shared;
    }
}
