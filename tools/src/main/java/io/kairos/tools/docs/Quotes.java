package io.kairos.tools.docs;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Quotes of the dashboard: a link from a page to {@code BENCHMARKS.md#ID}, ID a dashboard row, says
 * "this figure is that row's". So the unit the link sits in ({@link Markdown#units}: its table cell,
 * else its paragraph or list item) must hold the row's today text, normalised as
 * {@link Markdown#normalised} (a link counts as its text, its target not at all), and its status: a
 * page that quotes a figure quotes today's, met or not met as the dashboard says, and fails the check
 * the day the row changes. In README.md, the page most read, a link into BENCHMARKS.md names a row
 * or is the bare page: a section's figures are not the dashboard's.
 */
final class Quotes {
    private static final Pattern NOT_MET = Pattern.compile("\\bnot\\s+met\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern MET = Pattern.compile("\\bmet\\b", Pattern.CASE_INSENSITIVE);

    /** Resolves a link written on a page to the page it leads to and its fragment, or null (absolute, outside, dead). */
    interface Resolver {
        DocsCheck.Target resolve(String target);
    }

    private Quotes() {}

    /**
     * Checks the quotes of {@code file} (its text {@code text}; {@code readme} when it is README.md)
     * against {@code rows}, whose page {@code benchmarks} is, with {@code anchors} its anchors; adds
     * what is wrong to {@code problems} and returns how many quotes it compared.
     */
    static int check(String file, String text, boolean readme, Resolver resolver, Path benchmarks,
                     Map<String, Dashboard.Row> rows, Set<String> anchors, List<DocsCheck.Problem> problems) {
        int quotes = 0;
        for (Markdown.Unit unit : Markdown.units(text)) {
            String shown = null;
            for (Markdown.Link link : Markdown.linksIn(unit.text(), unit.line())) {
                DocsCheck.Target to = resolver.resolve(link.target());
                if (to == null || !to.page().equals(benchmarks) || to.fragment() == null || to.fragment().isEmpty()) continue;
                Dashboard.Row row = rows.get(to.fragment());
                if (row == null) {
                    if (readme && anchors.contains(to.fragment())) {
                        problems.add(new DocsCheck.Problem(file, link.line(), "link '" + link.target() + "' into " + Dashboard.PAGE
                                + " names no dashboard row: link the row whose figure this is, or the bare page"));
                    }
                    continue;   // not a row and not a heading: a dead link, reported as one
                }
                quotes++;
                if (shown == null) shown = Markdown.normalised(unit.text());
                String why = whyNotAQuote(shown, row);
                if (why != null) problems.add(new DocsCheck.Problem(file, link.line(), "quote of " + Dashboard.PAGE + "#" + row.id() + " " + why));
            }
        }
        return quotes;
    }

    /** Why {@code unit} (normalised) does not quote {@code row} as the dashboard has it today, or null when it does. */
    static String whyNotAQuote(String unit, Dashboard.Row row) {
        if (!unit.contains(row.today())) {
            return "lacks the row's today '" + row.today() + "' (" + Dashboard.PAGE + ":" + row.line() + "): quote today's figure as the row writes it";
        }
        boolean notMet = NOT_MET.matcher(unit).find();
        switch (row.status().toLowerCase(Locale.ROOT)) {
            case "not met" -> {
                if (!notMet) return "does not say 'not met', the row's status: say it";
            }
            case "met" -> {
                if (notMet) return "says 'not met' where the row is met: say 'met'";
                if (!MET.matcher(unit).find()) return "does not say 'met', the row's status: say it";
            }
            default -> { } // watched: no status to quote
        }
        return null;
    }
}
