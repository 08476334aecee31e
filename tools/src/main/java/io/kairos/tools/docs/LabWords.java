package io.kairos.tools.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Words of the lab's log that a user page may not hold: a user reads the pages as what is true
 * today, and "this evening", "issue 28", a commit hash or the lab's helpers say when and by whom a
 * figure was measured, which the reader cannot use (the date cell and the history say when). Looked
 * for outside fenced code (a command's output may hold a hash); inline code counts, as it is prose
 * shown in a code font. Case does not matter; a phrase may wrap over two lines.
 */
final class LabWords {
    /** One kind of word: how it is found, and what to do instead. */
    private record Rule(Pattern pattern, String what, String instead) {}

    private static final int I = Pattern.CASE_INSENSITIVE;

    private static final List<Rule> RULES = List.of(
            // 7 to 40 hex characters with a digit and a letter, not part of a longer word: a short or
            // full commit hash; "deadbeef" (no digit) and "2026" (no letter) are words and numbers.
            new Rule(Pattern.compile("(?<![A-Za-z0-9])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![A-Za-z0-9])", I),
                    "commit hash", "name the version or the date, not the commit"),
            new Rule(Pattern.compile("\\b\\d{1,2}:\\d{2}(?::\\d{2})?\\s+UTC\\b", I),
                    "clock time", "the date is enough; drop the time of day"),
            new Rule(Pattern.compile("\\b(?:this\\s+(?:morning|afternoon|evening)|in\\s+the\\s+(?:morning|afternoon|evening)|tonight|yesterday"
                    + "|last\\s+night|earlier\\s+(?:that|this)\\s+day|earlier\\s+today)\\b", I),
                    "time of day", "say the date, or nothing: the page describes today"),
            new Rule(Pattern.compile("\\bissues?\\s+#?\\d+", I),
                    "issue number", "say what was decided, not where"),
            new Rule(Pattern.compile("\\bhelper(?:'s\\b|s'|s\\b|\\b)", I),
                    "the lab's helper", "say what ran beside it (e.g. other builds sharing the cores)"));

    private LabWords() {}

    /** Every lab word of {@code text} (the page {@code file}), one problem each at the line it starts on, in the page's order. */
    static List<DocsCheck.Problem> find(String file, String text) {
        String[] lines = Markdown.lines(text);
        boolean[] fenced = Markdown.fenced(lines);
        StringBuilder prose = new StringBuilder();
        int[] lineStart = new int[lines.length];
        for (int i = 0; i < lines.length; i++) {
            lineStart[i] = prose.length();
            // A fenced line is kept as blanks of its length so that offsets still map to lines.
            prose.append(fenced[i] ? " ".repeat(lines[i].length()) : lines[i]).append('\n');
        }
        List<int[]> found = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        for (Rule rule : RULES) {
            for (Matcher m = rule.pattern().matcher(prose); m.find(); ) {
                String word = m.group().replaceAll("\\s+", " ");
                found.add(new int[] {m.start(), messages.size()});
                messages.add(rule.what() + " '" + word + "' on a user page: " + rule.instead());
            }
        }
        found.sort((a, b) -> Integer.compare(a[0], b[0]));
        List<DocsCheck.Problem> problems = new ArrayList<>();
        for (int[] f : found) problems.add(new DocsCheck.Problem(file, lineOf(lineStart, f[0]), messages.get(f[1])));
        return problems;
    }

    private static int lineOf(int[] lineStart, int offset) {
        int line = 0;
        while (line + 1 < lineStart.length && lineStart[line + 1] <= offset) line++;
        return line + 1;
    }
}
