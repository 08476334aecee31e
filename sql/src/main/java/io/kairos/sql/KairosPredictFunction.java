package io.kairos.sql;

import io.kairos.core.time.WallClock;
import io.kairos.schema.InferenceRequest;
import io.kairos.schema.InferenceResult;
import io.kairos.schema.ResultStatus;
import io.kairos.schema.Tensor;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.functions.FunctionContext;

import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * ML_PREDICT through a Kairos serving job: each row is a request on the requests topic, with the
 * row's tensor and a deadline, and its result row comes from the results topic. Every row gets one
 * output row, with the result's status and reason: a DROPPED, REJECTED or FAILED request is a row
 * with that status (and no output tensor), never a row left out. What the async operator promises
 * (its timeout, retries, a restart replaying the rows in flight from the checkpoint) holds as for
 * any async function; a replayed row is sent again as a new request.
 */
public final class KairosPredictFunction extends AsyncPredictFunction {
    private static final long serialVersionUID = 1L;

    private final ServingClient.Key key;
    private final String model;
    private final String tenant;
    /** Null: every row gives its own, in the SLO column. */
    private final Double sloMs;
    private final ModelColumns columns;
    private final String dtype;
    /** The model's input shape where known; null: the tensor goes flat. */
    private final long[] shape;
    private transient ServingClient client;

    KairosPredictFunction(ServingClient.Key key, String model, String tenant, Double sloMs, ModelColumns columns, String dtype, long[] shape) {
        this.key = key;
        this.model = model;
        this.tenant = tenant;
        this.sloMs = sloMs;
        this.columns = columns;
        this.dtype = dtype;
        this.shape = shape;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        super.open(context);
        client = ServingClient.acquire(key);
    }

    @Override
    public CompletableFuture<Collection<RowData>> asyncPredict(RowData row) {
        long sent = WallClock.nowMicros();
        String id = "sql-" + UUID.randomUUID();
        double slo;
        Tensor input;
        try {
            slo = slo(row);
            input = RowTensors.tensor(row, columns, dtype, shape);
        } catch (IllegalArgumentException e) {
            // The row cannot be a request: it is answered here, as the serving job would a bad one.
            return CompletableFuture.completedFuture(List.of(row(ResultStatus.REJECTED, e.getMessage(), null, 0)));
        }
        InferenceRequest request = InferenceRequest.newBuilder()
                .setRequestId(id).setTenant(tenant).setModel(model).setInput(input)
                .setSentAtMicros(sent).setSloMs(slo).build();
        return client.send(request).thenApply(r -> List.of(row(r)));
    }

    private double slo(RowData row) {
        if (columns.sloColumn >= 0 && !row.isNullAt(columns.sloColumn)) {
            double v = RowTensors.scalar(row, columns.sloColumn, columns.sloType);
            if (!(v > 0)) throw new IllegalArgumentException("the SLO column holds " + v + ": a positive number of milliseconds is expected");
            return v;
        }
        if (sloMs == null) throw new IllegalArgumentException("the SLO column is null and the model has no 'slo-ms'");
        return sloMs;
    }

    private RowData row(InferenceResult r) {
        return row(r.getStatus(), r.getReason(), r.getOutput(), r.getBatchSize());
    }

    private RowData row(ResultStatus status, String reason, Tensor output, int batchSize) {
        GenericRowData out = new GenericRowData(columns.outputs.length);
        for (int i = 0; i < columns.outputs.length; i++) {
            switch (columns.outputs[i]) {
                case STATUS -> out.setField(i, StringData.fromString(status.name()));
                case REASON -> out.setField(i, reason == null ? null : StringData.fromString(reason));
                case BATCH_SIZE -> out.setField(i, batchSize);
                case TENSOR -> out.setField(i, output == null ? null : array(output));
            }
        }
        return out;
    }

    private GenericArrayData array(Tensor t) {
        double[] values = RowTensors.doubles(t);
        if (columns.doubleOutput) return new GenericArrayData(values);
        float[] floats = new float[values.length];
        for (int i = 0; i < values.length; i++) floats[i] = (float) values[i];
        return new GenericArrayData(floats);
    }

    @Override
    public void close() throws Exception {
        if (client != null) {
            client.release();
            client = null;
        }
        super.close();
    }
}
