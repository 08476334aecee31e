package io.kairos.testbed.docs;

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
        String unescaped = blank(ESCAPE, text);
        List<int[]> found = new ArrayList<>();
        for (Pattern p : List.of(INLINE_LINK, REFERENCE_DEFINITION, HTML_LINK)) {
            for (Matcher m = p.matcher(p == HTML_LINK ? text : unescaped); m.find(); ) found.add(new int[] {m.start(1), m.end(1)});
        }
        found.sort((a, b) -> Integer.compare(a[0], b[0]));
        for (int[] at : found) {
            String target = text.substring(at[0], at[1]);
            if (target.startsWith("<") && target.endsWith(">")) target = target.substring(1, target.length() - 1);
            int line = start + 1 + (int) text.substring(0, at[0]).chars().filter(c -> c == '\n').count();
            links.add(new Link(line, target));
        }
        block.setLength(0);
        return -1;
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
