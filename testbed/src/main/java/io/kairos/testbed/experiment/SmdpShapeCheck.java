package io.kairos.testbed.experiment;

import io.kairos.testbed.experiment.Experiment.Claim;
import io.kairos.testbed.experiment.Experiment.Claim.Verdict;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The SMDP paper's claims (Figs 4 to 8, Table I) checked against {@code experiment smdp}'s CSVs. */
final class SmdpShapeCheck {
    private SmdpShapeCheck() {}

    static List<Claim> check(ResultTable fig4, ResultTable fig5, ResultTable fig6, ResultTable table1) {
        List<Claim> claims = new ArrayList<>();
        fig4(fig4, claims);
        fig5(fig5, claims);
        simulated(fig5, claims);
        tradeoff(fig6, claims);
        table1(table1, claims);
        return claims;
    }

    /**
     * Ours, not the paper's: the simulator running the scheduler's policies measures what the
     * stationary analysis computes, at every point on every seed (the largest of a point's
     * seeds' gaps, {@code gap_low} and {@code gap_high}, where the table has them; else its gap).
     */
    static void simulated(ResultTable t, List<Claim> claims) {
        double worst = 0;
        String worstAt = "";
        List<String> missing = new ArrayList<>();
        int points = 0;
        int cost = t.index("cost"), gap = t.index("gap");
        boolean seeds = t.columns().contains("gap_low");
        String perSeed = seeds ? " on each of its " + t.rows().stream().map(r -> r.get(t.index("sim_seeds"))).filter(v -> !v.isEmpty()).findFirst().orElse("?") + " seeds" : "";
        for (List<String> row : t.rows()) {
            if (row.get(cost).isEmpty()) continue;
            String at = row.get(t.index("policy")) + " at rho " + row.get(t.index("rho")) + " w2 " + row.get(t.index("w2"));
            if (row.get(gap).isEmpty()) {
                missing.add(at);
                continue;
            }
            points++;
            List<Double> gaps = seeds ? List.of(Double.parseDouble(row.get(t.index("gap_low"))), Double.parseDouble(row.get(t.index("gap_high"))))
                    : List.of(Double.parseDouble(row.get(gap)));
            for (double g : gaps) {
                if (Math.abs(g) >= Math.abs(worst)) {
                    worst = g;
                    worstAt = at;
                }
            }
        }
        boolean holds = missing.isEmpty() && Math.abs(worst) < SmdpExperiment.SIM_TOLERANCE;
        claims.add(claim(String.format(Locale.ROOT, "Fig 5: simulated and analytic average cost agree within %.0f%% at every point%s",
                        100 * SmdpExperiment.SIM_TOLERANCE, perSeed), holds,
                missing.isEmpty() ? String.format(Locale.ROOT, "%d points, largest gap %+.2f%% (%s)", points, 100 * worst, worstAt)
                        : "not simulated: " + missing));
    }

    /** Figs 6 and 7: the SMDP curve against the baselines' points (analytic). */
    private static void tradeoff(ResultTable t, List<Claim> claims) {
        List<String> ends = new ArrayList<>();
        List<String> below = new ArrayList<>();
        double worstEnd = 0;
        for (String rho : t.distinct("rho")) {
            double[][] curve = curve(t, rho);
            double[] wc = point(t, rho, "work-conserving");
            double[] max = point(t, rho, "static-32");
            double[] first = curve[0], last = curve[curve.length - 1];
            for (double[] pair : new double[][]{{wc[0], first[0]}, {wc[1], first[1]}, {max[0], last[0]}, {max[1], last[1]}}) {
                double d = Math.abs(pair[0] / pair[1] - 1);
                worstEnd = Math.max(worstEnd, d);
                if (d > Targets.of("smdp", "ends")) ends.add("rho " + rho);
            }
            for (String policy : SmdpExperiment.BASELINES) {
                double[] b = point(t, rho, policy);
                double onCurve = interpolate(curve, 0, 1, b[0]);
                if (!Double.isNaN(onCurve) && b[1] < onCurve * (1 - Targets.of("smdp", "below-curve"))) {
                    below.add(String.format(Locale.ROOT, "%s at rho %s: %.2f W, the curve %.2f W", policy, rho, b[1], onCurve));
                }
            }
        }
        claims.add(claim("Figs 6-7: work-conserving and maximum batching sit at the two ends of the SMDP curve (latency and power within 2% of w2 = 0 and w2 = 500)",
                ends.isEmpty(), ends.isEmpty() ? String.format(Locale.ROOT, "largest difference %.2f%%", 100 * worstEnd) : "not at " + ends));
        claims.add(claim("Figs 6-7: no baseline uses more than 1% less power than the SMDP curve at its latency (none below the curve in Fig 6, above it in Fig 7)",
                below.isEmpty(), below.isEmpty() ? "every baseline within the curve's latency range, at every rho" : "below: " + below));

        double[] s8 = point(t, "0.7", "static-8");
        double curveAt8 = interpolate(curve(t, "0.7"), 0, 1, s8[0]);
        claims.add(claim("Fig 6: static 8 is above the SMDP curve at rho 0.7 (more power at the same latency; Fig 7: less efficient)",
                s8[1] > curveAt8, String.format(Locale.ROOT, "%.2f W at %.2f ms, the curve %.2f W (%+.1f%%)", s8[1], s8[0], curveAt8, 100 * (s8[1] / curveAt8 - 1))));
        double[] s16 = point(t, "0.9", "static-16");
        double curveAt16 = interpolate(curve(t, "0.9"), 1, 0, s16[1]);
        claims.add(claim("Fig 6: static 16 has considerably longer latency at rho 0.9 (at least 20% more than the SMDP table at the same power)",
                s16[0] >= (1 + Targets.of("smdp", "static16-latency")) * curveAt16, String.format(Locale.ROOT, "%.2f ms at %.2f W, the curve %.2f ms", s16[0], s16[1], curveAt16)));
    }

    /** The SMDP curve at {@code rho}: {latency, power} per w2 with a value, by latency. */
    private static double[][] curve(ResultTable t, String rho) {
        List<double[]> points = new ArrayList<>();
        int lat = t.index("latency_ms"), pow = t.index("power_w");
        for (List<String> row : t.rows()) {
            if (!t.where(Map.of("rho", rho, "policy", SmdpExperiment.SMDP)).test(row) || row.get(lat).isEmpty()) continue;
            points.add(new double[]{Double.parseDouble(row.get(lat)), Double.parseDouble(row.get(pow))});
        }
        points.sort(java.util.Comparator.comparingDouble(p -> p[0]));
        return points.toArray(double[][]::new);
    }

    /** A baseline's {latency, power}; NaNs when it has none (unstable). */
    private static double[] point(ResultTable t, String rho, String policy) {
        return new double[]{t.median("latency_ms", Map.of("rho", rho, "policy", policy)), t.median("power_w", Map.of("rho", rho, "policy", policy))};
    }

    /** The curve's coordinate {@code to} where its coordinate {@code from} is {@code x}, linearly between points; NaN outside. */
    static double interpolate(double[][] curve, int from, int to, double x) {
        for (int i = 0; i + 1 < curve.length; i++) {
            double a = curve[i][from], b = curve[i + 1][from];
            if ((x - a) * (x - b) <= 0 && a != b) return curve[i][to] + (curve[i + 1][to] - curve[i][to]) * (x - a) / (b - a);
        }
        return Double.NaN;
    }

    private static void fig4(ResultTable t, List<Claim> claims) {
        List<String> notLimit = new ArrayList<>();
        List<String> falling = new ArrayList<>();
        List<String> at500 = new ArrayList<>();
        List<String> at0 = new ArrayList<>();
        for (String rho : t.distinct("rho")) {
            int previous = -1;
            for (String w2 : t.distinct("w2")) {
                int limit = -1;
                boolean ok = true;
                for (int s = 0; s <= SmdpExperiment.FIG4_STATES; s++) {
                    double a = t.median("action", Map.of("rho", rho, "w2", w2, "state", Integer.toString(s)));
                    if (a > 0 && limit < 0) limit = s;
                    if (limit >= 0 && a == 0) ok = false;
                }
                if (!ok || limit < 0) notLimit.add("rho " + rho + " w2 " + w2);
                if (limit < previous) falling.add("rho " + rho + " w2 " + w2 + ": " + limit + " < " + previous);
                previous = limit;
                if (w2.equals("500")) at500.add(Integer.toString(limit));
                if (w2.equals("0")) at0.add(Integer.toString(limit));
            }
        }
        claims.add(claim("Fig 4: every optimal table is a control limit (wait below it, serve at and above it)", notLimit.isEmpty(),
                notLimit.isEmpty() ? t.distinct(List.of("rho", "w2")).size() + " tables" : "not: " + notLimit));
        claims.add(claim("Fig 4: the control limit grows with w2 at every rho", falling.isEmpty(), falling.isEmpty() ? "w2 0, 0.1, 1, 500" : "falls: " + falling));
        claims.add(claim("Fig 4: at w2 = 500 the control limit is B_max = 32 at every rho", at500.stream().allMatch("32"::equals), "limits " + at500));
        double near = Targets.of("smdp", "fig4-limit-near-1");
        claims.add(claim("Fig 4: at w2 = 0 the control limits are close to 1 (at most " + io.kairos.tools.format.Numbers.significant(near) + ")",
                at0.stream().allMatch(l -> Integer.parseInt(l) <= near), "limits " + at0));
    }

    static void fig5(ResultTable t, List<Claim> claims) {
        List<String> beaten = new ArrayList<>();
        double worstWcGap = Double.POSITIVE_INFINITY;
        String worstWcAt = "";
        for (String rho : t.distinct("rho")) {
            for (String w2 : t.distinct("w2")) {
                double smdp = t.median("cost", Map.of("rho", rho, "w2", w2, "policy", "smdp"));
                for (String policy : t.distinct("policy")) {
                    double c = t.median("cost", Map.of("rho", rho, "w2", w2, "policy", policy));
                    if (!Double.isNaN(c) && c < smdp * (1 - 1e-6)) beaten.add(policy + " at rho " + rho + " w2 " + w2);
                }
                if (Double.parseDouble(w2) >= 10 && !rho.equals("0.9")) {
                    double gap = t.median("cost", Map.of("rho", rho, "w2", w2, "policy", "work-conserving")) / smdp - 1;
                    if (gap < worstWcGap) {
                        worstWcGap = gap;
                        worstWcAt = "rho " + rho + " w2 " + w2;
                    }
                }
            }
        }
        claims.add(claim("Fig 5: the SMDP table has the least average cost at every rho and w2", beaten.isEmpty(),
                beaten.isEmpty() ? t.distinct("rho").size() * t.distinct("w2").size() + " settings, 4 baselines" : "beaten: " + beaten));
        claims.add(claim("Fig 5: work-conserving is far from optimal for large w2 (>= 10% above the SMDP at w2 >= 10, rho <= 0.7)", worstWcGap >= Targets.of("smdp", "wc-gap"),
                String.format(Locale.ROOT, "smallest gap %.1f%% at %s", 100 * worstWcGap, worstWcAt)));
        double max01 = Double.POSITIVE_INFINITY;
        for (String w2 : t.distinct("w2")) {
            if (Double.parseDouble(w2) > 5) continue;
            double r = t.median("cost", Map.of("rho", "0.1", "w2", w2, "policy", "static-32")) / t.median("cost", Map.of("rho", "0.1", "w2", w2, "policy", "smdp"));
            max01 = Math.min(max01, r);
        }
        claims.add(claim("Fig 5: maximum batching (static 32) is bad at rho 0.1 (at least twice the SMDP's cost for w2 <= 5)", max01 >= Targets.of("smdp", "static32-ratio"),
                String.format(Locale.ROOT, "least ratio %.2f", max01)));
        boolean unstable = Double.isNaN(t.median("cost", Map.of("rho", "0.9", "w2", "1", "policy", "static-8")));
        claims.add(claim("Figs 6-7: static 8 does not stabilise the queue at rho >= 0.8 (no cost at rho 0.9)", unstable,
                unstable ? "unstable at rho 0.9" : "has a cost at rho 0.9"));
    }

    private static void table1(ResultTable t, List<Claim> claims) {
        List<String> far = new ArrayList<>();
        int[] sMax = new int[t.size()];
        int[] iterations = new int[t.size()];
        double[] ops = new double[t.size()];
        int i = 0;
        for (List<String> r : t.rows()) {
            String co = r.get(t.index("c_o"));
            if (r.get(t.index("min_s_max")).isEmpty()) {
                far.add("c_o " + co + ": never acceptable up to s_max " + SmdpExperiment.FIG8_TO);
                i++;
                continue;
            }
            sMax[i] = Integer.parseInt(r.get(t.index("min_s_max")));
            iterations[i] = Integer.parseInt(r.get(t.index("iterations")));
            ops[i] = Double.parseDouble(r.get(t.index("paper_multiplications")));
            int paperSMax = (int) Double.parseDouble(r.get(t.index("paper_min_s_max")));
            double g = Double.parseDouble(r.get(t.index("g")));
            double paperG = Double.parseDouble(r.get(t.index("paper_g")));
            if (Math.abs(sMax[i] - paperSMax) > Targets.of("smdp", "table1-s-max")) far.add("c_o " + co + ": s_max " + sMax[i] + " vs " + paperSMax);
            if (Math.abs(g - paperG) > Targets.of("smdp", "table1-g")) far.add("c_o " + co + ": g " + g + " vs " + paperG);
            i++;
        }
        claims.add(claim("Table I: min s_max within 3 of the paper's and g within 0.01 for every c_o", far.isEmpty(),
                far.isEmpty() ? "s_max " + java.util.Arrays.toString(sMax) + " (paper [89, 78, 70, 161, 192])" : String.join("; ", far)));
        if (sMax.length == 5 && sMax[2] > 0) {
            boolean least = sMax[2] <= sMax[0] && sMax[2] <= sMax[1] && sMax[2] < sMax[3] && sMax[2] < sMax[4];
            claims.add(claim("Table I: c_o = 100 needs the least s_max", least, "s_max " + java.util.Arrays.toString(sMax)));
            boolean capped = iterations[3] == 10_000 && iterations[4] == 10_000 && iterations[0] > iterations[1] && iterations[1] > iterations[2];
            claims.add(claim("Table I: c_o = 10 and 0 run to iter_max; iterations fall from c_o = 10^4 to 100", capped,
                    "iterations " + java.util.Arrays.toString(iterations) + " (paper [1847, 1635, 1483, 10000, 10000])"));
            double space = 1 - (double) sMax[2] / sMax[4];
            double time = 1 - ops[2] / ops[4];
            claims.add(claim("Table I: c_o = 100 against c_o = 0 saves 63.5% space and 98% time (within 3 points)",
                    Math.abs(space - 0.635) <= Targets.of("smdp", "table1-savings") && Math.abs(time - 0.98) <= Targets.of("smdp", "table1-savings"),
                    String.format(Locale.ROOT, "space %.1f%%, time %.1f%%", 100 * space, 100 * time)));
        }
    }

    private static Claim claim(String statement, boolean holds, String evidence) {
        return new Claim(statement, holds ? Verdict.PASS : Verdict.FAIL, evidence);
    }
}
