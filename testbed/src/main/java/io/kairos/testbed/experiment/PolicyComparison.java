package io.kairos.testbed.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Claims that one policy (Kairos') does better than every other policy run, point by point, on
 * a metric's median over seeds. Two policies tie at a point where their seeds' ranges (least to
 * greatest) overlap: a median ahead inside the other's range is no win, and a median behind
 * inside it no loss. With one seed a range is a point, and only equal values tie.
 */
final class PolicyComparison {
    private final ResultTable results;
    private final List<String> pointColumns;
    private final String ours;

    PolicyComparison(ResultTable results, List<String> pointColumns, String ours) {
        this.results = results;
        this.pointColumns = List.copyOf(pointColumns);
        this.ours = ours;
    }

    /** Our median of {@code metric} is at least (or, lower being better, at most) every other policy's at every point. */
    Experiment.Claim atLeastTheBest(String statement, String metric, boolean higherIsBetter) {
        return compare(statement, metric, higherIsBetter, false, Double.NaN);
    }

    /**
     * Our median is strictly better than every other policy's wherever the best of the others has
     * not reached {@code ceiling} (NaN: everywhere).
     */
    Experiment.Claim betterThanTheBest(String statement, String metric, boolean higherIsBetter, double ceiling) {
        return compare(statement, metric, higherIsBetter, true, ceiling);
    }

    /** Whether two seeds' ranges (least, greatest) overlap: neither median is a win over the other. */
    static boolean tie(double[] range, double[] other) {
        return range[0] <= other[1] && other[0] <= range[1];
    }

    private Experiment.Claim compare(String statement, String metric, boolean higherIsBetter, boolean strictly, double ceiling) {
        List<String> policies = results.distinct("policy");
        if (!policies.contains(ours) || policies.size() < 2) {
            return new Experiment.Claim(statement, Experiment.Claim.Verdict.SKIP, ours + " and at least one other policy must be run");
        }
        int points = 0;
        int ties = 0;
        List<String> failing = new ArrayList<>();
        for (List<String> point : results.distinct(pointColumns)) {
            Map<String, String> at = new LinkedHashMap<>();
            for (int i = 0; i < pointColumns.size(); i++) at.put(pointColumns.get(i), point.get(i));
            at.put("policy", ours);
            double mine = results.median(metric, at);
            String bestPolicy = null;
            double best = Double.NaN;
            for (String p : policies) {
                if (p.equals(ours)) continue;
                at.put("policy", p);
                double v = results.median(metric, at);
                if (Double.isNaN(v)) continue;
                if (bestPolicy == null || (higherIsBetter ? v > best : v < best)) {
                    best = v;
                    bestPolicy = p;
                }
            }
            if (bestPolicy == null) continue;
            if (strictly && !Double.isNaN(ceiling) && (higherIsBetter ? best >= ceiling : best <= ceiling)) continue;
            points++;
            at.put("policy", ours);
            double[] myRange = results.range(metric, at);
            at.put("policy", bestPolicy);
            double[] bestRange = results.range(metric, at);
            boolean tie = !Double.isNaN(mine) && tie(myRange, bestRange);
            int order = tie ? 0 : Double.compare(mine, best) * (higherIsBetter ? 1 : -1);
            if (tie) ties++;
            if (Double.isNaN(mine) || order < 0 || (strictly && order == 0)) {
                failing.add(String.format(Locale.ROOT, "%s: %s %.6g, %s %.6g%s", String.join("/", point), ours, mine, bestPolicy, best, tie ? " (a tie: the seeds' ranges overlap)" : ""));
            }
        }
        String tied = ties == 0 ? "" : String.format(Locale.ROOT, ", %d a tie (the seeds' ranges overlap)", ties);
        if (failing.isEmpty()) {
            return new Experiment.Claim(statement, Experiment.Claim.Verdict.PASS, points + "/" + points + " points" + tied);
        }
        return new Experiment.Claim(statement, Experiment.Claim.Verdict.FAIL, (points - failing.size()) + "/" + points
                + " points" + tied + "; not at " + String.join("; ", failing));
    }
}
