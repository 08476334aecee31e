package io.kairos.testbed.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.kairos.onnx.OnnxDevice;
import io.kairos.sql.KairosModelProviderFactory;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.ModelProviderFactory;
import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.ml.ModelProvider;

import java.nio.FloatBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code 'provider' = 'onnx-per-row'}: Flink's own pattern for a model behind {@code ML_PREDICT},
 * the baseline of {@code sql-predict}. Each subtask of the SQL job opens an ONNX Runtime session
 * of the model file ({@code 'model-path'}) and runs each row on it as its own call (a batch of
 * one), asynchronously on {@code 'threads'} threads of its own, as Flink's remote model providers
 * send one request per row. Input: one {@code ARRAY<FLOAT>} column; output: an {@code ARRAY<FLOAT>}
 * column and a {@code status} column ({@code OK}, or {@code FAILED} with the error).
 */
public final class OnnxPerRowModelProviderFactory implements ModelProviderFactory {
    public static final String IDENTIFIER = "onnx-per-row";
    static final ConfigOption<String> MODEL_PATH = ConfigOptions.key("model-path").stringType().noDefaultValue();
    static final ConfigOption<Integer> THREADS = ConfigOptions.key("threads").intType().defaultValue(1);
    static final ConfigOption<Integer> INTRA_OP_THREADS = ConfigOptions.key("intra-op-threads").intType().defaultValue(1);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(MODEL_PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(THREADS, INTRA_OP_THREADS);
    }

    @Override
    public ModelProvider createModelProvider(ModelProviderFactory.Context context) {
        FactoryUtil.ModelProviderFactoryHelper helper = FactoryUtil.createModelProviderFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        return new KairosModelProviderFactory.Provider(new PerRowFunction(options.get(MODEL_PATH), options.get(THREADS), options.get(INTRA_OP_THREADS)));
    }

    /** One ONNX Runtime call per row, on a session of the subtask's own. */
    public static final class PerRowFunction extends AsyncPredictFunction {
        private static final long serialVersionUID = 1L;
        private final String modelPath;
        private final int threads;
        private final int intraOpThreads;
        private transient OrtEnvironment env;
        private transient OrtSession session;
        private transient String inputName;
        private transient ExecutorService executor;

        public PerRowFunction(String modelPath, int threads, int intraOpThreads) {
            this.modelPath = modelPath;
            this.threads = threads;
            this.intraOpThreads = intraOpThreads;
        }

        @Override
        public void open(FunctionContext context) throws Exception {
            super.open(context);
            env = OrtEnvironment.getEnvironment();
            try (OrtSession.SessionOptions so = OnnxDevice.sessionOptions(new OnnxDevice.Options(Long.MAX_VALUE, intraOpThreads, -1))) {
                session = env.createSession(modelPath, so);
            }
            inputName = session.getInputNames().iterator().next();
            executor = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "onnx-per-row");
                t.setDaemon(true);
                return t;
            });
        }

        @Override
        public CompletableFuture<Collection<RowData>> asyncPredict(RowData row) {
            float[] x = row.getArray(0).toFloatArray();
            return CompletableFuture.supplyAsync(() -> List.of(run(x)), executor);
        }

        private RowData run(float[] x) {
            try (OnnxTensor in = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), new long[]{1, x.length});
                 OrtSession.Result out = session.run(Map.of(inputName, in))) {
                float[][] y = (float[][]) out.get(0).getValue();
                return GenericRowData.of(new GenericArrayData(y[0]), StringData.fromString("OK"));
            } catch (Exception e) {
                return GenericRowData.of((ArrayData) null, StringData.fromString("FAILED"));
            }
        }

        @Override
        public void close() throws Exception {
            if (executor != null) executor.shutdownNow();
            if (session != null) session.close();
            super.close();
        }
    }
}
