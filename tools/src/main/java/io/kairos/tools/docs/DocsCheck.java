package io.kairos.tools.docs;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The documentation's check: every relative link of README.md, BENCHMARKS.md and the pages under
 * docs/ reaches a file or folder of the repository, and every {@code #anchor} a heading or an
 * explicit anchor of the page it names; and each command line's reference (docs/reference/cli.md
 * for bin/kairos, the lab's page for bin/kairos-lab, checked where the lab's command line runs)
 * names every command of its command line and every option of {@code serve}. Links in code
 * (fenced blocks, inline code) and absolute URLs are not checked. BENCHMARKS.md's dashboard is
 * the one source of the figures ({@link Dashboard}); a link to one of its rows is a quote that must
 * hold the row's figure and status ({@link Quotes}); user pages hold no words of the lab's log
 * ({@link LabWords}).
 */
public final class DocsCheck {
    /** The generated command-line reference, relative to the repository's root. */
    public static final String CLI_REFERENCE = "docs/reference/cli.md";
    /** How the command-line reference is written again. */
    public static final String REGENERATE = regenerate("kairos", CLI_REFERENCE);

    /** How the reference {@code page} of the command line whose root is named {@code command} is written again: its script's {@code docs cli}. */
    public static String regenerate(String command, String page) {
        return "bin/" + command + " docs cli --output " + page;
    }

    /** One problem, at a line of a file (line 0: the file as a whole). */
    public record Problem(String file, int line, String message) {
        @Override
        public String toString() {
            return file + (line > 0 ? ":" + line : "") + ": " + message;
        }
    }

    /** What a check found, and how much it looked at. */
    public record Result(List<Problem> problems, int files, int links, int commands, int options, int rows, int quotes) {
        public String summary() {
            String looked = files + " files, " + links + " relative links, " + commands + " commands, " + options + " options of serve, "
                    + rows + " dashboard rows, " + quotes + (quotes == 1 ? " quote" : " quotes");
            return problems.isEmpty() ? "docs check: no problems (" + looked + ")"
                    : "docs check: " + problems.size() + (problems.size() == 1 ? " problem" : " problems") + " (" + looked + ")";
        }
    }

    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    private static final Pattern ATX = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*))?$");

    private final Path root;
    private final Map<Path, Markdown> pages = new HashMap<>();
    private final Map<Path, String> texts = new HashMap<>();

    private DocsCheck(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Checks the links of the pages under {@code root} and, with {@code commandLine} (the root command), the coverage of it by {@link #CLI_REFERENCE}. */
    public static Result check(Path root, CommandSpec commandLine) {
        return check(root, commandLine == null ? Map.of() : Map.of(CLI_REFERENCE, commandLine));
    }

    /**
     * Checks the links of the pages under {@code root} and each reference page's coverage of its
     * command line: {@code references} maps a page, relative to the root, to its command line's root command.
     */
    public static Result check(Path root, Map<String, CommandSpec> references) {
        DocsCheck check = new DocsCheck(root);
        List<Problem> problems = new ArrayList<>();
        List<Path> files = check.pagesToCheck(problems);
        int links = 0;
        for (Path file : files) {
            links += check.checkLinks(file, problems);
            check.checkLength(file, problems);
        }
        check.checkReach(files, problems);
        Path benchmarks = check.root.resolve(Dashboard.PAGE);
        Dashboard dashboard = files.contains(benchmarks) ? Dashboard.read(check.text(benchmarks)) : null;
        int quotes = 0;
        if (dashboard != null) {
            problems.addAll(dashboard.problems());
            for (Path file : files) quotes += check.checkQuotes(file, benchmarks, dashboard, problems);
        }
        for (Path file : files) check.checkLabWords(file, problems);
        int[] counted = new int[2];
        for (Map.Entry<String, CommandSpec> reference : references.entrySet()) {
            int[] covered = check.checkCoverage(reference.getKey(), reference.getValue(), problems);
            counted[0] += covered[0];
            counted[1] += covered[1];
        }
        return new Result(List.copyOf(problems), files.size(), links, counted[0], counted[1],
                dashboard == null ? 0 : dashboard.rows().size(), quotes);
    }

    /** The quotes of the dashboard on {@code file} (any page but BENCHMARKS.md itself) hold the rows' figures and statuses; returns how many. */
    private int checkQuotes(Path file, Path benchmarks, Dashboard dashboard, List<Problem> problems) {
        if (file.equals(benchmarks)) return 0;
        String name = relative(file);
        return Quotes.check(name, text(file), name.equals("README.md"), target -> target(file, target), benchmarks,
                dashboard.rows(), page(benchmarks).anchors(), problems);
    }

    /**
     * The user pages (all checked pages but the history, which is a dated log by design) hold no
     * words of the lab's log: see {@link LabWords}.
     */
    private void checkLabWords(Path file, List<Problem> problems) {
        String name = relative(file);
        if (!name.equals(Dashboard.HISTORY)) problems.addAll(LabWords.find(name, text(file)));
    }

    /** README.md, BENCHMARKS.md and every Markdown page under docs/, in that order (docs/ by path). */
    private List<Path> pagesToCheck(List<Problem> problems) {
        List<Path> files = new ArrayList<>();
        for (String top : List.of("README.md", "BENCHMARKS.md")) {
            Path p = root.resolve(top);
            if (Files.isRegularFile(p)) files.add(p);
            else problems.add(new Problem(top, 0, "missing"));
        }
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> walk = Files.walk(docs)) {
                walk.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md"))
                        .sorted((a, b) -> relative(a).compareTo(relative(b)))
                        .forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** The README's most lines: an entry point and a map, not a manual. */
    public static final int README_LINES = 200;
    /** A page's most lines, unless its head says why it is longer; BENCHMARKS.md's most, with no exception. */
    public static final int PAGE_LINES = 400;
    /** How many lines at a page's top may give the reason for its length. */
    private static final int HEAD_LINES = 20;

    /**
     * A page short enough to read at once: README.md at most {@link #README_LINES} lines; any other
     * page at most {@link #PAGE_LINES}, or a reason in its first lines that names the limit
     * ("... runs past 400 lines because ..."). BENCHMARKS.md at most {@link #PAGE_LINES}, no
     * reason accepted: it holds today's figures only, and grew to 2,089 lines with a reason.
     */
    private void checkLength(Path file, List<Problem> problems) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String name = relative(file);
        if (name.equals("README.md")) {
            if (lines.size() > README_LINES) problems.add(new Problem(name, 0, lines.size() + " lines, over the README's " + README_LINES));
            return;
        }
        if (name.equals(Dashboard.PAGE)) {
            if (lines.size() > PAGE_LINES) problems.add(new Problem(name, 0, lines.size() + " lines, over " + PAGE_LINES
                    + ", with no exception for this page: move every earlier figure to " + Dashboard.HISTORY));
            return;
        }
        if (lines.size() <= PAGE_LINES) return;
        boolean reasoned = lines.stream().limit(HEAD_LINES).anyMatch(l -> l.contains(PAGE_LINES + " lines"));
        if (!reasoned) problems.add(new Problem(name, 0, lines.size() + " lines, over " + PAGE_LINES
                + ", and no reason in its first " + HEAD_LINES + " lines (say why it runs past " + PAGE_LINES + " lines, or split it)"));
    }

    /** How many links from the README may lead to a page: its map, then the page the map names. */
    public static final int CLICKS = 2;

    /**
     * Every page under docs/ can be reached from README.md in at most {@link #CLICKS} links (a
     * page no one can find is as good as lost), following links between Markdown pages only.
     */
    private void checkReach(List<Path> files, List<Problem> problems) {
        Path readme = root.resolve("README.md");
        if (!Files.isRegularFile(readme)) return;
        Map<Path, Integer> clicks = new HashMap<>();
        clicks.put(readme, 0);
        List<Path> frontier = List.of(readme);
        for (int depth = 1; depth <= CLICKS; depth++) {
            List<Path> next = new ArrayList<>();
            for (Path from : frontier) {
                for (Markdown.Link link : page(from).links()) {
                    Path to = linkedPage(from, link.target());
                    if (to != null && !clicks.containsKey(to)) {
                        clicks.put(to, depth);
                        next.add(to);
                    }
                }
            }
            frontier = next;
        }
        for (Path file : files) {
            String name = relative(file);
            if (name.startsWith("docs/") && !clicks.containsKey(file)) {
                problems.add(new Problem(name, 0, "not reachable from README.md in " + CLICKS + " links"));
            }
        }
    }

    /** Where a link leads: a file of the repository, and its fragment (decoded), or null for none. */
    record Target(Path page, String fragment) {}

    /** Where relative link {@code target}, written in {@code from}, leads; null for an absolute URL or one outside the repository. */
    Target target(Path from, String target) {
        if (SCHEME.matcher(target).find() || target.startsWith("//")) return null;
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : decode(target.substring(hash + 1));
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        path = decode(path);
        Path resolved = path.isEmpty() ? from
                : (path.startsWith("/") ? root.resolve(path.substring(1)) : from.getParent().resolve(path)).normalize();
        return resolved.startsWith(root) ? new Target(resolved, fragment) : null;
    }

    /** The Markdown page a relative link leads to, or null (an absolute URL, another kind of file, a dead link). */
    private Path linkedPage(Path from, String target) {
        if (SCHEME.matcher(target).find() || target.startsWith("//")) return null;
        int cut = target.length();
        for (char c : new char[] {'#', '?'}) if (target.indexOf(c) >= 0) cut = Math.min(cut, target.indexOf(c));
        String path = decode(target.substring(0, cut));
        if (path.isEmpty()) return null;
        Path resolved = (path.startsWith("/") ? root.resolve(path.substring(1)) : from.getParent().resolve(path)).normalize();
        return resolved.startsWith(root) && isMarkdown(resolved) ? resolved : null;
    }

    /** Checks the relative links of {@code file}; returns how many it checked. */
    private int checkLinks(Path file, List<Problem> problems) {
        int checked = 0;
        for (Markdown.Link link : page(file).links()) {
            String target = link.target();
            if (SCHEME.matcher(target).find() || target.startsWith("//")) continue; // absolute: http, https, mailto ...
            checked++;
            String why = whyDead(file, target);
            if (why != null) problems.add(new Problem(relative(file), link.line(), "dead link '" + target + "' (" + why + ")"));
        }
        return checked;
    }

    /** Why {@code target}, written in {@code file}, leads nowhere, or null when it resolves. */
    private String whyDead(Path file, String target) {
        if (target.isEmpty()) return "empty target";
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : decode(target.substring(hash + 1));
        int query = path.indexOf('?');
        if (query >= 0) path = path.substring(0, query);
        path = decode(path);
        Path resolved;
        if (path.isEmpty()) {
            resolved = file;
        } else {
            resolved = (path.startsWith("/") ? root.resolve(path.substring(1)) : file.getParent().resolve(path)).normalize();
            if (!resolved.startsWith(root)) return "outside the repository";
            if (!Files.exists(resolved)) return "no such file or folder: " + relative(resolved);
        }
        if (fragment == null || fragment.isEmpty() || !isMarkdown(resolved)) return null;
        Markdown page = page(resolved);
        if (page.anchors().contains(fragment)) return null;
        String where = resolved.equals(file) ? "this page" : relative(resolved);
        String hint = page.anchors().contains(fragment.toLowerCase(Locale.ROOT)) ? "; anchors are lower case" : "";
        return "no heading or anchor '#" + fragment + "' in " + where + hint;
    }

    private static boolean isMarkdown(Path p) {
        return Files.isRegularFile(p) && p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md");
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private Markdown page(Path file) {
        return pages.computeIfAbsent(file, f -> Markdown.parse(text(f)));
    }

    private String text(Path file) {
        return texts.computeIfAbsent(file, f -> {
            try {
                return Files.readString(f);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private String relative(Path p) {
        return root.relativize(p.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    /**
     * Checks that the reference {@code page} names every command under {@code commandLine}'s root (as its
     * qualified name, e.g. {@code kairos control show}) and every long option of {@code serve}
     * (in serve's section when the page has one; a negatable one may be written {@code --[no-]name},
     * as its usage writes it). Returns {commands, options} checked.
     */
    private int[] checkCoverage(String page, CommandSpec commandLine, List<Problem> problems) {
        CommandSpec top = commandLine.root();
        List<CommandSpec> commands = new ArrayList<>();
        collect(top, commands);
        String regenerate = regenerate(top.name(), page);
        Path reference = root.resolve(page);
        if (!Files.isRegularFile(reference)) {
            problems.add(new Problem(page, 0, "missing (write it with " + regenerate + ")"));
            return new int[] {0, 0};
        }
        String text;
        try {
            text = Files.readString(reference);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (CommandSpec c : commands) {
            if (!mentions(text, c.qualifiedName(" "))) {
                problems.add(new Problem(page, 0, "missing command '" + c.qualifiedName(" ") + "' (regenerate with " + regenerate + ")"));
            }
        }
        int options = 0;
        CommandLine serve = top.subcommands().get("serve");
        if (serve != null) {
            String serveName = serve.getCommandSpec().qualifiedName(" ");
            String section = section(text, serveName);
            for (OptionSpec o : serve.getCommandSpec().options()) {
                if (o.hidden()) continue;
                for (String name : o.names()) {
                    if (!name.startsWith("--")) continue;
                    options++;
                    if (!mentions(section, name) && !(o.negatable() && mentions(section, "--[no-]" + name.replaceFirst("^--(no-)?", "")))) {
                        problems.add(new Problem(page, 0, "missing option '" + name + "' of '" + serveName + "' (regenerate with " + regenerate + ")"));
                    }
                }
            }
        }
        return new int[] {commands.size(), options};
    }

    /** {@code spec}'s subcommands, depth first in the order they were added, each once (aliases aside), hidden ones left out. */
    static void collect(CommandSpec spec, List<CommandSpec> into) {
        for (Map.Entry<String, CommandLine> e : spec.subcommands().entrySet()) {
            CommandSpec sub = e.getValue().getCommandSpec();
            if (!e.getKey().equals(sub.name()) || sub.usageMessage().hidden()) continue;
            into.add(sub);
            collect(sub, into);
        }
    }

    /** Whether {@code words} occur in {@code text} as whole words (a hyphen counts as part of a word). */
    private static boolean mentions(String text, String words) {
        return Pattern.compile("(?<![\\w-])" + Pattern.quote(words) + "(?![\\w-])").matcher(text).find();
    }

    /** The part of {@code text} under a heading that names {@code command}, up to the next heading as high; all of it when none does. */
    private static String section(String text, String command) {
        String[] lines = text.split("\\R", -1);
        boolean inFence = false;
        int start = -1;
        int level = 0;
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            String t = line.strip();
            if (t.startsWith("```") || t.startsWith("~~~")) inFence = !inFence;
            Matcher h = inFence ? null : ATX.matcher(line);
            if (h != null && h.matches()) {
                int l = h.group(1).length();
                if (start >= 0 && l <= level) break;
                if (start < 0 && h.group(2) != null && mentions(h.group(2).replace("`", ""), command)
                        && h.group(2).replace("`", "").strip().endsWith(command)) {
                    start = 1;
                    level = l;
                    continue;
                }
            }
            if (start >= 0) out.append(line).append('\n');
        }
        return start < 0 ? text : out.toString();
    }
}
