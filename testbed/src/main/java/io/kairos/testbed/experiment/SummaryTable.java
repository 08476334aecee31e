package io.kairos.testbed.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A metric per policy and point, the median over seeds: one point column across (e.g. the SLO),
 * the other point columns and the policy down. Rendered as aligned text for the terminal or as a
 * markdown table for BENCHMARKS.md.
 */
public final class SummaryTable {
    private final List<String> header = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();
    private final int labelColumns;

    private SummaryTable(List<String> labels, List<String> across, String acrossColumn) {
        header.addAll(labels);
        for (String a : across) header.add(acrossColumn.equals("slo_ms") ? a + " ms" : a);
        this.labelColumns = labels.size();
    }

    /**
     * {@code metric} (a report column, e.g. {@code slo_attainment}) times {@code scale}, with
     * {@code decimals} places, for every policy at every point of {@code results}.
     */
    public static SummaryTable of(Experiment experiment, ResultTable results, String metric, double scale, int decimals) {
        String acrossColumn = experiment.tableColumn();
        List<String> down = new ArrayList<>(experiment.pointColumns());
        down.remove(acrossColumn);
        List<String> across = results.distinct(acrossColumn);
        List<String> labels = new ArrayList<>(down);
        labels.add("policy");
        SummaryTable t = new SummaryTable(labels, across, acrossColumn);

        // With no other point column, one empty combination: one row per policy.
        List<List<String>> downValues = down.isEmpty() ? List.of(List.of()) : results.distinct(down);
        for (List<String> d : downValues) {
            for (String policy : results.distinct("policy")) {
                Map<String, String> where = new LinkedHashMap<>();
                for (int i = 0; i < down.size(); i++) where.put(down.get(i), d.get(i));
                where.put("policy", policy);
                List<String> row = new ArrayList<>(d);
                row.add(policy);
                for (String a : across) {
                    where.put(acrossColumn, a);
                    double v = results.median(metric, where);
                    row.add(Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v * scale));
                }
                // A policy that did not run with these values (experiment rl names its agent in a
                // point column, each agent one policy) has no row.
                if (row.subList(labels.size(), row.size()).stream().allMatch("-"::equals)) continue;
                t.rows.add(row);
            }
        }
        return t;
    }

    public List<List<String>> rows() {
        return rows;
    }

    /** Aligned columns: labels left, numbers right. */
    public String text() {
        int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = header.get(c).length();
            for (List<String> r : rows) width[c] = Math.max(width[c], r.get(c).length());
        }
        StringBuilder s = new StringBuilder();
        line(s, header, width);
        for (List<String> r : rows) line(s, r, width);
        return s.toString();
    }

    private void line(StringBuilder s, List<String> cells, int[] width) {
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) s.append("  ");
            String f = c < labelColumns ? "%-" + width[c] + "s" : "%" + width[c] + "s";
            s.append(String.format(Locale.ROOT, f, cells.get(c)));
        }
        s.append('\n');
    }

    public String markdown() {
        StringBuilder s = new StringBuilder("| ").append(String.join(" | ", header)).append(" |\n|");
        for (int c = 0; c < header.size(); c++) s.append(c < labelColumns ? " --- |" : " ---: |");
        s.append('\n');
        for (List<String> r : rows) s.append("| ").append(String.join(" | ", r)).append(" |\n");
        return s.toString();
    }
}
