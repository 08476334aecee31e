package io.kairos.testbed.experiment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The rows of an experiment's {@code results.csv}: one per run, point columns first, then
 * {@link io.kairos.sim.SimulationReport#CSV_COLUMNS}. Tables, figures and shape checks read
 * only this, so they can be drawn again from a CSV without simulating ({@link #read}).
 *
 * <p>Values are plain: no field holds a comma, a quote or a line break (policy names and numbers),
 * which {@link #write} checks.
 */
public final class ResultTable {
    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();

    public ResultTable(List<String> columns) {
        if (new LinkedHashSet<>(columns).size() != columns.size()) throw new IllegalArgumentException("duplicate column in " + columns);
        this.columns = List.copyOf(columns);
    }

    public static ResultTable read(Path csv) {
        List<String> lines;
        try {
            lines = Files.readAllLines(csv);
        } catch (IOException e) {
            throw new UncheckedIOException(csv + ": cannot read (" + e.getMessage() + ")", e);
        }
        if (lines.isEmpty()) throw new IllegalArgumentException(csv + ": empty, expected a header line");
        ResultTable t = new ResultTable(Arrays.asList(lines.get(0).split(",", -1)));
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isEmpty()) continue;
            List<String> row = Arrays.asList(lines.get(i).split(",", -1));
            if (row.size() != t.columns.size()) {
                throw new IllegalArgumentException(csv + ": line " + (i + 1) + " has " + row.size() + " fields, the header " + t.columns.size());
            }
            t.rows.add(row);
        }
        return t;
    }

    public void add(List<String> row) {
        if (row.size() != columns.size()) throw new IllegalArgumentException("row has " + row.size() + " values for " + columns.size() + " columns");
        rows.add(List.copyOf(row));
    }

    public void write(Path csv) throws IOException {
        StringBuilder s = new StringBuilder(String.join(",", columns)).append('\n');
        for (List<String> row : rows) {
            for (String v : row) {
                if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0) throw new IllegalArgumentException("value '" + v + "' cannot go into the CSV unquoted");
            }
            s.append(String.join(",", row)).append('\n');
        }
        Files.writeString(csv, s);
    }

    public List<String> columns() {
        return columns;
    }

    public int size() {
        return rows.size();
    }

    public int index(String column) {
        int i = columns.indexOf(column);
        if (i < 0) throw new IllegalArgumentException("no column '" + column + "' in " + columns);
        return i;
    }

    /** A table of the same columns with the rows whose {@code column} is {@code value}. */
    public ResultTable filter(String column, String value) {
        int i = index(column);
        ResultTable t = new ResultTable(columns);
        for (List<String> row : rows) {
            if (row.get(i).equals(value)) t.rows.add(row);
        }
        return t;
    }

    public List<List<String>> rows() {
        return java.util.Collections.unmodifiableList(rows);
    }

    /** The values of {@code column}, each once, in the order they first appear. */
    public List<String> distinct(String column) {
        int i = index(column);
        LinkedHashSet<String> out = new LinkedHashSet<>();
        for (List<String> row : rows) out.add(row.get(i));
        return new ArrayList<>(out);
    }

    /** The combinations of values of {@code columns}, each once, in the order they first appear. */
    public List<List<String>> distinct(List<String> columns) {
        int[] at = columns.stream().mapToInt(this::index).toArray();
        LinkedHashSet<List<String>> out = new LinkedHashSet<>();
        for (List<String> row : rows) {
            List<String> key = new ArrayList<>(at.length);
            for (int i : at) key.add(row.get(i));
            out.add(key);
        }
        return new ArrayList<>(out);
    }

    /** The rows whose columns have the given values. */
    public Predicate<List<String>> where(Map<String, String> values) {
        int[] at = values.keySet().stream().mapToInt(this::index).toArray();
        String[] want = values.values().toArray(String[]::new);
        return row -> {
            for (int k = 0; k < at.length; k++) {
                if (!row.get(at[k]).equals(want[k])) return false;
            }
            return true;
        };
    }

    /**
     * The median of {@code metric} over the rows with the given values (the seeds of one point,
     * say); NaN where no row matches or the metric is empty (a report leaves a value it cannot
     * compute empty).
     */
    public double median(String metric, Map<String, String> values) {
        int m = index(metric);
        Predicate<List<String>> match = where(values);
        return median(rows.stream().filter(match).map(r -> r.get(m)).filter(v -> !v.isEmpty()).map(Double::parseDouble).toList());
    }

    /** The median of {@code values} (over seeds, say); of an even count, the mean of the middle two; NaN for none. */
    public static double median(List<Double> values) {
        if (values.isEmpty()) return Double.NaN;
        double[] xs = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = xs.length;
        return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
    }

    /** The least and the greatest of {@code metric} over the rows with the given values (the seeds' range); NaNs where none has one. */
    public double[] range(String metric, Map<String, String> values) {
        int m = index(metric);
        Predicate<List<String>> match = where(values);
        double[] xs = rows.stream().filter(match).map(r -> r.get(m)).filter(v -> !v.isEmpty()).mapToDouble(Double::parseDouble).toArray();
        if (xs.length == 0) return new double[]{Double.NaN, Double.NaN};
        return new double[]{java.util.Arrays.stream(xs).min().orElseThrow(), java.util.Arrays.stream(xs).max().orElseThrow()};
    }

    /** The mean of {@code column} over every row; NaN for a table without rows. */
    public double mean(String column) {
        int c = index(column);
        return rows.stream().mapToDouble(r -> Double.parseDouble(r.get(c))).average().orElse(Double.NaN);
    }
}
