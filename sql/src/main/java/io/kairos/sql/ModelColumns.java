package io.kairos.sql;

import io.kairos.core.model.InputSpec;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * How a model's INPUT and OUTPUT columns map to a request and its result, checked once at
 * {@code CREATE MODEL}: the input columns (but the SLO column) are the request's tensor, in their
 * order, each a number or an array of numbers; the output has one array of FLOAT or DOUBLE (the
 * result's tensor) and may have {@code status} and {@code reason} (STRING) and {@code batch_size}
 * (INT). A column that does not fit is named in the one-line error.
 */
final class ModelColumns implements Serializable {
    private static final long serialVersionUID = 1L;
    static final Set<LogicalTypeRoot> NUMBERS = EnumSet.of(LogicalTypeRoot.TINYINT, LogicalTypeRoot.SMALLINT, LogicalTypeRoot.INTEGER,
            LogicalTypeRoot.BIGINT, LogicalTypeRoot.FLOAT, LogicalTypeRoot.DOUBLE);

    /** What a column of the output is. */
    enum Out { TENSOR, STATUS, REASON, BATCH_SIZE }

    /** The input's positions that form the tensor, and whether each is an array. */
    final int[] tensorColumns;
    final boolean[] arrays;
    final LogicalTypeRoot[] elementTypes;
    /** The position of the SLO column in the input, or -1. */
    final int sloColumn;
    /** The SLO column's type, or null. */
    final LogicalTypeRoot sloType;
    final Out[] outputs;
    /** Whether the output tensor column is ARRAY<DOUBLE> (else ARRAY<FLOAT>). */
    final boolean doubleOutput;

    private ModelColumns(int[] tensorColumns, boolean[] arrays, LogicalTypeRoot[] elementTypes, int sloColumn, LogicalTypeRoot sloType, Out[] outputs, boolean doubleOutput) {
        this.tensorColumns = tensorColumns;
        this.arrays = arrays;
        this.elementTypes = elementTypes;
        this.sloColumn = sloColumn;
        this.sloType = sloType;
        this.outputs = outputs;
        this.doubleOutput = doubleOutput;
    }

    /**
     * The mapping of {@code input} and {@code output}, or a {@link ValidationException} naming the
     * column; {@code spec} is the served model's input where known (null: not checked).
     */
    static ModelColumns of(ResolvedSchema input, ResolvedSchema output, String sloColumnName, String model, InputSpec spec) {
        List<Column> in = input.getColumns();
        int slo = -1;
        LogicalTypeRoot sloType = null;
        if (sloColumnName != null) {
            slo = input.getColumnNames().indexOf(sloColumnName);
            if (slo < 0) throw new ValidationException("'slo-column' = '" + sloColumnName + "': no such input column (input: " + input.getColumnNames() + ")");
            LogicalType t = in.get(slo).getDataType().getLogicalType();
            if (!NUMBERS.contains(t.getTypeRoot())) throw new ValidationException("input column '" + sloColumnName + "' (the SLO column) is " + t + ": a number of milliseconds is expected");
            sloType = t.getTypeRoot();
        }
        List<Integer> positions = new ArrayList<>();
        List<Boolean> arrays = new ArrayList<>();
        List<LogicalTypeRoot> elements = new ArrayList<>();
        int scalars = 0;
        for (int i = 0; i < in.size(); i++) {
            if (i == slo) continue;
            Column c = in.get(i);
            if (!c.isPhysical()) throw new ValidationException("input column '" + c.getName() + "' is not a physical column");
            LogicalType t = c.getDataType().getLogicalType();
            boolean array = t instanceof ArrayType;
            LogicalType element = array ? ((ArrayType) t).getElementType() : t;
            if (!NUMBERS.contains(element.getTypeRoot())) {
                throw new ValidationException("input column '" + c.getName() + "' is " + t + ": the tensor's columns must be numbers or arrays of numbers (TINYINT .. DOUBLE)");
            }
            if (spec != null && (spec.dtype().startsWith("INT") || spec.dtype().equals("UINT8"))) {
                if (element.getTypeRoot() == LogicalTypeRoot.FLOAT || element.getTypeRoot() == LogicalTypeRoot.DOUBLE) {
                    throw new ValidationException("input column '" + c.getName() + "' is " + t + " but model '" + model + "' takes " + spec.dtype() + ": integer columns are expected");
                }
            }
            if (!array) scalars++;
            positions.add(i);
            arrays.add(array);
            elements.add(element.getTypeRoot());
        }
        if (positions.isEmpty()) throw new ValidationException("the model's INPUT has no tensor column (input: " + input.getColumnNames() + ")");
        if (spec != null && scalars == positions.size() && scalars != spec.elementCount()) {
            throw new ValidationException("the INPUT's " + scalars + " numeric columns do not make model '" + model + "''s input " + spec
                    + " (" + spec.elementCount() + " elements)");
        }
        if (spec != null && !Set.of("FLOAT32", "FLOAT64", "INT32", "INT64", "UINT8", "INT8").contains(spec.dtype())) {
            throw new ValidationException("'model' = '" + model + "' takes " + spec.dtype() + ", which the kairos provider does not send");
        }

        List<Column> out = output.getColumns();
        Out[] kinds = new Out[out.size()];
        int tensors = 0;
        boolean doubles = false;
        for (int i = 0; i < out.size(); i++) {
            Column c = out.get(i);
            LogicalType t = c.getDataType().getLogicalType();
            String name = c.getName().toLowerCase();
            switch (name) {
                case "status", "reason" -> {
                    if (!t.is(LogicalTypeRoot.VARCHAR) && !t.is(LogicalTypeRoot.CHAR)) throw new ValidationException("output column '" + c.getName() + "' is " + t + ": STRING is expected");
                    kinds[i] = name.equals("status") ? Out.STATUS : Out.REASON;
                }
                case "batch_size" -> {
                    if (!t.is(LogicalTypeRoot.INTEGER)) throw new ValidationException("output column '" + c.getName() + "' is " + t + ": INT is expected");
                    kinds[i] = Out.BATCH_SIZE;
                }
                default -> {
                    LogicalTypeRoot element = t instanceof ArrayType a ? a.getElementType().getTypeRoot() : null;
                    if (element != LogicalTypeRoot.FLOAT && element != LogicalTypeRoot.DOUBLE) {
                        throw new ValidationException("output column '" + c.getName() + "' is " + t
                                + ": ARRAY<FLOAT> or ARRAY<DOUBLE> (the model's output) is expected, or one of status, reason (STRING), batch_size (INT)");
                    }
                    kinds[i] = Out.TENSOR;
                    doubles = element == LogicalTypeRoot.DOUBLE;
                    tensors++;
                }
            }
        }
        if (tensors != 1) throw new ValidationException("the model's OUTPUT needs exactly one ARRAY<FLOAT> or ARRAY<DOUBLE> column for the model's output, it has " + tensors);
        return new ModelColumns(positions.stream().mapToInt(Integer::intValue).toArray(), toArray(arrays), elements.toArray(LogicalTypeRoot[]::new), slo, sloType, kinds, doubles);
    }

    private static boolean[] toArray(List<Boolean> l) {
        boolean[] a = new boolean[l.size()];
        for (int i = 0; i < a.length; i++) a[i] = l.get(i);
        return a;
    }
}
