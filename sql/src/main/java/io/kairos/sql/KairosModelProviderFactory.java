package io.kairos.sql;

import io.kairos.core.model.InputSpec;
import io.kairos.core.model.ModelCatalog;
import io.kairos.core.model.ModelSpec;
import io.kairos.onnx.ModelRepository;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedCatalogModel;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.ModelProviderFactory;
import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.ml.AsyncPredictRuntimeProvider;
import org.apache.flink.table.ml.ModelProvider;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code 'provider' = 'kairos'}: a model served by a Kairos serving job, reached through its
 * topics. Found through Flink's factory discovery (META-INF/services). The options and both schemas
 * are checked here, when the planner first needs the model; a problem is one line naming the option
 * or column.
 */
public final class KairosModelProviderFactory implements ModelProviderFactory {
    public static final String IDENTIFIER = "kairos";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KairosModelOptions.BOOTSTRAP_SERVERS, KairosModelOptions.MODEL);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(KairosModelOptions.SLO_MS, KairosModelOptions.SLO_COLUMN, KairosModelOptions.TENANT, KairosModelOptions.REQUESTS_TOPIC,
                KairosModelOptions.RESULTS_TOPIC, KairosModelOptions.MODEL_REPOSITORY, KairosModelOptions.MODELS_FILE);
    }

    @Override
    public ModelProvider createModelProvider(ModelProviderFactory.Context context) {
        checkKeys(context.getCatalogModel().getOptions());
        FactoryUtil.ModelProviderFactoryHelper helper = FactoryUtil.createModelProviderFactoryHelper(this, context);
        helper.validateExcept(KairosModelOptions.PROPERTIES_PREFIX);
        ReadableConfig options = helper.getOptions();
        String model = options.get(KairosModelOptions.MODEL).trim();
        if (model.isEmpty()) throw new ValidationException("'model' is empty: name the served model");
        Double slo = options.getOptional(KairosModelOptions.SLO_MS).orElse(null);
        String sloColumn = options.getOptional(KairosModelOptions.SLO_COLUMN).orElse(null);
        if (slo == null && sloColumn == null) throw new ValidationException("neither 'slo-ms' nor 'slo-column': a request needs a deadline");
        if (slo != null && !(slo > 0 && Double.isFinite(slo))) throw new ValidationException("'slo-ms' = " + slo + ": a positive number of milliseconds is expected");

        ModelSpec spec = servedModel(options, model);
        InputSpec input = spec == null ? null : spec.input();
        ResolvedCatalogModel catalogModel = context.getCatalogModel();
        ModelColumns columns = ModelColumns.of(catalogModel.getResolvedInputSchema(), catalogModel.getResolvedOutputSchema(), sloColumn, model, input);

        Map<String, String> properties = new TreeMap<>();
        catalogModel.getOptions().forEach((k, v) -> {
            if (k.startsWith(KairosModelOptions.PROPERTIES_PREFIX)) properties.put(k.substring(KairosModelOptions.PROPERTIES_PREFIX.length()), v);
        });
        ServingClient.Key key = new ServingClient.Key(options.get(KairosModelOptions.BOOTSTRAP_SERVERS), options.get(KairosModelOptions.REQUESTS_TOPIC),
                options.get(KairosModelOptions.RESULTS_TOPIC), properties);
        KairosPredictFunction function = new KairosPredictFunction(key, model, options.get(KairosModelOptions.TENANT), slo, columns,
                input == null ? "FLOAT32" : input.dtype(), input == null ? null : input.shape());
        return new Provider(function);
    }

    /** An unknown or missing option in one line (Flink's own check, which follows, spreads it over several). */
    private void checkKeys(Map<String, String> given) {
        Set<String> known = new java.util.TreeSet<>();
        requiredOptions().forEach(o -> known.add(o.key()));
        optionalOptions().forEach(o -> known.add(o.key()));
        for (String k : given.keySet()) {
            if (k.equals(FactoryUtil.PROVIDER.key()) || k.startsWith(KairosModelOptions.PROPERTIES_PREFIX)) continue;
            if (!known.contains(k)) throw new ValidationException("unknown option '" + k + "' of the kairos provider (it takes " + known + " and properties.*)");
        }
        for (ConfigOption<?> o : requiredOptions()) {
            if (!given.containsKey(o.key())) throw new ValidationException("'" + o.key() + "' is missing: the kairos provider needs " + requiredKeys());
        }
    }

    private String requiredKeys() {
        return requiredOptions().stream().map(ConfigOption::key).sorted().toList().toString();
    }

    /**
     * The served model's description from the repository or catalog file the options name, or the
     * built-in catalog's; null where none is named and the built-in catalog does not have it (then
     * nothing is checked against the model, and the serving job judges each request).
     */
    private static ModelSpec servedModel(ReadableConfig options, String model) {
        String repository = options.getOptional(KairosModelOptions.MODEL_REPOSITORY).orElse(null);
        String file = options.getOptional(KairosModelOptions.MODELS_FILE).orElse(null);
        if (repository != null && file != null) throw new ValidationException("'model-repository' and 'models-file' both given: name one");
        ModelCatalog catalog;
        String source;
        try {
            if (repository != null) {
                catalog = ModelRepository.readManifests(Path.of(repository)).catalog();
                source = "'model-repository' = '" + repository + "'";
            } else if (file != null) {
                catalog = ModelCatalog.load(Path.of(file));
                source = "'models-file' = '" + file + "'";
            } else {
                ModelCatalog builtIn = ModelCatalog.builtIn();
                return builtIn.contains(model) ? builtIn.get(model) : null;
            }
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            throw new ValidationException((repository != null ? "'model-repository'" : "'models-file'") + ": " + e.getMessage());
        }
        if (!catalog.contains(model)) throw new ValidationException("'model' = '" + model + "': " + source + " has no such model (it has " + catalog.names() + ")");
        return catalog.get(model);
    }

    /**
     * The provider of one model: the same function for every use of it. Public for the other
     * providers of the project's own (the benchmark's call per row) to serve their function alike.
     */
    public static final class Provider implements AsyncPredictRuntimeProvider {
        private final AsyncPredictFunction function;

        public Provider(AsyncPredictFunction function) {
            this.function = function;
        }

        @Override
        public AsyncPredictFunction createAsyncPredictFunction(Context context) {
            return function;
        }

        @Override
        public ModelProvider copy() {
            return new Provider(function);
        }
    }
}
