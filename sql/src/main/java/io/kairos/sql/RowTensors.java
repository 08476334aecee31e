package io.kairos.sql;

import io.kairos.schema.DType;
import io.kairos.schema.Tensor;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** A row's tensor columns as a request's tensor, and a result's tensor as an output array. */
final class RowTensors {
    private RowTensors() {}

    /**
     * The tensor of {@code row}: its tensor columns' numbers in order, as {@code dtype}, in
     * {@code shape} when the count matches it (else flat: the serving job rejects it, with the
     * shape it wanted). A null column or element is an error of the row, thrown as
     * {@link IllegalArgumentException} with the column's position.
     */
    static Tensor tensor(RowData row, ModelColumns columns, String dtype, long[] shape) {
        double[] values = values(row, columns);
        long[] s = shape != null && count(shape) == values.length ? shape : new long[] {values.length};
        int width = switch (dtype) {
            case "FLOAT64", "INT64" -> 8;
            case "FLOAT32", "INT32" -> 4;
            default -> 1;
        };
        ByteBuffer data = ByteBuffer.allocate(values.length * width).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            switch (dtype) {
                case "FLOAT32" -> data.putFloat((float) v);
                case "FLOAT64" -> data.putDouble(v);
                case "INT32" -> data.putInt((int) v);
                case "INT64" -> data.putLong((long) v);
                default -> data.put((byte) (long) v);
            }
        }
        data.flip();
        List<Long> dims = new ArrayList<>(s.length);
        for (long d : s) dims.add(d);
        return Tensor.newBuilder().setDtype(DType.valueOf(dtype)).setShape(dims).setData(data).build();
    }

    private static long count(long[] shape) {
        long n = 1;
        for (long d : shape) n *= d;
        return n;
    }

    private static double[] values(RowData row, ModelColumns columns) {
        int n = 0;
        for (int k = 0; k < columns.tensorColumns.length; k++) {
            int pos = columns.tensorColumns[k];
            if (row.isNullAt(pos)) throw new IllegalArgumentException("input column " + (pos + 1) + " is null");
            n += columns.arrays[k] ? row.getArray(pos).size() : 1;
        }
        double[] values = new double[n];
        int at = 0;
        for (int k = 0; k < columns.tensorColumns.length; k++) {
            int pos = columns.tensorColumns[k];
            LogicalTypeRoot type = columns.elementTypes[k];
            if (columns.arrays[k]) {
                ArrayData a = row.getArray(pos);
                for (int j = 0; j < a.size(); j++) {
                    if (a.isNullAt(j)) throw new IllegalArgumentException("input column " + (pos + 1) + " has a null element at " + j);
                    values[at++] = element(a, j, type);
                }
            } else {
                values[at++] = scalar(row, pos, type);
            }
        }
        return values;
    }

    static double scalar(RowData row, int pos, LogicalTypeRoot type) {
        return switch (type) {
            case TINYINT -> row.getByte(pos);
            case SMALLINT -> row.getShort(pos);
            case INTEGER -> row.getInt(pos);
            case BIGINT -> row.getLong(pos);
            case FLOAT -> row.getFloat(pos);
            default -> row.getDouble(pos);
        };
    }

    private static double element(ArrayData a, int j, LogicalTypeRoot type) {
        return switch (type) {
            case TINYINT -> a.getByte(j);
            case SMALLINT -> a.getShort(j);
            case INTEGER -> a.getInt(j);
            case BIGINT -> a.getLong(j);
            case FLOAT -> a.getFloat(j);
            default -> a.getDouble(j);
        };
    }

    /** A result's tensor as doubles, whatever its numeric type. */
    static double[] doubles(Tensor t) {
        if (t.getDtype() == DType.FLOAT16) throw new IllegalArgumentException("the model's output is FLOAT16, which the kairos provider does not read");
        ByteBuffer b = t.getData().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int width = switch (t.getDtype()) {
            case FLOAT64, INT64 -> 8;
            case FLOAT32, INT32 -> 4;
            default -> 1;
        };
        double[] out = new double[b.remaining() / width];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (t.getDtype()) {
                case FLOAT32 -> b.getFloat();
                case FLOAT64 -> b.getDouble();
                case INT32 -> b.getInt();
                case INT64 -> b.getLong();
                case UINT8 -> b.get() & 0xFF;
                case BOOL -> b.get() != 0 ? 1 : 0;
                default -> b.get();
            };
        }
        return out;
    }
}
