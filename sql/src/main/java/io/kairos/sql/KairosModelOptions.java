package io.kairos.sql;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The options of {@code CREATE MODEL ... WITH ('provider' = 'kairos', ...)}. */
public final class KairosModelOptions {
    private KairosModelOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("bootstrap.servers").stringType().noDefaultValue()
            .withDescription("The Kafka brokers of the serving job's topics.");
    public static final ConfigOption<String> MODEL = ConfigOptions.key("model").stringType().noDefaultValue()
            .withDescription("The served model every row is a request for.");
    public static final ConfigOption<Double> SLO_MS = ConfigOptions.key("slo-ms").doubleType().noDefaultValue()
            .withDescription("Each request's latency objective in milliseconds, from its send: its deadline. Or slo-column.");
    public static final ConfigOption<String> SLO_COLUMN = ConfigOptions.key("slo-column").stringType().noDefaultValue()
            .withDescription("An input column holding each row's objective in milliseconds (numeric), instead of slo-ms.");
    public static final ConfigOption<String> TENANT = ConfigOptions.key("tenant").stringType().defaultValue("sql")
            .withDescription("The tenant the requests are sent as.");
    public static final ConfigOption<String> REQUESTS_TOPIC = ConfigOptions.key("requests-topic").stringType().defaultValue("kairos-requests")
            .withDescription("The serving job's requests topic.");
    public static final ConfigOption<String> RESULTS_TOPIC = ConfigOptions.key("results-topic").stringType().defaultValue("kairos-results")
            .withDescription("The serving job's results topic.");
    public static final ConfigOption<String> MODEL_REPOSITORY = ConfigOptions.key("model-repository").stringType().noDefaultValue()
            .withDescription("A local model repository (the serving job's --model-repository), for checking the input against the model's.");
    public static final ConfigOption<String> MODELS_FILE = ConfigOptions.key("models-file").stringType().noDefaultValue()
            .withDescription("A model catalog file (the serving job's --models-file), for checking the input; neither: the built-in catalog.");

    /** Kafka client properties, passed on without the prefix (security settings, for instance). */
    public static final String PROPERTIES_PREFIX = "properties.";
}
