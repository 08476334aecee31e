package io.kairos.tools.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the link check needs of a Markdown page, read the way GitHub renders it: the anchors a link
 * may name (each heading's slug, and explicit {@code <a id>}/{@code <a name>} anchors) and the
 * relative links it holds, each with its line. Fenced code blocks, inline code and HTML comments
 * hold neither. Headings are the ATX kind ({@code # Title}); the pages use no other.
 */
public final class Markdown {

    /** A link's target as written (before any decoding) and the 1-based line it starts on. */
    public record Link(int line, String target) {}

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})(.*)$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a\\s[^>]*?\\b(?:id|name)\\s*=\\s*[\"']([^\"']+)[\"']", Pattern.CASE_INSENSITIVE);
    /** An inline link or image: [text](target "title"), the text holding at most one level of brackets. */
    private static final Pattern INLINE_LINK = Pattern.compile(
            "!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*(<[^<>\\n]*>|(?:[^\\s()]|\\([^\\s()]*\\))*)(?:\\s+(?:\"[^\"]*\"|'[^']*'|\\([^()]*\\)))?\\s*\\)");
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("(?m)^ {0,3}\\[(?!\\^)[^\\]]+\\]:[ \\t]*(<[^<>\\n]*>|\\S+)");
    private static final Pattern HTML_LINK = Pattern.compile("<(?:a|img)\\s[^>]*?\\b(?:href|src)\\s*=\\s*[\"']([^\"']*)[\"']", Pattern.CASE_INSENSITIVE);
    private static final Pattern COMMENT = Pattern.compile("<!--.*?-->", Pattern.DOTALL);
    private static final Pattern ESCAPE = Pattern.compile("\\\\[!-/:-@\\[-`{-~]");

    private final Set<String> anchors;
    private final List<Link> links;

    private Markdown(Set<String> anchors, List<Link> links) {
        this.anchors = anchors;
        this.links = links;
    }

    /** The anchors a link to this page may name, in the page's order. */
    public Set<String> anchors() {
        return anchors;
    }

    /** The page's links (relative and absolute alike), in the page's order. */
    public List<Link> links() {
        return links;
    }

    public static Markdown parse(String text) {
        String[] lines = text.split("\\R", -1);
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> slugs = new HashMap<>();
        List<Link> links = new ArrayList<>();
        StringBuilder block = new StringBuilder();
        int blockStart = -1;
        String fence = null;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (fence != null) {
                if (closes(line, fence)) fence = null;
                continue;
            }
            Matcher f = FENCE.matcher(line);
            if (f.matches() && !(f.group(1).charAt(0) == '`' && f.group(2).contains("`"))) {
                blockStart = flush(block, blockStart, links, anchors);
                fence = f.group(1);
                continue;
            }
            if (line.isBlank()) {
                blockStart = flush(block, blockStart, links, anchors);
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                blockStart = flush(block, blockStart, links, anchors);
                anchors.add(unique(slug(headingText(h.group(2) == null ? "" : h.group(2))), slugs));
                block.append(line);
                blockStart = flush(block, i, links, anchors);
                continue;
            }
            if (blockStart < 0) blockStart = i;
            else block.append('\n');
            block.append(line);
        }
        flush(block, blockStart, links, anchors);
        return new Markdown(anchors, List.copyOf(links));
    }

    /** Whether {@code line} closes a block opened by {@code fence}: the same character, at least as many, nothing after. */
    private static boolean closes(String line, String fence) {
        String t = line.strip();
        return line.indexOf(t) <= 3 && t.startsWith(fence) && t.chars().allMatch(c -> c == fence.charAt(0));
    }

    /** Reads the links and explicit anchors of one block of lines (a paragraph, a table, a heading) starting at line index {@code start}. */
    private static int flush(StringBuilder block, int start, List<Link> links, Set<String> anchors) {
        if (start < 0 || block.isEmpty()) {
            block.setLength(0);
            return -1;
        }
        String text = blank(COMMENT, withoutCodeSpans(block.toString()));
        for (Matcher m = EXPLICIT_ANCHOR.matcher(text); m.find(); ) anchors.add(m.group(1));
        links.addAll(linksIn(block.toString(), start + 1));
        block.setLength(0);
        return -1;
    }

    /** The links of a piece of a page (a block, a table cell) whose first line is {@code firstLine}; code spans and comments hold none. */
    static List<Link> linksIn(String piece, int firstLine) {
        String text = blank(COMMENT, withoutCodeSpans(piece));
        String unescaped = blank(ESCAPE, text);
        List<int[]> found = new ArrayList<>();
        for (Pattern p : List.of(INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK)) {
            for (Matcher m = p.matcher(p == HTML_LINK ? text : unescaped); m.find(); ) found.add(new int[] {m.start(1), m.end(1)});
        }
        found.sort((a, b) -> Integer.compare(a[0], b[0]));
        List<Link> links = new ArrayList<>();
        for (int[] at : found) {
            String target = text.substring(at[0], at[1]);
            if (target.startsWith("<") && target.endsWith(">")) target = target.substring(1, target.length() - 1);
            int line = firstLine + (int) text.substring(0, at[0]).chars().filter(c -> c == '\n').count();
            links.add(new Link(line, target));
        }
        return links;
    }

    /** {@code text} with every match of {@code p} turned to spaces (new lines kept, so that offsets and line numbers hold). */
    private static String blank(Pattern p, String text) {
        StringBuilder out = new StringBuilder(text);
        for (Matcher m = p.matcher(text); m.find(); ) {
            for (int i = m.start(); i < m.end(); i++) if (out.charAt(i) != '\n') out.setCharAt(i, ' ');
        }
        return out.toString();
    }

    /** {@code text} with its code spans (a run of backticks up to the next run as long) turned to spaces. */
    static String withoutCodeSpans(String text) {
        StringBuilder out = new StringBuilder(text);
        int i = 0;
        while (i < text.length()) {
            if (text.charAt(i) == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '`') {
                i += 2;
                continue;
            }
            if (text.charAt(i) != '`') {
                i++;
                continue;
            }
            int run = runOfBackticks(text, i);
            int close = closingRun(text, i + run, run);
            if (close < 0) {
                i += run;
                continue;
            }
            for (int j = i; j < close + run; j++) if (out.charAt(j) != '\n') out.setCharAt(j, ' ');
            i = close + run;
        }
        return out.toString();
    }

    private static int runOfBackticks(String text, int at) {
        int n = 0;
        while (at + n < text.length() && text.charAt(at + n) == '`') n++;
        return n;
    }

    private static int closingRun(String text, int from, int length) {
        for (int j = from; j < text.length(); ) {
            if (text.charAt(j) != '`') {
                j++;
                continue;
            }
            int run = runOfBackticks(text, j);
            if (run == length) return j;
            j += run;
        }
        return -1;
    }

    /** A heading's text as GitHub renders it: code spans' content, links' and images' text, no HTML tags or emphasis. */
    static String headingText(String heading) {
        StringBuilder plain = new StringBuilder();
        int i = 0;
        while (i < heading.length()) {
            char c = heading.charAt(i);
            if (c == '`') {
                int run = runOfBackticks(heading, i);
                int close = closingRun(heading, i + run, run);
                if (close >= 0) {
                    plain.append(heading, i + run, close);
                    i = close + run;
                    continue;
                }
                i += run;
                continue;
            }
            int end = i;
            while (end < heading.length() && heading.charAt(end) != '`') end++;
            plain.append(renderProse(heading.substring(i, end)));
            i = end;
        }
        return plain.toString().strip();
    }

    private static String renderProse(String s) {
        s = s.replaceAll("!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*\\])*)\\]\\([^)]*\\)", "$1"); // links and images: their text
        s = s.replaceAll("<[^>]*>", "");                                                  // HTML tags
        s = s.replaceAll("&[A-Za-z]+;|&#\\d+;", "");                                      // entities (punctuation, which the slug drops)
        s = s.replaceAll("(?<![\\p{L}\\p{N}])_+|_+(?![\\p{L}\\p{N}])", "");               // _emphasis_, not snake_case
        return s.replaceAll("\\\\(\\p{Punct})", "$1");
    }

    /**
     * Which of {@code lines} belong to a fenced code block, its fences included: what a page shows
     * as code, where the rules on prose (lab words, quotes) do not look.
     */
    static boolean[] fenced(String[] lines) {
        boolean[] in = new boolean[lines.length];
        String fence = null;
        for (int i = 0; i < lines.length; i++) {
            if (fence != null) {
                in[i] = true;
                if (closes(lines[i], fence)) fence = null;
                continue;
            }
            Matcher f = FENCE.matcher(lines[i]);
            if (f.matches() && !(f.group(1).charAt(0) == '`' && f.group(2).contains("`"))) {
                in[i] = true;
                fence = f.group(1);
            }
        }
        return in;
    }

    /** A page's lines, split the way {@link #parse} splits them (line i is line i + 1 of the file). */
    static String[] lines(String text) {
        return text.split("\\R", -1);
    }

    /** An ATX heading's level (1 to 6), or 0 when {@code line} is not a heading. */
    static int headingLevel(String line) {
        Matcher h = HEADING.matcher(line);
        return h.matches() ? h.group(1).length() : 0;
    }

    /** An ATX heading's text as it renders (see {@link #headingText}); empty when {@code line} is not a heading. */
    static String headingOf(String line) {
        Matcher h = HEADING.matcher(line);
        return h.matches() && h.group(2) != null ? headingText(h.group(2)) : "";
    }

    /** Whether {@code line} is a row of a table: the pages write every table with a leading pipe. */
    static boolean isTableRow(String line) {
        return line.strip().startsWith("|");
    }

    private static final Pattern DELIMITER_ROW = Pattern.compile("^\\|?\\s*:?-+:?\\s*(\\|\\s*:?-+:?\\s*)*\\|?$");

    /** Whether {@code line} is a table's delimiter row ({@code | --- | :-: |}). */
    static boolean isDelimiterRow(String line) {
        return DELIMITER_ROW.matcher(line.strip()).matches();
    }

    /** A table row's cells as written, each stripped: split at every pipe not escaped by a backslash (GitHub splits inside code spans too). */
    static List<String> cells(String row) {
        String t = row.strip();
        if (t.startsWith("|")) t = t.substring(1);
        if (t.endsWith("|") && !t.endsWith("\\|")) t = t.substring(0, t.length() - 1);
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '\\' && i + 1 < t.length() && t.charAt(i + 1) == '|') {
                cell.append("\\|");
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return cells;
    }

    private static final Pattern LINK_TEXT = Pattern.compile("!?\\[((?:[^\\[\\]]|\\[[^\\[\\]]*\\])*)\\]\\((?:[^()]|\\([^()]*\\))*\\)");
    private static final Pattern HTML_TAG = Pattern.compile("</?[A-Za-z][A-Za-z0-9-]*(?:\\s[^<>]*)?/?>");
    private static final Pattern ENTITY = Pattern.compile("&(?:[A-Za-z]+|#\\d+|#x[0-9A-Fa-f]+);");

    /**
     * What a reader sees of a piece of Markdown, as the contract of BENCHMARKS.md counts it: a link
     * or image counts as its text (its target not at all), HTML tags and comments are dropped, so
     * are the emphasis markers {@code **}, {@code *} and {@code _} and code spans' backticks (a code
     * span's content counts as written); an escaped character or an entity counts as one.
     */
    static String visible(String markdown) {
        String s = COMMENT.matcher(markdown).replaceAll("");
        for (String before = null; !s.equals(before); ) {     // nested: an image inside a link's text
            before = s;
            s = LINK_TEXT.matcher(s).replaceAll(m -> Matcher.quoteReplacement(m.group(1)));
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            if (s.charAt(i) == '`') {
                int run = runOfBackticks(s, i);
                int close = closingRun(s, i + run, run);
                if (close >= 0) {
                    String code = s.substring(i + run, close);
                    // A code span's one leading and trailing space are padding, as CommonMark strips them.
                    if (code.length() >= 2 && code.startsWith(" ") && code.endsWith(" ") && !code.isBlank()) code = code.substring(1, code.length() - 1);
                    out.append(code);
                    i = close + run;
                } else {
                    i += run;
                }
                continue;
            }
            int end = i;
            while (end < s.length() && s.charAt(end) != '`') end++;
            out.append(visibleProse(s.substring(i, end)));
            i = end;
        }
        return out.toString();
    }

    private static String visibleProse(String s) {
        s = HTML_TAG.matcher(s).replaceAll("");
        s = ENTITY.matcher(s).replaceAll("&");
        s = s.replaceAll("(?<!\\\\)\\*+", "");                                       // ** and * emphasis
        s = s.replaceAll("(?<![\\p{L}\\p{N}\\\\])_+|(?<!\\\\)_+(?![\\p{L}\\p{N}])", ""); // _emphasis_, not snake_case
        return s.replaceAll("\\\\(\\p{Punct})", "$1");
    }

    /** {@link #visible} with every run of white space one space, stripped: how a quote is compared with its row. */
    static String normalised(String markdown) {
        return visible(markdown).replaceAll("\\s+", " ").strip();
    }

    /** One unit of prose a quote must sit in: a table cell, a heading, a list item or a paragraph, from its first line. */
    record Unit(int line, String text) {}

    private static final Pattern LIST_MARKER = Pattern.compile("^\\s*(?:>\\s*)*(?:[-*+]|\\d{1,9}[.)])(?:\\s+|$)");

    /**
     * A page's units of prose, outside fenced code: each cell of a table row; a heading; otherwise
     * consecutive non-blank lines, a list item starting at its marker (a nested item starts a unit
     * of its own). Cells, not rows, because a row of a comparison holds several figures, each
     * quoting its own dashboard row.
     */
    static List<Unit> units(String text) {
        String[] lines = lines(text);
        boolean[] fenced = fenced(lines);
        List<Unit> units = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int start = -1;
        for (int i = 0; i <= lines.length; i++) {
            String line = i < lines.length ? lines[i] : "";
            boolean breaks = i == lines.length || fenced[i] || line.isBlank() || headingLevel(line) > 0 || isTableRow(line)
                    || LIST_MARKER.matcher(line).find();
            if (breaks && start >= 0) {
                units.add(new Unit(start + 1, current.toString()));
                current.setLength(0);
                start = -1;
            }
            if (i == lines.length || fenced[i] || line.isBlank()) continue;
            if (headingLevel(line) > 0) {
                units.add(new Unit(i + 1, line));
            } else if (isTableRow(line)) {
                for (String cell : cells(line)) units.add(new Unit(i + 1, cell));
            } else {
                if (start < 0) start = i;
                else current.append('\n');
                current.append(line);
            }
        }
        return units;
    }

    /** GitHub's slug of a heading's text: lower case; letters, digits, spaces, '-' and '_' kept, all else dropped; spaces to '-'. */
    public static String slug(String text) {
        StringBuilder out = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') out.appendCodePoint(c);
            else if (c == ' ') out.append('-');
        });
        return out.toString();
    }

    /** {@code slug}, or when a heading before it had the same one, {@code slug-1}, {@code slug-2} ... (GitHub's rule). */
    private static String unique(String slug, Map<String, Integer> seen) {
        String result = slug;
        while (seen.containsKey(result)) {
            int n = seen.merge(slug, 1, Integer::sum);
            result = slug + "-" + n;
        }
        seen.putIfAbsent(result, 0);
        return result;
    }
}
