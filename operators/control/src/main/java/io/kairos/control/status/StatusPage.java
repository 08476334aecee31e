package io.kairos.control.status;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status page: one HTML document with the snapshot rendered in it (it reads without
 * JavaScript): charts of the last minutes per model as inline SVG ({@link SvgChart}), then the
 * tables; and a script that fetches {@code /api/status} every {@value #REFRESH_MS} ms and
 * renders the same sections again from it ({@code status.js}, beside this class). Every name in it
 * comes from a decision, a result or the command line, so each is escaped here and set as text
 * (never as markup) by the script.
 */
public final class StatusPage {
    /** How often the page fetches the status again. */
    public static final int REFRESH_MS = 1500;

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final String SCRIPT = resource("status.js");
    private static final String STYLE = """
            body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
            h1{font-size:1.4em;margin:0} h2{font-size:1.15em;margin:1.4em 0 .4em} h3{font-size:1em;margin:.8em 0 .3em}
            table{border-collapse:collapse;margin:.2em 0} th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left}
            td.n{text-align:right;font-variant-numeric:tabular-nums} tr.all td{font-weight:bold}
            .group{border-left:3px solid #48c;padding-left:.8em;margin:.6em 0} .muted{color:#777}
            .warnings{background:#fff3cd;border:1px solid #e0c060;padding:.3em .8em} #refreshed.lost{color:#b00}
            .charts{display:flex;flex-wrap:wrap;gap:.6em 1.2em} svg.chart{border:1px solid #eee;background:#fff}
            tr.REJECTED td.status{color:#b00;font-weight:bold} tr.APPLIED td.status{color:#070} tr.DUPLICATE td.status{color:#777}
            """;

    private StatusPage() {}

    private static String resource(String name) {
        try (InputStream in = StatusPage.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException(name + " is missing beside " + StatusPage.class.getName());
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The whole page, with {@code s} rendered in it. */
    public static String html(StatusSnapshot s) {
        return html(s, null);
    }

    /** The whole page, its script marked with {@code nonce} (for a Content-Security-Policy) unless null. */
    public static String html(StatusSnapshot s, String nonce) {
        StringBuilder b = new StringBuilder(8192);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Kairos status</title>\n<style>")
                .append(STYLE).append("</style></head>\n<body data-rendered-by=\"server\">\n")
                .append("<header><h1>Kairos status</h1><p id=\"refreshed\" class=\"muted\">as of ").append(time(s.takenAtMicros()))
                .append(" UTC, plan version ").append(s.plan().version())
                .append("; this page fetches <a href=\"/api/status\">/api/status</a> every ").append(REFRESH_MS).append(" ms</p></header>\n");
        main(b, s);
        b.append(nonce == null ? "<script>" : "<script nonce=\"" + esc(nonce) + "\">").append("const REFRESH_MS = ").append(REFRESH_MS).append(";\n").append(SCRIPT).append("</script>\n</body></html>\n");
        return b.toString();
    }

    private static void main(StringBuilder b, StatusSnapshot s) {
        b.append("<main id=\"status\">\n");
        if (!s.warnings().isEmpty()) {
            b.append("<section id=\"warnings\" class=\"warnings\"><ul>");
            for (String w : s.warnings()) b.append("<li>").append(esc(w)).append("</li>");
            b.append("</ul></section>\n");
        }
        charts(b, s);
        groups(b, s);
        modelActions(b, s.modelActions());
        routing(b, s.plan());
        pipelines(b, s.plan());
        rates(b, s.rates());
        decisions(b, s.decisions());
        b.append("<section id=\"sources\"><h2>Read</h2><ul>");
        for (StatusSnapshot.Source src : s.sources()) {
            b.append("<li>").append(esc(src.role())).append(" from ").append(esc(src.topic())).append(": ").append(src.records()).append(" records")
                    .append(src.skipped() == 0 ? "" : ", " + src.skipped() + " skipped")
                    .append(src.lastReadAtMicros() == null ? "" : ", the last at " + time(src.lastReadAtMicros()) + " UTC").append("</li>");
        }
        b.append("</ul><p class=\"muted\">Started at ").append(time(s.startedAtMicros()))
                .append(" UTC; results and telemetry are counted from then on.</p></section>\n</main>\n");
    }

    private static void groups(StringBuilder b, StatusSnapshot s) {
        PlanView plan = s.plan();
        Map<Integer, DeviceLoads.Load> loads = new TreeMap<>();
        for (DeviceLoads.Load l : s.devices()) loads.put(l.device(), l);
        b.append("<section id=\"groups\"><h2>Serving groups</h2>\n");
        for (PlanView.Group g : plan.groups()) {
            b.append("<div class=\"group\" data-group=\"").append(esc(g.name())).append("\"><h3>group ").append(esc(g.name())).append("</h3>")
                    .append("<p class=\"policy\">policy <b>").append(esc(g.policy())).append("</b> ").append(esc(params(g.params()))).append("</p>");
            g.modelParams().forEach((model, params) ->
                    b.append("<p class=\"override\">for ").append(esc(model)).append(": ").append(esc(params(params))).append("</p>"));
            g.tables().forEach((model, table) ->
                    b.append("<p class=\"table\">batching table of ").append(esc(model)).append(": ").append(esc(table)).append("</p>"));
            if (g.network() != null) b.append("<p class=\"network\">rl network: ").append(esc(g.network())).append("</p>");
            b.append("<p class=\"routed\">models: ").append(esc(routedTo(plan, g.name()))).append("</p>");
            b.append("<table class=\"devices\"><thead><tr><th>device</th><th>models</th><th>batches</th><th>requests</th><th>busy</th>")
                    .append("<th>cold starts</th><th>loads</th><th>unloads</th><th>preempted</th></tr></thead><tbody>");
            for (PlanView.Device d : g.devices()) {
                DeviceLoads.Load l = loads.get(d.slot());
                b.append("<tr data-device=\"").append(d.slot()).append("\"><td class=\"n\">").append(esc(d.label())).append("</td><td>")
                        .append(d.everyModel() ? "<i>every model</i>" : esc(String.join(", ", d.models()))).append("</td>");
                if (l == null) {
                    b.append("<td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0%</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td><td class=\"n\">0</td>");
                } else {
                    b.append(cell(Long.toString(l.batches()))).append(cell(Long.toString(l.requests())))
                            .append(cell(String.format(Locale.ROOT, "%.0f%%", 100 * l.busyFraction())))
                            .append(cell(esc(l.coldStartsText()))).append(cell(esc(l.loadsText()))).append(cell(Long.toString(l.unloads())))
                            .append(cell(Long.toString(l.preempted())));
                }
                b.append("</tr>");
            }
            b.append("</tbody></table></div>\n");
        }
        b.append("<p id=\"released\">").append(esc(releasedLine(plan))).append("</p>\n");
        b.append("<p class=\"muted\">Device figures: the last ").append(s.deviceWindowSeconds())
                .append(" s of telemetry; a device in several groups is one device.</p></section>\n");
    }

    /** The devices that hold nothing, or that none is released. */
    static String releasedLine(PlanView plan) {
        if (plan.released().isEmpty()) return "Released devices: none (every device holds a model).";
        return "Released devices (holding nothing, no cost): " + String.join(", ", plan.released().stream().map(PlanView.Device::label).toList()) + ".";
    }

    /** The models a group serves: those routed to it, and for the default group every model routed nowhere else. */
    static String routedTo(PlanView plan, String group) {
        List<String> models = new ArrayList<>();
        plan.routing().forEach((model, g) -> {
            if (g.equals(group)) models.add(model);
        });
        if (group.equals(plan.defaultGroup())) models.add(plan.routing().isEmpty() ? "every model" : "every other model");
        return models.isEmpty() ? "none routed here" : String.join(", ", models);
    }

    private static void routing(StringBuilder b, PlanView plan) {
        b.append("<section id=\"routing\"><h2>Routing</h2><table><thead><tr><th>model</th><th>group</th></tr></thead><tbody>");
        plan.routing().forEach((model, group) -> b.append("<tr><td>").append(esc(model)).append("</td><td>").append(esc(group)).append("</td></tr>"));
        b.append("<tr><td><i>").append(plan.routing().isEmpty() ? "every model" : "every other model").append("</i></td><td>")
                .append(esc(plan.defaultGroup())).append("</td></tr></tbody></table></section>\n");
    }

    private static void pipelines(StringBuilder b, PlanView plan) {
        b.append("<section id=\"pipelines\"><h2>Pipelines</h2>");
        if (plan.pipelines().isEmpty()) {
            b.append("<p class=\"muted\">none</p></section>\n");
            return;
        }
        b.append("<table><thead><tr><th>pipeline</th><th>SLO p99 ms</th><th>stages</th><th>edges</th></tr></thead><tbody>");
        for (PlanView.Pipeline p : plan.pipelines()) {
            b.append("<tr data-pipeline=\"").append(esc(p.id())).append("\"><td>").append(esc(p.id())).append("</td>")
                    .append(cell(PlanView.plain(p.sloP99Ms()))).append("<td>").append(esc(String.join(", ", p.stages()))).append("</td><td>")
                    .append(p.edges().isEmpty() ? "<i>none</i>" : esc(String.join(", ", p.edges()))).append("</td></tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    private static void charts(StringBuilder b, StatusSnapshot s) {
        ServingHistory.Series series = s.series();
        List<Long> ends = series.endsAtMicros();
        long to = ends.isEmpty() ? s.takenAtMicros() : ends.get(ends.size() - 1);
        long from = to - (long) series.buckets() * series.bucketSeconds() * 1_000_000L;
        String span = span(series);
        String noBucket = "the first " + series.bucketSeconds() + " s are not over yet";
        List<SvgChart.Line> attainment = new ArrayList<>();
        List<SvgChart.Line> goodput = new ArrayList<>();
        List<SvgChart.Line> p99 = new ArrayList<>();
        // The models of each objective, in name order; a model whose results had several has none.
        Map<Double, List<Integer>> bySlo = new TreeMap<>();
        for (int i = 0; i < series.models().size(); i++) {
            ServingHistory.ModelSeries m = series.models().get(i);
            String colour = SvgChart.COLOURS.get(i % SvgChart.COLOURS.size());
            List<Double> percent = new ArrayList<>();
            for (Double v : m.sloAttainment()) percent.add(v == null ? null : 100 * v);
            attainment.add(new SvgChart.Line(m.model(), colour, percent, latest(percent, "%")));
            goodput.add(new SvgChart.Line(m.model(), colour, m.goodputPerSecond(), latest(m.goodputPerSecond(), "/s")));
            p99.add(new SvgChart.Line(m.model(), colour, m.p99Ms(), latest(m.p99Ms(), " ms")));
            if (m.sloMs() != null) bySlo.computeIfAbsent(m.sloMs(), v -> new ArrayList<>()).add(i);
        }
        // A line per objective: named alone when every model has it, in its model's colour when one has it.
        List<SvgChart.Reference> slos = new ArrayList<>();
        bySlo.forEach((slo, models) -> {
            String label = "SLO " + number(slo) + " ms";
            if (bySlo.size() == 1 && models.size() == series.models().size()) {
                slos.add(new SvgChart.Reference(label, "#555", slo));
                return;
            }
            List<String> names = new ArrayList<>();
            for (int i : models) names.add(series.models().get(i).model());
            slos.add(new SvgChart.Reference(label + ": " + String.join(", ", names),
                    models.size() == 1 ? SvgChart.COLOURS.get(models.get(0) % SvgChart.COLOURS.size()) : "#555", slo));
        });
        int rows = series.models().size() + slos.size();
        b.append("<section id=\"charts\"><h2>Last ").append(span).append(", per model</h2><div class=\"charts\">\n");
        b.append(SvgChart.svg("chart-attainment", "SLO attainment, %", new SvgChart.Axis(90, 100.0), from, to, ends, attainment, List.of(),
                ends.isEmpty() ? noBucket : "no results", rows)).append('\n');
        b.append(SvgChart.svg("chart-goodput", "Goodput, requests/s within their SLO", new SvgChart.Axis(0, null), from, to, ends, goodput, List.of(),
                ends.isEmpty() ? noBucket : "no results", rows)).append('\n');
        b.append(SvgChart.svg("chart-p99", "p99 latency, ms", new SvgChart.Axis(0, null), from, to, ends, p99, slos,
                ends.isEmpty() ? noBucket : "no request served", rows)).append('\n');
        b.append("</div><p class=\"muted\">Each point is one ").append(series.bucketSeconds())
                .append(" s of results, drawn at its end (UTC) once it is over; a model without results in it has no point there. "
                        + "SLO attainment: OK of all results; goodput: OK per second; p99: of the served requests.</p></section>\n");
    }

    /** How long the charts reach back: "5 minutes", "90 s". */
    static String span(ServingHistory.Series series) {
        int seconds = series.buckets() * series.bucketSeconds();
        return seconds % 60 == 0 ? seconds / 60 + (seconds == 60 ? " minute" : " minutes") : seconds + " s";
    }

    /** The last value of a line, as its legend shows it; "-" when it has none. */
    static String latest(List<Double> values, String unit) {
        for (int i = values.size() - 1; i >= 0; i--) {
            if (values.get(i) != null) return String.format(Locale.ROOT, "%.1f", values.get(i)) + unit;
        }
        return "-";
    }

    /** A whole number without decimals, any other with one. */
    static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static final String RATE_HEADER = "<thead><tr><th>model</th><th>results</th><th>ok</th><th>late</th><th>dropped</th>"
            + "<th>rejected</th><th>failed</th><th>SLO attainment</th><th>goodput/s</th><th>throughput/s</th><th>p50 ms</th><th>p99 ms</th>"
            + "<th>mean batch</th></tr></thead>";

    private static void rates(StringBuilder b, List<ServingRates.Window> windows) {
        b.append("<section id=\"rates\"><h2>Serving, per model</h2>\n");
        for (ServingRates.Window w : windows) {
            b.append("<h3>").append(esc(w.name())).append(String.format(Locale.ROOT, " <span class=\"muted\">(%.1f s)</span>", w.seconds())).append("</h3>");
            if (w.models().isEmpty()) {
                b.append("<p class=\"muted\">no results</p>\n");
                continue;
            }
            b.append("<table class=\"rates\">").append(RATE_HEADER).append("<tbody>");
            for (ServingRates.ModelRates r : w.models()) rateRow(b, r, "");
            if (w.models().size() > 1) rateRow(b, w.all(), " class=\"all\"");
            b.append("</tbody></table>\n");
        }
        b.append("<p class=\"muted\">SLO attainment: OK of all results (dropped and rejected count against it); goodput: OK per second; "
                + "latency from the client's send to the result; mean batch: the batch size the average executed request saw.</p></section>\n");
    }

    private static void rateRow(StringBuilder b, ServingRates.ModelRates r, String attrs) {
        b.append("<tr").append(attrs).append("><td>").append(esc(r.model())).append("</td>")
                .append(cell(Long.toString(r.total()))).append(cell(Long.toString(r.ok()))).append(cell(Long.toString(r.late())))
                .append(cell(Long.toString(r.dropped()))).append(cell(Long.toString(r.rejected()))).append(cell(Long.toString(r.failed())))
                .append(cell(r.sloAttainment() == null ? "-" : String.format(Locale.ROOT, "%.2f%%", 100 * r.sloAttainment())))
                .append(cell(String.format(Locale.ROOT, "%.1f", r.goodputPerSecond())))
                .append(cell(String.format(Locale.ROOT, "%.1f", r.throughputPerSecond())))
                .append(cell(fixed2(r.p50Ms()))).append(cell(fixed2(r.p99Ms()))).append(cell(fixed2(r.meanBatchSize()))).append("</tr>");
    }

    /** The latest loads and unloads the devices carried out, with why the scheduler made each. */
    private static void modelActions(StringBuilder b, List<ModelActions.Row> rows) {
        b.append("<section id=\"loads\"><h2>Last model loads</h2>\n");
        if (rows.isEmpty()) {
            b.append("<p class=\"muted\">no model loaded or unloaded by the scheduler yet (a model's first batch loads it)</p></section>\n");
            return;
        }
        b.append("<table><thead><tr><th>done (UTC)</th><th>group</th><th>device</th><th>model</th><th>action</th><th>why</th></tr></thead><tbody>");
        for (ModelActions.Row r : rows) {
            String why = r.why() == null ? "" : r.why();
            if (r.error() != null) why = why.isEmpty() ? r.error() : why + "; " + r.error();
            b.append("<tr class=\"").append(r.error() == null ? "ok" : "failed").append("\"><td>").append(time(r.endedAtMicros())).append("</td><td>")
                    .append(esc(r.group())).append("</td><td class=\"n\">").append(r.device()).append("</td><td>").append(esc(r.model()))
                    .append("</td><td class=\"status\">").append(r.action()).append("</td><td class=\"reason\">").append(esc(why)).append("</td></tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    private static void decisions(StringBuilder b, List<DecisionHistory.Row> rows) {
        b.append("<section id=\"decisions\"><h2>Last decisions</h2>\n");
        if (rows.isEmpty()) {
            b.append("<p class=\"muted\">no decision decided yet</p></section>\n");
            return;
        }
        b.append("<table><thead><tr><th>decided (UTC)</th><th>writer</th><th>version</th><th>key</th><th>outcome</th><th>reason</th>")
                .append("<th>decision</th></tr></thead><tbody>");
        for (DecisionHistory.Row r : rows) {
            b.append("<tr class=\"").append(esc(r.status())).append("\"><td>").append(time(r.decidedAtMicros())).append("</td><td>")
                    .append(esc(r.writer())).append("</td><td class=\"n\">").append(r.version()).append("</td><td>").append(esc(r.key()))
                    .append("</td><td class=\"status\">").append(esc(r.status())).append("</td><td class=\"reason\">").append(esc(r.reason()))
                    .append("</td><td>").append(r.action() == null ? "<i class=\"muted\">not on the control topic</i>" : esc(r.action()))
                    .append("</td></tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    /** Parameters as {@code {key=value, ...}} in key order. */
    static String params(Map<String, String> params) {
        return new TreeMap<>(params).toString();
    }

    static String time(long micros) {
        return TIME.format(Instant.ofEpochMilli(Math.floorDiv(micros, 1000)));
    }

    private static String fixed2(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String cell(String text) {
        return "<td class=\"n\">" + text + "</td>";
    }

    private static String esc(String text) {
        return Html.escape(text);
    }
}
