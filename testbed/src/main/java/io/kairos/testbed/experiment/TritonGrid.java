package io.kairos.testbed.experiment;

import io.kairos.core.scheduling.policy.TritonPolicy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Triton's dynamic batcher as its users tune it: every experiment point runs {@code triton} with
 * each setting of a grid (maximum queue delay × preferred batch sizes, as Triton's Model Analyzer
 * searches them, × the queue timeout: none, Triton's default, or the request's SLO) on the tuning
 * seed ({@link Settings#TUNING_SEED}) alone, and the measured seeds run the setting with the best
 * goodput there: a setting is never chosen on the runs that judge it.
 *
 * <p>The tuning rows go to {@value #CSV}, so that the choice can be checked; {@code results.csv}
 * names the chosen setting in its {@value #COLUMN} column.
 */
public final class TritonGrid {
    public static final String CSV = "triton-grid.csv";
    /** The results column that names a run's setting of the grid (empty for other policies). */
    public static final String COLUMN = "setting";

    static final double[] DELAYS_MS = {0, 1, 2, 5, 10};
    static final String[] PREFERRED = {"", "4", "8"};
    /** The queue timeout: {@code 0} none (Triton's default), or each request's SLO. */
    static final String[] TIMEOUTS = {"0", TritonPolicy.TIMEOUT_SLO};

    /** Other policies' runs: no setting. */
    static final Setting NONE = new Setting("", Map.of());
    /** Triton's own defaults (no queue delay, no preferred sizes, no queue timeout), where no setting was chosen. */
    static final Setting DEFAULTS = new Setting(label(0, "", "0"), params(0, "", "0"));
    /** Triton's defaults without the grid (unlabelled: nothing was tuned). */
    static final Setting UNTUNED = new Setting("", DEFAULTS.params());

    private TritonGrid() {}

    /** One setting of the grid: its label in the results, and the parameters it sets. */
    public record Setting(String label, Map<String, String> params) {}

    /**
     * Kairos' own knob, tuned the same way: {@code efficiency_gain} (the job's default 1.1), from
     * 1 (throughput first whenever behind and any more efficient) to 5 and 0 (never: Clockwork's
     * order always), so that neither end of the knob is left untried. In the order tried, where a
     * tie keeps the earlier: the first five were the whole grid once, and a wider value is chosen
     * only where it does strictly better on the tuning seed.
     */
    static final double[] EFFICIENCY_GAINS = {1.05, 1.1, 1.25, 1.5, 2, 3, 5, 0, 1};

    /**
     * The grid a policy is tuned over on the tuning seed: Triton's ({@link #settings()}), Kairos'
     * {@code efficiency_gain}; none for the other policies, which run as their papers describe
     * them (they have no knob their users set per workload).
     */
    public static List<Setting> settings(String policy) {
        if (policy.equals(TritonPolicy.NAME)) return settings();
        if (policy.equals("kairos")) {
            List<Setting> out = new ArrayList<>();
            for (double g : EFFICIENCY_GAINS) out.add(new Setting("efficiency_gain=" + Settings.plain(g), Map.of("efficiency_gain", Settings.plain(g))));
            return out;
        }
        return List.of();
    }

    /** Triton's grid in the order it is run (and ties are broken in). */
    public static List<Setting> settings() {
        List<Setting> out = new ArrayList<>();
        for (double delay : DELAYS_MS) {
            for (String preferred : PREFERRED) {
                for (String timeout : TIMEOUTS) out.add(new Setting(label(delay, preferred, timeout), params(delay, preferred, timeout)));
            }
        }
        return out;
    }

    private static Map<String, String> params(double delay, String preferred, String timeout) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put(TritonPolicy.MAX_QUEUE_DELAY_MS, Settings.plain(delay));
        if (!preferred.isEmpty()) p.put(TritonPolicy.PREFERRED_BATCH_SIZES, preferred);
        p.put(TritonPolicy.QUEUE_TIMEOUT_MS, timeout);
        return Map.copyOf(p);
    }

    // No commas: the label is a CSV value.
    private static String label(double delay, String preferred, String timeout) {
        return "delay=" + Settings.plain(delay) + "ms" + (preferred.isEmpty() ? "" : " preferred=" + preferred.replace(',', '+'))
                + " timeout=" + (timeout.equals("0") ? "none" : timeout);
    }

    /**
     * At each point (its values in {@code pointColumns} order), the label of the {@code triton}
     * setting with the highest median {@code goodput_per_s} among {@code all}'s rows; the first in
     * grid order on a tie.
     */
    public static Map<List<String>, String> choose(ResultTable all, List<String> pointColumns) {
        return choose(all, pointColumns, TritonPolicy.NAME);
    }

    /** {@link #choose(ResultTable, List)} for {@code policy}'s settings. */
    public static Map<List<String>, String> choose(ResultTable all, List<String> pointColumns, String tuned) {
        int policy = all.index("policy");
        int setting = all.index(COLUMN);
        int goodput = all.index("goodput_per_s");
        List<Integer> point = pointColumns.stream().map(all::index).toList();
        Map<List<String>, Map<String, List<Double>>> byPoint = new LinkedHashMap<>();
        for (List<String> row : all.rows()) {
            if (!row.get(policy).equals(tuned) || row.get(setting).isEmpty()) continue;
            byPoint.computeIfAbsent(key(row, point), k -> new LinkedHashMap<>())
                    .computeIfAbsent(row.get(setting), k -> new ArrayList<>()).add(Double.parseDouble(row.get(goodput)));
        }
        Map<List<String>, String> chosen = new LinkedHashMap<>();
        for (Map.Entry<List<String>, Map<String, List<Double>>> e : byPoint.entrySet()) {
            String best = null;
            double bestGoodput = Double.NEGATIVE_INFINITY;
            for (Map.Entry<String, List<Double>> s : e.getValue().entrySet()) {
                double m = ResultTable.median(s.getValue());
                if (m > bestGoodput) {
                    bestGoodput = m;
                    best = s.getKey();
                }
            }
            chosen.put(e.getKey(), best);
        }
        return chosen;
    }

    /** The grid's setting of {@code label}; an unknown label is refused, naming it. */
    public static Setting setting(String label) {
        return setting(TritonPolicy.NAME, label);
    }

    /** {@code policy}'s setting of {@code label}; an unknown label is refused, naming it. */
    public static Setting setting(String policy, String label) {
        for (Setting s : settings(policy)) if (s.label().equals(label)) return s;
        throw new IllegalArgumentException("no setting '" + label + "' in " + (policy.equals(TritonPolicy.NAME) ? "Triton" : policy) + "'s grid");
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
        List<Integer> point = pointColumns.stream().map(all::index).toList();
        Map<List<String>, String> chosen = choose(all, pointColumns);
        ResultTable out = new ResultTable(all.columns());
        for (List<String> row : all.rows()) {
            boolean grid = row.get(policy).equals(TritonPolicy.NAME) && !row.get(setting).isEmpty();
            if (!grid || row.get(setting).equals(chosen.get(key(row, point)))) out.add(row);
        }
        return out;
    }

    private static List<String> key(List<String> row, List<Integer> columns) {
        List<String> k = new ArrayList<>(columns.size());
        for (int c : columns) k.add(row.get(c));
        return k;
    }
}
