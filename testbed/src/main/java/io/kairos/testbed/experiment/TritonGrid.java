package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.policy.DynamicBatcherPolicy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Triton's dynamic batcher as its users tune it: every experiment point runs {@code triton} with
 * each setting of a grid (maximum queue delay × preferred batch sizes, as Triton's Model Analyzer
 * searches them), and the table, the figures and the claims compare against the setting with the
 * best goodput at that point (median over seeds), not one default. The queue policy stays Triton's
 * default here: a request times out at its SLO.
 *
 * <p>All the grid's rows go to {@value #CSV}, so that the choice can be checked.
 */
public final class TritonGrid {
    public static final String CSV = "triton-grid.csv";
    /** The results column that names a run's setting of the grid (empty for other policies). */
    public static final String COLUMN = "setting";

    static final double[] DELAYS_MS = {0, 1, 2, 5, 10};
    static final String[] PREFERRED = {"", "4", "8"};

    private TritonGrid() {}

    /** One setting of the grid: its label in the results, and the parameters it sets. */
    public record Setting(String label, Map<String, String> params) {}

    /** The grid in the order it is run (and ties are broken in). */
    public static List<Setting> settings() {
        List<Setting> out = new ArrayList<>();
        for (double delay : DELAYS_MS) {
            for (String preferred : PREFERRED) {
                Map<String, String> p = new LinkedHashMap<>();
                p.put(DynamicBatcherPolicy.MAX_QUEUE_DELAY_MS, Settings.plain(delay));
                if (!preferred.isEmpty()) p.put(DynamicBatcherPolicy.PREFERRED_BATCH_SIZES, preferred);
                // No commas: the label is a CSV value.
                String label = "delay=" + Settings.plain(delay) + "ms" + (preferred.isEmpty() ? "" : " preferred=" + preferred.replace(',', '+'));
                out.add(new Setting(label, Map.copyOf(p)));
            }
        }
        return out;
    }

    /**
     * The rows to report: every row of other policies, and of {@code triton} at each point only the
     * rows (all seeds) of the setting with the highest median {@code goodput_per_s}; the first in
     * grid order on a tie. Row order is kept.
     */
    public static ResultTable best(ResultTable all, List<String> pointColumns) {
        if (!all.columns().contains(COLUMN)) return all; // results from before the grid
        int policy = all.index("policy");
        int setting = all.index(COLUMN);
        int goodput = all.index("goodput_per_s");
        List<Integer> point = pointColumns.stream().map(all::index).toList();
        // point -> setting -> goodputs, in first-seen order
        Map<List<String>, Map<String, List<Double>>> byPoint = new LinkedHashMap<>();
        for (List<String> row : all.rows()) {
            if (!row.get(policy).equals(DynamicBatcherPolicy.NAME) || row.get(setting).isEmpty()) continue;
            byPoint.computeIfAbsent(key(row, point), k -> new LinkedHashMap<>())
                    .computeIfAbsent(row.get(setting), k -> new ArrayList<>()).add(Double.parseDouble(row.get(goodput)));
        }
        Map<List<String>, String> chosen = new HashMap<>();
        for (Map.Entry<List<String>, Map<String, List<Double>>> e : byPoint.entrySet()) {
            String best = null;
            double bestGoodput = Double.NEGATIVE_INFINITY;
            for (Map.Entry<String, List<Double>> s : e.getValue().entrySet()) {
                double m = median(s.getValue());
                if (m > bestGoodput) {
                    bestGoodput = m;
                    best = s.getKey();
                }
            }
            chosen.put(e.getKey(), best);
        }
        ResultTable out = new ResultTable(all.columns());
        for (List<String> row : all.rows()) {
            boolean grid = row.get(policy).equals(DynamicBatcherPolicy.NAME) && !row.get(setting).isEmpty();
            if (!grid || row.get(setting).equals(chosen.get(key(row, point)))) out.add(row);
        }
        return out;
    }

    private static List<String> key(List<String> row, List<Integer> columns) {
        List<String> k = new ArrayList<>(columns.size());
        for (int c : columns) k.add(row.get(c));
        return k;
    }

    private static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        v.sort(null);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }
}
